/** Memory that follows the project (issue 18): orphans, relink, clone groups, merges and their undo. Thin: src/main/relink does the work. */
import {
  cloneGroups,
  conflictSides,
  findOrphans,
  finishUnfinishedTurn,
  keepApart,
  listMergeRecords,
  mergeProjects,
  planMerge,
  planRelink,
  readKeptApart,
  relink,
  type RelinkContext,
  resolveMergeConflict,
  turnEntries,
  shownMergeConflict,
  shownMergePlan,
  shownMergeRecord,
  undoMerge,
} from '../relink/index.js';
import type { MergeRecord } from '../../shared/contract/identity.js';
import { loadAppSettings } from '../settings/index.js';
import { type AppContext } from '../app/index.js';
import type { Handlers } from './dispatch.js';

async function relinkContext(ctx: AppContext): Promise<RelinkContext> {
  const { settings } = await loadAppSettings(ctx.dataDir);
  return { home: ctx.home, dataDir: ctx.dataDir, env: ctx.env, workspaces: settings.workspaces.folders };
}

/**
 * What every merge handler does first: finish a turn a killed Memdir left between a merge's folders
 * (relink/turn-as-one.ts); its sentence waits in the context until the dashboard asks
 * (`identity.recovered`), where merge results show.
 */
export async function finishTurnFirst(ctx: AppContext): Promise<void> {
  const sentence = await finishUnfinishedTurn(ctx.dataDir);
  if (sentence) ctx.turnNotices.push(sentence);
}

/** Every directory a merge changed is news for the dashboard and any open project; the record is answered as it may be shown (a secret in a conflict's name masked). */
function announce<R extends MergeRecord>(ctx: AppContext, record: R): Promise<R> {
  for (const t of record.touched) ctx.changed(record.plan.target.dir, t.memoryDir);
  if (record.plan.source.dir && record.plan.source.memoryDir) ctx.changed(record.plan.source.dir, record.plan.source.memoryDir);
  return shownMergeRecord(record);
}

export const identityHandlers: Pick<
  Handlers,
  | 'identity.orphans'
  | 'identity.planRelink'
  | 'identity.relink'
  | 'identity.cloneGroups'
  | 'identity.planMerge'
  | 'identity.merge'
  | 'identity.keepApart'
  | 'identity.merges'
  | 'identity.undo'
  | 'identity.recovered'
  | 'identity.conflict'
  | 'identity.resolve'
> = {
  async 'identity.orphans'({ lookIn }, ctx) {
    await finishTurnFirst(ctx);
    const rc = await relinkContext(ctx);
    return findOrphans(rc.home, { dataDir: rc.dataDir, env: ctx.env, workspaces: rc.workspaces ?? [], lookIn });
  },
  async 'identity.planRelink'({ dir, path }, ctx) {
    await finishTurnFirst(ctx);
    return shownMergePlan((await planRelink(await relinkContext(ctx), dir, path)).plan);
  },
  async 'identity.relink'({ dir, path, force }, ctx) {
    await finishTurnFirst(ctx);
    return announce(ctx, await relink(await relinkContext(ctx), dir, path, { force }));
  },
  async 'identity.cloneGroups'(_input, ctx) {
    const scan = await ctx.scanHome();
    return { groups: cloneGroups(scan.projects, await readKeptApart(ctx.dataDir)) };
  },
  async 'identity.planMerge'({ from, into }, ctx) {
    await finishTurnFirst(ctx);
    return shownMergePlan((await planMerge(await relinkContext(ctx), from, into)).plan);
  },
  async 'identity.merge'({ from, into, force }, ctx) {
    await finishTurnFirst(ctx);
    return announce(ctx, await mergeProjects(await relinkContext(ctx), from, into, { force }));
  },
  async 'identity.keepApart'({ dirs }, ctx) {
    return { kept: await keepApart(ctx.dataDir, dirs) };
  },
  async 'identity.merges'(_input, ctx) {
    await finishTurnFirst(ctx);
    return { merges: await Promise.all((await listMergeRecords(ctx.dataDir)).map(shownMergeRecord)) };
  },
  async 'identity.undo'({ id, overwriteChanged }, ctx) {
    await finishTurnFirst(ctx);
    const record = await undoMerge(ctx.dataDir, id, overwriteChanged ? { overwriteChanged } : {});
    // A dream whose changes the undo took back (undone anyway over it) says so on the Dream tab.
    for (const { memoryDir, entry } of await turnEntries(ctx.dataDir, record)) await ctx.dreams.followUndo(memoryDir, null, { entry, notes: [] });
    return announce(ctx, record);
  },
  async 'identity.recovered'(_input, ctx) {
    await finishTurnFirst(ctx);
    return { recovered: ctx.turnNotices.splice(0) };
  },
  async 'identity.conflict'({ id, n }, ctx) {
    await finishTurnFirst(ctx);
    const { record, here, moved, both } = await conflictSides(ctx.dataDir, id, n);
    return { conflict: await shownMergeConflict(record.conflicts.find((c) => c.n === n)!), here, moved, both, source: record.plan.source.label };
  },
  async 'identity.resolve'({ id, n, keep, text, allowSecrets }, ctx) {
    await finishTurnFirst(ctx);
    return announce(ctx, await resolveMergeConflict(ctx.dataDir, id, n, keep, text, allowSecrets));
  },
};
