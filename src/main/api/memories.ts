/** Memories, the index, health fixes and history: checks in, services do the work. */
import path from 'node:path';
import { INDEX_FILE, TEAM_DIR } from '../../shared/limits.js';
import { RpcError } from '../../shared/contract/define.js';
import {
  checkMemoryPath,
  createMemory,
  deleteMemory,
  missingMemory,
  parseTopicFile,
  projectsRoot,
  readIndexFile,
  readMemoryFile,
  renameMemory,
  restoreRevision,
  retireMemory,
  saveIndexText,
  updateMemory,
} from '../memdir/index.js';
import { MemoryFileError } from '../core/index.js';
import { bulkChange } from '../curation/index.js';
import { agentIndexView } from '../transcripts/index.js';
import { deletedFiles, diffRevisions, listHistory, planRestore, readAtRevision, recordExternalChanges } from '../history/index.js';
import { finishUnfinishedTurn, importedHistories, retireForRestore, undoHistoryEntry } from '../relink/index.js';
import { heldByServer, refuseChangingSharedKey, refuseRetiringUnshared } from '../team/index.js';
import type { Handlers } from './dispatch.js';

const KNOWN_KEYS = new Set(['name', 'description', 'type', 'metadata']);

/** The known fields a file does not carry (flat or under `metadata:`); none are named while its YAML cannot be read. */
function missingFields(data: Record<string, unknown> | null, unreadable: boolean): ('name' | 'description' | 'type')[] {
  if (unreadable) return [];
  const nested = data?.metadata && typeof data.metadata === 'object' ? (data.metadata as Record<string, unknown>) : {};
  const has = (key: string) => {
    const value = data?.[key] ?? nested[key];
    return value !== undefined && value !== null && String(value).trim() !== '';
  };
  return (['name', 'description', 'type'] as const).filter((k) => !has(k));
}

/**
 * Issue 14: an edit is bound to the file it was opened from. A save whose project now keeps its
 * memory somewhere else (another home, moved by settings) would write a different file than the
 * one the person edited: refused, nothing written; the editor keeps the edit as a draft.
 */
function checkOpenedFrom(openedFrom: string, memoryDir: string, dir: string, what: string): void {
  if (path.resolve(openedFrom) === path.resolve(memoryDir)) return;
  throw new RpcError({
    code: 'conflict',
    message: `${what} was opened from ${openedFrom}, but project ${dir} now keeps its memory in ${memoryDir}. Nothing was saved; your edit is kept as a draft.`,
  });
}

export const memoryHandlers: Pick<
  Handlers,
  | 'memories.read'
  | 'memories.create'
  | 'memories.update'
  | 'memories.rename'
  | 'memories.delete'
  | 'memories.retire'
  | 'memories.bulk'
  | 'index.read'
  | 'index.loaded'
  | 'index.save'
  | 'history.list'
  | 'history.diff'
  | 'history.read'
  | 'history.restore'
  | 'history.plan'
  | 'history.undo'
  | 'history.deleted'
