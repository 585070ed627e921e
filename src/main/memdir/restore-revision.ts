/**
 * Restoring from history — the one way, shared by the app's History view (`history.restore`) and
 * `memdir restore` (issue 17, item 1): one memory file with its index pointer, or the whole memory
 * directory, as it was at a revision. A memory restored alone never overwrites, unasked, another
 * memory written under its name since it left (deleted, renamed away), nor an edit made to it
 * outside Memdir since (Claude Code's): the restore stops, naming it, and offers to restore under another name (`as`) or anyway (`overwriteChanged`, what is there
 * stays in history) — as the one undo stops for another memory at an old name.
 */
import { everyLaterChange, readBytesAtRevision, restoreFromHistory } from '../history/index.js';
import { minuteUtc } from '../../shared/iso-time.js';
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
 * took the memory away from it (deleted it, renamed it away), and the first one to write the name
 * again was not a restore or an undo bringing it back; or when what is there now holds an edit made
 * outside Memdir (an `external` entry: Claude Code's) since the memory was last there — an edit no
 * change of the person's own (`manual`, `restore`) came after: an automatic one (extract, dream, a
 * sync pull, a fix) does not mean they saw it. Only when restoring would change the file: a file
 * absent at `rev` is left to the restore's own "did not exist" sentence. Run inside the restore's
 * transaction, after outside changes (Claude Code's write) are recorded.
 */
async function refuseAnotherMemory(memoryDir: string, rev: string, file: string, history: { dataDir?: string }): Promise<void> {
  const now = await readText(memoryDir, file);
  if (now === null) return;
  // Oldest first: the changes since the memory was last at its name (the loop reads newest first).
  const since = [];
  for (const c of await everyLaterChange(memoryDir, rev, file, history)) {
    if (c.change.status === 'deleted' || (c.change.status === 'renamed' && c.change.from === file)) {
      const wrote = since.find((s) => s.change.status === 'added' || (s.change.status === 'renamed' && s.change.path === file));
      if (!wrote || wrote.entry.source === 'restore') break;
      const name = parseTopicFile(now, file).meta.name;
      const what = [name ? `"${name}"` : '', `written by "${wrote.entry.summary}"`].filter(Boolean).join(', ');
      throw new MemoryError(
        'conflict',
        `Nothing was restored: ${file} holds another memory now (${what}), and restoring would overwrite it. Restore it under another name, or restore anyway (what is there now stays in history).`,
      );
    }
    since.unshift(c);
  }
  // An outside edit (which the person restoring may not have seen) with none of their own changes after it.
  const seen = since.findLastIndex((s) => s.entry.source === 'manual' || s.entry.source === 'restore');
  const outside = since.slice(seen + 1).findLast((s) => s.entry.source === 'external');
  if (!outside) return;
  const then = await readBytesAtRevision(memoryDir, rev, file, history);
  if (then === null || then.equals(Buffer.from(now))) return;
  throw new MemoryError(
    'conflict',
    `Nothing was restored: ${file} was changed outside Memdir since (by Claude Code or another program, ${minuteUtc(outside.entry.time)}), and restoring would replace that edit. Restore it under another name, or restore anyway (the edit stays in history).`,
  );
}
