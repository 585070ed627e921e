/**
 * Revert of a dream (SPEC §5: "revert of any dream; nothing a dream removes is ever
 * unrecoverable"): every file the dream changed goes back to its content just before the dream
 * — the parent of the history entry `dream <id>` — as a new history entry (`restore`), itself
 * restorable. A file changed since the dream (by the user, Claude Code, a later dream) is left
 * as it is and reported, unless the caller says to overwrite it: reverting must not silently
 * undo someone else's later work.
 */
import type { DreamRecord, DreamRevert } from '../../../shared/contract/dream.js';
import { HistoryError, readAtRevision, transact } from '../../history/index.js';
import { removeFileConfined, writeFileAtomic } from '../../core/safe-fs.js';
import { DreamError } from '../dream-error.js';
import { formatReport } from '../records/dream-report.js';
import { requireDreamRecord, saveDreamRecord } from '../records/dream-records.js';
import { readCurrent } from '../plan/memory-snapshot.js';

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
  // A revert that left changed files alone may be run again for them (overwriting, this time).
  const done = new Set(record.revert?.restored ?? []);
  const pendingFiles = new Set(record.revert?.warnings.map((w) => w.file) ?? []);
  if (record.revert && pendingFiles.size === 0)
    throw new DreamError('conflict', `Dream ${id} was already reverted on ${record.revert.at}; restore from history to undo that.`);
  const { memoryDir, rev } = record;
  const touched = record.changes.filter((c) => c.status === 'applied' && !done.has(c.file) && (!record.revert || pendingFiles.has(c.file)));
  const plan: { file: string; before: string | null }[] = [];
  const warnings: DreamRevert['warnings'] = [];
  for (const change of touched) {
    let before: string | null;
    try {
      before = await readAtRevision(memoryDir, `${rev}~1`, change.file, { dataDir: opts.dataDir });
    } catch (error) {
      // The dream's entry is the first of this history: nothing existed before it.
      if (error instanceof HistoryError && change.action === 'create') before = null;
      else throw error;
    }
    const after = await readAtRevision(memoryDir, rev, change.file, { dataDir: opts.dataDir });
    const now = readCurrent(memoryDir, change.file);
    if (now.problem === null && now.text === before) continue;
    if (now.problem !== null || now.text !== after) {
      const what = now.problem ?? (now.text === null ? 'it was deleted since' : 'it was changed since');
      warnings.push({
        file: change.file,
        message: opts.overwriteChanged
          ? `${change.file}: ${what}; overwritten with its pre-dream content (the later version is in history).`
          : `${change.file}: ${what}; left as it is. Revert again, overwriting changed files, to put it back anyway.`,
      });
      if (!opts.overwriteChanged || now.problem !== null) continue;
    }
    plan.push({ file: change.file, before });
  }
  let entryRev: string | null = null;
  if (plan.length > 0) {
    const { entry } = await transact(
      memoryDir,
      {
        source: 'restore',
        summary: `revert dream ${id}`,
        body: `Put back the pre-dream content of ${plan.map((p) => p.file).join(', ')}.`,
        dataDir: opts.dataDir,
      },
      async () => {
        for (const p of plan) {
          if (p.before === null) {
            if (readCurrent(memoryDir, p.file).text !== null) await removeFileConfined(memoryDir, p.file);
          } else await writeFileAtomic(memoryDir, p.file, p.before);
        }
      },
    );
    entryRev = entry?.rev ?? null;
  }
  const revert: DreamRevert = { at: new Date((opts.now ?? Date.now)()).toISOString(), rev: entryRev, restored: plan.map((p) => p.file), warnings };
  // A revert that left every file alone is not recorded as one: it can be tried again.
  if (plan.length === 0) return { record, revert };
  // The record keeps every file restored so far, and the warnings still open.
  const kept = opts.overwriteChanged ? [] : warnings.filter((w) => !plan.some((p) => p.file === w.file));
  const updated = { ...record, revert: { ...revert, restored: [...done, ...revert.restored], warnings: kept } };
  await saveDreamRecord(opts.dataDir, { ...updated, report: formatReport(updated) });
  return { record: updated, revert };
}
