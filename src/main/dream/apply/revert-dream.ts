/**
 * Revert of a dream (SPEC §5: "revert of any dream; nothing a dream removes is ever
 * unrecoverable"): the dream's history entry (`dream <id>`) undone through the one undo
 * (undoChange), as a new `restore` entry named `revert dream <id>`, itself undoable — so the Dream
 * tab's Revert, `memdir dream revert` and `memdir undo <its rev>` cannot disagree. MEMORY.md
 * keeps the lines added since (Claude Code's pointers too) and gets back the pointers the dream
 * removed. A memory file changed since the dream (by the user, Claude Code, a later dream) stops
 * the revert, nothing written, each named in a warning, unless the caller says to overwrite it
 * (the later version stays in history): reverting must not silently undo someone else's later work.
 * The record follows every door that undoes the dream's entry or its revert's (followUndo).
 */
import type { DreamRecord, DreamRevert } from '../../../shared/contract/dream.js';
import path from 'node:path';
import { INDEX_FILE } from '../../../shared/limits.js';
import { type HistoryEntry, laterChanges, readAtRevision, readEntry } from '../../history/index.js';
import { undoChange } from '../../memdir/index.js';
import { DreamError } from '../dream-error.js';
import { formatReport } from '../records/dream-report.js';
import { listDreamRecords, requireDreamRecord, saveDreamRecord } from '../records/dream-records.js';

/** Options of {@link revertDream}. */
export interface RevertOptions {
  dataDir: string;
  /** Also put back files changed since the dream (their later content stays in history). */
  overwriteChanged?: boolean;
  now?: () => number;
}

/** Reverts dream `id`; returns the updated record and what the revert did. */
export async function revertDream(id: string, opts: RevertOptions): Promise<{ record: DreamRecord; revert: DreamRevert }> {
  const record = await requireDreamRecord(opts.dataDir, id);
  if (!record.rev) throw new DreamError('invalid-input', `Dream ${id} changed nothing (${record.status}); there is nothing to revert.`);
  // A revert that left changed files alone (before the one undo, reverts went file by file) may be run again for them.
  if (!standing(record)) {
    const by = record.revert!.rev ? ` (history entry ${record.revert!.rev.slice(0, 10)})` : '';
    throw new DreamError(
      'conflict',
      `Dream ${id} was already reverted on ${record.revert!.at}${by}; undo that entry (History's Undo, or \`memdir undo\`) to bring the dream's changes back.`,
    );
  }
  const { memoryDir, rev } = record;
  const at = new Date((opts.now ?? Date.now)()).toISOString();
  const undo = { memoryDir, dataDir: opts.dataDir, rev, as: { summary: `revert dream ${id}`, body: `Undoes ${rev} (dream ${id}).` } };
  // Which memory files changed since the dream (the index never counts: its later lines are kept); refusals other than those stop here, in the undo's words.
  const checked = await undoChange({ ...undo, checkOnly: true, overwriteChanged: true });
  const touched = checked.touched ?? [];
  const by = await laterChanges(memoryDir, rev, touched, { dataDir: opts.dataDir });
  const since = (file: string) => {
    const later = by.get(file);
    return `${file}: it was changed since the dream${later ? ` ("${later.entry.summary}")` : ''}`;
  };
  if (touched.length > 0 && !opts.overwriteChanged) {
    const warnings = touched.map((file) => ({
      file,
      message: `${since(file)}, so nothing was reverted. Revert again, overwriting changed files, to revert anyway (what is there now stays in history).`,
    }));
    // Nothing written: not recorded as a revert, it can be tried again.
    return { record, revert: { at, rev: null, restored: [], notes: [], warnings } };
  }
  // As every undo: a team memory the dream created that the sync server holds since is retired, not deleted (team/shared-keys.ts).
  const { retiredInsteadOfDeleted, retiredNote } = await import('../../team/index.js');
  const retire = { instead: await retiredInsteadOfDeleted(memoryDir, opts.dataDir), note: retiredNote };
  const { entry, notes } = await undoChange({ ...undo, retire, ...(opts.overwriteChanged ? { overwriteChanged: true } : {}) });
  const warnings = touched.map((file) => ({ file, message: `${since(file)}; overwritten with its pre-dream content (the later version is in history).` }));
  const restored = entry?.files.map((f) => f.path) ?? [];
  const revert: DreamRevert = { at, rev: entry?.rev ?? null, restored, notes, warnings };
  // A revert that wrote nothing (already as before the dream) is not recorded as one.
  if (!entry) return { record, revert };
  const [updated] = await followUndo(opts.dataDir, memoryDir, rev, { entry, notes });
  return { record: updated ?? record, revert };
}

