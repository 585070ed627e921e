/**
 * Doing a planned merge (issue 18, item 3): every target directory is written in one history
 * entry (`transact`: locked, atomic writes, confined), then — for a relink or a clone merge —
 * what came over is removed from the source in one history entry of its own. The target is
 * written first, so a merge stopped half-way leaves files in both places, never in neither;
 * run again, it finds them identical and finishes. Conflicts keep the source's bytes in the
 * record before the source loses them. The record names each entry: one undo puts back all.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { MergeConflict, MergePlan, MergeRecord } from '../../shared/contract/identity.js';
import { INDEX_FILE, TEAM_DIR } from '../../shared/limits.js';
import { transact } from '../history/index.js';
import { MAX_MEMORY_DEPTH, seedIndex } from '../memdir/index.js';
import { indexLinks, parseIndex } from '../../shared/index-format.js';
import { readBytesOrNull } from '../core/confined-path.js';
import { removeFileConfined, writeFileAtomic } from '../core/safe-fs.js';
import { type AreaPlan, type FileMap, planArea } from './merge-plan.js';
import { keepConflictBytes, newMergeId, saveMergeRecord } from './merge-records.js';
import { journaled, type StepWrite } from './turn-as-one.js';

/** A file larger than this is not a memory; it is left where it is (and named). */
const MAX_FILE_BYTES = 10 * 1024 * 1024;

/** One area to merge: where its files come from and go. */
export interface MergeArea {
  /** `private`, `team`, `agent:<scope>:<type>`. */
  area: string;
  /** The memory dir holding the source (history and lock), or null (an archive, a history snapshot). */
  fromRoot: string | null;
  /** Where in `fromRoot` / `toRoot` the area is: '' or 'team/'. */
  prefix: string;
  toRoot: string;
  /** A folder `toRoot` must stay in, with no link on the way, checked at each write (an import's agent memory: the target's root). */
  within?: string;
  source: FileMap;
  target: FileMap;
  /** Remove what came over from the source (relink, clone merge). */
  removeSource: boolean;
}

/** The files of one area on disk: regular files only, no dotfiles, no links, bounded; what was left aside is named. */
export function readArea(dir: string, options: { excludeTeam: boolean }): { files: FileMap; skipped: string[] } {
  const files: FileMap = new Map();
  const skipped: string[] = [];
  const walk = (abs: string, rel: string, depth: number) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(abs, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      // Dotfiles are not memories: the dream lock, Memdir's temp files, .DS_Store.
      if (entry.name.startsWith('.')) continue;
      const childRel = rel ? `${rel}/${entry.name}` : entry.name;
      if (!rel && options.excludeTeam && entry.name === TEAM_DIR) continue;
      const childAbs = path.join(abs, entry.name);
      if (entry.isDirectory()) {
        if (depth < MAX_MEMORY_DEPTH) walk(childAbs, childRel, depth + 1);
        else skipped.push(`${childRel}/ (too deep)`);
      } else if (entry.isFile()) {
        const st = fs.statSync(childAbs, { throwIfNoEntry: false });
        if (!st || st.size > MAX_FILE_BYTES || st.nlink > 1) {
          skipped.push(`${childRel} (${st?.nlink && st.nlink > 1 ? 'a hard link' : 'too large'})`);
          continue;
        }
        try {
          files.set(childRel, fs.readFileSync(childAbs));
        } catch {
          skipped.push(`${childRel} (unreadable)`);
        }
      } else skipped.push(`${childRel} (${entry.isSymbolicLink() ? 'a symbolic link, never followed' : 'not a file'})`);
    }
  };
  walk(dir, '', 0);
  return { files, skipped };
}

/** Plan every area, in order. */
export function planAreas(areas: readonly MergeArea[]): AreaPlan[] {
  return areas.map((a) => planArea(a.area, a.source, a.target));
}

/** The files of a plan as the contract lists them. */
export function planFiles(plans: readonly AreaPlan[]): MergePlan['files'] {
  return plans.flatMap((p) => [
    ...p.add.map((file) => ({ area: p.area, file, action: 'add' as const })),
    ...p.same.map((file) => ({ area: p.area, file, action: 'same' as const })),
    ...p.conflict.map((file) => ({ area: p.area, file, action: 'conflict' as const })),
    ...(p.index !== null && !p.add.includes(INDEX_FILE) ? [{ area: p.area, file: INDEX_FILE, action: 'index' as const }] : []),
  ]);
}

function groupBy<T>(items: readonly T[], key: (item: T) => string | null): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    if (k === null) continue;
    out.set(k, [...(out.get(k) ?? []), item]);
  }
  return out;
}

/** Options of {@link applyMerge}. */
export interface ApplyOptions {
  dataDir: string;
  kind: MergeRecord['kind'];
  plan: MergePlan;
  /** One line for the target's history entry and one for the source's. */
  summaryTo: string;
  summaryFrom: string;
  now?: () => number;
}

