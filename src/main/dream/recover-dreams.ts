/**
 * After a crash (kill -9, power loss) a dream leaves three things behind, and this sweep undoes
 * all of them: files half-applied (the apply journal → pre-dream content), the consolidation
 * lock still naming the dead process (the rollback record → previous `lastConsolidatedAt`), and
 * its record still saying `running` (→ `interrupted`). It runs when the app starts (and on
 * every scheduler tick), before every dream status answer (the app's Dream tab and
 * `memdir dream status`), and before every dream command: a dream killed between two apply
 * steps never leaves a status that says nothing is wrong (issue 15).
 */
import type { DreamRecord } from '../../shared/contract/dream.js';
import type { DreamLockRecovery } from './consolidation-lock.js';
import { isProcessAlive, recoverCrashedDreams } from './consolidation-lock.js';
import { type ApplyRecovery, recoverInterruptedApply } from './apply-dream.js';
import { formatReport } from './dream-report.js';
import { listDreamRecords, saveDreamRecord } from './dream-records.js';

/** What the sweep did. */
export interface DreamRecovery {
  applies: ApplyRecovery[];
  locks: DreamLockRecovery[];
  /** Ids of records marked `interrupted`. */
  records: string[];
}

/** The sweep (see the file comment). Never throws: a failure leaves things for the next sweep. */
export async function recoverInterruptedDreams(opts: { dataDir: string }): Promise<DreamRecovery> {
  const applies = await recoverInterruptedApply(opts).catch(() => []);
  const locks = await recoverCrashedDreams(opts).catch(() => []);
  const records: string[] = [];
  for (const record of await listDreamRecords(opts.dataDir, { limit: 200 }).catch(() => [])) {
    if (record.status !== 'running' || record.pid === process.pid || isProcessAlive(record.pid)) continue;
    const undone = applies.find((a) => a.id === record.id);
    const files = undone && undone.restored.length > 0 ? ` The ${undone.restored.length} file(s) it had begun to write were put back.` : '';
    const kept = undone && undone.leftAlone.length > 0 ? ` Left as they are (changed again since): ${undone.leftAlone.join(', ')}.` : '';
    const updated = { ...record, status: 'interrupted' as const, error: `The process running it (PID ${record.pid}) stopped before it finished; the consolidation lock was rolled back.${files}${kept}` };
    await saveDreamRecord(opts.dataDir, { ...updated, report: formatReport(updated) }).catch(() => undefined);
    records.push(record.id);
  }
  return { applies, locks, records };
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
