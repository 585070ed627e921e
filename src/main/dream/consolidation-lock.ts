/**
 * R-DREAM-LOCK: the consolidation lock Memdir shares with Claude Code's own dream, so the two
 * never consolidate one memory directory at once.
 *
 * On disk it is exactly Claude Code's: the file `.consolidate-lock` in the memory directory.
 *   - Content: the holder's PID in decimal, no newline (`String(process.pid)`, as Claude Code
 *     writes it). Read tolerantly: surrounding whitespace is ignored and, like Claude Code's
 *     `parseInt(raw.trim(), 10)`, leading digits name the holder even if junk follows — so
 *     Memdir never sees "no holder" where Claude Code sees one. Empty content means "not held".
 *   - mtime: `lastConsolidatedAt`; no file = never consolidated.
 *
 * The mtime over a dream's life, and why:
 *   - while held: the acquisition time, refreshed by a heartbeat (see with-dream-lock.ts). It
 *     must be fresh: every reader (Claude Code too) treats a lock older than 1 h as stale and
 *     takes it over. It also makes Claude Code's one-stat time gate read "consolidated just now",
 *     so it does not even try while Memdir dreams.
 *   - after success: the acquisition time — the dream's cut-off. A session that was still
 *     writing its transcript while the dream ran then counts again at the next session gate,
 *     instead of being silently skipped (the completion time would skip it). It is also what
 *     Claude Code leaves ("Success → mtime stays at acquire"). The content becomes empty, so a
 *     live Memdir (the app runs for days) never looks like a holder; Claude Code reads an empty
 *     body as "no holder" and may take the lock as usual.
 *   - after cancel, failure or a signal: the previous `lastConsolidatedAt`, or no file when there
 *     was none, so the gates fire again later. Content empty, as Claude Code's rollback leaves it.
 *   - after a crash (kill -9, power loss): the next Memdir acquire, `recoverDreamLock` or the
 *     startup sweep `recoverCrashedDreams` finds a dead holder with a rollback record and
 *     restores the previous mtime before deciding anything.
 *
 * The rollback record (previous mtime, holder PID, host) lives in Memdir's data dir,
 * `<dataDir>/dream-locks/<key>.json`, never in the lock file: Claude Code tolerates trailing
 * text after the PID, but other readers of this format do not (`int(raw)` in Python ports would
 * read "no holder" and take a live lock), and the memory dir is the user's and synced. It is
 * written (fsynced) *before* the lock, so a lock naming a Memdir PID always has its record.
 *
 * Exclusion. Claude Code's protocol — write your PID, re-read, the last writer wins — is not
 * strict: a writer whose re-read comes before a second writer's write also "wins". Between
 * Memdir processes Memdir is strict: every acquire and recovery runs inside a short guard
 * (proper-lockfile, `<dataDir>/dream-locks/<key>.guard`, held for milliseconds), so inspect →
 * write → verify never interleaves. Against Claude Code the guarantee is Claude Code's own,
 * with the window narrowed to Memdir's inspect-to-rename (one small write).
 */
import { createHash, randomBytes } from 'node:crypto';
import fsSync from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import lockfile from 'proper-lockfile';
import { resolveDataDir } from '../data-dir.js';
import { type DreamFs, nodeDreamFs } from './dream-fs.js';
import { errCode } from '../core/fs-errors.js';
import { MAX_PID, isProcessAlive } from '../core/process.js';

/** The lock file's name inside the memory directory (Claude Code's). */
export const CONSOLIDATION_LOCK_FILE = '.consolidate-lock';
/** A lock older than this is stale even when its PID is alive: the PID may have been reused. */
export const LOCK_STALE_MS = 60 * 60 * 1000;
/**
 * An mtime this far in the future is clock jitter (a network home, a clock stepped back) and
 * counts as "now". Beyond it the time cannot have been written by a holder on this clock: the
 * gates count it as "now" (and report it) and the lock counts as stale, so a bad timestamp can
 * neither block forever nor look like an old consolidation.
 */
