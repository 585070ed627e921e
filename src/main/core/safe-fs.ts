/**
 * The only way Memdir writes into a memory directory (STYLE.md: "view → … → service → safe fs →
 * history"). Every writer here is:
 *   - confined: the target is resolved under the real path of the memory directory, and any
 *     symlink on the way (file or folder) is refused — Memdir never follows a link inside a
 *     memory dir (issue 2, `unsafe-link`; confined-path.ts, which also says how a folder swapped
 *     for a link between the check and the use is caught);
 *   - atomic: a temp file in the same folder, fsync, rename over the target, fsync the folder,
 *     so a crash at any moment leaves either the old or the new content, never a mix;
 *   - serialised: `withMemoryLock` (memory-lock.ts) keeps two Memdir processes (app, CLI, hooks)
 *     from interleaving writes to one memory dir.
 * History (src/main/history) wraps these in `transact`, which is what services call.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import { constants as fsConstants } from 'node:fs';
import type { Stats } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { withReason } from '../../shared/failure-words.js';
import { errCode } from './fs-errors.js';
import { type Confined, MemoryFileError, UnsafePathError, confine, explain, lstatOrNull, notAFolder, rootStaysWithin, verifyOpened } from './confined-path.js';

/** Temp files start with a dot so scans, watchers and history (which ignore dotfiles) skip them. */
export const TEMP_FILE_PREFIX = '.memdir-tmp-';
/** What the writers here did while a change ran (see noteWrites). */
export interface NotedWrites {
  /** The folders created for a write under the root: relative to it, `.` for the root itself and `..`, `../..` for those above it. */
  created: string[];
  /** Every file written, removed or renamed (both names), as an absolute path under the real path of the writer's root — wherever it is. */
  files: Set<string>;
  /**
   * Told of each file about to be written (absolute, under the real path of the root), before any
   * byte of it is: returns what to write instead (history.ts merges onto MEMORY.md the pointers
   * another program appended since the change read it).
   */
  beforeWrite?: (abs: string, data: string | Uint8Array) => Promise<string | Uint8Array>;
  /**
   * Each file's permission bits when the change first touched it (null: it was not there): what
   * the change's entry keeps of a file it takes away (history.ts), git keeping no modes but 755.
   */
  modes?: Map<string, number | null>;
  /**
   * Asked of each file about to be created (absolute, as for beforeWrite) without a mode given:
   * the mode to create it with, undefined for a new file's (history.ts: a memory an undo or a
   * restore brings back gets the mode it had when it was taken away).
   */
  createMode?: (abs: string) => Promise<number | undefined>;
}
/** A root whose writes are being noted, and what was written. */
interface WriteLog extends NotedWrites {
  root: string;
}
const writeLogs = new AsyncLocalStorage<readonly WriteLog[]>();

/**
 * Runs `fn`, noting in `noted` what the writers here do meanwhile: the folders they create for a
 * write under `root` (what an undo must take away again so the tree is as it was; only folders
 * made by a mkdir that succeeded, never one that was already there), and every file they touch
 * (what a change holds as its own: a file another program wrote meanwhile is not, history.ts).
 */
export function noteWrites<T>(root: string, noted: NotedWrites, fn: () => Promise<T>): Promise<T> {
  return writeLogs.run([...(writeLogs.getStore() ?? []), { ...noted, root: path.resolve(root) }], fn);
}

function noteCreated(root: string, rel: string): void {
  const resolved = path.resolve(root);
  for (const log of writeLogs.getStore() ?? []) if (log.root === resolved && !log.created.includes(rel)) log.created.push(rel);
}

/** Notes (see noteWrites) that the file at `abs` (`target`: as it is now, null when absent) is about to be written, removed or renamed. */
function noteFile(abs: string, target: Stats | null): void {
  for (const log of writeLogs.getStore() ?? []) {
    log.files.add(abs);
    if (log.modes && !log.modes.has(abs)) log.modes.set(abs, target ? target.mode & 0o7777 : null);
  }
}

/** The mode a file about to be created at `abs` gets from a noting change (see NotedWrites.createMode); undefined: a new file's. */
async function modeOnCreate(abs: string): Promise<number | undefined> {
  for (const log of writeLogs.getStore() ?? []) {
    const mode = await log.createMode?.(abs);
    if (mode !== undefined) return mode;
  }
  return undefined;
}

