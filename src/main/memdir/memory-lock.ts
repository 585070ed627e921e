/**
 * The memory lock and the key that names it: one lock per memory dir, across Memdir processes
 * (the app, the CLI, hooks), in `<dataDir>/locks/<key>.lock`; the same key names the history
 * repository.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash, randomBytes } from 'node:crypto';
import fsCallbacks from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import lockfile from 'proper-lockfile';
import { resolveDataDir } from '../data-dir.js';
import { errCode } from '../core/fs-errors.js';
import { isProcessAlive } from '../core/process.js';
import { MemdirError } from '../core/errors.js';
import { explain, lstatOrNull } from './confined-path.js';

/** The memory dir lock could not be taken in time, or was lost while held. */
export class MemoryLockError extends MemdirError<'busy' | 'lock-lost'> {
  override readonly name = 'MemoryLockError';
  constructor(
    readonly reason: 'busy' | 'compromised',
    message: string,
    options?: { cause?: unknown },
  ) {
    // The lock is shared with other Memdir processes (the CLI, the app): one may hold it a moment.
    super(reason === 'busy' ? 'busy' : 'lock-lost', message, options);
  }
}

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
// ---------------------------------------------------------------------------------------------
// The memory lock.
//
// Across processes: proper-lockfile — the lock is the folder `<dataDir>/locks/<key>.lock`, kept
// fresh by touching its mtime; a folder untouched for 10 s is stale and may be taken over.
// Waiting 10 s after every crash would make the next write fail or hang, so the folder also
// holds an owner record (host, pid, token). It is created *with* the record already inside
// (a temp folder renamed into place, through proper-lockfile's `fs` option), so there is no
// moment when the lock exists without saying whose it is. A waiter that finds the owner dead
// on this host claims the record (a rename: only one waiter can) and removes the lock at once.
// A live holder is never broken this way.
//
// Within a process: proper-lockfile cannot take a lock its own process holds, so callers queue
// on a promise chain per lock. Reentrancy uses AsyncLocalStorage rather than a plain "held" map:
// a nested call from the holder's own async chain runs directly, while an unrelated concurrent
// call (which a plain map could not tell apart) waits its turn.

/** How long a lock folder may go untouched before another process may take it over. */
const LOCK_STALE_MS = 10_000;
const OWNER_FILE = 'owner.json';

interface Hold {
  active: boolean;
  compromised: Error | null;
}

interface OwnerRecord {
  host: string;
  pid: number;
  token: string;
}

const heldLocks = new AsyncLocalStorage<ReadonlyMap<string, Hold>>();
const queues = new Map<string, Promise<void>>();

/**
 * Runs `fn` while holding Memdir's lock on `memoryDir` (one lock per memory dir, across
 * processes; the lock lives in `<dataDir>/locks/`). Waits with backoff up to `timeoutMs`
 * (default 10 s), then fails with a MemoryLockError. Reentrant: a call nested inside `fn` runs
 * directly. If the lock is lost while `fn` runs (another process took it over), `fn` is allowed
 * to finish and the call then fails with reason `compromised` instead of crashing the process
 * from a timer (proper-lockfile's default).
 */
export async function withMemoryLock<T>(memoryDir: string, fn: () => Promise<T>, opts: { dataDir?: string; timeoutMs?: number } = {}): Promise<T> {
  const lockDir = path.join(opts.dataDir ?? resolveDataDir(), 'locks');
  // In-process callers queue in call order: the queue is joined before the first await, keyed
  // by the resolved path (the realpath-keyed file lock still serialises aliases of one dir).
  const queueKey = `${lockDir}\0${path.resolve(memoryDir)}`;
  const holds = heldLocks.getStore();
  if (holds?.get(queueKey)?.active) return fn();

  const deadline = Date.now() + (opts.timeoutMs ?? 10_000);
  const leaveQueue = await joinQueue(queueKey, deadline, memoryDir);
  try {
    const key = await memoryDirKey(memoryDir);
    const hold: Hold = { active: true, compromised: null };
    const release = await acquireFileLock(lockDir, key, deadline, memoryDir, hold);
    try {
      const result = await heldLocks.run(new Map([...(holds ?? []), [queueKey, hold]]), fn);
      if (hold.compromised) {
        throw new MemoryLockError('compromised', `Lost the lock on ${memoryDir} while writing (another process took it over); check the result and try again`, {
          cause: hold.compromised,
        });
      }
      return result;
    } finally {
      hold.active = false;
      if (!hold.compromised) await release().catch(() => undefined);
    }
  } finally {
    leaveQueue();
  }
}