export const CLOCK_SKEW_TOLERANCE_MS = 5 * 60 * 1000;

/** Temp files are dotfiles, so scans, watchers, history and team sync never see them. */
const TEMP_PREFIX = `${CONSOLIDATION_LOCK_FILE}.tmp-`;
/** A temp file older than this is a leftover of a crash, not a write in flight. */
const TEMP_LEFTOVER_MS = 60 * 1000;
const RECORDS_DIR = 'dream-locks';
/** At most this much of the lock file is read: a PID is short, garbage may not be. */
const MAX_LOCK_BYTES = 256;

/** Lock files held by a dream in this process (real paths). */
const heldHere = new Set<string>();

/** Options shared by the lock functions. */
export interface DreamLockOptions {
  /** Memdir's data dir (rollback records, acquire guard). Default: `resolveDataDir()`. */
  dataDir?: string;
  /** File system calls (tests pass a counting wrapper over the real fs). */
  fs?: DreamFs;
  /** Clock in ms since the epoch. */
  now?: () => number;
}

/** What the lock file holds. */
export type LockContent =
  | { kind: 'empty' }
  | { kind: 'pid'; pid: number; /** Text after the PID (Claude Code ignores it too). */ trailing: boolean }
  | { kind: 'garbage'; text: string };

/**
 * The lock as found, judged at one moment:
 *   - `absent`: no lock file — never consolidated, free;
 *   - `free`: the file names no holder (empty: released or rolled back);
 *   - `held`: a live holder, fresh — a dream is running (Claude Code's or Memdir's); note that
 *     Claude Code leaves its PID after a finished dream, so its lock counts as held until it is
 *     1 h old or its process exits;
 *   - `stale`: the file names a holder that does not count — dead PID, older than 1 h, a time
 *     beyond the skew tolerance in the future, unreadable content — and may be taken over.
 */
export interface DreamLockStatus {
  lockFile: string;
  state: 'absent' | 'free' | 'held' | 'stale';
  /** The mtime found, ms; null when absent. */
  mtimeMs: number | null;
  /** `lastConsolidatedAt` as the gates use it: the mtime, or now when it is too far in the future. */
  lastConsolidatedAtMs: number | null;
  /** How far beyond now the mtime is, when beyond {@link CLOCK_SKEW_TOLERANCE_MS}; else null. */
  futureByMs: number | null;
  content: LockContent['kind'] | null;
  holderPid: number | null;
  /** Whether the holder PID is alive (EPERM counts as alive); null without a PID. */
  holderAlive: boolean | null;
  /** The holder is a dream running in this very process. */
  heldByThisProcess: boolean;
  /** A Memdir dream that died holding the lock; the next acquire restores `priorMtimeMs`. */
  crashedDream: { pid: number; priorMtimeMs: number | null } | null;
  /** One sentence for a person. */
  detail: string;
}

/** Why the lock was not taken. */
export interface DreamLockProblem {
  reason: 'held' | 'lost-race' | 'missing-memory-dir' | 'not-a-directory' | 'permission' | 'busy' | 'data-dir' | 'io';
  message: string;
  /** The lock as found, when it was read. */
  status?: DreamLockStatus;
}

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

/** The outcome of {@link acquireDreamLock}. */
export type DreamLockAcquisition =
  | { ok: true; lock: DreamLock; recovered: DreamLockRecovery | null }
  | { ok: false; problem: DreamLockProblem; recovered: DreamLockRecovery | null };

interface RollbackRecord {
  version: 1;
  memoryDir: string;
  host: string;
  pid: number;
  priorMtimeMs: number | null;
  acquiredAtMs: number;
}

/** `<memoryDir>/.consolidate-lock`. */
export function consolidationLockPath(memoryDir: string): string {
  return path.join(memoryDir, CONSOLIDATION_LOCK_FILE);
}

/**
 * Parses lock content as Claude Code does (`parseInt(raw.trim(), 10)`): leading decimal digits
 * are the PID. PIDs ≤ 1 (0 is "my process group", 1 is init) and out-of-range numbers name no
 * holder, as in Claude Code's `isProcessRunning`.
 */
