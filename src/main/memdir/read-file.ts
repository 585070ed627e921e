/**
 * Reading files from a memory directory without ever crashing on a bad one (SPEC R-HEALTH):
 * binary files, invalid UTF-8, huge files, directories named `x.md`, missing permission,
 * symlink loops and links leaving the memory dir all come back as a readable reason.
 *
 * Reads are synchronous on purpose: memories are small (size-capped) local files, and for
 * thousands of them a synchronous read costs a fraction of a thread-pool round trip each
 * (see `npm run bench scan`). Callers yield to the event loop between directories.
 */
import { failureWords } from '../../shared/failure-words.js';
import { isUtf8 } from 'node:buffer';
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
  | {
      ok: false;
      code: 'unreadable' | 'unsafe-link';
      reason: string;
      facts: FileFacts | null;
      /** The system's error code when opening or reading failed (ENOENT, EACCES…), for callers that tell these apart. */
      errno?: string;
      /** Set when the only fault is its size (over the limit it was read with): its beginning can still be read. */
      tooLarge?: true;
    };

// Validity is checked first (textProblem); decoding keeps a BOM, as the file has it.
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

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
      return `it could not be read (${failureWords(error)})`;
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

export type BytesOutcome<T> = { ok: true; value: T; facts: FileFacts } | Failure;
type Failure = Exclude<ReadOutcome, { ok: true }>;

// One buffer reused for every read: a scan reads thousands of files, and allocating a buffer for
// each costs about as much as the read. Larger files get their own.
const scratch = Buffer.allocUnsafe(256 * 1024);

/**
 * Read a file found in a memory dir and hand its bytes to `use`, which must not keep them: they
 * live in a buffer the next read reuses. `isSymlink` comes from the directory listing so the
 * common case costs no extra system call. Returns what `use` returned, or why the file could
 * not be read.
 */