> = {
  async 'memories.read'({ dir, scope, file }, ctx) {
    const name = checkMemoryPath(file);
    const { project } = await ctx.where(dir, scope);
    const root = scope === 'team' ? path.join(project.memoryDir, TEAM_DIR) : project.memoryDir;
    const { text, facts } = await readMemoryFile(root, name).catch(async (error: unknown) => {
      if (!(error instanceof MemoryFileError && error.code === 'not-found')) throw error;
      const label = project.path ?? dir;
      throw await missingMemory(
        project.memoryDir,
        scope === 'team' ? `${TEAM_DIR}/${name}` : name,
        scope === 'team' ? `the team memory of ${label}` : label,
        ctx.dataDir,
      );
    });
    const topic = parseTopicFile(text, name);
    const scan = scope === 'team' ? project.team : project;
    const written = topic.data ? (topic.data.type ?? (topic.data.metadata as Record<string, unknown> | undefined)?.type) : undefined;
    return {
      file: name,
      memoryDir: project.memoryDir,
      text,
      name: topic.meta.name,
      description: topic.meta.description,
      type: topic.meta.type,
      rawType: topic.meta.type === null && written !== undefined && written !== null && written !== '' ? String(written) : null,
      frontmatter: topic.frontmatter,
      frontmatterError: topic.frontmatter !== null && topic.data === null ? (topic.issues[0]?.message ?? null) : null,
      missingFields: missingFields(topic.data, topic.frontmatter !== null && topic.data === null),
      body: topic.body,
      layout: topic.meta.layout,
      otherKeys: Object.keys(topic.data ?? {}).filter((k) => !KNOWN_KEYS.has(k)),
      problems: (scan?.problems ?? []).filter((p) => p.file === name),
      mtimeMs: facts.mtimeMs,
      heldByServer: await heldByServer({ memoryDir: project.memoryDir, scope, dataDir: ctx.dataDir }, name),
    };
  },
  async 'memories.create'(input, ctx) {
    const where = await ctx.where(input.dir, input.scope);
    checkOpenedFrom(input.memoryDir, where.memoryDir, input.dir, 'This new memory');
    const { file, entry } = await createMemory(where, {
      fields: input.fields,
      body: input.body,
      ...(input.file ? { file: input.file } : {}),
      ...(input.hook !== undefined ? { hook: input.hook } : {}),
      ...(input.allowSecrets ? { allowSecrets: input.allowSecrets } : {}),
    });
    ctx.changed(input.dir, where.memoryDir);
    return { file, rev: entry?.rev ?? null };
  },
  async 'memories.update'(input, ctx) {
    const where = await ctx.where(input.dir, input.scope);
    checkOpenedFrom(input.memoryDir, where.memoryDir, input.dir, input.file);
    const { file, entry } = await updateMemory(where, {
      file: input.file,
      fields: input.fields,
      body: input.body,
      baseText: input.baseText,
      ...(input.frontmatter !== undefined ? { frontmatter: input.frontmatter } : {}),
      ...(input.hook !== undefined ? { hook: input.hook } : {}),
      ...(input.allowSecrets ? { allowSecrets: input.allowSecrets } : {}),
    });
    ctx.changed(input.dir, where.memoryDir);
    return { file, rev: entry?.rev ?? null };
  },
  async 'memories.rename'(input, ctx) {
    const where = await ctx.where(input.dir, input.scope);
    await refuseChangingSharedKey(where, input.from, 'rename');
    const { file, entry } = await renameMemory(where, input.from, input.to, input.allowSecrets);
    ctx.changed(input.dir, where.memoryDir);
    return { file, rev: entry?.rev ?? null };
  },
  async 'memories.delete'(input, ctx) {
    const where = await ctx.where(input.dir, input.scope);
    await refuseChangingSharedKey(where, input.file, 'delete');
    const { file, entry } = await deleteMemory(where, input.file);
    ctx.changed(input.dir, where.memoryDir);
    return { file, rev: entry?.rev ?? null };
  },
  async 'memories.retire'(input, ctx) {
    const where = await ctx.where(input.dir, input.scope);
    await refuseRetiringUnshared(where, input.file);
    const { file, entry } = await retireMemory(where, input.file);
    ctx.changed(input.dir, where.memoryDir);
    ctx.events.publish({ type: 'team-changed', dir: input.dir });
    return { file, rev: entry?.rev ?? null };
  },
  async 'memories.bulk'({ dir, items, action, allowSecrets }, ctx) {
    const { project } = await ctx.where(dir, 'private');
    const { entry, done, refused } = await bulkChange({ memoryDir: project.memoryDir, dataDir: ctx.dataDir }, items, action, allowSecrets);
    ctx.changed(dir, project.memoryDir);
    if (action.kind === 'move' || items.some((i) => i.scope === 'team')) ctx.events.publish({ type: 'team-changed', dir });
    return { rev: entry?.rev ?? null, done, refused };
  },
  async 'index.read'({ dir, scope }, ctx) {
    const { project } = await ctx.where(dir, scope);
    return readIndexFile(scope === 'team' ? path.join(project.memoryDir, TEAM_DIR) : project.memoryDir);
  },
  async 'index.loaded'({ dir }, ctx) {
    const { project } = await ctx.where(dir, 'private');
    const folders = project.launchDirs.length > 0 ? project.launchDirs.map((l) => l.folder) : [dir];
    return agentIndexView({
      transcriptDirs: folders.map((f) => path.join(projectsRoot(ctx.home), f)),
      memoryDir: project.memoryDir,
      settings: project.settings,
      // The scan just made through the app's cache knows each memory: the built index is predicted from it, nothing read again.
      memories: project.memories,
    });
  },
  async 'index.save'({ dir, scope, text, baseText, allowSecrets }, ctx) {
    const where = await ctx.where(dir, scope);
    const { entry, merged } = await saveIndexText(where, text, baseText, allowSecrets);
    ctx.changed(dir, where.memoryDir);
    return { file: INDEX_FILE, rev: entry?.rev ?? null, merged };
  },
  async 'history.list'({ dir, file, limit }, ctx) {
    const { project } = await ctx.where(dir, 'private');
    if (project.exists) await recordExternalChanges(project.memoryDir, { dataDir: ctx.dataDir });
    const opts = { dataDir: ctx.dataDir, limit: limit ?? 200, ...(file ? { file } : {}) };
    // Independent reads of the shadow repository: run side by side.
    const [entries, imported] = await Promise.all([listHistory(project.memoryDir, opts), importedHistories(project.memoryDir, opts)]);
    return { entries, imported };
  },
  async 'history.diff'({ dir, from, to, file }, ctx) {
    const { project } = await ctx.where(dir, 'private');
    return { diff: await diffRevisions(project.memoryDir, from, to, { dataDir: ctx.dataDir, ...(file ? { file } : {}) }) };
  },
  async 'history.read'({ dir, rev, file }, ctx) {
    const { project } = await ctx.where(dir, 'private');
    return { text: await readAtRevision(project.memoryDir, rev, file, { dataDir: ctx.dataDir }) };
  },
  async 'history.restore'({ dir, rev, file, as, overwriteChanged }, ctx) {
    const { project } = await ctx.where(dir, 'private');
    const done = await restoreRevision({
      memoryDir: project.memoryDir,
      dataDir: ctx.dataDir,
      rev,
      ...(file ? { file } : {}),
      ...(as ? { as } : {}),
      ...(overwriteChanged ? { overwriteChanged } : {}),
      // A whole snapshot asks the shared-key rule: a held team memory it would remove is retired (R-SYNC).
      ...(file ? {} : { retire: await retireForRestore(project.memoryDir, ctx.dataDir, rev) }),
    });
    // A dream whose changes the restore took back says so on the Dream tab.
    await ctx.dreams.followUndo(project.memoryDir, null, done);
    // A team or personal sync conflict resolved after that point is open again, as its Undo opens it (undoing the restore resolves it again).
    const taken = { restoredTo: rev };
    const reopened = [
      ...(await ctx.team.followUndo(dir, taken, done.entry?.rev ?? null)),
      ...(await ctx.personal.followUndo(dir, taken, done.entry?.rev ?? null)),
    ];
    ctx.changed(dir, project.memoryDir);
    return { ...done, notes: [...done.notes, ...reopened] };
  },
  async 'history.plan'({ dir, rev, file }, ctx) {
    const { project } = await ctx.where(dir, 'private');
    const retire = file ? {} : { retire: (await retireForRestore(project.memoryDir, ctx.dataDir, rev)).instead };
    return { changes: await planRestore(project.memoryDir, rev, { dataDir: ctx.dataDir, ...(file ? { file } : retire) }) };
  },
  async 'history.undo'({ dir, rev, overwriteChanged }, ctx) {
    const { project } = await ctx.where(dir, 'private');
    // A merge a killed Memdir left between its folders is put back first (it may be the one this entry turns); said with the notes.
    const recovered = await finishUnfinishedTurn(ctx.dataDir);
    const done = await undoHistoryEntry({ memoryDir: project.memoryDir, dataDir: ctx.dataDir, rev, ...(overwriteChanged ? { overwriteChanged } : {}) });
    // A dream whose entry this undid (or whose revert it undid) says so on the Dream tab.
    await ctx.dreams.followUndo(project.memoryDir, rev, done);
    // A team or personal sync conflict whose resolution this undid is open again (a Redo resolves it again).
    const taken = { undone: rev };
    const reopened = [
      ...(await ctx.team.followUndo(dir, taken, done.entry?.rev ?? null)),
      ...(await ctx.personal.followUndo(dir, taken, done.entry?.rev ?? null)),
    ];
    ctx.changed(dir, project.memoryDir);
    // The other directories a merge's turn changed (done.elsewhere) were for the dreams: the answer is this project's entry and notes.
    const { entry } = done;
    const notes = [...done.notes, ...reopened];
    return { entry, notes: recovered ? [recovered, ...notes] : notes };
  },
  async 'history.deleted'({ dir }, ctx) {
    const { project } = await ctx.where(dir, 'private');
    // A memory Claude Code wrote again under a deleted one's name is not deleted: the disk is recorded first, as for the list.
    if (project.exists) await recordExternalChanges(project.memoryDir, { dataDir: ctx.dataDir });
    return { files: await deletedFiles(project.memoryDir, { dataDir: ctx.dataDir }) };
  },
};
