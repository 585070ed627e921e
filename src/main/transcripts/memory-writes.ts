/**
 * R-EXCLUSIVE: when the main agent itself wrote into the memory directory during a turn,
 * extraction for that turn is skipped — doing it again would only duplicate. This finds those
 * writes among a turn's tool calls.
 */
import path from 'node:path';
import type { ToolCall, Turn } from './turn-types.js';

/** The tools that write files (SPEC R-EXCLUSIVE; NotebookEdit writes `.ipynb` files). */
export const FILE_WRITE_TOOLS: readonly string[] = ['Write', 'Edit', 'MultiEdit', 'NotebookEdit'];

/** A tool call that wrote into the memory dir. */
export interface MemoryWrite {
  call: ToolCall;
  /** The absolute path the call wrote to (after `realpath`, when one is given). */
  resolvedPath: string;
  /** The result said the call failed; the caller decides whether an attempt counts. */
  failed: boolean;
}

/** How paths are compared. */
export interface MemoryWritesOptions {
  /**
   * Applied to the memory dir and to each resolved path, e.g. a lenient realpath that resolves
   * the deepest existing ancestor: the caller decides how symlinks count. Default: none (paths
   * are compared as written, after `..` and relative parts are resolved).
   */
  realpath?: (p: string) => string;
}

function inside(root: string, target: string): boolean {
  const rel = path.relative(root, target);
  return rel === '' || (!rel.startsWith(`..${path.sep}`) && rel !== '..' && !path.isAbsolute(rel));
}

/**
 * The file-writing tool calls of `turn` whose `file_path` (or `notebook_path`) resolves inside
 * `memoryDir`. Relative paths resolve against the cwd of the line that made the call (else the
 * turn's); a relative path with no cwd at all cannot be placed and is left out. Paths are
 * NFC-normalised on both sides, as Claude Code normalises its own paths (R-KEY).
 */
export function memoryWritesInTurn(turn: Pick<Turn, 'toolCalls' | 'cwd'>, memoryDir: string, options: MemoryWritesOptions = {}): MemoryWrite[] {
  const real = options.realpath ?? ((p: string) => p);
  const root = real(path.resolve(memoryDir).normalize('NFC')).normalize('NFC');
  const writes: MemoryWrite[] = [];
  for (const call of turn.toolCalls) {
    if (!FILE_WRITE_TOOLS.includes(call.name) || call.filePath === null || call.filePath === '') continue;
    const base = call.cwd ?? turn.cwd;
    if (!path.isAbsolute(call.filePath) && base === null) continue;
    const resolved = real(path.resolve(base ?? '/', call.filePath).normalize('NFC')).normalize('NFC');
    if (inside(root, resolved)) writes.push({ call, resolvedPath: resolved, failed: call.result?.isError === true });
  }
  return writes;
}
