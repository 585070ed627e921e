/**
 * Restoring from history — the one way, shared by the app's History view (`history.restore`) and
 * `memdir restore` (issue 17, item 1): one memory file with its index pointer, or the whole memory
 * directory, as it was at a revision. A memory restored alone never overwrites, unasked, another
 * memory written under its name since it left (deleted, renamed away), nor an edit made to it
 * outside Memdir since (Claude Code's): the restore stops, naming it, and offers to restore under another name (`as`) or anyway (`overwriteChanged`, what is there
 * stays in history) — as the one undo stops for another memory at an old name.
 */
import { everyLaterChange, restoreFromHistory } from '../history/index.js';
import { MemoryError } from './memory-error.js';
import { checkNewMemoryPath, readText } from './memory-service.js';
import { parseTopicFile } from './topic-file.js';
import { restoreMemoryFile, type UndoResult } from './undo-change.js';

/**
 * Restore `file` (restoreMemoryFile: its pointer comes back too, the notes say where) or, without
 * one, the whole memory directory (a note names the held team memories it retired) to how it was at `rev`, as a new `restore` entry;
 * the entry is null when nothing changed.
 */
export async function restoreRevision(opts: {
  memoryDir: string;
  dataDir?: string;
  rev: string;
  file?: string;
  /** With `file`: restore it under this (free) name instead. */
  as?: string;
  /** With `file`: overwrite another memory written at its name since it left. */
  overwriteChanged?: boolean;
  /**
   * Without `file`: the memories (paths in the memory dir) the restore retires instead of removing
   * them — team memories the sync server holds (team/shared-keys.ts's retireInstead, R-SYNC) — and
   * the note that says so, as for undoChange.
   */
  retire?: { instead: (rel: string) => boolean; note: (rels: readonly string[]) => string | null };
}): Promise<UndoResult> {
  const history = opts.dataDir ? { dataDir: opts.dataDir } : {};
  if (opts.as !== undefined && !opts.file) throw new MemoryError('invalid-input', 'A new name is for restoring one memory: name the file to restore.');
  if (opts.file) {
    const file = opts.file.replace(/\\/g, '/');
    const as = opts.as === undefined ? undefined : checkNewMemoryPath(opts.as);
    const first = as !== undefined || opts.overwriteChanged ? undefined : () => refuseAnotherMemory(opts.memoryDir, opts.rev, file, history);
    return restoreMemoryFile({ memoryDir: opts.memoryDir, ...history, rev: opts.rev, file, ...(as !== undefined ? { as } : {}), ...(first ? { first } : {}) });
  }
  const retired: string[] = [];
  const retire = opts.retire ? { retire: opts.retire.instead, retired: (rel: string) => retired.push(rel) } : {};
  const entry = await restoreFromHistory(opts.memoryDir, opts.rev, { ...history, ...retire });
  const note = opts.retire?.note(retired);
  return { entry, notes: note ? [note] : [] };
}

/**
 * Stops the restore of `file` as of `rev` when the name holds another memory now: a later change
 * took the memory away from it (deleted it, renamed it away), and the newest one to write the name
 * since was not a restore or an undo bringing it back; or when the memory stayed and the newest
 * change to it since was made outside Memdir (an `external` entry: Claude Code's edit). Run inside the restore's transaction, after
 * outside changes (Claude Code's write) are recorded.
 */
async function refuseAnotherMemory(memoryDir: string, rev: string, file: string, history: { dataDir?: string }): Promise<void> {
  const now = await readText(memoryDir, file);
  if (now === null) return;
  // Newest first: the changes since the memory last left the name.
  const since = [];
  for (const c of await everyLaterChange(memoryDir, rev, file, history)) {
    if (c.change.status === 'deleted' || (c.change.status === 'renamed' && c.change.from === file)) {
      const wrote = since.find((s) => s.change.status === 'added' || (s.change.status === 'renamed' && s.change.path === file));
      if (!wrote || wrote.entry.source === 'restore') return;
      const name = parseTopicFile(now, file).meta.name;
      const what = [name ? `"${name}"` : '', `written by "${wrote.entry.summary}"`].filter(Boolean).join(', ');
      throw new MemoryError(
        'conflict',
        `Nothing was restored: ${file} holds another memory now (${what}), and restoring would overwrite it. Restore it under another name, or restore anyway (what is there now stays in history).`,
      );
    }
    since.unshift(c);
  }
  // The memory stayed at its name: what is there now was last written outside Memdir (Claude Code's edit,
  // which the person restoring may not have seen) — the restore asks first, as for another memory there.
  const newest = since.at(-1);
  if (newest?.entry.source === 'external') {
    const when = `${new Date(newest.entry.time).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
    throw new MemoryError(
      'conflict',
      `Nothing was restored: ${file} was changed outside Memdir since (by Claude Code or another program: "${newest.entry.summary}", ${when}), and restoring would replace that edit. Restore it under another name, or restore anyway (the edit stays in history).`,
    );
  }
}
