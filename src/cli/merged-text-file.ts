/**
 * The `--file F` of every `resolve --keep merged` (merge, team, personal): read as a memory is
 * read — at most a memory's size, strict UTF-8, not binary — so a wrong file is refused in a
 * sentence before anything is written (review x4 F1). What the text may hold is then the one rule
 * of every resolve (mergedTextProblem).
 */
import path from 'node:path';
import { readMemoryText } from '../main/memdir/index.js';
import { type CliIo, CliFailure } from './command.js';

export function readMergedTextFile(io: CliIo, given: string): string {
  const file = path.resolve(io.cwd, given);
  const read = readMemoryText(path.dirname(file), file, false);
  if (read.ok) return read.text;
  if (read.errno === 'ENOENT') throw new CliFailure(`cannot read ${file}: give the merged text as a file that exists`);
  throw new CliFailure(`cannot use ${file} as the merged text: ${read.reason}; nothing was written`);
}