export function readMemoryBytes<T>(
  root: string,
  absPath: string,
  isSymlink: boolean,
  use: (bytes: Buffer, facts: FileFacts) => T | Failure,
  maxBytes = TOPIC_MAX_BYTES,
): BytesOutcome<T> {
  if (isSymlink) {
    const { inside, loop } = linkStaysInside(root, absPath);
    if (loop) return { ok: false, code: 'unreadable', reason: errnoReason({ code: 'ELOOP' }), facts: null };
    if (!inside)
      return {
        ok: false,
        code: 'unsafe-link',
        reason: 'it is a symbolic link that leads outside the memory directory, so Memdir does not follow it; Claude Code does',
        facts: null,
      };
  }
  let fd: number | undefined;
  let bytes: Buffer;
  let facts: FileFacts;
  try {
    // Never waits: a named pipe opens at once (and is then refused as not a regular file), as Claude Code skips it.
    fd = fs.openSync(absPath, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
    const stat = fs.fstatSync(fd);
    facts = factsOf(stat);
    if (stat.isDirectory()) return { ok: false, code: 'unreadable', reason: errnoReason({ code: 'EISDIR' }), facts };
    if (!stat.isFile()) return { ok: false, code: 'unreadable', reason: 'it is not a regular file', facts };
    if (stat.size > maxBytes) {
      const [size, limit] = formatBytesAgainst(stat.size, maxBytes);
      return { ok: false, code: 'unreadable', reason: `it is ${size}, too large for a memory (the limit is ${limit})`, facts, tooLarge: true };
    }
    const buffer = stat.size <= scratch.length ? scratch : Buffer.allocUnsafe(stat.size);
    let filled = 0;
    while (filled < stat.size) {
      const bytesRead = fs.readSync(fd, buffer, filled, stat.size - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    bytes = buffer.subarray(0, filled);
  } catch (error) {
    const errno = (error as NodeJS.ErrnoException)?.code;
    return { ok: false, code: 'unreadable', reason: errnoReason(error), facts: null, ...(errno ? { errno } : {}) };
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
  const value = use(bytes, facts);
  return isFailure(value) ? value : { ok: true, value, facts };
}

function isFailure(value: unknown): value is Failure {
  return typeof value === 'object' && value !== null && (value as { ok?: unknown }).ok === false;
}

/**
 * Read a text file found in a memory dir: the decoded text (BOM kept) or why not (binary,
 * not UTF-8, too large, a directory, a link leaving the memory dir…).
 */
export function readMemoryText(root: string, absPath: string, isSymlink: boolean, maxBytes = TOPIC_MAX_BYTES): ReadOutcome {
  const outcome = readMemoryBytes(root, absPath, isSymlink, (bytes, facts) => decode(bytes, facts), maxBytes);
  return outcome.ok ? outcome.value : outcome;
}

/**
 * Why these bytes are not a text file, or null: a NUL byte means binary; then strict UTF-8.
 * `latin1` (the same bytes as a latin1 string), when the caller has it, makes the NUL search cheap.
 */
export function textProblem(bytes: Uint8Array, latin1?: string): string | null {
  if (latin1 !== undefined ? latin1.includes('\0') : bytes.indexOf(0) !== -1) return 'it is a binary file, not text';
  if (!isUtf8(bytes)) return 'it is not valid UTF-8 text (saved in another encoding?)';
  return null;
}

/**
 * The UTF-8 size of a text, measured natively: the same count as the shared `utf8Length` (a lone
 * surrogate counts 3, the size of the U+FFFD it is written as), for the places that measure much.
 */
export function utf8ByteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

// Claude Code reads MEMORY.md as Node's `readFile(…, 'utf8')` does: a byte that is not UTF-8 becomes U+FFFD.
const lossyDecoder = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * MEMORY.md as Claude Code reads it, beside whether Memdir may edit it (R-INDEX, R-HEALTH): the
 * client follows a link wherever it leads and decodes what is not UTF-8 as U+FFFD (its load then
 * drops the control characters, NUL included), so an index Memdir refuses to edit — a link out of
 * the memory directory, binary or not UTF-8 — still reaches the agent. `refusal` is why Memdir
 * will not edit it (null: it may). A link loop, a folder, a file too large or gone: nothing is
 * loaded, and the failure says why. Checked against 2.1.332 (test/fidelity/index-cut.test.ts).
 */
export function readIndexAsClaudeCode(
  root: string,
  absPath: string,
  isSymlink: boolean,
  maxBytes: number,
): { ok: true; text: string; facts: FileFacts; refusal: Failure | null } | Failure {
  const link = isSymlink ? linkStaysInside(root, absPath) : { inside: true, loop: false };
  if (link.loop) return { ok: false, code: 'unreadable', reason: errnoReason({ code: 'ELOOP' }), facts: null };
  const outcome = readMemoryBytes(root, absPath, false, (bytes, facts) => ({ text: lossyDecoder.decode(bytes), problem: textProblem(bytes), facts }), maxBytes);
  if (!outcome.ok) return outcome;
  const { text, problem, facts } = outcome.value;
  const refusal: Failure | null = !link.inside
    ? { ok: false, code: 'unsafe-link', reason: 'it is a symbolic link that leads outside the memory directory, so Memdir does not edit it', facts: null }
    : problem
      ? { ok: false, code: 'unreadable', reason: problem, facts }
      : null;
  return { ok: true, text, facts, refusal };
}

/** Decode UTF-8 strictly; a NUL byte means binary. */
export function decode(bytes: Uint8Array, facts: FileFacts): ReadOutcome {
  const problem = textProblem(bytes);
  if (problem) return { ok: false, code: 'unreadable', reason: problem, facts };
  return { ok: true, text: decoder.decode(bytes), facts };
}

/**
 * The first `maxBytes` of a file, cut after its last whole line (a character is never split;
 * without a line break, uncut), or null when it cannot be read: what is read of a memory too large
 * to read whole.
 */
export function readFileHead(absPath: string, maxBytes: number): Buffer | null {
  let fd: number | undefined;
  try {
    // Never waits: a named pipe opens at once (and is then refused as not a regular file), as Claude Code skips it.
    fd = fs.openSync(absPath, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
    const buffer = Buffer.allocUnsafe(maxBytes);
    let filled = 0;
    while (filled < maxBytes) {
      const bytesRead = fs.readSync(fd, buffer, filled, maxBytes - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    const lastLine = filled < maxBytes ? -1 : buffer.lastIndexOf(0x0a, filled - 1);
    return buffer.subarray(0, lastLine < 0 ? filled : lastLine + 1);
  } catch {
    return null;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
