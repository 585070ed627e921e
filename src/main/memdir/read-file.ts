/**
 * Reading files from a memory directory without ever crashing on a bad one (SPEC R-HEALTH):
 * binary files, invalid UTF-8, huge files, directories named `x.md`, missing permission,
 * symlink loops and links leaving the memory dir all come back as a readable reason.
 *
 * Reads are synchronous on purpose: memories are small (size-capped) local files, and for
 * thousands of them a synchronous read costs a fraction of a thread-pool round trip each
 * (see `npm run bench scan`). Callers yield to the event loop between directories.
 */
import fs from 'node:fs';
import path from 'node:path';
import { TOPIC_MAX_BYTES } from '../../shared/limits.js';
import { formatBytesAgainst } from '../../shared/size-text.js';

export interface FileFacts {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
}

export type ReadOutcome =
  | { ok: true; text: string; facts: FileFacts }
  | { ok: false; code: 'unreadable' | 'unsafe-link'; reason: string; facts: FileFacts | null };

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export function factsOf(stat: { size: number; mtimeMs: number; ctimeMs: number; ino: number }): FileFacts {
  return { size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs, ino: stat.ino };
}

function errnoReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException)?.code;
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return 'Memdir has no permission to read it';
    case 'ELOOP':
      return 'it is a symbolic link that loops back on itself';
    case 'ENOENT':
      return 'it does not exist (any more)';
    case 'EISDIR':
      return 'it is a directory, not a file';
    default:
      return `it could not be read (${code ?? String(error)})`;
  }
}

/**
 * Whether `target` (a symlink's resolved destination) stays inside `root`. A link that leaves
 * the memory directory is never followed (SPEC R-EXTRACT, R-SYNC-SECURITY).
 */
export function linkStaysInside(root: string, linkPath: string): { inside: boolean; loop: boolean } {
  try {
    const realRoot = fs.realpathSync(root);
    const realTarget = fs.realpathSync(linkPath);
    const rel = path.relative(realRoot, realTarget);
    return { inside: rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel), loop: false };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { inside: false, loop: code === 'ELOOP' };
  }
}

/**
 * Read a text file found in a memory dir. `isSymlink` comes from the directory listing so the
 * common case costs no extra system call. Returns the decoded text (BOM kept) or why not.
 */
export function readMemoryText(root: string, absPath: string, isSymlink: boolean, maxBytes = TOPIC_MAX_BYTES): ReadOutcome {
  if (isSymlink) {
    const { inside, loop } = linkStaysInside(root, absPath);
    if (loop) return { ok: false, code: 'unreadable', reason: errnoReason({ code: 'ELOOP' }), facts: null };
    if (!inside) return { ok: false, code: 'unsafe-link', reason: 'it is a symbolic link that leads outside the memory directory, so Memdir does not follow it', facts: null };
  }
  let fd: number | undefined;
  try {
    fd = fs.openSync(absPath, 'r');
    const stat = fs.fstatSync(fd);
    const facts = factsOf(stat);
    if (stat.isDirectory()) return { ok: false, code: 'unreadable', reason: errnoReason({ code: 'EISDIR' }), facts };
    if (!stat.isFile()) return { ok: false, code: 'unreadable', reason: 'it is not a regular file', facts };
    if (stat.size > maxBytes) {
      const [size, limit] = formatBytesAgainst(stat.size, maxBytes);
      return { ok: false, code: 'unreadable', reason: `it is ${size}, too large for a memory (the limit is ${limit})`, facts };
    }
    const buffer = Buffer.allocUnsafe(stat.size);
    let filled = 0;
    while (filled < stat.size) {
      const bytesRead = fs.readSync(fd, buffer, filled, stat.size - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return decode(buffer.subarray(0, filled), facts);
  } catch (error) {
    return { ok: false, code: 'unreadable', reason: errnoReason(error), facts: null };
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** Decode UTF-8 strictly; a NUL byte means binary. */
export function decode(bytes: Uint8Array, facts: FileFacts): ReadOutcome {
  if (bytes.indexOf(0) !== -1) return { ok: false, code: 'unreadable', reason: 'it is a binary file, not text', facts };
  try {
    return { ok: true, text: decoder.decode(bytes), facts };
  } catch {
    return { ok: false, code: 'unreadable', reason: 'it is not valid UTF-8 text (saved in another encoding?)', facts };
  }
}
