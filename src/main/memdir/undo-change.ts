/**
 * Undo that is whole (issue 14): one history entry undone brings back its files *and* its index
 * lines, as one new entry (itself undoable). A memory restored from history gets its pointer
 * back too, at its old place when it still reaches the agent there (R-INDEX). What changed
 * since the entry is never lost: an index keeps its later edits (only the entry's own pointer
 * changes are reversed), and a topic file changed since stops the undo unless the caller says
 * to overwrite it (its later content stays in history either way). The folders the change
 * created are taken away again when the undo leaves them empty.
 */
import path from 'node:path';
import { parseIndex, serializeIndex } from '../../shared/index-format.js';
import { describePlacement, reinsertPointer, revertIndexChange } from '../../shared/index-restore.js';
import { INDEX_FILE, TEAM_DIR } from '../../shared/limits.js';
import { type HistoryEntry, readAtRevision, readEntry, removeFoldersCreatedBy, restoreFromHistory, transact } from '../history/index.js';
import { MemoryError } from './memory-error.js';
import { readText } from './memory-service.js';
import { removeFileConfined, writeFileAtomic } from '../core/safe-fs.js';

/** What an undo or a restore did, with sentences about the pointers it put back. */
export interface UndoResult {
  entry: HistoryEntry | null;
  notes: string[];
}

interface Options {
  memoryDir: string;
  dataDir?: string;
}

function isIndex(rel: string): boolean {
  return path.posix.basename(rel) === INDEX_FILE;
}

/** The index a memory file is listed in, and its name there: `team/x.md` → `team/MEMORY.md`, `x.md`. */
function indexOf(rel: string): { index: string; name: string } {
  return rel.startsWith(`${TEAM_DIR}/`) ? { index: `${TEAM_DIR}/${INDEX_FILE}`, name: rel.slice(TEAM_DIR.length + 1) } : { index: INDEX_FILE, name: rel };
}

/** Undo the history entry `rev` (see the file comment). */
export async function undoChange(opts: Options & { rev: string; overwriteChanged?: boolean }): Promise<UndoResult> {
  const history = opts.dataDir ? { dataDir: opts.dataDir } : {};
  const target = await readEntry(opts.memoryDir, opts.rev, history);
  const paths = [...new Set(target.files.flatMap((f) => (f.from ? [f.from, f.path] : [f.path])))];
  const notes: string[] = [];
  const { entry } = await transact(
    opts.memoryDir,
    { source: 'restore', summary: `Undo: ${target.summary}`, body: `Undoes ${target.rev}.`, ...history },
    async () => {
      const plan: { rel: string; before: string | null; after: string | null; now: string | null }[] = [];
      for (const rel of paths) {
        const before = target.parent ? await readAtRevision(opts.memoryDir, target.parent, rel, history) : null;
        const after = await readAtRevision(opts.memoryDir, target.rev, rel, history);
        plan.push({ rel, before, after, now: await readText(opts.memoryDir, rel) });
      }
      const changedSince = plan.filter((p) => !isIndex(p.rel) && p.now !== p.after && p.now !== p.before).map((p) => p.rel);
      if (changedSince.length > 0 && !opts.overwriteChanged) {
        throw new MemoryError(
          'conflict',
          `Nothing was undone: ${changedSince.join(', ')} changed since "${target.summary}", and undoing would lose that change. Undo anyway to put the earlier version back (the later one stays in history).`,
        );
      }
      const removed = new Set<string>();
      for (const p of plan) {
        if (isIndex(p.rel) || p.now === p.before) continue;
        if (p.before === null) {
          await removeFileConfined(opts.memoryDir, p.rel);
          removed.add(p.rel);
        } else await writeFileAtomic(opts.memoryDir, p.rel, p.before);
      }
      for (const p of plan) {
        if (!isIndex(p.rel)) continue;
        // The files this undo removes, as this index names them (`team/x.md` is `x.md` in team/MEMORY.md).
        const inDir = new Set(
          [...removed]
            .map(indexOf)
            .filter((r) => r.index === p.rel)
            .map((r) => r.name),
        );
        const { text, placements } = revertIndexChange(p.now ?? '', p.before ?? '', p.after ?? '', inDir);
        if (p.before === null && p.now === p.after) await removeFileConfined(opts.memoryDir, p.rel);
        else if (text !== (p.now ?? '')) await writeFileAtomic(opts.memoryDir, p.rel, text);
        notes.push(...placements.map((pl) => describePlacement(pl, p.rel)));
      }
    },
  );
  // The tree as it was: the folders the change made (team/, a rename's new folder) go when empty.
  await removeFoldersCreatedBy(opts.memoryDir, target.rev, history);
  return { entry, notes };
}

/**
 * Restore one file as it was at `rev`; a memory file gets its index pointer back too (as it was
 * at `rev`, when the index has none for it now) — restoring a deleted memory without its pointer
 * would leave it where the agent never looks.
 */
export async function restoreMemoryFile(opts: Options & { rev: string; file: string }): Promise<UndoResult> {
  const history = opts.dataDir ? { dataDir: opts.dataDir } : {};
  const notes: string[] = [];
  const rel = opts.file.replace(/\\/g, '/');
  const entry = await restoreFromHistory(opts.memoryDir, opts.rev, {
    ...history,
    file: rel,
    then: async () => {
      if (isIndex(rel) || !/\.md$/i.test(rel)) return;
      const { index, name } = indexOf(rel);
      const old = await readAtRevision(opts.memoryDir, opts.rev, index, history);
      if (old === null) return;
      const current = await readText(opts.memoryDir, index);
      const put = reinsertPointer(parseIndex(current ?? ''), parseIndex(old), name);
      if (!put) return;
      await writeFileAtomic(opts.memoryDir, index, serializeIndex(put.index));
      notes.push(describePlacement(put.placement, index));
    },
  });
  return { entry, notes };
}
