/**
 * Apply of a staged dream while holding the consolidation lock — a fresh dream (run-dream.ts)
 * or one the user confirmed later (confirm-dream.ts) — and the record of what was applied.
 */
import type { DreamRecord } from '../../../shared/contract/dream.js';
import { type ApplyResult, applyDream } from './apply-dream.js';
import type { DreamLock } from '../consolidation-lock.js';
import type { IndexContext } from '../plan/dream-index.js';
import type { StagedChange } from '../plan/dream-plan.js';
import { saveDreamRecord } from '../records/dream-records.js';
import { formatReport, toChange } from '../records/dream-report.js';
import { DreamLockLostError } from '../with-dream-lock.js';

/** Test hook of apply. */
export interface DreamApplyHooks {
  /** Called after the first file is written (the kill -9 test pauses here). */
  afterFirstWrite?: () => Promise<void>;
  /** Called once the dream's history entry is recorded, before its record says so (kill -9 tests). */
  afterCommit?: () => Promise<void>;
}

/** What {@link applyPlanUnderLock} needs. */
export interface ApplyPlanInput {
  lock: DreamLock;
  record: DreamRecord;
  /** Topic-file changes; the indexes are recomputed. */
  changes: StagedChange[];
  index: IndexContext;
  indexesBefore: ReadonlyMap<string, string | null>;
  dataDir: string;
  memoryDir: string;
  hooks?: DreamApplyHooks;
}

function recordOf(record: DreamRecord, result: ApplyResult): DreamRecord {
  const changes = [
    ...result.applied.map((c) => toChange(c, 'applied')),
    ...result.skipped.map(({ change, reason }) => toChange(change, 'skipped', reason)),
  ].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  const notes = result.indexNotes.filter((n) => n.includes('left it alone')).map((message) => ({ kind: 'note' as const, files: [], message }));
  const status = result.applied.length > 0 || result.skipped.length > 0 ? 'completed' : 'no-changes';
  const updated: DreamRecord = { ...record, status, changes, flags: [...record.flags, ...notes], rev: result.entry?.rev ?? null };
  return { ...updated, report: formatReport(updated) };
}

/**
 * Applies the changes (apply-dream.ts) after checking the lock is still this process's; the
 * record comes back `completed` (or `no-changes`) with each change applied or skipped and the
 * history entry's rev. A lock taken over by another process aborts before anything is written.
 */
export async function applyPlanUnderLock(input: ApplyPlanInput): Promise<DreamRecord> {
  if (!(await input.lock.verify()))
    throw new DreamLockLostError(`Another process took the consolidation lock of ${input.memoryDir} over; nothing was written.`);
  const result = await applyDream({
    memoryDir: input.memoryDir,
    dataDir: input.dataDir,
    id: input.record.id,
    changes: input.changes,
    index: input.index,
    indexesBefore: input.indexesBefore,
    ...(input.hooks?.afterFirstWrite ? { afterFirstWrite: input.hooks.afterFirstWrite } : {}),
    describe: (r) => recordOf({ ...input.record, status: 'completed' }, r).report,
    // Still `running`, but with what it applied: if the process dies once the history entry is
    // recorded, recovery finds that entry and completes this record (recover-dreams.ts).
    beforeCommit: (r) => saveDreamRecord(input.dataDir, { ...recordOf(input.record, r), status: 'running' }),
  });
  await input.hooks?.afterCommit?.();
  return recordOf(input.record, result);
}