/** Whether dream `record`'s changes stand (never reverted, or its revert undone), so Revert is offered; an old partial revert (it left changed files alone) counts as standing. */
function standing(record: DreamRecord): boolean {
  return record.revert === null || record.revert.warnings.length > 0;
}

/**
 * The one place a dream's record follows its history entry, whichever door undid an entry or put
 * files back — the Dream tab's Revert and `memdir dream revert`, History's Undo and `memdir undo`, a
 * redo (an undo's undo), at any depth, a restore (a whole snapshot, or one file), `memdir merge
 * undo`: the new entry `done.entry` marks a dream reverted when it undid the entry that made the
 * dream's changes stand (the dream's own, or the one that undid its revert), or when it took back
 * the last of them (tookBack: no memory file of the dream is as the dream left it, and this entry
 * changed one of them); undoing the entry that reverted it marks it back (`redone`), so Revert is
 * offered again. `undone`: the entry undone (any form `readEntry` takes), null for a restore or a
 * merge undo. `done.elsewhere`: the other directories a merge's turn changed with it (undoHistoryEntry),
 * followed each by its own entry. Returns the records it changed; none when nothing was written.
 */
export async function followUndo(
  dataDir: string,
  memoryDir: string,
  undone: string | null,
  done: { entry: HistoryEntry | null; notes: string[]; elsewhere?: readonly { memoryDir: string; undone: string | null; entry: HistoryEntry | null }[] },
): Promise<DreamRecord[]> {
  // The other directories a merge's turn changed with it (an "Undo relink" entry undone here): each one's dreams follow its own entry.
  const there: DreamRecord[] = [];
  for (const other of done.elsewhere ?? []) there.push(...(await followUndo(dataDir, other.memoryDir, other.undone, { entry: other.entry, notes: [] })));
  const { entry } = done;
  if (!entry) return there;
  const dreams = (await listDreamRecords(dataDir, { memoryDir })).filter((r) => r.rev !== null);
  if (dreams.length === 0) return there;
  const full = undone === null ? null : (await readEntry(memoryDir, undone, { dataDir })).rev;
  const changed: DreamRecord[] = [];
  for (const record of dreams) {
    let updated: DreamRecord | null = null;
    const undid = full !== null && (record.rev === full || record.redone?.rev === full);
    // Only a dream that changed a file this entry wrote is asked of its history (its changes name them).
    const near = record.changes.some((c) => entry.files.some((f) => f.path === c.file || f.from === c.file));
    if (standing(record) && (undid || (near && (await tookBack(dataDir, memoryDir, record.rev!, entry))))) {
      const restored = [...new Set([...(record.revert?.restored ?? []), ...entry.files.map((f) => f.path)])];
      updated = { ...record, revert: { at: entry.time, rev: entry.rev, restored, notes: done.notes, warnings: [] }, redone: null };
    } else if (!standing(record) && full !== null && record.revert?.rev === full) {
      updated = { ...record, revert: null, redone: { at: entry.time, rev: entry.rev } };
    }
    if (!updated) continue;
    updated = { ...updated, report: formatReport(updated) };
    await saveDreamRecord(dataDir, updated);
    changed.push(updated);
  }
  return [...there, ...changed];
}

/**
 * Whether `entry` took back the last of dream `rev`'s changes: it changed a memory file the dream
 * changed, and after it none of them is as the dream left it (MEMORY.md never counts: its later
 * lines stay). A dream that changed only the index is followed by its entry alone.
 */
async function tookBack(dataDir: string, memoryDir: string, rev: string, entry: HistoryEntry): Promise<boolean> {
  const isMemory = (file: string) => path.posix.basename(file) !== INDEX_FILE;
  const dream = await readEntry(memoryDir, rev, { dataDir }).catch(() => null);
  const files = [...new Set((dream?.files ?? []).flatMap((f) => (f.from ? [f.from, f.path] : [f.path])).filter(isMemory))];
  if (files.length === 0) return false;
  const touched = new Set(entry.files.flatMap((f) => (f.from ? [f.from, f.path] : [f.path])));
  if (!files.some((f) => touched.has(f))) return false;
  for (const file of files) {
    const [left, now] = await Promise.all([readAtRevision(memoryDir, rev, file, { dataDir }), readAtRevision(memoryDir, entry.rev, file, { dataDir })]);
    if (left === now) return false;
  }
  return true;
}