/** What to write at `abs` once every noting change has been told (see NotedWrites.beforeWrite). */
async function toldBeforeWrite(abs: string, data: string | Uint8Array): Promise<string | Uint8Array> {
  for (const log of writeLogs.getStore() ?? []) if (log.beforeWrite) data = await log.beforeWrite(abs, data);
  return data;
}

/** `fs.mkdir(root, { recursive: true })`, noting (see noteWrites) the folders it made. */
async function ensureRoot(root: string, rel: string): Promise<void> {
  let first: string | undefined;
  try {
    first = await fs.mkdir(root, { recursive: true });
  } catch (err) {
    if (errCode(err) === 'EEXIST') throw notAFolder(root, rel);
    throw err;
  }
  if (first === undefined) return;
  const up = path
    .relative(root, first)
    .split(path.sep)
    .filter((p) => p === '..').length;
  for (let k = up; k >= 0; k--) noteCreated(root, k === 0 ? '.' : Array.from({ length: k }, () => '..').join('/'));
}

/** Creates each missing parent folder of the target, re-checking every component as it goes. */
async function ensureParentDirs(root: string, c: Confined, rel: string): Promise<void> {
  let current = c.rootReal;
  for (const [i, part] of c.parts.slice(0, -1).entries()) {
    current = path.join(current, part);
    let st = await lstatOrNull(current);
    if (!st) {
      const made = await fs.mkdir(current).then(
        () => true,
        (err: unknown) => {
          if (errCode(err) !== 'EEXIST') throw err;
          return false;
        },
      );
      if (made) noteCreated(root, c.parts.slice(0, i + 1).join('/'));
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

/** Folders whose fsync is put off to the end of a {@link syncingFoldersOnce}. */
const putOffSyncs = new AsyncLocalStorage<Set<string>>();

/**
 * Runs `fn` with the folder fsync of every atomic write and delete here put off to its end: each
 * folder touched is fsynced once when `fn` ends (also when it throws), before this returns — a bulk
 * change over 1,000 memories of one folder pays one folder fsync, not 1,000. Each file is still
 * written to a temp file, fsynced and renamed (a crash leaves old or new bytes, never a mix); what
 * waits is only the rename's durability, so the caller writes nothing that depends on it (an
 * index pointing at the files) until this has returned. Nested, the outermost one syncs.
 */
export async function syncingFoldersOnce<T>(fn: () => Promise<T>): Promise<T> {
  if (putOffSyncs.getStore()) return fn();
  const folders = new Set<string>();
  let result: T;
  try {
    result = await putOffSyncs.run(folders, fn);
  } catch (error) {
    // What was written before the failure is made durable all the same (the caller records it).
    for (const dir of folders) await fsyncDir(dir).catch(() => undefined);
    throw error;
  }
  for (const dir of folders) await fsyncDir(dir);
  return result;
}

/** fsyncs `dir` now, or at the end of the {@link syncingFoldersOnce} this runs in. */
async function syncFolder(dir: string): Promise<void> {
  const putOff = putOffSyncs.getStore();
  if (putOff) putOff.add(dir);
  else await fsyncDir(dir);
}

/**
 * Writes `data` to `rel` under `root` atomically (temp file in the same folder, fsync, rename,
 * fsync the folder). Creates `root` and missing parent folders. Refuses symlinks on the way and a
 * target that exists but is not a regular file. A replaced file keeps its mode unless `mode` is
 * given; a new one gets `mode` (default 0o666 less the umask). With `within`, `root` must be inside
 * that folder with no symbolic link on the way (checked at the write, rootStaysWithin).
 *
 * Hand-rolled rather than write-file-atomic: its temp names (`file.<hash>`) are visible to scans,
 * and it neither fsyncs the folder nor refuses links and folders in the way.
 */
export async function writeFileAtomic(
  root: string,
  rel: string,
  given: string | Uint8Array,
  opts: { mode?: number; within?: string | undefined } = {},
): Promise<void> {
  let where = root;
  let temp: string | undefined;
  try {
    // The root is the caller's choice (a memory dir that may not exist yet); only what lies
    // under it is confined — and, with `within`, the way to it from there.
    if (opts.within !== undefined) await rootStaysWithin(opts.within, root, rel);
    await ensureRoot(root, rel);
    const c = await confine(root, rel);
    where = path.dirname(c.abs);
    assertRegularFile(c, rel);
    const data = await toldBeforeWrite(c.abs, given);
    await ensureParentDirs(root, c, rel);
    const mode = opts.mode ?? (c.target ? c.target.mode & 0o7777 : await modeOnCreate(c.abs));
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
    noteFile(c.abs, c.target);
    await fs.rename(temp, c.abs);
    temp = undefined;
    await verifyOpened(c.rootReal, c.parts, created, rel, 'write');
    await syncFolder(where);
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
    noteFile(c.abs, c.target);
    await fs.unlink(c.abs);
    await syncFolder(where);
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
    await ensureParentDirs(root, dst, to);
    noteFile(src.abs, src.target);
    noteFile(dst.abs, dst.target);
    if (caseOnly) {
      // Same file under another letter case (case-insensitive file system): a plain rename.
      await fs.rename(src.abs, dst.abs);
    } else {
      await moveWithoutReplacing(src.abs, dst.abs, from, to);
    }
    // Never put off: a move between folders must have its new name on disk before the old one goes.
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
/** Options of a write of one of Memdir's own files. */
export interface DataFileOptions {
  mode?: number;
  /**
   * What the file holds, in a person's words ("where extraction got to"): a refusal says
   * "Memdir could not save <what>: <why>" — never the name of Memdir's own file (`turning.json`,
   * `<hash>.json`), which means nothing to the person reading it. Default: "its own records".
   */
  what?: string;
}

/** A refusal to write one of Memdir's own files, as a person reads it (see DataFileOptions.what). */
function dataFileRefusal(err: unknown, file: string, what: string | undefined): unknown {
  if (!(err instanceof MemoryFileError)) return err;
  return new MemoryFileError(err.reason, err.path, withReason(`Memdir could not save ${what ?? 'its own records'}`, path.basename(file), err), { cause: err });
}

/**
 * Write one of Memdir's own files (settings, credentials, state in the data dir) atomically:
 * its folder is created (private, 0700, when the file is), then the same temp-fsync-rename as
 * every other write. `mode` applies from the file's creation, so a secret is never readable by
 * others, not even for an instant.
 */
export async function writeDataFile(file: string, data: string | Uint8Array, opts: DataFileOptions = {}): Promise<void> {
  const dir = path.dirname(file);
  try {
    await fs.mkdir(dir, { recursive: true, mode: opts.mode !== undefined && (opts.mode & 0o077) === 0 ? 0o700 : 0o755 }).catch((err: unknown) => {
      throw explain(err, 'write', path.basename(file), path.dirname(dir));
    });
    await writeFileAtomic(dir, path.basename(file), data, opts.mode !== undefined ? { mode: opts.mode } : {});
  } catch (err) {
    throw dataFileRefusal(err, file, opts.what);
  }
}

/**
 * Appends whole lines to a data file (a log), durably (fsync): all of `text` or none of it. The
 * disk refusing part-way (full: a short write, or ENOSPC) cuts the file back to where it was and
 * throws a sentence, so no torn line is left for the next append to glue its own line onto —
 * where a reader would lose both. One write of whole lines: appends from two processes never
 * interleave within a line.
 */
export async function appendDataLines(file: string, text: string, opts: DataFileOptions = {}): Promise<void> {
  const dir = path.dirname(file);
  const where = (err: unknown) => dataFileRefusal(explain(err, 'write', path.basename(file), dir), file, opts.what);
  await fs.mkdir(dir, { recursive: true }).catch((err: unknown) => {
    throw where(err);
  });
  const handle = await fs.open(file, 'a', opts.mode ?? 0o600).catch((err: unknown) => {
    throw where(err);
  });
  try {
    const start = (await handle.stat()).size;
    const bytes = Buffer.from(text, 'utf8');
    let written = 0;
    try {
      written = (await handle.write(bytes)).bytesWritten;
      // A short write is the disk running out part-way: the rest would only fail on ENOSPC.
      if (written < bytes.length) throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
      await handle.sync();
    } catch (err) {
      // Cut back only this append: never a line another process appended meanwhile
      // (then the file no longer ends where this write did, and it is left as it is).
      const size = (await handle.stat().catch(() => null))?.size;
      if (size === start + written) await handle.truncate(start).catch(() => undefined);
      throw where(err);
    }
  } finally {
    await handle.close();
  }
}
