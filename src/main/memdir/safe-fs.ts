/**
 * The only way Memdir writes into a memory directory (STYLE.md: "view → … → service → safe fs →
 * history"). Every writer here is:
 *   - confined: the target is resolved under the real path of the memory directory, and any
 *     symlink on the way (file or folder) is refused — Memdir never follows a link inside a
 *     memory dir (issue 2, `unsafe-link`);
 *   - atomic: a temp file in the same folder, fsync, rename over the target, fsync the folder,
 *     so a crash at any moment leaves either the old or the new content, never a mix;
 *   - serialised: `withMemoryLock` keeps two Memdir processes (app, CLI, hooks) from
 *     interleaving writes to one memory dir.
 * History (src/main/history) wraps these in `transact`, which is what services call.
 *
 * A folder swapped for a symlink between the check and the use (issue 15, check-then-use):
 * Node has no openat, so every open is verified after the fact — the path is walked again with
 * `lstat` (no link on the way) and the file found at its end must be the very inode the open
 * returned. A write opens its temp file empty, verifies where it landed before a byte goes in,
 * and verifies the renamed file again; a read verifies before a byte is read
 * (`openConfinedForRead`). The worst a winning race can leave outside is an empty temp file,
 * and only when the attacker also swaps the folder back in time.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash, randomBytes } from 'node:crypto';
import fsCallbacks, { constants as fsConstants } from 'node:fs';
import type { Stats } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import lockfile from 'proper-lockfile';
import { resolveDataDir } from '../data-dir.js';
import { errCode } from '../core/fs-errors.js';
import { isProcessAlive } from '../core/process.js';
import { MemdirError, type MemdirErrorCode } from '../core/errors.js';

/** Temp files start with a dot so scans, watchers and history (which ignore dotfiles) skip them. */
export const TEMP_FILE_PREFIX = '.memdir-tmp-';

/** A path Memdir refuses to write: it leaves the memory dir, goes through a symlink, or is malformed. */
export class UnsafePathError extends MemdirError<'unsafe-path'> {
  override readonly name = 'UnsafePathError';
  constructor(
    readonly reason: 'outside' | 'symlink' | 'invalid' | 'hardlink',
    /** The relative path as the caller gave it. */
    readonly path: string,
    message: string,
  ) {
    super('unsafe-path', message);
  }
}

/** A write that could not be done, with a sentence a person understands. */
export class MemoryFileError extends MemdirError<(typeof FILE_CODES)[keyof typeof FILE_CODES]> {
  override readonly name = 'MemoryFileError';
  constructor(
    readonly reason: 'exists' | 'missing' | 'not-a-file' | 'permission' | 'io',
    /** The relative path as the caller gave it. */
    readonly path: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(FILE_CODES[reason], message, options);
  }
}

const FILE_CODES = {
  exists: 'exists',
  missing: 'not-found',
  'not-a-file': 'not-a-file',
  permission: 'permission-denied',
  io: 'io-failed',
} as const satisfies Record<string, MemdirErrorCode>;

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
 * Checks a caller-given relative path (forward slashes) without touching the disk and returns
 * its components. Exported so history can validate file arguments with the same rules.
 */