/** Do the merge of `areas` (see the module comment) and record it. */
export async function applyMerge(areas: readonly MergeArea[], options: ApplyOptions): Promise<MergeRecord> {
  const id = await newMergeId(options.dataDir, options.now?.());
  const source = options.kind === 'import' ? 'import' : 'relink';
  const touched: MergeRecord['touched'] = [];
  const conflicts: MergeConflict[] = [];
  const moved = new Map<MergeArea, Set<string>>();
  const body = `Merge ${id} (${options.kind}). Undo: memdir merge undo ${id}`;

  const doing = options.kind === 'relink' ? 'relinking' : options.kind === 'import' ? 'importing' : 'merging';
  const folders = [...new Set([...areas.map((a) => a.toRoot), ...areas.flatMap((a) => (a.removeSource && a.fromRoot ? [a.fromRoot] : []))])];
  const plan = {
    op: 'apply' as const,
    id,
    kind: options.kind,
    what: `${doing} ${options.plan.source.label} into projects/${options.plan.target.dir} (${options.kind} ${id})`,
    folders,
    record: null,
  };
  // Journalled (turn-as-one.ts): each step's writes are planned in the journal before they are made,
  // and its entry tagged with the turn, so a process killed between the folders or in one is put back.
  return journaled(options.dataDir, plan, async (journal) => {
    const step = { source, body, dataDir: options.dataDir, turn: journal.turn };
    // The folder being written: a write the disk refuses there puts back every folder written (journal.stopped).
    let at = '';
    try {
      for (const [toRoot, group] of groupBy(areas, (a) => a.toRoot)) {
        at = toRoot;
        const writes: StepWrite[] = [];
        const modes = new Map<string, number>();
        const { entry } = await transact(toRoot, { ...step, summary: options.summaryTo }, async () => {
          for (const area of group) {
            // Planned again under the lock: the target may have changed since the preview.
            const target = new Map(area.target);
            for (const file of area.source.keys()) {
              const now = await readBytesOrNull(toRoot, area.prefix + file);
              if (now) target.set(file, now);
              else target.delete(file);
            }
            const plan = planArea(area.area, area.source, target);
            // The source's index coming where there is none: it goes on top of what Claude Code would
            // have built from the memories already there (seedIndex), or they would go unlisted for good.
            if (area.prefix === '' && plan.add.includes(INDEX_FILE) && plan.index !== null) {
              const own = indexLinks(parseIndex(plan.index)).map((l) => l.file);
              plan.index = (await seedIndex({ memoryDir: toRoot, scope: 'private' }, null, own)) + plan.index;
            }
            const came = new Set([...plan.same]);
            for (const file of plan.add) {
              const bytes = file === INDEX_FILE ? Buffer.from(plan.index ?? '', 'utf8') : area.source.get(file)!;
              writes.push({ file: area.prefix + file, before: await readBytesOrNull(toRoot, area.prefix + file), after: bytes });
              // A memory lands with the mode it had (one readable by its owner alone stays so).
              const was =
                file === INDEX_FILE || area.fromRoot === null ? null : await fs.promises.lstat(path.join(area.fromRoot, area.prefix + file)).catch(() => null);
              if (was?.isFile()) modes.set(area.prefix + file, was.mode & 0o7777);
              came.add(file);
            }
            if (plan.index !== null && !plan.add.includes(INDEX_FILE))
              writes.push({ file: area.prefix + INDEX_FILE, before: await readBytesOrNull(toRoot, area.prefix + INDEX_FILE), after: plan.index });
            for (const file of plan.conflict) {
              const n = conflicts.length;
              await keepConflictBytes(options.dataDir, id, n, area.source.get(file)!);
              conflicts.push({ n, area: area.area, file: area.prefix + file, memoryDir: toRoot, status: 'open', resolution: null, resolvedAt: null });
              came.add(file);
            }
            // The source's index came over (as it was, or as lines): it leaves with the files.
            if (area.source.has(INDEX_FILE)) came.add(INDEX_FILE);
            moved.set(area, came);
          }
          await journal.plan(toRoot, writes);
          // Every area of a group has this toRoot, so the folder it must stay within is theirs alike.
          const within = group[0]!.within;
          for (const w of writes) {
            const mode = w.before === null ? modes.get(w.file) : undefined;
            await writeFileAtomic(toRoot, w.file, w.after!, { within, ...(mode !== undefined ? { mode } : {}) });
          }
        });
        if (entry) touched.push({ memoryDir: toRoot, rev: entry.rev, files: writes.map((w) => w.file) });
      }

      for (const [fromRoot, group] of groupBy(
        areas.filter((a) => a.removeSource),
        (a) => a.fromRoot,
      )) {
        at = fromRoot;
        const removed: StepWrite[] = [];
        const { entry } = await transact(fromRoot, { ...step, summary: options.summaryFrom }, async () => {
          for (const area of group) {
            for (const file of moved.get(area) ?? []) {
              const rel = area.prefix + file;
              const now = await readBytesOrNull(fromRoot, rel);
              // Changed since it was read: it stays (nothing of it came over as it is now).
              if (!now || !now.equals(area.source.get(file)!)) continue;
              removed.push({ file: rel, before: now, after: null });
            }
          }
          await journal.plan(fromRoot, removed);
          for (const r of removed) await removeFileConfined(fromRoot, r.file);
        });
        if (entry) touched.push({ memoryDir: fromRoot, rev: entry.rev, files: removed.map((r) => r.file) });
      }
    } catch (error) {
      throw await journal.stopped(error, at);
    }

    const record: MergeRecord = {
      id,
      kind: options.kind,
      createdAt: new Date(options.now?.() ?? Date.now()).toISOString(),
      plan: options.plan,
      touched,
      conflicts,
      undone: null,
      redone: null,
      earlier: [],
    };
    await saveMergeRecord(options.dataDir, record);
    return record;
  });
}
