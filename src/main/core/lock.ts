/**
 * Memdir's one cross-process lock (issue 17, item 2): every lock Memdir takes between its own
 * processes — the memory dir write lock, a team connection's sync lock, the dream lock's short
 * acquire guard — is this one `proper-lockfile` policy, so a fix to staleness, to a killed
 * holder or to a lost lock reaches all of them. Callers pass only what differs: where the lock
 * folder is, how long to wait, and the sentences a person reads.
 *
 * Across processes: the lock is a folder, kept fresh by touching its mtime; a folder untouched
 * for 10 s is stale and may be taken over. Waiting 10 s after every crash would make the next
 * write fail or hang, so the folder also holds an owner record (host, pid, token). It is created
 * *with* the record already inside (a temp folder renamed into place, through proper-lockfile's
 * `fs` option), so there is no moment when the lock exists without saying whose it is. A waiter
 * that finds the owner dead on this host claims the record (a rename: only one waiter can) and
 * removes the lock at once. A live holder is never broken this way.
 *
 * A lock lost while held (another process took it over after it went stale: a frozen machine)
 * is recorded, never thrown from proper-lockfile's timer (its default crashes the process);
 * `withLock` fails the work with `compromised` once it has finished, and the release then leaves
 * the new owner's folder alone.
 *
 * Within a process: proper-lockfile cannot take a lock its own process holds, so callers queue
 * on a promise chain per lock, in call order. Reentrancy uses AsyncLocalStorage rather than a
 * plain "held" map: a nested `withLock` from the holder's own async chain runs directly, while
 * an unrelated concurrent call (which a plain map could not tell apart) waits its turn.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import fsCallbacks from 'node:fs';
import type { Stats } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import lockfile from 'proper-lockfile';
import { MemdirError } from '../../shared/errors.js';
import { explain } from './confined-path.js';
import { errCode } from './fs-errors.js';
import { lockLetGo, lockTaken } from './locks-held.js';
import { isProcessAlive } from './process.js';

/** A Memdir lock could not be taken in time, or was lost while held. */
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

/** What a caller of the lock says differently from the others. */
export interface LockOptions {
  /** How long to wait for a live holder (in this process or another), ms. */
  timeoutMs: number;
  /** The sentence when another process keeps the lock past `timeoutMs`. */
  busy: string;
  /** The sentence when a caller in this same process keeps it that long; default `busy`. */
  busyHere?: string;
  /** Names this lock among the process's waiters; default the lock folder's path. */
  queueId?: string;
  /**
   * The lock guards a run, not a write (one extraction per transcript, held while a model answers):
   * not counted as a write under way (locks-held.ts); the run marks its writing steps with `asWrite`.
   */
  guard?: true;
  /**
   * Turns a file-system failure of taking the lock (permissions, a full disk) into the caller's
   * error; default: a sentence naming the locks folder and why ("Cannot take Memdir's lock: the
   * disk holding … is full"), never the raw ENOSPC.
   */
  failed?: (err: unknown) => unknown;
}

/** A lock taken by {@link acquireLock}. */
export interface HeldLock {
  /** Why the lock was lost while held (another process took it over), or null. */
  readonly lost: Error | null;
  /** Lets go of the lock (once; safe after it was lost: the new owner's folder stays). */
  release(): Promise<void>;
}

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
 * Takes the lock folder `lockPath` (its parent is created when missing): waits its turn behind
 * callers of this process, then for a live holder elsewhere, with backoff, up to `timeoutMs`;
 * a holder that died on this host is broken at once. Fails with MemoryLockError `busy`; a file
 * system failure (permissions, a full disk) goes through `failed`. Not reentrant:
 * a second acquire of a lock this chain holds waits for its release.
 */
export async function acquireLock(lockPath: string, opts: LockOptions): Promise<HeldLock> {
  const deadline = Date.now() + opts.timeoutMs;
  const leaveQueue = await joinQueue(opts.queueId ?? lockPath, deadline, opts.busyHere ?? opts.busy);
  try {
    const hold: Hold = { active: true, compromised: null };
    const releaseFile = await acquireFileLock(lockPath, deadline, opts, hold);
    lockTaken();
    let released = false;
    return {
      get lost() {
        return hold.compromised;
      },
      async release() {
        if (released) return;
        released = true;
        hold.active = false;
        try {
          if (!hold.compromised) await releaseFile().catch(() => undefined);
        } finally {
          lockLetGo();
          leaveQueue();
        }
      },
    };
  } catch (err) {
    leaveQueue();
    throw err;
  }
}