export function splitRelativePath(rel: string, root = 'the memory directory', verb = 'write'): string[] {
  const refuse = (reason: UnsafePathError['reason'], why: string): never => {
    throw new UnsafePathError(reason, rel, `Refused to ${verb} ${showPath(rel)}: ${why}`);
  };
  if (typeof rel !== 'string' || rel.trim() === '') refuse('invalid', 'the path is empty');
  if (rel.includes('\0')) refuse('invalid', 'the path contains a null byte');
  if (rel.includes('\\')) refuse('invalid', 'use forward slashes (/) in memory paths');
  // On Windows `x.md:name` would write a hidden alternate data stream; the rest are invalid there.
  if (process.platform === 'win32' && /[:*?"<>|]/.test(rel)) refuse('invalid', 'it contains a character Windows does not allow in file names');
  if (rel.startsWith('/') || /^[A-Za-z]:\//.test(rel)) {
    refuse('outside', `absolute paths are not allowed; give a path inside ${root}`);
  }
  const normalized = path.posix.normalize(rel).replace(/\/+$/, '');
  if (normalized === '..' || normalized.startsWith('../')) {
    refuse('outside', `it resolves outside ${root}`);
  }
  if (normalized === '.' || normalized === '') refuse('invalid', `it names ${root} itself, not a file in it`);
  return normalized.split('/');
}

/** Shows a path in a message; quoted only when it holds control characters (a null byte, a newline). */
function showPath(rel: string): string {
  return typeof rel === 'string' && !/[\u0000-\u001f]/.test(rel) ? rel : JSON.stringify(rel);
}

interface Confined {
  rootReal: string;
  parts: string[];
  abs: string;
  /** lstat of the target, or null when it does not exist yet. */
  target: Stats | null;
}

async function lstatOrNull(p: string): Promise<Stats | null> {
  try {
    return await fs.lstat(p);
  } catch (err) {
    if (errCode(err) === 'ENOENT') return null;
    throw err;
  }
}

/** Walk `parts` under `rootReal` with lstat: no link on the way, folders before the last. The last one's lstat, or null when a part is missing. */
async function walkNoLinks(rootReal: string, parts: string[], rel: string, verb: string): Promise<Stats | null> {
  let current = rootReal;
  for (let i = 0; i < parts.length; i++) {
    current = path.join(current, parts[i] as string);
    const st = await lstatOrNull(current);
    if (!st) return null;
    const shown = parts.slice(0, i + 1).join('/');
    if (st.isSymbolicLink()) {
      throw new UnsafePathError(
        'symlink',
        rel,
        `Refused to ${verb} ${rel}: ${shown} is a symbolic link, and Memdir never follows links inside the memory directory ${rootReal}`,
      );
    }
    if (i < parts.length - 1 && !st.isDirectory()) {
      throw new MemoryFileError('not-a-file', rel, `Cannot ${verb} ${rel}: ${shown} is a file, not a folder`);
    }
    if (i === parts.length - 1) return st;
  }
  return null;
}

async function confine(root: string, rel: string, verb = 'write'): Promise<Confined> {
  const rootReal = await fs.realpath(root);
  const parts = splitRelativePath(rel, `the memory directory ${rootReal}`, verb);
  const target = await walkNoLinks(rootReal, parts, rel, verb);
  return { rootReal, parts, abs: path.join(rootReal, ...parts), target };
}

/**
 * After an open: whether the path `parts` under `rootReal` still leads, without a link, to
 * the inode `opened` (a folder on the way swapped for a link between the check and the open
 * makes the open land elsewhere). Throws UnsafePathError when it does not.
 */
async function verifyOpened(rootReal: string, parts: string[], opened: Stats, rel: string, verb: string): Promise<void> {
  let now: Stats | null;
  try {
    now = await walkNoLinks(rootReal, parts, rel, verb);
  } catch (err) {
    if (err instanceof UnsafePathError || err instanceof MemoryFileError) now = null;
    else throw err;
  }
  if (!now || now.ino !== opened.ino || now.dev !== opened.dev) {
    throw new UnsafePathError(
      'symlink',
      rel,
      `Refused to ${verb} ${rel}: a folder on its way was replaced (by a link or a move) while it was being opened; nothing was ${verb === 'read' ? 'read' : 'written'} through it`,
    );
  }
}

/**
 * Open the regular file `rel` under `root` for reading, confined like a write: no link on the
 * way (O_NOFOLLOW for the last part), and verified after the open to be the file at that path
 * (see the file comment). `refuseHardlinks`: a file with more than one name is refused — one of
 * its names may be outside the memory directory (a link to ~/.ssh/id_ed25519 made with `ln`).
 * Null when the file does not exist; the caller closes the handle.
 */
export async function openConfinedForRead(
  root: string,
  rel: string,
  opts: { refuseHardlinks?: boolean } = {},
): Promise<{ handle: fs.FileHandle; stat: Stats } | null> {
  const c = await confine(root, rel, 'read');
  if (!c.target) return null;
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(c.abs, fsConstants.O_RDONLY | (fsConstants.O_NOFOLLOW ?? 0) | (fsConstants.O_NONBLOCK ?? 0));
  } catch (err) {
    if (errCode(err) === 'ENOENT') return null;
    if (errCode(err) === 'ELOOP')
      throw new UnsafePathError(
        'symlink',
        rel,
        `Refused to read ${rel}: it became a symbolic link, and Memdir never follows links inside the memory directory`,
      );
    throw explain(err, 'read', rel, path.dirname(c.abs));
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new MemoryFileError('not-a-file', rel, `Cannot read ${rel}: it is not a regular file`);
    await verifyOpened(c.rootReal, c.parts, stat, rel, 'read');
    if (opts.refuseHardlinks && stat.nlink > 1) {
      throw new UnsafePathError(
        'hardlink',
        rel,
        `Refused to read ${rel}: it is a hard link (one file with ${stat.nlink} names, which may be outside the memory directory); Memdir never reads a hard-linked file here. Replace it with a copy.`,
      );
    }
    return { handle, stat };
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/**
 * Resolves `rel` (relative to `root`, forward slashes) to an absolute path under the real path of
 * `root`. Refuses empty, absolute, `..`-escaping, backslash and null-byte paths, and any existing
 * component that is a symlink. Missing components are fine (the caller may be creating them).
 */
export async function resolveInside(root: string, rel: string): Promise<string> {
  return (await confine(root, rel)).abs;
}

/** Creates each missing parent folder of the target, re-checking every component as it goes. */
async function ensureParentDirs(c: Confined, rel: string): Promise<void> {
  let current = c.rootReal;
  for (const part of c.parts.slice(0, -1)) {
    current = path.join(current, part);
    let st = await lstatOrNull(current);
    if (!st) {
      await fs.mkdir(current).catch((err: unknown) => {
        if (errCode(err) !== 'EEXIST') throw err;
      });
      st = await fs.lstat(current);
    }
    if (st.isSymbolicLink()) {
      throw new UnsafePathError('symlink', rel, `Refused to write ${rel}: ${path.relative(c.rootReal, current)} is a symbolic link`);
    }
    if (!st.isDirectory()) {
      throw new MemoryFileError('not-a-file', rel, `Cannot write ${rel}: ${path.relative(c.rootReal, current)} is a file, not a folder`);
    }
  }
}

function assertRegularFile(c: Confined, rel: string): void {
  if (c.target && !c.target.isFile()) {
    const what = c.target.isDirectory() ? 'a folder' : 'not a regular file';
    throw new MemoryFileError('not-a-file', rel, `Cannot write ${rel}: it exists and is ${what}; Memdir only replaces regular files`);
  }
}

/**
 * fsyncs a folder so a rename or unlink in it survives a power cut. Some platforms cannot open a
 * folder for syncing (Windows) or refuse the sync (some network file systems): the rename itself
 * is still atomic there, so those errors are ignored.
 */
async function fsyncDir(dir: string): Promise<void> {
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(dir, 'r');
    await handle.sync();
  } catch (err) {
    if (!['EISDIR', 'EPERM', 'EINVAL', 'EACCES', 'ENOTSUP'].includes(errCode(err) ?? '')) throw err;
  } finally {
    await handle?.close();
  }
}

/** Turns an OS error into a MemoryFileError; our own typed errors pass through unchanged. */
function explain(err: unknown, verb: string, rel: string, where: string): Error {
  if (err instanceof UnsafePathError || err instanceof MemoryFileError) return err;
  const code = errCode(err);
  const say = (reason: MemoryFileError['reason'], why: string): MemoryFileError =>
    new MemoryFileError(reason, rel, `Cannot ${verb} ${rel}: ${why}`, { cause: err });
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return say('permission', `permission denied in ${where}`);
    case 'EROFS':
      return say('permission', `${where} is on a read-only file system`);
    case 'ENOSPC':
    case 'EDQUOT':
      return say('io', 'the disk is full');
    case 'ENOENT':
      return say('missing', `${where} does not exist`);
    case 'EISDIR':
      return say('not-a-file', 'a folder is in the way');
    case 'ENOTDIR':
      return say('not-a-file', 'a file is in the way of a folder on its path');
    default:
      return say('io', err instanceof Error ? err.message : String(err));
  }
}

/**
 * Writes `data` to `rel` under `root` atomically (temp file in the same folder, fsync, rename,
 * fsync the folder). Creates `root` and missing parent folders. Refuses symlinks on the way and a
 * target that exists but is not a regular file. A replaced file keeps its mode unless `mode` is
 * given; a new one gets `mode` (default 0o666 less the umask).
 *
 * Hand-rolled rather than write-file-atomic: its temp names (`file.<hash>`) are visible to scans,
 * and it neither fsyncs the folder nor refuses links and folders in the way.
 */
export async function writeFileAtomic(root: string, rel: string, data: string | Uint8Array, opts: { mode?: number } = {}): Promise<void> {
  let where = root;
  let temp: string | undefined;
  try {
    // The root is the caller's choice (a memory dir that may not exist yet); only what lies
    // under it is confined.
    await fs.mkdir(root, { recursive: true });
    const c = await confine(root, rel);
    where = path.dirname(c.abs);
    assertRegularFile(c, rel);
    await ensureParentDirs(c, rel);
    const mode = opts.mode ?? (c.target ? c.target.mode & 0o7777 : undefined);
    const tempName = `${TEMP_FILE_PREFIX}${randomBytes(8).toString('hex')}`;
    temp = path.join(where, tempName);
    const flags = fsConstants.O_CREAT | fsConstants.O_EXCL | fsConstants.O_WRONLY | (fsConstants.O_NOFOLLOW ?? 0);
    const handle = await fs.open(temp, flags, mode ?? 0o666);
    let created: Stats;
    try {
      created = await handle.stat();
      // Where the (still empty) temp file really is, before a byte goes in.
      try {
        await verifyOpened(c.rootReal, [...c.parts.slice(0, -1), tempName], created, rel, 'write');
      } catch (err) {
        // Remove it only where it is exactly the file just made (wherever the link sent it).
        const there = await fs.stat(temp).catch(() => null);
        if (there?.ino !== created.ino || there.dev !== created.dev) temp = undefined;
        throw err;
      }
      await handle.writeFile(data);
      // open() applies the umask; a replaced file must keep exactly its old mode.
      if (mode !== undefined) await handle.chmod(mode);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(temp, c.abs);
    temp = undefined;
    await verifyOpened(c.rootReal, c.parts, created, rel, 'write');
    await fsyncDir(where);
  } catch (err) {
    if (temp) await fs.unlink(temp).catch(() => undefined);
    throw explain(err, 'write', rel, where);
  }
}

/** Deletes the regular file `rel` under `root` (confined, no links), then fsyncs its folder. */
export async function removeFileConfined(root: string, rel: string): Promise<void> {
  let where = root;
  try {
    const c = await confine(root, rel, 'delete');
    where = path.dirname(c.abs);
    if (!c.target) throw new MemoryFileError('missing', rel, `Cannot delete ${rel}: it does not exist`);
    assertRegularFile(c, rel);
    await fs.unlink(c.abs);
    await fsyncDir(where);
  } catch (err) {
    throw explain(err, 'delete', rel, where);
  }
}

/**
 * Renames `from` to `to` under `root`, both confined. Never overwrites: an existing `to` is an
 * error (`reason: 'exists'`). The no-overwrite move is a hard link then an unlink of the old
 * name, because Node has no rename-without-replace; a crash between the two leaves both names
 * (nothing lost). Where hard links are unsupported it falls back to check-then-rename, which is
 * safe against other Memdir writers because callers hold the memory lock.
 */
export async function renameConfined(root: string, from: string, to: string): Promise<void> {
  let where = root;
  try {
    const src = await confine(root, from, 'rename');
    const dst = await confine(root, to, 'rename');
    where = path.dirname(dst.abs);
    if (!src.target) throw new MemoryFileError('missing', from, `Cannot rename ${from}: it does not exist`);
    assertRegularFile(src, from);
    if (src.abs === dst.abs) return;
    const caseOnly = dst.target !== null && dst.target.ino === src.target.ino && dst.target.dev === src.target.dev;
    if (dst.target && !caseOnly) {
      throw new MemoryFileError('exists', to, `Cannot rename ${from} to ${to}: ${to} already exists`);
    }
    await ensureParentDirs(dst, to);
    if (caseOnly) {
      // Same file under another letter case (case-insensitive file system): a plain rename.
      await fs.rename(src.abs, dst.abs);
    } else {
      await moveWithoutReplacing(src.abs, dst.abs, from, to);
    }
    await fsyncDir(path.dirname(dst.abs));
    if (path.dirname(src.abs) !== path.dirname(dst.abs)) await fsyncDir(path.dirname(src.abs));
  } catch (err) {
    throw explain(err, 'rename', from, where);
  }
}

async function moveWithoutReplacing(fromAbs: string, toAbs: string, from: string, to: string): Promise<void> {
  try {
    await fs.link(fromAbs, toAbs);
  } catch (err) {
    const code = errCode(err);
    if (code === 'EEXIST') throw new MemoryFileError('exists', to, `Cannot rename ${from} to ${to}: ${to} already exists`);
    if (!['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV', 'EMLINK'].includes(code ?? '')) throw err;
    if (await lstatOrNull(toAbs)) throw new MemoryFileError('exists', to, `Cannot rename ${from} to ${to}: ${to} already exists`);
    await fs.rename(fromAbs, toAbs);
    return;
  }
  await fs.unlink(fromAbs);
}

/**
 * Removes `.memdir-tmp-*` files left under `root` by a writer that was killed between creating
 * its temp file and renaming it. Call it while holding the memory lock (a live writer's temp file
 * must not vanish under it); `transact` does. Returns the removed paths, relative to `root`.
 */
export async function cleanupTempFiles(root: string): Promise<string[]> {
  const removed: string[] = [];
  const walk = async (dir: string, depth: number): Promise<void> => {
    let entries;
    try {
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch (err) {
      if (['ENOENT', 'ENOTDIR', 'EACCES', 'EPERM'].includes(errCode(err) ?? '')) return;
      throw err;
    }
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isFile() && entry.name.startsWith(TEMP_FILE_PREFIX)) {
        await fs.unlink(full).catch(() => undefined);
        removed.push(path.relative(root, full).split(path.sep).join('/'));
      } else if (entry.isDirectory() && depth < 8) {
        await walk(full, depth + 1);
      }
    }
  };
  await walk(root, 0);
  return removed;
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

/**
 * Write one of Memdir's own files (settings, credentials, state in the data dir) atomically:
 * its folder is created (private, 0700, when the file is), then the same temp-fsync-rename as
 * every other write. `mode` applies from the file's creation, so a secret is never readable by
 * others, not even for an instant.
 */
export async function writeDataFile(file: string, data: string | Uint8Array, opts: { mode?: number } = {}): Promise<void> {
  const dir = path.dirname(file);
  await fs.mkdir(dir, { recursive: true, mode: opts.mode !== undefined && (opts.mode & 0o077) === 0 ? 0o700 : 0o755 });
  await writeFileAtomic(dir, path.basename(file), data, opts);
}
