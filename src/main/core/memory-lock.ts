/**
 * The memory lock and the key that names it: one lock per memory dir, across Memdir processes
 * (the app, the CLI, hooks), in `<dataDir>/locks/<key>.lock`; the same key names the history
 * repository.
 */
import { createHash } from 'node:crypto';
import fsCallbacks from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { processDataDir } from './data-dir.js';
import { errCode } from './fs-errors.js';
import { acquireLock, withLock } from './lock.js';
import { explain, MemoryFileError } from './confined-path.js';

/**
 * A stable id for a memory dir: the first 16 hex digits of sha256 of its real path. A dir that
 * does not exist yet is keyed by the real path of its nearest existing ancestor plus the rest, so
 * the key does not change when it is created. Names the lock file and the history repository.
 */
export async function memoryDirKey(memoryDir: string): Promise<string> {
  return createHash('sha256')
    .update(await realpathDeepestExisting(memoryDir))
    .digest('hex')
    .slice(0, 16);
}

/**
 * realpath of `p`, or of its deepest existing ancestor joined with the missing rest (a path not
 * created yet still resolves through the links above it). Missing components (ENOENT, or a
 * file where a folder would be: ENOTDIR) are carried over; any other error is thrown.
 */
export async function realpathDeepestExisting(p: string): Promise<string> {
  let current = path.resolve(p);
  const missing: string[] = [];
  for (;;) {
    try {
      return path.join(await fs.realpath(current), ...missing.reverse());
    } catch (err) {
      const parent = path.dirname(current);
      if ((errCode(err) !== 'ENOENT' && errCode(err) !== 'ENOTDIR') || parent === current) throw err;
      missing.push(path.basename(current));
      current = parent;
    }
  }
}

/** `realpathDeepestExisting`, synchronously. */
export function realpathDeepestExistingSync(p: string): string {
  let current = path.resolve(p);
  const missing: string[] = [];
  for (;;) {
    try {
      return path.join(fsCallbacks.realpathSync(current), ...missing.reverse());
    } catch (err) {
      const parent = path.dirname(current);
      if ((errCode(err) !== 'ENOENT' && errCode(err) !== 'ENOTDIR') || parent === current) throw err;
      missing.push(path.basename(current));
      current = parent;
    }
  }
}

/**
 * Runs `fn` while holding Memdir's lock on `memoryDir` (one lock per memory dir, across
 * processes; the lock is the folder `<dataDir>/locks/<memoryDirKey>.lock`, core/lock.ts's
 * policy). Waits with backoff up to `timeoutMs` (default 10 s), then fails with a
 * MemoryLockError. Reentrant: a call nested inside `fn` runs directly. If the lock is lost while
 * `fn` runs (another process took it over), `fn` is allowed to finish and the call then fails
 * with reason `compromised` instead of crashing the process from a timer.
 */
export async function withMemoryLock<T>(
  memoryDir: string,
  fn: () => Promise<T>,
  opts: { dataDir?: string; timeoutMs?: number; guard?: true } = {},
): Promise<T> {
  const lockDir = path.join(opts.dataDir ?? processDataDir(), 'locks');
  return withLock(async () => path.join(lockDir, `${await memoryDirKey(memoryDir)}.lock`), fn, {
    // Keyed by the resolved path, known before the first await; the realpath-keyed folder still
    // serialises aliases of one dir.
    queueId: `${lockDir}\0${path.resolve(memoryDir)}`,
    timeoutMs: opts.timeoutMs ?? 10_000,
    ...(opts.guard ? { guard: true as const } : {}),
    busy: `Another Memdir process is writing to ${memoryDir}; try again in a moment`,
    busyHere: `Memdir is busy writing to ${memoryDir}; try again in a moment`,
    lost: `Lost the lock on ${memoryDir} while writing (another process took it over); check the result and try again`,
    // A file where Memdir's data folder (or its locks/) should be: the lock folder is what cannot be made, not the memory.
    failed: (err) =>
      errCode(err) === 'ENOTDIR'
        ? new MemoryFileError(
            'not-a-file',
            memoryDir,
            `Cannot lock ${memoryDir}: Memdir's lock folder ${lockDir} cannot be made, a file is in the way (check Memdir's data folder: --data-dir or $MEMDIR_DATA_DIR).`,
            { cause: err },
          )
        : explain(err, 'lock', memoryDir, lockDir),
  });
}

/**
 * Take Memdir's cross-process lock `<lockDir>/<key>.lock` for something other than a memory dir
 * (a team connection's sync state): the same lock as `withMemoryLock`, so a holder that was
 * killed (kill -9, a crash) is broken at once instead of blocking everyone until its lock goes
 * stale. Waits with backoff for a live holder up to `timeoutMs`, then fails with
 * MemoryLockError `busy` and the `busy` sentence. Not reentrant. Resolves to the release (safe
 * to call after the lock was taken over).
 */
export async function acquireOwnedLock(lockDir: string, key: string, opts: { timeoutMs: number; busy: string }): Promise<() => Promise<void>> {
  const held = await acquireLock(path.join(lockDir, `${key}.lock`), { ...opts, failed: (err) => explain(err, 'lock', lockDir, lockDir) });
  return () => held.release();
}
