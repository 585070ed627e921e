/**
 * Undo that is whole (issue 14): one history entry undone brings back its files *and* its index
 * lines, as one new entry (itself undoable). A memory restored from history gets its pointer
 * back too, at its old place when it still reaches the agent there (R-INDEX). What changed
 * since the entry is never lost: an index keeps its later edits (only the entry's own pointer
 * changes are reversed), and a topic file a later change touched — edited, deleted, renamed,
 * written again — stops the undo with a sentence naming that change, unless the caller says to
 * overwrite (what is there now stays in history either way). Changes are undone newest first: a
 * file a later change put back as it was before the entry is touched too (undoing a rename
 * whose new name was deleted since would otherwise bring the memory back twice). An entry
 * already wholly undone (every file as before it) writes nothing. The folders the change created
 * are taken away again when the undo leaves them empty.
 */
import path from 'node:path';
import { parseIndex, serializeIndex } from '../../shared/index-format.js';
import { describePlacement, reinsertPointer, revertIndexChange } from '../../shared/index-restore.js';
import { INDEX_FILE, TEAM_DIR } from '../../shared/limits.js';
import { type HistoryEntry, laterChanges, readAtRevision, readEntry, removeFoldersCreatedBy, restoreFromHistory, transact } from '../history/index.js';
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
  let undone = false;
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
      const files = plan.filter((p) => !isIndex(p.rel));
      if (files.length > 0 && files.every((p) => p.now === p.before)) return;
      const touched = files.filter((p) => p.now !== p.after);
      if (touched.length > 0 && !opts.overwriteChanged) throw new MemoryError('conflict', await touchedSince(opts.memoryDir, target, touched, history));
      undone = true;
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
  if (undone) await removeFoldersCreatedBy(opts.memoryDir, target.rev, history);
  return { entry, notes };
}

/**
 * Why an undo stops: which later change touched which of the entry's files, and how, so the
 * person can undo those first (newest first) or undo anyway.
 */
async function touchedSince(
  memoryDir: string,
  target: HistoryEntry,
  touched: { rel: string; after: string | null; now: string | null }[],
  history: { dataDir?: string },
): Promise<string> {
  const later = await laterChanges(
    memoryDir,
    target.rev,
    touched.map((p) => p.rel),
    history,
  );
  const what = touched.map((p) => {
    const by = later.get(p.rel);
    const how =
      p.now === null
        ? by?.change.status === 'renamed' && by.change.from === p.rel
          ? `was renamed to ${by.change.path}`
          : 'was deleted'
        : p.after === null
          ? 'was written again'
          : 'was edited';
    return `${p.rel} ${how}${by ? ` by "${by.entry.summary}"` : ''}`;
  });
  const revs = new Set([...later.values()].map((c) => c.entry.rev));
  const list = what.length === 1 ? what[0]! : `${what.slice(0, -1).join(', ')} and ${what.at(-1)!}`;
  return `Nothing was undone: since "${target.summary}", ${list}. Undo ${revs.size > 1 ? 'those' : 'that'} first, or undo anyway (what is there now stays in history).`;
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