/**
 * Take Memdir's cross-process lock `<lockDir>/<key>.lock` for something other than a memory dir
 * (a team connection's sync state): the same folder lock with its owner record as
 * `withMemoryLock`, so a holder that was killed (kill -9, a crash) is broken at once instead of
 * blocking everyone until its lock goes stale. Waits with backoff for a live holder up to
 * `timeoutMs`, then fails with MemoryLockError `busy` and the `busy` sentence. Not reentrant.
 * Resolves to the release (safe to call after the lock was taken over).
 */
export async function acquireOwnedLock(lockDir: string, key: string, opts: { timeoutMs: number; busy: string }): Promise<() => Promise<void>> {
  const hold: Hold = { active: true, compromised: null };
  try {
    const release = await acquireFileLock(lockDir, key, Date.now() + opts.timeoutMs, lockDir, hold);
    return async () => {
      hold.active = false;
      if (!hold.compromised) await release().catch(() => undefined);
    };
  } catch (error) {
    if (error instanceof MemoryLockError && error.reason === 'busy') throw new MemoryLockError('busy', opts.busy, { cause: error });
    throw error;
  }
}

async function joinQueue(queueKey: string, deadline: number, memoryDir: string): Promise<() => void> {
  const previous = queues.get(queueKey) ?? Promise.resolve();
  let leave!: () => void;
  const mine = new Promise<void>((resolve) => (leave = resolve));
  const tail = previous.then(() => mine);
  queues.set(queueKey, tail);
  void tail.then(() => {
    if (queues.get(queueKey) === tail) queues.delete(queueKey);
  });
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(true), Math.max(0, deadline - Date.now()));
  });
  const late = await Promise.race([previous.then(() => false), timedOut]);
  clearTimeout(timer);
  if (late) {
    // Keep the chain intact: our slot passes straight through once the one before us is done.
    void previous.then(leave);
    throw new MemoryLockError('busy', `Memdir is busy writing to ${memoryDir}; try again in a moment`);
  }
  return leave;
}

async function acquireFileLock(lockDir: string, key: string, deadline: number, memoryDir: string, hold: Hold): Promise<() => Promise<void>> {
  await fs.mkdir(lockDir, { recursive: true });
  const lockPath = path.join(lockDir, `${key}.lock`);
  const owner: OwnerRecord = { host: os.hostname(), pid: process.pid, token: randomBytes(8).toString('hex') };
  let delay = 5;
  for (;;) {
    try {
      const release = await lockfile.lock(path.join(lockDir, key), {
        lockfilePath: lockPath,
        realpath: false,
        retries: 0,
        stale: LOCK_STALE_MS,
        fs: lockFolderFs(owner),
        onCompromised: (err) => {
          hold.compromised = err;
        },
      });
      await sweepLeftovers(lockDir, `${key}.lock`);
      return release;
    } catch (err) {
      if (errCode(err) !== 'ELOCKED') throw explain(err, 'lock', memoryDir, lockDir);
    }
    if (await breakDeadOwner(lockPath)) continue;
    const remaining = deadline - Date.now();
    if (remaining <= 0) {
      throw new MemoryLockError('busy', `Another Memdir process is writing to ${memoryDir}; try again in a moment`);
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(remaining, delay + Math.random() * delay)));
    delay = Math.min(delay * 2, 200);
  }
}

type Callback = (err: NodeJS.ErrnoException | null) => void;

/**
 * The file system proper-lockfile uses for one acquisition: `mkdir` creates the lock folder with
 * the owner record inside (temp folder + rename, which fails if the lock exists: it is never
 * empty), `rmdir` detaches the folder by renaming it away, then deletes it.
 */
function lockFolderFs(owner: OwnerRecord) {
  const callback = (work: Promise<void>, cb: Callback): void => {
    work.then(
      () => cb(null),
      (err: NodeJS.ErrnoException) => cb(err),
    );
  };
  return {
    stat: fsCallbacks.stat,
    utimes: fsCallbacks.utimes,
    mkdir: (p: string, cb: Callback) => callback(createLockFolder(p, owner), cb),
    rmdir: (p: string, cb: Callback) => callback(removeLockFolder(p), cb),
    rmdirSync: (p: string) => {
      const trash = `${p}.dead-${randomBytes(6).toString('hex')}`;
      fsCallbacks.renameSync(p, trash);
      fsCallbacks.rmSync(trash, { recursive: true, force: true });
    },
  };
}

