/**
 * R-KEY: the canonical key of a directory, found the way Claude Code finds it — from files only,
 * never by running git (Claude Code 2.1.332's `findGitRoot` + `resolveCanonicalRoot`, checked
 * against the real client in subdirectories, worktrees, moved repositories, submodules, bare
 * repositories and without git on PATH):
 *
 * 1. the directory, symlinks resolved, in the bytes the OS gives: never Unicode-normalised (a
 *    folder named in decomposed form, as macOS, zip and rsync leave `café`, is keyed decomposed:
 *    2.1.332 on Linux does so, review x5 F3; only the config dir is NFC-normalised, home.ts);
 * 2. walk up to the first ancestor holding `.git` (a directory or a file, or a link to one),
 *    the filesystem root included; none → the key is the directory itself;
 * 3. `.git` is a directory → the key is that ancestor (the repository root);
 * 4. `.git` is a file `gitdir: <path>` → a linked worktree only if `<gitdir>/commondir` names
 *    a directory `C` with `dirname(gitdir) == C/worktrees` and the back-link
 *    `realpath(<gitdir>/gitdir) == realpath(<root>)/.git`; then the key is `dirname(C)`, or
 *    `C` itself for a bare repository. Any failure (a submodule, a `--separate-git-dir`
 *    checkout, a moved main repository, a broken back-link, a missing file) → the worktree's
 *    own root.
 *
 * Every subdirectory and valid worktree of one repository shares one memory. The explanation
 * says which `.git` was found and why a worktree link was or was not followed (`memdir where`).
 */
import { failureWords } from '../../shared/failure-words.js';
import fs from 'node:fs';
import path from 'node:path';
import { MemdirError } from '../../shared/errors.js';

/** Why a directory could not be keyed. */
export type DirectoryErrorReason = 'missing' | 'not-a-directory' | 'unreadable';

/** A directory that cannot be keyed: it does not exist, is a file, or cannot be read. */
export class DirectoryError extends MemdirError<'project-dir-unusable'> {
  override readonly name = 'DirectoryError';
  constructor(
    readonly dir: string,
    readonly reason: DirectoryErrorReason,
    detail?: string,
  ) {
    const what =
      reason === 'missing' ? 'it does not exist' : reason === 'not-a-directory' ? 'it is not a directory' : `it cannot be read${detail ? ` (${detail})` : ''}`;
    super('project-dir-unusable', `Cannot use "${dir}" as a project directory: ${what}.`);
  }
}

/** Claude Code reads `commondir`, `gitdir` and `.git` files of at most this many bytes. */
const LINK_FILE_MAX_BYTES = 64 * 1024;

/** The `.git` entry the walk-up found. */
export interface GitEntry {
  /** `<root>/.git`. */
  path: string;
  kind: 'directory' | 'file';
}

/** A `.git` file's link to a worktree entry of another repository, and whether it holds. */
export interface WorktreeLink {
  /** The resolved `gitdir:` of the `.git` file, or null when the file has none. */
  gitdir: string | null;
  /** The common git directory `<gitdir>/commondir` names, or null when it could not be read. */
  commondir: string | null;
  /** True when every check passed and the key is the main (or bare) repository. */
  valid: boolean;
  /** Why the link was not followed (a sentence fragment), null when valid. */
  problem: string | null;
}

/** How the key of a directory was chosen. */
export interface KeyExplanation {
  /** The directory asked about, symlinks resolved, as the OS gives it (never Unicode-normalised). */
  dir: string;
  /** False when the directory no longer exists (a launch directory deleted since): then the walk starts at its nearest existing parent. */
  exists: boolean;
  /** The canonical key (R-KEY). */
  key: string;
  /**
   * `no-git`: no `.git` above; `repository`: a `.git` directory; `worktree`: a valid linked
   * worktree of a repository; `bare-worktree`: a valid linked worktree of a bare repository;
   * `own-root`: a `.git` file that is not a valid worktree link (submodule, separate git dir,
   * moved main repository, broken back-link), so the worktree's own root.
   */
  via: 'no-git' | 'repository' | 'worktree' | 'bare-worktree' | 'own-root';
  /** The directory holding the `.git` found, or null. */
  root: string | null;
  gitEntry: GitEntry | null;
  /** Set when `.git` is a file. */
  worktree: WorktreeLink | null;
  /** One or two sentences for a person (`memdir where`). */
  detail: string;
}

