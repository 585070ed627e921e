/**
 * R-DREAM-LOCK: the consolidation lock Memdir shares with Claude Code's own dream, so the two
 * never consolidate one memory directory at once. Its format on disk, and how its mtime moves
 * over a dream's life, are in lock-content.ts; this file takes it and ends it.
 *
 * Exclusion. Claude Code's protocol — write your PID, re-read, the last writer wins — is not
 * strict: a writer whose re-read comes before a second writer's write also "wins". Between
 * Memdir processes Memdir is strict: every acquire and recovery runs inside a short guard
 * (Memdir's one lock, core/lock.ts: `<dataDir>/dream-locks/<key>.guard`, held for
 * milliseconds), so inspect → write → verify never interleaves. Against Claude Code the guarantee is Claude Code's own,
 * with the window narrowed to Memdir's inspect-to-rename (one small write).
 */
import os from 'node:os';
import path from 'node:path';
import fsSync from 'node:fs';
import { type DreamFs, nodeDreamFs } from './dream-fs.js';
import {
  CONSOLIDATION_LOCK_FILE,
  type DreamLockProblem,
  type DreamLockStatus,
  LockFault,
  iso,
  judge,
  parseLockContent,
  readLockSnapshot,
} from './lock-content.js';
import { type DreamLockRecovery, recoverInGuard } from './lock-recovery.js';
import {
  type DreamLockOptions,
  type RollbackRecord,
  describeWriteError,
  guarded,
  heldHere,
  keyOf,
  locate,
  readRecord,
  recordsDirOf,
  restoreLock,
  restoreLockSync,
  sweepTempLeftovers,
  writeAtomic,
} from './lock-store.js';

// The dream lock's one front: what callers know it by, wherever in lock-*.ts it is written.
export {
  CLOCK_SKEW_TOLERANCE_MS,
  CONSOLIDATION_LOCK_FILE,
  type DreamLockProblem,
  type DreamLockStatus,
  LOCK_STALE_MS,
  type LockContent,
  consolidationLockPath,
  parseLockContent,
} from './lock-content.js';
export { type DreamLockRecovery, adoptCompletedDreamLock, recoverCrashedDreams, recoverDreamLock } from './lock-recovery.js';
export type { DreamLockOptions } from './lock-store.js';

/** The outcome of {@link acquireDreamLock}. */

export type DreamLockAcquisition =
  | { ok: true; lock: DreamLock; recovered: DreamLockRecovery | null }
  | { ok: false; problem: DreamLockProblem; recovered: DreamLockRecovery | null };

/**
 * Where a {@link DreamLock} is in its life: `held`; `released` after success; `rolled-back`
 * after cancel or failure; `lost` when another process took it over (it had gone stale).
 */
export type DreamLockState = 'held' | 'released' | 'rolled-back' | 'lost';

/**
 * A held consolidation lock. Obtained from {@link acquireDreamLock}; ended exactly once by
 * {@link DreamLock.release} (success) or {@link DreamLock.rollback} (cancel, failure). Neither
 * touches a lock that is no longer ours (taken over after going stale): that ends as `lost`.
 */
export class DreamLock {
  #state: DreamLockState = 'held';

  /** @internal Use {@link acquireDreamLock}. */
  constructor(
    /** The real path of the memory directory. */
    readonly memoryDir: string,
    readonly lockFile: string,
    private readonly recordFile: string,
    /** `lastConsolidatedAt` before this dream (ms), null when never; restored by a rollback. */
    readonly priorMtimeMs: number | null,
    /** When the lock was taken (ms): the dream's cut-off, and `lastConsolidatedAt` after success. */
    readonly acquiredAtMs: number,
    private readonly fs: DreamFs,
    private readonly now: () => number,
  ) {}

  /** `held` until released, rolled back, or found taken over (`lost`). */
  get state(): DreamLockState {
    return this.#state;
  }