async function createLockFolder(lockPath: string, owner: OwnerRecord): Promise<void> {
  const temp = `${lockPath}.new-${randomBytes(6).toString('hex')}`;
  await fs.mkdir(temp);
  try {
    await fs.writeFile(path.join(temp, OWNER_FILE), JSON.stringify(owner));
    await fs.rename(temp, lockPath);
  } catch (err) {
    await fs.rm(temp, { recursive: true, force: true });
    // A held lock is a non-empty folder: POSIX says ENOTEMPTY or EEXIST, Windows says EPERM.
    const taken = ['ENOTEMPTY', 'EEXIST'].includes(errCode(err) ?? '') || (process.platform === 'win32' && errCode(err) === 'EPERM');
    if (taken) throw Object.assign(new Error('Lock folder exists'), { code: 'EEXIST' });
    throw err;
  }
}

async function removeLockFolder(lockPath: string): Promise<void> {
  const trash = `${lockPath}.dead-${randomBytes(6).toString('hex')}`;
  await fs.rename(lockPath, trash);
  await fs.rm(trash, { recursive: true, force: true });
}

async function readOwnerRecord(p: string): Promise<OwnerRecord | null> {
  try {
    const parsed = JSON.parse(await fs.readFile(p, 'utf8')) as Partial<OwnerRecord>;
    if (typeof parsed.pid !== 'number' || typeof parsed.token !== 'string' || typeof parsed.host !== 'string') return null;
    return parsed as OwnerRecord;
  } catch {
    return null;
  }
}

/** A record naming a process on this host that is gone (a pid on another host cannot be checked). */
function isDeadOwner(record: OwnerRecord | null): record is OwnerRecord {
  return record !== null && record.host === os.hostname() && record.pid !== process.pid && !isProcessAlive(record.pid);
}

/** Removes the lock if its owner died; true if it did. */
async function breakDeadOwner(lockPath: string): Promise<boolean> {
  const ownerPath = path.join(lockPath, OWNER_FILE);
  if (!isDeadOwner(await readOwnerRecord(ownerPath))) return false;
  const claimName = `claimed-${randomBytes(6).toString('hex')}`;
  try {
    await fs.rename(ownerPath, path.join(lockPath, claimName));
  } catch {
    return false;
  }
  // Re-check what we actually claimed: another waiter may have broken the dead lock and taken a
  // new one in between, and then this is that live owner's record.
  if (!isDeadOwner(await readOwnerRecord(path.join(lockPath, claimName)))) {
    await fs.rename(path.join(lockPath, claimName), ownerPath).catch(() => undefined);
    return false;
  }
  const trash = `${lockPath}.dead-${randomBytes(6).toString('hex')}`;
  try {
    await fs.rename(lockPath, trash);
  } catch {
    return false;
  }
  if (!(await lstatOrNull(path.join(trash, claimName)))) {
    // Not the folder we claimed in (it was replaced meanwhile): put it back.
    await fs.rename(trash, lockPath).catch(() => undefined);
    return false;
  }
  await fs.rm(trash, { recursive: true, force: true });
  return true;
}

/**
 * Deletes what killed processes left beside the lock: detached `.dead-*` folders, and `.new-*`
 * folders of an acquisition that never completed (only when their owner is gone: a live one may
 * be about to rename it into place).
 */
async function sweepLeftovers(lockDir: string, lockName: string): Promise<void> {
  for (const name of await fs.readdir(lockDir).catch(() => [])) {
    const full = path.join(lockDir, name);
    if (name.startsWith(`${lockName}.dead-`)) {
      await fs.rm(full, { recursive: true, force: true });
    } else if (name.startsWith(`${lockName}.new-`)) {
      const owner = await readOwnerRecord(path.join(full, OWNER_FILE));
      const st = await lstatOrNull(full);
      const abandoned = owner ? isDeadOwner(owner) : st !== null && Date.now() - st.mtimeMs > 60_000;
      if (abandoned) await fs.rm(full, { recursive: true, force: true });
    }
  }
}
