/**
 * Reading one memory file by its name — the one way, shared by the app (`memories.read`,
 * `index.read`) and `memdir show` (issue 17, item 1: it was written three times, and the CLI had
 * drifted: it refused every link, even one staying in the memory directory, saying "Refused to
 * write").
 *
 * The rule is the scan's (read-file.ts, SPEC R-HEALTH): a folder on the way is never a link; the
 * file itself may be a link that stays inside the memory directory (it is read, as Claude Code
 * reads it), never one that leads out of it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { INDEX_FILE, TEAM_DIR, TOPIC_MAX_BYTES } from '../../shared/limits.js';
import { MemdirError } from '../../shared/errors.js';
import { errCode } from '../core/fs-errors.js';
import { confine, MemoryFileError, splitRelativePath, UnsafePathError } from '../core/confined-path.js';
import { type FileFacts, readIndexAsClaudeCode, readMemoryText } from './read-file.js';

/**
 * The largest index Memdir opens. Claude Code loads only its first 25,000 characters, but the
 * whole file is shown so a person can see and fix what is cut.
 */
export const INDEX_READ_MAX_BYTES = 20_000_000;

/**
 * The text of a memory directory's MEMORY.md as Claude Code reads it before its load cuts it
 * (R-INDEX), and the file's size in bytes (what its 4 MB rule judges: not the decoded text's
 * length, for a file that is not UTF-8): one Memdir will not edit (a link out, not UTF-8) still
 * reaches the agent; none, a link loop or a folder gives '' (0 bytes). For the main agent's view
 * (`memdir show --loaded`) and a sub-agent's (`memdir agents`) alike.
 */
export function readIndexTextAsClaudeCode(memoryDir: string): { text: string; fileBytes: number } {
  const abs = path.join(memoryDir, INDEX_FILE);
  const isLink = fs.lstatSync(abs, { throwIfNoEntry: false })?.isSymbolicLink();
  if (isLink === undefined) return { text: '', fileBytes: 0 };
  const outcome = readIndexAsClaudeCode(memoryDir, abs, isLink, INDEX_READ_MAX_BYTES);
  return outcome.ok ? { text: outcome.text, fileBytes: outcome.facts.size } : { text: '', fileBytes: 0 };
}

/** A memory file that is there but holds no text Memdir can show: a folder, binary, not UTF-8, too large, a link loop. */
export class UnreadableMemoryError extends MemdirError<'invalid-file'> {
  override readonly name = 'UnreadableMemoryError';
  constructor(
    /** The relative path as the caller gave it. */
    readonly path: string,
    message: string,
  ) {
    super('invalid-file', message);
  }
}

/** A memory file's text (a BOM kept, as the file has it) and its stat facts. */
export interface MemoryFileText {
  text: string;
  facts: FileFacts;
}

/** The size limit a file is read with: an index (MEMORY.md, team/MEMORY.md) may be larger than a memory (see {@link INDEX_READ_MAX_BYTES}). */
function defaultMaxBytes(parts: string[]): number {
  const isIndex = parts[parts.length - 1] === INDEX_FILE && (parts.length === 1 || (parts.length === 2 && parts[0] === TEAM_DIR));
  return isIndex ? INDEX_READ_MAX_BYTES : TOPIC_MAX_BYTES;
}

/**
 * Read the memory file `file` (forward slashes, relative to `root`: a memory dir, or its `team/`).
 * Throws, in words a person can act on: MemoryFileError `not-found` when nothing is there (or the
 * link there leads nowhere), `permission-denied` when it may not be read; UnsafePathError when the
 * path leaves `root` or goes through a linked folder, or the file is a link leading out of `root`;
 * UnreadableMemoryError (`invalid-file`) for a folder, a binary or non-UTF-8 file, one over
 * `maxBytes` (default: 1 MB for a memory, 20 MB for MEMORY.md), a link loop.
 */
export async function readMemoryFile(root: string, file: string, opts: { maxBytes?: number } = {}): Promise<MemoryFileText> {
  const parts = splitRelativePath(file, 'the memory directory', 'read');
  const missing = (): MemoryFileError => new MemoryFileError('missing', file, `${file} no longer exists; it may have been deleted or renamed outside Memdir.`);
  let rootReal: string;
  let folder: string;
  try {
    if (parts.length === 1) folder = rootReal = await fs.promises.realpath(root);
    else {
      // Every folder on the way resolved and checked: a linked folder never leads a read outside.
      const confined = await confine(root, parts.slice(0, -1).join('/'), 'read');
      if (!confined.target?.isDirectory()) throw missing();
      rootReal = confined.rootReal;
      folder = confined.abs;
    }
  } catch (error) {
    if (errCode(error) === 'ENOENT') throw missing();
    throw error;
  }
  const abs = path.join(folder, parts[parts.length - 1] as string);
  const stat = fs.lstatSync(abs, { throwIfNoEntry: false });
  if (!stat) throw missing();
  const outcome = readMemoryText(rootReal, abs, stat.isSymbolicLink(), opts.maxBytes ?? defaultMaxBytes(parts));
  if (outcome.ok) return { text: outcome.text, facts: outcome.facts };
  // A link whose target is gone (or a file removed since the lstat) is a missing file, not an unsafe one.
  if (!fs.existsSync(abs)) throw missing();
  const message = `${file} cannot be opened: ${outcome.reason}.`;
  if (outcome.code === 'unsafe-link') throw new UnsafePathError('outside', file, message);
  if (outcome.errno === 'EACCES' || outcome.errno === 'EPERM') throw new MemoryFileError('permission', file, message);
  throw new UnreadableMemoryError(file, message);
}

/** MEMORY.md as the index tab reads it: its text, and why Memdir will not edit it (null: it may). */
export interface IndexFileText {
  /** The text to edit; for an index Memdir will not edit, the text as Claude Code reads it. Empty when there is none. */
  text: string;
  exists: boolean;
  /** Why Memdir will not edit it (a link out of the memory directory, not UTF-8, binary), or null. */
  readOnly: string | null;
}

/**
 * Read the index of `root` (a memory dir, or its `team/`) for showing and editing (R-INDEX). One
 * Memdir will not edit still reaches the agent, so it is not an error: its text comes as Claude
 * Code reads it (`readIndexAsClaudeCode`: the link followed, a byte that is not UTF-8 as U+FFFD)
 * with the reason it is read-only. Other failures (a folder, too large, a link loop, no
 * permission) throw as `readMemoryFile` says them.
 */
export async function readIndexFile(root: string): Promise<IndexFileText> {
  try {
    return { text: (await readMemoryFile(root, INDEX_FILE)).text, exists: true, readOnly: null };
  } catch (error) {
    if (error instanceof MemoryFileError && error.code === 'not-found') return { text: '', exists: false, readOnly: null };
    if (!(error instanceof UnreadableMemoryError || error instanceof UnsafePathError)) throw error;
    const rootReal = await fs.promises.realpath(root);
    const abs = path.join(rootReal, INDEX_FILE);
    const isSymlink = fs.lstatSync(abs, { throwIfNoEntry: false })?.isSymbolicLink() ?? false;
    const asClient = readIndexAsClaudeCode(rootReal, abs, isSymlink, INDEX_READ_MAX_BYTES);
    if (!asClient.ok || !asClient.refusal) throw error;
    return { text: asClient.text, exists: true, readOnly: asClient.refusal.reason };
  }
}
