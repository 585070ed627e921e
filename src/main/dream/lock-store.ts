/**
 * Where the dream lock keeps its own state (R-DREAM-LOCK): the rollback records in
 * `<dataDir>/dream-locks/<key>.json`, the short acquire guard beside them, the lock files this
 * process holds, and the small atomic writes all of them use. See lock-content.ts for the format.
 */
import { createHash, randomBytes } from 'node:crypto';
import fsSync from 'node:fs';
import path from 'node:path';
import { processDataDir } from '../core/data-dir.js';
import type { DreamFs } from './dream-fs.js';
import { errCode } from '../core/fs-errors.js';
import { type HeldLock, MemoryLockError, acquireLock } from '../core/lock.js';
import { CONSOLIDATION_LOCK_FILE, type DreamLockProblem, LockFault, TEMP_PREFIX } from './lock-content.js';

/** A temp file older than this is a leftover of a crash, not a write in flight. */
const TEMP_LEFTOVER_MS = 60 * 1000;
const RECORDS_DIR = 'dream-locks';
/** How long an acquire waits for another Memdir process's guard (each holds it for milliseconds). */
const GUARD_TIMEOUT_MS = 15_000;
/** Lock files held by a dream in this process (real paths). */
export const heldHere = new Set<string>();

/** Options shared by the lock functions. */
export interface DreamLockOptions {
  /** Memdir's data dir (rollback records, acquire guard). Default: `processDataDir()`. */
  dataDir?: string;
  /** File system calls (tests pass a counting wrapper over the real fs). */
  fs?: DreamFs;
  /** Clock in ms since the epoch. */
  now?: () => number;
}

export interface RollbackRecord {
  version: 1;
  memoryDir: string;
  host: string;
  pid: number;
  priorMtimeMs: number | null;
  acquiredAtMs: number;
}

export function recordsDirOf(dataDir: string | undefined): string {
  return path.join(dataDir ?? processDataDir(), RECORDS_DIR);
}

export function keyOf(realDir: string): string {
  // Same key as the memory write lock and the history repository (sha256 of the real path).
  return createHash('sha256').update(realDir).digest('hex').slice(0, 16);
}

export async function readRecord(recordFile: string, fs: DreamFs): Promise<RollbackRecord | null> {
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
export async function writeAtomic(file: string, content: string, fs: DreamFs, opts: { mtimeMs?: number; durable?: boolean }): Promise<void> {
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
export async function restoreLock(lockFile: string, mtimeMs: number | null, fs: DreamFs): Promise<void> {
  if (mtimeMs === null) {
    await fs.unlink(lockFile).catch((err: unknown) => {
      if (errCode(err) !== 'ENOENT') throw err;
    });
  } else {
    await writeAtomic(lockFile, '', fs, { mtimeMs });
  }
}

export function restoreLockSync(lockFile: string, mtimeMs: number | null): void {
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

export function describeWriteError(err: unknown, dir: string, what: string): DreamLockProblem {
  const code = errCode(err);
  if (code === 'EACCES' || code === 'EPERM') {
    return { reason: 'permission', message: `Cannot ${what} in ${dir}: permission denied (Memdir needs write access there).` };
  }
  if (code === 'EROFS') return { reason: 'permission', message: `Cannot ${what} in ${dir}: it is on a read-only file system.` };
  if (code === 'ENOSPC' || code === 'EDQUOT') return { reason: 'io', message: `Cannot ${what} in ${dir}: the disk is full.` };
  return { reason: 'io', message: `Cannot ${what} in ${dir}: ${err instanceof Error ? err.message : String(err)}` };
}

export interface Located {
  realDir: string;
  lockFile: string;
  recordsDir: string;
  key: string;
}

export async function locate(memoryDir: string, fs: DreamFs, dataDir: string | undefined): Promise<Located> {
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
export async function guarded<T>(loc: Located, fs: DreamFs, fn: () => Promise<T>): Promise<T> {
  const dataDirProblem = (err: unknown): LockFault => {
    const problem = describeWriteError(err, loc.recordsDir, "keep the dream lock's rollback record");
    return new LockFault({ ...problem, reason: problem.reason === 'permission' ? 'data-dir' : problem.reason });
  };
  let guard: HeldLock;
  try {
    await fs.mkdir(loc.recordsDir, { recursive: true });
    // Memdir's one lock (core/lock.ts): held for milliseconds, and a guard left by a process
    // killed inside it is broken at once by the next one, from its owner record.
    guard = await acquireLock(path.join(loc.recordsDir, `${loc.key}.guard`), {
      timeoutMs: GUARD_TIMEOUT_MS,
      busy: `Another Memdir process is taking the dream lock of ${loc.realDir}; try again in a moment.`,
      failed: dataDirProblem,
    });
  } catch (err) {
    if (err instanceof MemoryLockError) throw new LockFault({ reason: 'busy', message: err.message });
    if (err instanceof LockFault) throw err;
    throw dataDirProblem(err);
  }
  try {
    // A guard lost while held (this process froze past the lock's stale time) is not fatal: the
    // lock file's own write-then-verify still decides who holds the dream lock.
    return await fn();
  } finally {
    await guard.release();
  }
}

/** Removes temp files of lock writes that a crash interrupted (dotfiles, never memories). */
export async function sweepTempLeftovers(realDir: string, fs: DreamFs, nowMs: number): Promise<void> {
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
