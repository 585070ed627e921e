/**
 * After a crash (kill -9, power loss) a dream leaves three things behind, and this sweep undoes
 * all of them: files half-applied (the apply journal → pre-dream content), the consolidation
 * lock still naming the dead process (the rollback record → previous `lastConsolidatedAt`), and
 * its record still saying `running` (→ `interrupted`). The scheduler runs it at start and on
 * every tick; the CLI before each dream command.
 */
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