type Stat = fs.Stats | null;

/**
 * What walks up found, kept for the keys of one pass (the launch directories of a scan): they
 * share their parents — and one deleted since starts its walk higher up, where the others'
 * do — so each answer would otherwise cost its system calls again for every project. Only for
 * answers asked within moments of each other: a new pass starts with a new memo.
 */
export interface KeyWalkMemo {
  /** `<dir>/.git` → what it is, or null when it is no `.git` entry. */
  gitEntries: Map<string, GitEntry['kind'] | null>;
  /** A missing path's parent → its nearest existing ancestor, realpath'd (null: none). */
  nearest: Map<string, string | null>;
}

export function newKeyWalkMemo(): KeyWalkMemo {
  return { gitEntries: new Map(), nearest: new Map() };
}

// A missing path answers `undefined` rather than throwing: the walk up from a directory meets
// many, and an exception costs many times the system call.
function lstatOrNull(p: string): Stat {
  try {
    return fs.lstatSync(p, { throwIfNoEntry: false }) ?? null;
  } catch {
    return null;
  }
}

function statOrNull(p: string): Stat {
  try {
    return fs.statSync(p, { throwIfNoEntry: false }) ?? null;
  } catch {
    return null;
  }
}

/** A `.git` entry counts when it is a directory or a file, or a link to one (as Claude Code's walk-up counts it). */
function gitEntryKind(p: string, memo: KeyWalkMemo | undefined): GitEntry['kind'] | null {
  const known = memo?.gitEntries.get(p);
  if (known !== undefined) return known;
  const kind = gitEntryKindOnDisk(p);
  memo?.gitEntries.set(p, kind);
  return kind;
}

function gitEntryKindOnDisk(p: string): GitEntry['kind'] | null {
  const own = lstatOrNull(p);
  if (!own) return null;
  const target = own.isSymbolicLink() ? statOrNull(p) : own;
  if (!target) return null;
  if (target.isDirectory()) return 'directory';
  if (target.isFile()) return 'file';
  return null;
}

/** Network (UNC) paths are never followed, as in Claude Code. */
function isNetworkPath(p: string): boolean {
  return p.startsWith('\\\\') || p.startsWith('//');
}

/**
 * A small link file inside a git directory (`commondir`, `gitdir`): a regular file, not a
 * symlink, of at most 64 KiB, trimmed. Null when it is anything else or cannot be read.
 */
function readLinkFile(p: string): string | null {
  const st = lstatOrNull(p);
  if (!st || !st.isFile() || st.size > LINK_FILE_MAX_BYTES) return null;
  try {
    return fs.readFileSync(p, 'utf8').trim();
  } catch {
    return null;
  }
}

function realpathOrNull(p: string): string | null {
  try {
    return fs.realpathSync(p);
  } catch {
    return null;
  }
}

/** The first directory at or above `start` holding a `.git` entry. */
function findGitRoot(start: string, memo: KeyWalkMemo | undefined): { root: string; kind: GitEntry['kind'] } | null {
  for (let current = start; ; ) {
    const kind = gitEntryKind(path.join(current, '.git'), memo);
    if (kind) return { root: current, kind };
    const parent = path.dirname(current);
    if (parent === current) return null;
    current = parent;
  }
}