export function parseLockContent(raw: string): LockContent {
  const text = raw.trim();
  if (text === '') return { kind: 'empty' };
  const digits = /^\d+/.exec(text)?.[0];
  const pid = digits === undefined ? NaN : Number(digits);
  if (!Number.isSafeInteger(pid) || pid <= 1 || pid > MAX_PID) return { kind: 'garbage', text: text.slice(0, 40) };
  return { kind: 'pid', pid, trailing: digits !== text };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** A problem the caller shows as is. */
class LockFault extends Error {
  constructor(readonly problem: DreamLockProblem) {
    super(problem.message);
  }
}

interface LockSnapshot {
  mtimeMs: number;
  content: LockContent;
}

/** mtime and content of one and the same inode (writers rename new files into place). */
async function readLockSnapshot(lockFile: string, fs: DreamFs): Promise<LockSnapshot | null> {
  let handle;
  try {
    handle = await fs.open(lockFile, 'r');
  } catch (err) {
    // No lock file, or no memory dir (or a file in its place): nothing is held.
    if (errCode(err) === 'ENOENT' || errCode(err) === 'ENOTDIR') return null;
    throw err;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) {
      throw new LockFault({ reason: 'io', message: `${lockFile} is not a file; move it away so the dream lock can work` });
    }
    const buffer = Buffer.alloc(MAX_LOCK_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, MAX_LOCK_BYTES, 0);
    return { mtimeMs: stat.mtimeMs, content: parseLockContent(buffer.toString('utf8', 0, bytesRead)) };
  } finally {
    await handle.close().catch(() => undefined);
  }
}

function judge(lockFile: string, snap: LockSnapshot | null, nowMs: number, heldByThisProcess: boolean): DreamLockStatus {
  const base: DreamLockStatus = {
    lockFile,
    state: 'absent',
    mtimeMs: null,
    lastConsolidatedAtMs: null,
    futureByMs: null,
    content: null,
    holderPid: null,
    holderAlive: null,
    heldByThisProcess: false,
    crashedDream: null,
    detail: 'No consolidation lock: never consolidated; free.',
  };
  if (!snap) return base;
  const future = snap.mtimeMs - nowMs > CLOCK_SKEW_TOLERANCE_MS;
  const status: DreamLockStatus = {
    ...base,
    mtimeMs: snap.mtimeMs,
    lastConsolidatedAtMs: future ? nowMs : snap.mtimeMs,
    futureByMs: future ? snap.mtimeMs - nowMs : null,
    content: snap.content.kind,
  };
  const skew = future ? ` Its time ${iso(snap.mtimeMs)} is in the future (clock skew) and counts as now.` : '';
  if (snap.content.kind === 'empty') {
    return { ...status, state: 'free', detail: `Not held; last consolidated ${iso(snap.mtimeMs)}.${skew}` };
  }
  if (snap.content.kind === 'garbage') {
    return {
      ...status,
      state: 'stale',
      detail: `The lock holds no PID (${JSON.stringify(snap.content.text)}): it names no holder and may be taken over, as Claude Code does.${skew}`,
    };
  }
  const pid = snap.content.pid;
  const own = pid === process.pid;
  const alive = own || isProcessAlive(pid);
  const holding = own ? heldByThisProcess : alive;
  const withPid = { ...status, holderPid: pid, holderAlive: alive, heldByThisProcess: own && heldByThisProcess };
  if (future) {
    return {
      ...withPid,
      state: 'stale',
      detail: `Names PID ${pid}, but its time ${iso(snap.mtimeMs)} is in the future (clock skew): no holder on this clock wrote it, so it is stale and may be taken over; for the gates it counts as now.`,
    };
  }
  if (nowMs - snap.mtimeMs >= LOCK_STALE_MS) {
    return {
      ...withPid,
      state: 'stale',
      detail: `Taken by PID ${pid} at ${iso(snap.mtimeMs)}, over 1 h ago: stale (the PID may have been reused), may be taken over.`,
    };
  }
  if (!holding) {
    const who = own ? 'this process, which runs no dream now' : `PID ${pid}, which is no longer running`;
    return { ...withPid, state: 'stale', detail: `Taken at ${iso(snap.mtimeMs)} by ${who}: stale, may be taken over.` };
  }
  const who = own ? 'a dream in this process' : `PID ${pid}`;
  return { ...withPid, state: 'held', detail: `Held by ${who} since ${iso(snap.mtimeMs)}: another consolidation is running.` };
}

