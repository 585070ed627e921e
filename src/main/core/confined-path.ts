/**
 * Confined path resolution for every reader and writer of a memory directory (issue 2,
 * `unsafe-link`): a caller-given relative path is resolved under the real path of the memory
 * directory, and any symlink on the way (file or folder) is refused — Memdir never follows a link
 * inside a memory dir. The writers built on it are in safe-fs.ts.
 *
 * A folder swapped for a symlink between the check and the use (issue 15, check-then-use):
 * Node has no openat, so every open is verified after the fact — the path is walked again with
 * `lstat` (no link on the way) and the file found at its end must be the very inode the open
 * returned. A write opens its temp file empty, verifies where it landed before a byte goes in,
 * and verifies the renamed file again; a read verifies before a byte is read
 * (`openConfinedForRead`). The worst a winning race can leave outside is an empty temp file,
 * and only when the attacker also swaps the folder back in time.
 */
import { failureWords } from '../../shared/failure-words.js';
import { constants as fsConstants } from 'node:fs';
import type { Stats } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { errCode } from './fs-errors.js';
import { MemdirError, type MemdirErrorCode } from '../../shared/errors.js';

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

/** A caller-given path resolved under the memory directory's real path. */
export interface Confined {
  rootReal: string;
  parts: string[];
  abs: string;
  /** lstat of the target, or null when it does not exist yet. */
  target: Stats | null;
}

/** lstat, or null when nothing is there. */
export async function lstatOrNull(p: string): Promise<Stats | null> {
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

/**
 * The first part of `rel` under `root` that is a symbolic link (`link` of `link/.claude/x`), or
 * null when none is on the way (a missing part ends the walk: what is made there is a folder).
 */
export async function linkOnTheWay(root: string, rel: string): Promise<string | null> {
  const parts = splitRelativePath(rel, root);
  let current = await fs.realpath(root);
  for (let i = 0; i < parts.length; i++) {
    current = path.join(current, parts[i] as string);
    const st = await lstatOrNull(current);
    if (!st) return null;
    if (st.isSymbolicLink()) return parts.slice(0, i + 1).join('/');
  }
  return null;
}

/**
 * Refuses a write of `rel` under `root` unless `root` is inside `within` with no symbolic link on
 * the way (a folder the caller chose under a root it must not leave: an import's agent memory).
 */
export async function rootStaysWithin(within: string, root: string, rel: string): Promise<void> {
  const from = path.relative(path.resolve(within), path.resolve(root));
  if (from === '') return;
  if (from === '..' || from.startsWith(`..${path.sep}`) || path.isAbsolute(from))
    throw new UnsafePathError('outside', rel, `Refused to write ${rel}: ${root} is outside ${within}`);
  const link = await linkOnTheWay(within, from.split(path.sep).join('/'));
  if (link)
    throw new UnsafePathError('symlink', rel, `Refused to write ${rel}: ${path.join(within, link)} is a symbolic link, and Memdir never writes through a link`);
}

/** Resolves `rel` under the real path of `root`, refusing links on the way; see {@link Confined}. */
export async function confine(root: string, rel: string, verb = 'write'): Promise<Confined> {
  let rootReal: string;
  try {
    rootReal = await fs.realpath(root);
  } catch (err) {
    // A memory dir not there yet stays ENOENT: its readers take it for empty, its writers make it.
    throw errCode(err) === 'ENOENT' ? err : explain(err, verb, rel, `the memory folder ${root}`);
  }
  const parts = splitRelativePath(rel, `the memory directory ${rootReal}`, verb);
  let target: Stats | null;
  try {
    target = await walkNoLinks(rootReal, parts, rel, verb);
  } catch (err) {
    if (errCode(err) === 'ENOTDIR' && !(await fs.stat(rootReal)).isDirectory()) throw notAFolder(root, rel);
    throw errCode(err) === undefined ? err : explain(err, verb, rel, `the memory folder ${root}`);
  }
  return { rootReal, parts, abs: path.join(rootReal, ...parts), target };
}

/**
 * The sentence for a memory folder that is not a folder (a file in its place): every reader and
 * writer of a memory dir says it, never a raw ENOTDIR or EEXIST, and leaves that file as it is.
 */
export function notAFolder(root: string, rel: string): MemoryFileError {
  return new MemoryFileError(
    'not-a-file',
    rel,
    `The memory folder ${root} is a file, not a folder, so ${rel} cannot be read or written there. Move that file away (it is left as it is), then try again.`,
  );
}

/**
 * After an open: whether the path `parts` under `rootReal` still leads, without a link, to
 * the inode `opened` (a folder on the way swapped for a link between the check and the open
 * makes the open land elsewhere). Throws UnsafePathError when it does not.
 */
export async function verifyOpened(rootReal: string, parts: string[], opened: Stats, rel: string, verb: string): Promise<void> {
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

/**
 * `rel` under `root`, as {@link resolveInside} resolves it (links refused); null when the memory dir
 * itself does not exist: nothing is there to read (an undo of a change that removed the whole
 * folder writes it again). The one rule for every confined reader.
 */
export async function confineOrNull(root: string, rel: string): Promise<string | null> {
  try {
    return await resolveInside(root, rel);
  } catch (error) {
    if (errCode(error) === 'ENOENT') return null;
    throw error;
  }
}

/**
 * A file's bytes now, confined like every reader ({@link confineOrNull}: no link on the way); null
 * when it, or the memory dir, is not there, or it is no regular file. A memory dir that is a file
 * says notAFolder's sentence; any other failure (no permission) is thrown, never read as absent.
 */
export async function readBytesOrNull(root: string, rel: string): Promise<Buffer | null> {
  const abs = await confineOrNull(root, rel);
  if (abs === null) return null;
  try {
    return (await fs.lstat(abs)).isFile() ? await fs.readFile(abs) : null;
  } catch (error) {
    if (errCode(error) === 'ENOENT') return null;
    throw error;
  }
}

/** Turns an OS error into a MemoryFileError; our own typed errors pass through unchanged. */
export function explain(err: unknown, verb: string, rel: string, where: string): Error {
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
      return say('io', `the disk holding ${where} is full — free some space and try again`);
    case 'EDQUOT':
      return say('io', `the disk holding ${where} has no quota left — free some space and try again`);
    case 'ENOENT':
      return say('missing', `${where} does not exist`);
    case 'EISDIR':
      return say('not-a-file', 'a folder is in the way');
    case 'ENOTDIR':
      return say('not-a-file', 'a file is in the way of a folder on its path');
    default:
      return say('io', failureWords(err));
  }
}