/** Follow a `.git` file the way Claude Code's `resolveCanonicalRoot` does (see the module comment). */
function followWorktreeLink(root: string): { key: string; bare: boolean; link: WorktreeLink } {
  const fail = (link: Omit<WorktreeLink, 'valid'>): { key: string; bare: boolean; link: WorktreeLink } => ({
    key: root,
    bare: false,
    link: { ...link, valid: false },
  });
  const dotGit = path.join(root, '.git');
  let text: string;
  try {
    const st = fs.statSync(dotGit);
    if (st.size > LINK_FILE_MAX_BYTES) return fail({ gitdir: null, commondir: null, problem: `${dotGit} is larger than a .git link file can be` });
    text = fs.readFileSync(dotGit, 'utf8').trim();
  } catch (error) {
    return fail({ gitdir: null, commondir: null, problem: `${dotGit} cannot be read (${failureWords(error)})` });
  }
  if (!text.startsWith('gitdir:')) return fail({ gitdir: null, commondir: null, problem: `${dotGit} does not start with "gitdir:"` });
  const named = text.slice('gitdir:'.length).trim();
  if (isNetworkPath(named)) return fail({ gitdir: null, commondir: null, problem: `it names a network path (${named}), which is never followed` });
  const gitdir = path.resolve(root, named);
  if (!statOrNull(gitdir)?.isDirectory()) {
    return fail({ gitdir, commondir: null, problem: `${gitdir} does not exist (was the main repository moved or deleted?)` });
  }
  const commonRaw = readLinkFile(path.join(gitdir, 'commondir'));
  if (commonRaw === null) {
    return fail({
      gitdir,
      commondir: null,
      problem: `${gitdir} has no commondir file, so it is a submodule or a separate git directory, not a linked worktree`,
    });
  }
  if (isNetworkPath(commonRaw)) return fail({ gitdir, commondir: null, problem: `its commondir names a network path (${commonRaw}), which is never followed` });
  const commondir = path.resolve(gitdir, commonRaw);
  if (path.dirname(gitdir) !== path.join(commondir, 'worktrees')) {
    return fail({ gitdir, commondir, problem: `${gitdir} is not an entry of ${path.join(commondir, 'worktrees')}` });
  }
  const back = readLinkFile(path.join(gitdir, 'gitdir'));
  if (back === null) return fail({ gitdir, commondir, problem: `the back-link ${path.join(gitdir, 'gitdir')} is missing or unreadable` });
  if (isNetworkPath(back)) return fail({ gitdir, commondir, problem: `the back-link names a network path (${back}), which is never followed` });
  // A backslash in a POSIX path is a file name character git never writes there: refused, as Claude Code does.
  if (path.sep === '/' && [root, gitdir, back, commondir].some((p) => p.includes('\\'))) {
    return fail({ gitdir, commondir, problem: 'a path in the link holds a backslash' });
  }
  const backReal = realpathOrNull(path.resolve(gitdir, back));
  const ownReal = realpathOrNull(root);
  if (backReal === null || ownReal === null || backReal !== path.join(ownReal, '.git')) {
    return fail({ gitdir, commondir, problem: `its back-link ${path.join(gitdir, 'gitdir')} names ${back}, not this worktree's .git` });
  }
  if (path.basename(commondir) !== '.git') {
    // A bare repository (or a submodule's git dir): its worktrees share the common dir itself,
    // unless that dir holds a .git of its own.
    if (gitEntryKindOnDisk(path.join(commondir, '.git'))) return fail({ gitdir, commondir, problem: `${commondir} holds a .git of its own` });
    return { key: commondir, bare: true, link: { gitdir, commondir, valid: true, problem: null } };
  }
  return { key: path.dirname(commondir), bare: false, link: { gitdir, commondir, valid: true, problem: null } };
}

/** Whether nothing is at `p` (ENOENT); any other failure is left for the caller's own checks to say. */
function isMissing(p: string): boolean {
  try {
    return fs.lstatSync(p, { throwIfNoEntry: false }) === undefined;
  } catch {
    return false;
  }
}

/** The nearest existing ancestor of a missing path, realpath'd. */
function nearestExisting(p: string, memo: KeyWalkMemo | undefined): string | null {
  const parent = path.dirname(p);
  const known = memo?.nearest.get(parent);
  if (known !== undefined) return known;
  const found = nearestExistingOnDisk(parent);
  memo?.nearest.set(parent, found);
  return found;
}

function nearestExistingOnDisk(from: string): string | null {
  for (let current = from; ; ) {
    // (A path that is not a directory has no real path that is one: not asked.)
    const real = statOrNull(current)?.isDirectory() ? realpathOrNull(current) : null;
    if (real && statOrNull(real)?.isDirectory()) return real;
    const parent = path.dirname(current);
    if (parent === current) return null;
    current = parent;
  }
}