function recordsDirOf(dataDir: string | undefined): string {
  return path.join(dataDir ?? resolveDataDir(), RECORDS_DIR);
}

function keyOf(realDir: string): string {
  // Same key as the memory write lock and the history repository (sha256 of the real path).
  return createHash('sha256').update(realDir).digest('hex').slice(0, 16);
}

async function readRecord(recordFile: string, fs: DreamFs): Promise<RollbackRecord | null> {
  let text: string;
  try {
    text = await fs.readFile(recordFile, 'utf8');
  } catch (err) {
    if (errCode(err) === 'ENOENT') return null;
    throw err;
  }
  try {
    const r = JSON.parse(text) as Partial<RollbackRecord>;
    const validPrior = r.priorMtimeMs === null || typeof r.priorMtimeMs === 'number';
    if (typeof r.pid !== 'number' || typeof r.memoryDir !== 'string' || typeof r.host !== 'string' || typeof r.acquiredAtMs !== 'number' || !validPrior)
      return null;
    return r as RollbackRecord;
  } catch {
    // A torn record cannot be trusted to restore anything; it is dropped at the next cleanup.
    return null;
  }
}

/** Writes a small file atomically: a dotfile temp in the same folder, optional fsync, rename. */
async function writeAtomic(file: string, content: string, fs: DreamFs, opts: { mtimeMs?: number; durable?: boolean }): Promise<void> {
  const dir = path.dirname(file);
  const temp = path.join(dir, `${path.basename(file) === CONSOLIDATION_LOCK_FILE ? TEMP_PREFIX : '.tmp-'}${process.pid}-${randomBytes(4).toString('hex')}`);
  let created = false;
  try {
    const handle = await fs.open(temp, 'wx');
    created = true;
    try {
      await handle.writeFile(content, 'utf8');
      if (opts.durable) await handle.sync();
    } finally {
      await handle.close();
    }
    if (opts.mtimeMs !== undefined) await fs.utimes(temp, opts.mtimeMs / 1000, opts.mtimeMs / 1000);
    await fs.rename(temp, file);
  } catch (err) {
    if (created) await fs.unlink(temp).catch(() => undefined);
    throw err;
  }
}

/** The lock back to "not held" at `mtimeMs`, or gone when there was no lock before. */
async function restoreLock(lockFile: string, mtimeMs: number | null, fs: DreamFs): Promise<void> {
  if (mtimeMs === null) {
    await fs.unlink(lockFile).catch((err: unknown) => {
      if (errCode(err) !== 'ENOENT') throw err;
    });
  } else {
    await writeAtomic(lockFile, '', fs, { mtimeMs });
  }
}

