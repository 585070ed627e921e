/**
 * Repairing the lock of a Memdir dream that died holding it (kill -9, power loss; R-DREAM-LOCK):
 * the previous `lastConsolidatedAt` is restored from the rollback record, at the next acquire,
 * on request, or by the scheduler's startup sweep.
 */
import os from 'node:os';
import path from 'node:path';
import { type DreamFs, nodeDreamFs } from './dream-fs.js';
import { isProcessAlive } from '../core/process.js';
import { LockFault, judge, readLockSnapshot } from './lock-content.js';
import {
  type DreamLockOptions,
  type Located,
  type RollbackRecord,
  guarded,
  heldHere,
  locate,
  readRecord,
  recordsDirOf,
  restoreLock,
  writeAtomic,
} from './lock-store.js';

/** A crashed Memdir dream whose lock was rolled back. */
export interface DreamLockRecovery {
  memoryDir: string;
  /** The PID of the dream that died. */
  pid: number;
  /** The mtime restored; null: there was no lock before, the file was removed. */
  restoredMtimeMs: number | null;
  /** When the crashed dream had taken the lock. */
  acquiredAtMs: number;
}

/**
 * Rolls back the lock of a Memdir dream that died holding it (its record names the lock's
 * holder, and that holder is dead or an hour stale). Drops records the lock no longer matches.
 * Must run inside the guard.
 */
export async function recoverInGuard(loc: Located, fs: DreamFs, nowMs: number): Promise<DreamLockRecovery | null> {
  const recordFile = path.join(loc.recordsDir, `${loc.key}.json`);
  const record = await readRecord(recordFile, fs);
  if (!record) {
    // A torn record is useless; a missing one is the normal case.
    await fs.unlink(recordFile).catch(() => undefined);
    return null;
  }
  if (record.host !== os.hostname()) return null; // Its PID cannot be checked from here.
  const recordAlive = record.pid === process.pid ? heldHere.has(loc.lockFile) : isProcessAlive(record.pid);
  const snap = await readLockSnapshot(loc.lockFile, fs);
  const holder = snap?.content.kind === 'pid' ? snap.content.pid : null;
  if (snap && holder === record.pid) {
    const status = judge(loc.lockFile, snap, nowMs, heldHere.has(loc.lockFile));
    if (status.state === 'held' && recordAlive) return null; // A live Memdir dream.
    await restoreLock(loc.lockFile, record.priorMtimeMs, fs);
    await fs.unlink(recordFile).catch(() => undefined);
    return { memoryDir: loc.realDir, pid: record.pid, restoredMtimeMs: record.priorMtimeMs, acquiredAtMs: record.acquiredAtMs };
  }
  // The lock no longer names the record's process: released, rolled back or taken over. A live
  // owner removes its own record; a dead one's is obsolete.
  if (!recordAlive) await fs.unlink(recordFile).catch(() => undefined);
  return null;
}

/**
 * Rolls back the lock of `memoryDir` if a Memdir dream died holding it (kill -9, power loss):
 * the previous mtime is restored from the rollback record. Null when there was nothing to do.
 */
export async function recoverDreamLock(memoryDir: string, opts: DreamLockOptions = {}): Promise<DreamLockRecovery | null> {
  const fs = opts.fs ?? nodeDreamFs;
  const now = opts.now ?? Date.now;
  try {
    const loc = await locate(memoryDir, fs, opts.dataDir);
    return await guarded(loc, fs, () => recoverInGuard(loc, fs, now()));
  } catch (err) {
    if (err instanceof LockFault) return null;
    throw err;
  }
}

/**
 * A Memdir dream that died holding the lock had in fact completed (its history entry is
 * recorded): its lock must end as a release would leave it — mtime = when it took the lock, the
 * new `lastConsolidatedAt` — not rolled back. Rewrites the rollback record of that dead holder
 * (`pid`) so the recovery restores that time. False when there is no such record.
 */
export async function adoptCompletedDreamLock(memoryDir: string, pid: number, opts: DreamLockOptions = {}): Promise<boolean> {
  const fs = opts.fs ?? nodeDreamFs;
  try {
    const loc = await locate(memoryDir, fs, opts.dataDir);
    return await guarded(loc, fs, async () => {
      const recordFile = path.join(loc.recordsDir, `${loc.key}.json`);
      const record = await readRecord(recordFile, fs);
      if (!record || record.pid !== pid || record.host !== os.hostname() || isProcessAlive(pid)) return false;
      await writeAtomic(recordFile, `${JSON.stringify({ ...record, priorMtimeMs: record.acquiredAtMs } satisfies RollbackRecord)}\n`, fs, { durable: true });
      return true;
    });
  } catch (err) {
    if (err instanceof LockFault) return false;
    throw err;
  }
}

/**
 * Startup sweep for the scheduler: rolls back every memory dir whose Memdir dream died holding
 * the lock, so their time gate reads the real `lastConsolidatedAt` again. Records of memory
 * dirs that are gone are dropped. Cheap: one readdir of `<dataDir>/dream-locks`.
 */
export async function recoverCrashedDreams(opts: DreamLockOptions = {}): Promise<DreamLockRecovery[]> {
  const fs = opts.fs ?? nodeDreamFs;
  const dir = recordsDirOf(opts.dataDir);
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch {
    return [];
  }
  const recovered: DreamLockRecovery[] = [];
  for (const name of names.filter((n) => n.endsWith('.json') && !n.startsWith('.'))) {
    const record = await readRecord(path.join(dir, name), fs).catch(() => null);
    if (!record) continue;
    const exists = await fs.stat(record.memoryDir).then(
      () => true,
      () => false,
    );
    if (!exists) {
      await fs.unlink(path.join(dir, name)).catch(() => undefined);
      continue;
    }
    const one = await recoverDreamLock(record.memoryDir, opts);
    if (one) recovered.push(one);
  }
  return recovered;
}
