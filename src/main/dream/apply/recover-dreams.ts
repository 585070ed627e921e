/**
 * After a crash (kill -9, power loss) a dream leaves three things behind, and this sweep undoes
 * all of them: files half-applied (the apply journal → pre-dream content), the consolidation
 * lock still naming the dead process (the rollback record → previous `lastConsolidatedAt`), and
 * its record still saying `running` (→ `interrupted`) — unless the dream's history entry was
 * recorded before the kill: then it completed, and its record and lock are finished as such. It runs when the app starts (and on
 * every scheduler tick), before every dream status answer (the app's Dream tab and
 * `memdir dream status`), and before every dream command: a dream killed between two apply
 * steps never leaves a status that says nothing is wrong (issue 15).
 */
import type { DreamRecord } from '../../../shared/contract/dream.js';
import { type HistoryEntry, listHistory } from '../../history/index.js';
import type { DreamLockRecovery } from '../consolidation-lock.js';
import { adoptCompletedDreamLock, recoverCrashedDreams } from '../consolidation-lock.js';
import { isProcessAlive } from '../../core/process.js';
import { type ApplyRecovery, recoverInterruptedApply } from './apply-dream.js';
import { formatReport } from '../records/dream-report.js';
import { listDreamRecords, saveDreamRecord } from '../records/dream-records.js';

/** What the sweep did. */
export interface DreamRecovery {
  applies: ApplyRecovery[];
  locks: DreamLockRecovery[];
  /** Ids of records marked `interrupted`. */
  records: string[];
  /** Ids of dreams whose process died after their history entry was recorded: marked `completed`. */
  completed: string[];
}

/** The history entry `dream <id>` of a dream, when it was recorded (the dream applied). */
async function entryOf(record: DreamRecord, dataDir: string): Promise<HistoryEntry | null> {
  const recent = await listHistory(record.memoryDir, { dataDir, limit: 50 }).catch(() => []);
  return recent.find((e) => e.source === 'dream' && e.summary === `dream ${record.id}`) ?? null;
}

/** The sweep (see the file comment). Never throws: a failure leaves things for the next sweep. */
export async function recoverInterruptedDreams(opts: { dataDir: string }): Promise<DreamRecovery> {
  const applies = await recoverInterruptedApply(opts).catch(() => []);
  const dead = (await listDreamRecords(opts.dataDir, { limit: 200 }).catch(() => [])).filter(
    (r) => r.status === 'running' && r.pid !== process.pid && !isProcessAlive(r.pid),
  );
  // A dream killed after its history entry was recorded did complete: its record is completed
  // (it holds what was applied, saved just before the entry) and its lock ends as a release
  // leaves it, with this dream's time — before the lock sweep would roll that back.
  const completed: string[] = [];
  for (const record of dead) {
    const entry = await entryOf(record, opts.dataDir);
    if (!entry) continue;
    await adoptCompletedDreamLock(record.memoryDir, record.pid, { dataDir: opts.dataDir }).catch(() => false);
    const applied = record.changes.some((c) => c.status === 'applied' || c.status === 'skipped');
    const updated: DreamRecord = {
      ...record,
      status: applied ? 'completed' : 'no-changes',
      rev: entry.rev,
      endedAt: entry.time,
      durationMs: Date.parse(entry.time) - Date.parse(record.startedAt),
      error: null,
    };
    await saveDreamRecord(opts.dataDir, { ...updated, report: formatReport(updated) }).catch(() => undefined);
    completed.push(record.id);
  }
  const locks = await recoverCrashedDreams(opts).catch(() => []);
  const records: string[] = [];
  for (const record of dead) {
    if (completed.includes(record.id)) continue;
    const undone = applies.find((a) => a.id === record.id);
    const files = undone && undone.restored.length > 0 ? ` The ${undone.restored.length} file(s) it had begun to write were put back.` : '';
    const kept = undone && undone.leftAlone.length > 0 ? ` Left as they are (changed again since): ${undone.leftAlone.join(', ')}.` : '';
    // Nothing it planned is on disk any more (its writes were put back): none of it counts as applied.
    const changes = record.changes.map((c) =>
      c.status === 'applied' ? { ...c, status: 'skipped' as const, skippedReason: 'Put back: the dream was interrupted before it finished.' } : c,
    );
    const updated = {
      ...record,
      changes,
      status: 'interrupted' as const,
      error: `The process running it (PID ${record.pid}) stopped before it finished; the consolidation lock was rolled back.${files}${kept}`,
    };
    await saveDreamRecord(opts.dataDir, { ...updated, report: formatReport(updated) }).catch(() => undefined);
    records.push(record.id);
  }
  return { applies, locks, records, completed };
}

/** What a status says about a project's last dream when it was interrupted and recovered. */
export interface InterruptedNotice {
  id: string;
  /** When the interrupted dream started. */
  at: string;
  detail: string;
}

/** The notice for a project's latest dream record, when that dream was interrupted (and so recovered). */
export function interruptedNotice(latest: DreamRecord | null | undefined): InterruptedNotice | null {
  if (!latest || latest.status !== 'interrupted') return null;
  return {
    id: latest.id,
    at: latest.startedAt,
    detail: `Recovered from an interrupted dream at ${latest.startedAt} (PID ${latest.pid}, dream ${latest.id}). ${latest.error ?? 'It stopped before it finished; nothing it began was kept.'}`,
  };
}