function restoreLockSync(lockFile: string, mtimeMs: number | null): void {
  if (mtimeMs === null) {
    fsSync.rmSync(lockFile, { force: true });
    return;
  }
  const temp = path.join(path.dirname(lockFile), `${TEMP_PREFIX}${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    fsSync.writeFileSync(temp, '', { flag: 'wx' });
    fsSync.utimesSync(temp, mtimeMs / 1000, mtimeMs / 1000);
    fsSync.renameSync(temp, lockFile);
  } catch (err) {
    fsSync.rmSync(temp, { force: true });
    throw err;
  }
}

function describeWriteError(err: unknown, dir: string, what: string): DreamLockProblem {
  const code = errCode(err);
  if (code === 'EACCES' || code === 'EPERM') {
    return { reason: 'permission', message: `Cannot ${what} in ${dir}: permission denied (Memdir needs write access there).` };
  }
  if (code === 'EROFS') return { reason: 'permission', message: `Cannot ${what} in ${dir}: it is on a read-only file system.` };
  if (code === 'ENOSPC' || code === 'EDQUOT') return { reason: 'io', message: `Cannot ${what} in ${dir}: the disk is full.` };
  return { reason: 'io', message: `Cannot ${what} in ${dir}: ${err instanceof Error ? err.message : String(err)}` };
}

interface Located {
  realDir: string;
  lockFile: string;
  recordsDir: string;
  key: string;
}

async function locate(memoryDir: string, fs: DreamFs, dataDir: string | undefined): Promise<Located> {
  let realDir: string;
  try {
    realDir = await fs.realpath(memoryDir);
    const stat = await fs.stat(realDir);
    if (!stat.isDirectory()) {
      throw new LockFault({ reason: 'not-a-directory', message: `The memory directory ${memoryDir} is not a directory.` });
    }
  } catch (err) {
    if (err instanceof LockFault) throw err;
    const code = errCode(err);
    if (code === 'ENOENT') {
      throw new LockFault({ reason: 'missing-memory-dir', message: `The memory directory ${memoryDir} does not exist: there is nothing to consolidate.` });
    }
    if (code === 'ENOTDIR') {
      throw new LockFault({ reason: 'not-a-directory', message: `The memory directory ${memoryDir} is not a directory.` });
    }
    throw new LockFault(describeWriteError(err, memoryDir, 'read the memory directory'));
  }
  const key = keyOf(realDir);
  return { realDir, lockFile: path.join(realDir, CONSOLIDATION_LOCK_FILE), recordsDir: recordsDirOf(dataDir), key };
}

/**
 * Runs `fn` inside the short guard that serialises Memdir's lock acquisitions and recoveries
 * for one memory dir across Memdir processes.
 */
async function guarded<T>(loc: Located, fs: DreamFs, fn: () => Promise<T>): Promise<T> {
  let release: () => Promise<void>;
  try {
    await fs.mkdir(loc.recordsDir, { recursive: true });
    release = await lockfile.lock(path.join(loc.recordsDir, loc.key), {
      lockfilePath: path.join(loc.recordsDir, `${loc.key}.guard`),
      realpath: false,
      // Held for milliseconds; a guard left by a process killed inside it is stale after 5 s.
      stale: 5_000,
      retries: { retries: 60, factor: 1.3, minTimeout: 5, maxTimeout: 250, randomize: true },
      // Only reachable if this guard sat for 5 s (a frozen process); the lock file's own
      // write-then-verify still decides, so losing the guard is not fatal.
      onCompromised: () => undefined,
    });
  } catch (err) {
    if (errCode(err) === 'ELOCKED') {
      throw new LockFault({ reason: 'busy', message: `Another Memdir process is taking the dream lock of ${loc.realDir}; try again in a moment.` });
    }
    const problem = describeWriteError(err, loc.recordsDir, "keep the dream lock's rollback record");
    throw new LockFault({ ...problem, reason: problem.reason === 'permission' ? 'data-dir' : problem.reason });
  }
  try {
    return await fn();
  } finally {
    await release().catch(() => undefined);
  }
}

/**
 * Rolls back the lock of a Memdir dream that died holding it (its record names the lock's
 * holder, and that holder is dead or an hour stale). Drops records the lock no longer matches.
 * Must run inside the guard.
 */
async function recoverInGuard(loc: Located, fs: DreamFs, nowMs: number): Promise<DreamLockRecovery | null> {
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

/** Removes temp files of lock writes that a crash interrupted (dotfiles, never memories). */
async function sweepTempLeftovers(realDir: string, fs: DreamFs, nowMs: number): Promise<void> {
  let names: string[];
  try {
    names = await fs.readdir(realDir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(TEMP_PREFIX)) continue;
    const file = path.join(realDir, name);
    const stat = await fs.stat(file).catch(() => null);
    if (stat && nowMs - stat.mtimeMs > TEMP_LEFTOVER_MS) await fs.unlink(file).catch(() => undefined);
  }
}

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