function explainFrom(dir: string, start: string, exists: boolean, memo: KeyWalkMemo | undefined): KeyExplanation {
  const found = findGitRoot(start, memo);
  const gone = exists ? '' : ` (${dir} no longer exists; looked from ${start})`;
  if (!found) {
    return {
      dir,
      exists,
      key: dir,
      via: 'no-git',
      root: null,
      gitEntry: null,
      worktree: null,
      detail: `No .git in ${dir} or above it${gone}: outside git, the directory itself is the key.`,
    };
  }
  const gitEntry: GitEntry = { path: path.join(found.root, '.git'), kind: found.kind };
  const base = { dir, exists, root: found.root, gitEntry };
  if (found.kind === 'directory') {
    return { ...base, key: found.root, via: 'repository', worktree: null, detail: `Found the repository ${gitEntry.path}${gone}: the key is its root.` };
  }
  const { key, bare, link } = followWorktreeLink(found.root);
  if (!link.valid) {
    return {
      ...base,
      key: found.root,
      via: 'own-root',
      worktree: link,
      detail: `Found ${gitEntry.path}, a file linking elsewhere, but ${link.problem}${gone}: Claude Code then keys this checkout to its own root.`,
    };
  }
  const what = bare ? `the bare repository ${link.commondir}` : `the repository ${key}`;
  return {
    ...base,
    key,
    via: bare ? 'bare-worktree' : 'worktree',
    worktree: link,
    detail: `Found ${gitEntry.path}, a linked worktree of ${what} (its entry ${link.gitdir} links back to it)${gone}: the key is ${bare ? 'the bare repository' : 'the main repository'}, shared by all its worktrees.`,
  };
}

/**
 * How the canonical key (R-KEY) of `dir` is chosen, from files only (see the module comment).
 * With `missingOk`, a directory that no longer exists (the launch directory of an old session)
 * is keyed from its nearest existing parent, as if the missing part held no `.git`. With `memo`,
 * what earlier keys of the same pass found walking up is not asked of the disk again.
 * @throws {DirectoryError} when `dir` does not exist (unless `missingOk`), is not a directory or cannot be read.
 */
export async function explainCanonicalKey(dir: string, options: { missingOk?: boolean; memo?: KeyWalkMemo } = {}): Promise<KeyExplanation> {
  const { memo } = options;
  const fromMissing = (error: () => DirectoryError): KeyExplanation => {
    const absolute = path.resolve(dir);
    const start = nearestExisting(absolute, memo);
    if (start === null) throw error();
    return explainFrom(absolute, start, false, memo);
  };
  // A launch directory deleted since (common in an old home) is known missing without an exception.
  if (options.missingOk && isMissing(path.resolve(dir))) return fromMissing(() => new DirectoryError(path.resolve(dir), 'missing'));
  try {
    const real = realDirectory(dir);
    return explainFrom(real, real, true, memo);
  } catch (error) {
    if (!options.missingOk || !(error instanceof DirectoryError) || error.reason !== 'missing') throw error;
    return fromMissing(() => error);
  }
}

/**
 * The canonical key (R-KEY) of `dir`: see the module comment. Realpath'd input, never Unicode-normalised.
 * @throws {DirectoryError} when `dir` does not exist, is not a directory or cannot be read.
 */
export async function canonicalKey(dir: string): Promise<string> {
  return (await explainCanonicalKey(dir)).key;
}

/**
 * `dir` with every link resolved, as the OS resolves it. Synchronous like the walk up from it:
 * a scan keys every launch directory each time, and a thread-pool round trip per call costs more
 * than the call.
 */
function realDirectory(dir: string): string {
  const absolute = path.resolve(dir);
  let real: string;
  try {
    real = fs.realpathSync.native(absolute);
  } catch (error) {
    throw directoryError(absolute, error);
  }
  let stat;
  try {
    stat = fs.statSync(real);
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
  return new DirectoryError(dir, 'unreadable', failureWords(error));
}
