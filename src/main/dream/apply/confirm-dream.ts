/**
 * A dream held back because it removes more memories than `maxDeleteShare` allows, applied
 * once the user confirms: exactly the changes they were shown, under the consolidation lock,
 * with the same transaction rules (files changed since the dream read them are left alone).
 */
import type { DreamRecord } from '../../../shared/contract/dream.js';
import { recoverInterruptedApply } from './apply-dream.js';
import { applyPlanUnderLock } from './apply-plan.js';
import { DreamError } from '../dream-error.js';
import { formatReport } from '../records/dream-report.js';
import { listDreamRecords, readPendingPlan, removePendingPlan, requireDreamRecord, saveDreamRecord } from '../records/dream-records.js';
import { withDreamLock } from '../with-dream-lock.js';

/** The record of dream `id` when it waits for confirmation; otherwise an error that says why it cannot be confirmed. */
export async function heldBackDream(dataDir: string, id: string): Promise<DreamRecord> {
  const record = await requireDreamRecord(dataDir, id);
  if (record.status !== 'needs-confirmation') throw new DreamError('conflict', `Dream ${id} is ${record.status}, not waiting for confirmation.`);
  return record;
}

/** Applies the held-back dream `id`; returns its updated record (`completed`, or `failed`/`cancelled`). */
export async function confirmDream(id: string, opts: { dataDir: string; signal?: AbortSignal; now?: () => number }): Promise<DreamRecord> {
  const record = await heldBackDream(opts.dataDir, id);
  const plan = await readPendingPlan(opts.dataDir, id);
  if (!plan) throw new DreamError('not-found', `The changes of dream ${id} are no longer kept; run a new dream.`);
  const now = opts.now ?? Date.now;
  const result = await withDreamLock(
    record.memoryDir,
    async ({ lock, applying }) => {
      await recoverInterruptedApply({ dataDir: opts.dataDir, memoryDir: record.memoryDir });
      applying();
      return applyPlanUnderLock({
        lock,
        record: {
          ...record,
          flags: [
            ...record.flags,
            { kind: 'note', files: [], message: `Removals beyond the limit confirmed by the user on ${new Date(now()).toISOString()}.` },
          ],
        },
        changes: plan.changes.filter((c) => c.kind !== 'index'),
        index: { retarget: new Map(plan.retarget), stale: new Set(plan.stale), descriptions: new Map(plan.descriptions) },
        indexesBefore: new Map(plan.indexes),
        dataDir: opts.dataDir,
        memoryDir: record.memoryDir,
      });
    },
    { dataDir: opts.dataDir, ...(opts.signal ? { signal: opts.signal } : {}) },
  );
  if (result.outcome === 'not-acquired') throw new DreamError('busy', result.problem.message);
  let updated: DreamRecord;
  if (result.outcome === 'completed') updated = result.value;
  else if (result.outcome === 'cancelled') return record;
  else updated = { ...record, status: 'failed', error: 'Another process took the consolidation lock over; nothing was written.' };
  updated = { ...updated, endedAt: new Date(now()).toISOString() };
  updated = { ...updated, report: formatReport(updated) };
  await removePendingPlan(opts.dataDir, id);
  await saveDreamRecord(opts.dataDir, updated);
  // Older held-back dreams of this dir were computed against what is now gone.
  for (const old of await listDreamRecords(opts.dataDir, { memoryDir: record.memoryDir, limit: 50 })) {
    if (old.status !== 'needs-confirmation' || old.id === id) continue;
    await removePendingPlan(opts.dataDir, old.id);
    const superseded = { ...old, status: 'cancelled' as const, error: `Superseded by dream ${id}.` };
    await saveDreamRecord(opts.dataDir, { ...superseded, report: formatReport(superseded) });
  }
  return updated;
}