/**
 * Runs `fn` holding the lock folder (see {@link acquireLock}). Reentrant: a call nested inside
 * `fn` (its own async chain) runs directly. `lockPath` may be a function when finding the folder
 * needs the disk: it is called once this caller's turn in the process has come, and `queueId`
 * (required then) keeps the call order meanwhile. If the lock is lost while `fn` runs, `fn` is
 * allowed to finish and the call then fails with MemoryLockError `compromised` and the `lost`
 * sentence.
 */
export async function withLock<T>(
  lockPath: string | (() => Promise<string>),
  fn: () => Promise<T>,
  opts: LockOptions & { lost: string; queueId?: string },
): Promise<T> {
  const queueId = opts.queueId ?? (typeof lockPath === 'string' ? lockPath : undefined);
  if (queueId === undefined) throw new TypeError('withLock: a queueId is needed when the lock path is computed');
  const holds = heldLocks.getStore();
  if (holds?.get(queueId)?.active) return fn();

  const deadline = Date.now() + opts.timeoutMs;
  // Joined before the first await, so callers of this process go in call order.
  const leaveQueue = await joinQueue(queueId, deadline, opts.busyHere ?? opts.busy);
  try {
    const where = typeof lockPath === 'string' ? lockPath : await lockPath();
    const hold: Hold = { active: true, compromised: null };
    const release = await acquireFileLock(where, deadline, opts, hold);
    if (!opts.guard) lockTaken();
    try {
      const result = await heldLocks.run(new Map([...(holds ?? []), [queueId, hold]]), fn);
      if (hold.compromised) throw new MemoryLockError('compromised', opts.lost, { cause: hold.compromised });
      return result;
    } finally {
      hold.active = false;
      if (!hold.compromised) await release().catch(() => undefined);
      if (!opts.guard) lockLetGo();
    }
  } finally {
    leaveQueue();
  }
}

async function joinQueue(queueId: string, deadline: number, busy: string): Promise<() => void> {
  const previous = queues.get(queueId) ?? Promise.resolve();
  let leave!: () => void;
  const mine = new Promise<void>((resolve) => (leave = resolve));
  const tail = previous.then(() => mine);
  queues.set(queueId, tail);
  void tail.then(() => {
    if (queues.get(queueId) === tail) queues.delete(queueId);
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
    throw new MemoryLockError('busy', busy);
  }
  return leave;
}

async function acquireFileLock(lockPath: string, deadline: number, opts: LockOptions, hold: Hold): Promise<() => Promise<void>> {
  const lockDir = path.dirname(lockPath);
  const failed = opts.failed ?? ((err: unknown) => (errCode(err) === undefined ? err : explain(err, 'take', "Memdir's lock", lockDir)));
  await fs.mkdir(lockDir, { recursive: true }).catch((err: unknown) => {
    throw failed(err);
  });
  const owner: OwnerRecord = { host: os.hostname(), pid: process.pid, token: randomBytes(8).toString('hex') };
  let delay = 5;
  for (;;) {
    try {
      const release = await lockfile.lock(lockPath, {
        lockfilePath: lockPath,
        realpath: false,
        retries: 0,
        stale: LOCK_STALE_MS,
        fs: lockFolderFs(owner),
        onCompromised: (err) => {
          hold.compromised = err;
        },
      });
      await sweepLeftovers(lockDir, path.basename(lockPath));
      return release;
    } catch (err) {
      if (errCode(err) !== 'ELOCKED') throw failed(err);
    }
    if (await breakDeadOwner(lockPath)) continue;
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw new MemoryLockError('busy', opts.busy);
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

async function lstatOrNull(p: string): Promise<Stats | null> {
  return fs.lstat(p).catch((err: unknown) => {
    if (errCode(err) === 'ENOENT') return null;
    throw err;
  });
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
      const st = await lstatOrNull(full).catch(() => null);
      const abandoned = owner ? isDeadOwner(owner) : st !== null && Date.now() - st.mtimeMs > 60_000;
      if (abandoned) await fs.rm(full, { recursive: true, force: true });
    }
  }
}