  /** Whether the lock file still names this process; marks the lock `lost` when not. */
  async verify(): Promise<boolean> {
    if (this.#state !== 'held') return false;
    const snap = await readLockSnapshot(this.lockFile, this.fs).catch(() => null);
    const ours = snap?.content.kind === 'pid' && snap.content.pid === process.pid;
    if (!ours) this.#end('lost');
    return ours;
  }

  /**
   * Heartbeat: sets the mtime to now so a dream running past an hour does not look stale to
   * others (who would take the lock over). False, and `lost`, when the lock is no longer ours.
   */
  async touch(): Promise<boolean> {
    if (!(await this.verify())) return false;
    const t = this.now() / 1000;
    await this.fs.utimes(this.lockFile, t, t);
    return true;
  }

  /**
   * Success: the lock becomes "not held" (empty content) with mtime = {@link acquiredAtMs}, the
   * new `lastConsolidatedAt`. Returns the state reached: `released`, or `lost` (nothing changed)
   * if someone took it over; an ended lock is left alone.
   */
  async release(): Promise<DreamLockState> {
    if (this.#state !== 'held' || !(await this.verify())) return this.#state;
    await this.#orForget(writeAtomic(this.lockFile, '', this.fs, { mtimeMs: this.acquiredAtMs }));
    this.#end('released');
    await this.fs.unlink(this.recordFile).catch(() => undefined);
    return this.#state;
  }

  /**
   * Cancel or failure: restores the previous mtime (or removes the file if there was none), so
   * the gates fire again later. Returns the state reached: `rolled-back`, or `lost` (nothing
   * changed) if someone took it over; an ended lock is left alone.
   */
  async rollback(): Promise<DreamLockState> {
    if (this.#state !== 'held' || !(await this.verify())) return this.#state;
    await this.#orForget(restoreLock(this.lockFile, this.priorMtimeMs, this.fs));
    this.#end('rolled-back');
    await this.fs.unlink(this.recordFile).catch(() => undefined);
    return this.#state;
  }

  /**
   * {@link rollback} with synchronous calls on the real fs, for signal and exit handlers, where
   * the process may end before any promise settles. Never throws.
   */
  rollbackSync(): DreamLockState | 'failed' {
    if (this.#state !== 'held') return this.#state;
    try {
      const ours = parseLockContent(fsSync.readFileSync(this.lockFile, 'utf8'));
      if (ours.kind !== 'pid' || ours.pid !== process.pid) {
        this.#end('lost');
        return 'lost';
      }
      restoreLockSync(this.lockFile, this.priorMtimeMs);
      this.#end('rolled-back');
      fsSync.rmSync(this.recordFile, { force: true });
      return 'rolled-back';
    } catch {
      // The record stays: the next acquire sees this process gone (or not holding) and rolls
      // back then.
      heldHere.delete(this.lockFile);
      return 'failed';
    }
  }

  /**
   * When ending the lock fails (disk full, permissions changed), this process stops counting as
   * its holder: the lock names a PID that holds nothing, so the next acquire here or elsewhere
   * treats it as a crashed dream and rolls it back from the record.
   */
  async #orForget(work: Promise<void>): Promise<void> {
    try {
      await work;
    } catch (err) {
      heldHere.delete(this.lockFile);
      throw err;
    }
  }

  #end(state: Exclude<DreamLockState, 'held'>): void {
    this.#state = state;
    heldHere.delete(this.lockFile);
  }
}

/**
 * Inspects the lock without taking it (for `memdir dream status` and the lock gate in status
 * mode): who holds it and since when, or why it may be taken over. A crashed Memdir dream is
 * reported with the mtime its rollback will restore. Read-only; never throws for a missing
 * memory dir (the lock is then `absent`).
 */
export async function inspectDreamLock(memoryDir: string, opts: DreamLockOptions = {}): Promise<DreamLockStatus> {
  const fs = opts.fs ?? nodeDreamFs;
  const nowMs = (opts.now ?? Date.now)();
  const realDir = await fs.realpath(memoryDir).catch(() => path.resolve(memoryDir));
  const lockFile = path.join(realDir, CONSOLIDATION_LOCK_FILE);
  const status = judge(lockFile, await readLockSnapshot(lockFile, fs), nowMs, heldHere.has(lockFile));
  if (status.state === 'stale' && status.holderPid !== null) {
    const record = await readRecord(path.join(recordsDirOf(opts.dataDir), `${keyOf(realDir)}.json`), fs).catch(() => null);
    if (record && record.pid === status.holderPid && record.host === os.hostname()) {
      const restored = record.priorMtimeMs === null ? 'removed (there was none before)' : `restored to ${iso(record.priorMtimeMs)}`;
      return {
        ...status,
        crashedDream: { pid: record.pid, priorMtimeMs: record.priorMtimeMs },
        detail: `A Memdir dream (PID ${record.pid}) stopped without finishing; the lock will be ${restored} at the next dream attempt.`,
      };
    }
  }
  return status;
}

/**
 * Takes the consolidation lock of `memoryDir` (R-DREAM-LOCK): rolls back a crashed Memdir dream
 * first; gives up when a live, fresh holder has it (`held`, with who and since); takes over a
 * stale lock; writes the rollback record, then this process's PID (temp dotfile + rename, mtime
 * = now), then re-reads to verify it won. Errors are values: a missing or unwritable memory dir,
 * an unwritable data dir, a lost race.
 */
export async function acquireDreamLock(memoryDir: string, opts: DreamLockOptions = {}): Promise<DreamLockAcquisition> {
  const fs = opts.fs ?? nodeDreamFs;
  const now = opts.now ?? Date.now;
  let recovered: DreamLockRecovery | null = null;
  try {
    const loc = await locate(memoryDir, fs, opts.dataDir);
    return await guarded(loc, fs, async () => {
      recovered = await recoverInGuard(loc, fs, now());
      const status = judge(loc.lockFile, await readLockSnapshot(loc.lockFile, fs), now(), heldHere.has(loc.lockFile));
      if (status.state === 'held') return { ok: false, problem: { reason: 'held', message: status.detail, status }, recovered };
      const acquiredAtMs = now();
      const priorMtimeMs = status.futureByMs !== null ? acquiredAtMs : status.mtimeMs;
      await sweepTempLeftovers(loc.realDir, fs, acquiredAtMs);

      const recordFile = path.join(loc.recordsDir, `${loc.key}.json`);
      const record: RollbackRecord = { version: 1, memoryDir: loc.realDir, host: os.hostname(), pid: process.pid, priorMtimeMs, acquiredAtMs };
      try {
        await writeAtomic(recordFile, `${JSON.stringify(record)}\n`, fs, { durable: true });
      } catch (err) {
        const problem = describeWriteError(err, loc.recordsDir, "keep the dream lock's rollback record");
        return { ok: false, problem: { ...problem, reason: problem.reason === 'permission' ? 'data-dir' : problem.reason }, recovered };
      }
      try {
        await writeAtomic(loc.lockFile, String(process.pid), fs, { mtimeMs: acquiredAtMs });
      } catch (err) {
        await fs.unlink(recordFile).catch(() => undefined);
        return { ok: false, problem: { ...describeWriteError(err, loc.realDir, 'write the consolidation lock'), status }, recovered };
      }
      const check = await readLockSnapshot(loc.lockFile, fs).catch(() => null);
      if (check?.content.kind !== 'pid' || check.content.pid !== process.pid) {
        // Claude Code wrote between our inspect and our write and will itself verify and win.
        await fs.unlink(recordFile).catch(() => undefined);
        const after = judge(loc.lockFile, check, now(), false);
        return {
          ok: false,
          problem: { reason: 'lost-race', message: `Another process took the consolidation lock at the same moment. ${after.detail}`, status: after },
          recovered,
        };
      }
      heldHere.add(loc.lockFile);
      return { ok: true, lock: new DreamLock(loc.realDir, loc.lockFile, recordFile, priorMtimeMs, acquiredAtMs, fs, now), recovered };
    });
  } catch (err) {
    if (err instanceof LockFault) return { ok: false, problem: err.problem, recovered };
    return { ok: false, problem: describeWriteError(err, memoryDir, 'take the consolidation lock'), recovered };
  }
}
