/**
 * R-KEY: the canonical key of a directory — the root of the git repository it belongs to (the
 * main worktree for a linked worktree), or the directory itself outside git; realpath'd and
 * NFC-normalised. Every subdirectory and worktree of one repository shares one memory.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { runGit } from './run-git.js';

/** Why a directory could not be keyed. */
export type DirectoryErrorReason = 'missing' | 'not-a-directory' | 'unreadable';

/** A directory that cannot be keyed: it does not exist, is a file, or cannot be read. */
export class DirectoryError extends Error {
  override readonly name = 'DirectoryError';
  constructor(
    readonly dir: string,
    readonly reason: DirectoryErrorReason,
    detail?: string,
  ) {
    const what =
      reason === 'missing'
        ? 'it does not exist'
        : reason === 'not-a-directory'
          ? 'it is not a directory'
          : `it cannot be read${detail ? ` (${detail})` : ''}`;
    super(`Cannot use "${dir}" as a project directory: ${what}.`);
  }
}

async function realDirectory(dir: string): Promise<string> {
  const absolute = path.resolve(dir);
  let real: string;
  try {
    real = await fs.realpath(absolute);
  } catch (error) {
    throw directoryError(absolute, error);
  }
  let stat;
  try {
    stat = await fs.stat(real);
  } catch (error) {
    throw directoryError(absolute, error);
  }
  if (!stat.isDirectory()) throw new DirectoryError(absolute, 'not-a-directory');
  return real;
}

function directoryError(dir: string, error: unknown): DirectoryError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return new DirectoryError(dir, 'missing');
  if (code === 'ENOTDIR') return new DirectoryError(dir, 'not-a-directory');
  return new DirectoryError(dir, 'unreadable', code ?? String(error));
}

/**
 * The canonical key (R-KEY) of `dir`, with one `git rev-parse` spawn:
 * - a directory inside a work tree → the repository root; inside a linked worktree → the main
 *   worktree's root (the parent of the common `.git` dir);
 * - a submodule, or a repository whose git dir lives elsewhere (`--separate-git-dir`) → its own
 *   work-tree root (its git dir is not a `.git` beside a work tree, so its parent means nothing);
 * - a linked worktree of a bare repository (or of a submodule) → the common git dir itself,
 *   the one stable place all its worktrees share;
 * - inside a `.git` directory → the repository root; inside a bare repository, outside git,
 *   git not installed, or a repository git refuses to read (e.g. "dubious ownership") → the
 *   directory itself.
 * These match the key Claude Code computes, which finds `.git` by walking up and follows a
 * worktree's `commondir` link. The result is realpath'd and NFC-normalised.
 * @throws {DirectoryError} when `dir` does not exist, is not a directory or cannot be read.
 */
export async function canonicalKey(dir: string): Promise<string> {
  const real = await realDirectory(dir);
  const result = await runGit(
    ['rev-parse', '--path-format=absolute', '--git-common-dir', '--git-dir', '--show-toplevel'],
    real,
  );
  // rev-parse prints what it can before failing on --show-toplevel (bare repo, inside .git),
  // so the first two lines are usable even with a non-zero exit.
  const lines = result.stdout.split('\n').filter((line) => line.length > 0);
  const [commonDirRaw, gitDirRaw, toplevelRaw] = lines;
  let key = real;
  // Every line must be an absolute path; anything else (a git too old for --path-format echoes
  // the flag back) is treated as "not a repository" rather than guessed at.
  if (commonDirRaw && gitDirRaw && lines.every((line) => path.isAbsolute(line))) {
    const commonDir = path.resolve(real, commonDirRaw);
    const gitDir = path.resolve(real, gitDirRaw);
    const besideWorkTree = path.basename(commonDir) === '.git';
    if (!toplevelRaw || result.code !== 0) {
      if (besideWorkTree) key = path.dirname(commonDir);
    } else if (gitDir === commonDir) {
      key = path.resolve(real, toplevelRaw);
    } else {
      key = besideWorkTree ? path.dirname(commonDir) : commonDir;
    }
  }
  if (key !== real) key = await fs.realpath(key).catch(() => key);
  return key.normalize('NFC');
}
