/**
 * Runs the system `git`, through `simple-git`, against one shadow history repository, insulated
 * from the user's git set-up: no shell, no inherited GIT_* variables (GIT_DIR, GIT_INDEX_FILE…
 * could redirect it) nor any other variable git reads (EDITOR, PAGER…): the child gets a short
 * allow-list of the environment; no system or global config (a global `core.excludesFile` could
 * silently stop memories being recorded, a global identity or signing key must never be needed);
 * no hooks. simple-git's own guard (`strict`) refuses any config key or git variable not named
 * below, so this list is the whole of what reaches git.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { SimpleGit, simpleGit } from 'simple-git';
import { MemdirError, type MemdirErrorCode } from '../../shared/errors.js';

/** A history operation that could not be done, with a sentence a person understands. */
export class HistoryError extends MemdirError<(typeof HISTORY_CODES)[HistoryErrorReason]> {
  override readonly name = 'HistoryError';
  constructor(
    readonly reason: HistoryErrorReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(HISTORY_CODES[reason], message, options);
  }
}

/** Why a history operation could not be done. */
export type HistoryErrorReason = 'bad-revision' | 'bad-path' | 'bad-argument' | 'not-found' | 'git-missing' | 'git-failed' | 'disk-refused';

/** Each reason's code: a bad path is refused as any unsafe path is, a bad argument as any bad input. */
const HISTORY_CODES = {
  'bad-revision': 'bad-revision',
  'bad-path': 'unsafe-path',
  'bad-argument': 'invalid-input',
  'not-found': 'not-found',
  'git-missing': 'git-missing',
  'git-failed': 'git-failed',
  // The disk holding Memdir's data folder is full or read-only: the person can free space and try again.
  'disk-refused': 'unavailable',
} as const satisfies Record<string, MemdirErrorCode>;

/** One shadow repository and the memory dir it records. */
export interface ShadowRepo {
  /** The bare repository (`…/history/<key>/repo.git`). */
  gitDir: string;
  /** Real path of the memory dir: the work tree. */
  workTree: string;
}

export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface GitOptions {
  /** Exit codes that are answers, not failures (`diff --quiet` exits 1 for "differs"). */
  okCodes?: number[];
  /** Sent on stdin (commit messages). */
  input?: string;
  /** Extra environment (commit dates). */
  env?: Record<string, string>;
  /** Pass `--work-tree`: only commands that read the memory dir need it. */
  workTree?: boolean;
  /** We hold the memory lock: a leftover `*.lock` in the repo is from a killed process. */
  clearStaleLocks?: boolean;
  /** `init --template=`: no template at all (simple-git guards every --template). */
  emptyTemplate?: boolean;
}

const NULL_DEVICE = process.platform === 'win32' ? 'NUL' : '/dev/null';

/** The only variables of the user's environment git sees: where programs and temp files are. */
const INHERITED = new Set(['PATH', 'HOME', 'USERPROFILE', 'SYSTEMROOT', 'WINDIR', 'COMSPEC', 'PATHEXT', 'TMPDIR', 'TEMP', 'TMP']);

/** Variables git reads that Memdir sets itself (GIT_INDEX_FILE: a throwaway index for a merge's side commit); simple-git refuses every other GIT_* one. */
const OWN_GIT_VARIABLES = [
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_LITERAL_PATHSPECS',
  'GIT_CONFIG_NOSYSTEM',
  'GIT_CONFIG_GLOBAL',
  'GIT_TERMINAL_PROMPT',
  'GIT_AUTHOR_DATE',
  'GIT_COMMITTER_DATE',
];

function gitEnv(repo: ShadowRepo, workTree: boolean, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && INHERITED.has(key.toUpperCase())) env[key] = value;
  }
  return {
    ...env,
    GIT_DIR: repo.gitDir,
    ...(workTree ? { GIT_WORK_TREE: repo.workTree } : {}),
    // Paths given to a command are names, never patterns.
    GIT_LITERAL_PATHSPECS: '1',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: NULL_DEVICE,
    GIT_TERMINAL_PROMPT: '0',
    // English messages: stale-lock recovery recognises git's "Unable to create '…lock'" text.
    LC_ALL: 'C',
    ...extra,
  };
}

/** `-c` settings of every command. */
function configFor(repo: ShadowRepo): string[] {
  return [
    'user.name=Memdir',
    'user.email=memdir@localhost',
    'commit.gpgsign=false',
    'tag.gpgsign=false',
    'core.autocrlf=false',
    'core.safecrlf=false',
    'core.quotepath=false',
    'core.precomposeunicode=true',
    'core.fsmonitor=false',
    // A folder that never exists: no hook can run, on every platform.
    `core.hooksPath=${path.join(repo.gitDir, 'memdir-no-hooks')}`,
    // Objects and refs reach the disk before a commit returns, so a power cut cannot leave
    // an empty object file behind (SIGKILL alone cannot, git writes objects via rename).
    'core.fsync=committed',
    // ... and with one flush for all the objects a command writes, not one per object: a bulk
    // change's snapshot of 3,000 memories took 13 s (one fsync per blob), now ~3 s. git writes them
    // to a temporary object folder, flushes once, then moves them in: as durable as before.
    'core.fsyncMethod=batch',
    // Auto-gc in the foreground, under our lock, rather than a detached process whose lock
    // files we would later take for stale ones.
    'gc.autoDetach=false',
    'log.showSignature=false',
  ];
}

/** Every key set above or by a command (`init.defaultBranch`, `core.logAllRefUpdates`). */
const ALLOWED_CONFIG = [
  'user.name',
  'user.email',
  'commit.gpgsign',
  'tag.gpgsign',
  'core.autocrlf',
  'core.safecrlf',
  'core.quotepath',
  'core.precomposeunicode',
  'core.fsmonitor',
  'core.hooksPath',
  'core.fsync',
  'core.fsyncMethod',
  'gc.autoDetach',
  'log.showSignature',
  'init.defaultBranch',
  'core.logAllRefUpdates',
];

interface Outcome {
  code: number;
  stderr: string;
}

// simple-git is loaded at the first git command, not with the app: it took part in every start's
// module load, before the dashboard's first answer (issue 16, bench start).
let simpleGitLoaded: Promise<typeof simpleGit> | null = null;

/** A simple-git instance for one command, reporting its exit code and stderr into `outcome`. */
async function client(repo: ShadowRepo, opts: GitOptions, outcome: Outcome): Promise<SimpleGit> {
  const simpleGit = await (simpleGitLoaded ??= import('simple-git').then((m) => m.simpleGit));
  return simpleGit({
    baseDir: path.dirname(repo.gitDir),
    config: configFor(repo),
    strict: true,
    allowConfig: ALLOWED_CONFIG,
    allowEnvironment: OWN_GIT_VARIABLES,
    ...(opts.emptyTemplate ? { unsafe: { allowUnsafeTemplateDir: true } } : {}),
    ...(opts.input !== undefined ? { input: () => opts.input } : {}),
    errors(error, result) {
      outcome.code = result.exitCode;
      outcome.stderr = Buffer.concat(result.stdErr).toString('utf8');
      // Only a git that could not run (exit code < 0: not found, not executable) is an error
      // here; what a finished git's exit code means is judged by `git()`.
      return result.exitCode >= 0 ? undefined : error;
    },
  }).env(gitEnv(repo, opts.workTree ?? false, opts.env));
}

function toHistoryError(error: unknown): HistoryError {
  const err = error as NodeJS.ErrnoException;
  if (err?.code === 'ENOENT' || /ENOENT/.test(String(err?.message))) {
    return new HistoryError('git-missing', 'Memdir keeps history with git, and git was not found; install git and try again', { cause: error });
  }
  return new HistoryError('git-failed', `History is unavailable: could not run git (${(err?.message ?? String(error)).split('\n')[0]})`, { cause: error });
}

async function runOnce(repo: ShadowRepo, args: string[], opts: GitOptions): Promise<GitResult> {
  const outcome: Outcome = { code: 0, stderr: '' };
  try {
    const stdout = await (await client(repo, opts, outcome)).raw(args);
    return { code: outcome.code, stdout, stderr: outcome.stderr };
  } catch (error) {
    throw toHistoryError(error);
  }
}

/**
 * How long a `*.lock` may still belong to a running git. A Memdir killed with SIGKILL leaves the
 * git it was waiting for running (children are not killed with their parent): that orphan
 * finishes its write in a moment, and taking its lock from under it would let two gits write
 * one index. Only a lock left unchanged this long is stale.
 */
const LIVE_LOCK_MS = 3_000;

/** Remove `lock` once no git can be writing it any more: gone by itself, or unchanged for LIVE_LOCK_MS. */
async function clearStaleLock(lock: string): Promise<void> {
  for (;;) {
    const stat = await fs.stat(lock).catch(() => null);
    if (!stat) return;
    const age = Date.now() - stat.mtimeMs;
    if (age >= LIVE_LOCK_MS) {
      await fs.rm(lock, { force: true });
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(50, LIVE_LOCK_MS - age)));
  }
}

/**
 * Runs git on the shadow repo. A non-zero exit not in `okCodes` becomes a HistoryError naming
 * the first line git printed. With `clearStaleLocks`, a "File exists" on a `*.lock` inside the
 * repo is cleared and the command retried (a SIGKILLed commit leaves `index.lock` or
 * `HEAD.lock` behind; holding the memory lock, no live Memdir can own it — a git still running
 * for a killed one is waited for, see clearStaleLock).
 */
export async function git(repo: ShadowRepo, args: string[], opts: GitOptions = {}): Promise<GitResult> {
  let result = await runOnce(repo, args, opts);
  // A commit killed half-way may leave several locks (index, HEAD, the branch): one at a time.
  for (let retry = 0; retry < 4 && result.code !== 0 && opts.clearStaleLocks; retry++) {
    const stale = /Unable to create '([^']+\.lock)': File exists/.exec(result.stderr)?.[1];
    const resolved = stale ? path.resolve(path.dirname(repo.gitDir), stale) : undefined;
    if (!resolved || !resolved.startsWith(repo.gitDir + path.sep)) break;
    await clearStaleLock(resolved);
    result = await runOnce(repo, args, opts);
  }
  if (result.code !== 0 && !(opts.okCodes ?? []).includes(result.code)) {
    const refused = diskRefusal(result.stderr) ?? (await fullDiskBehindWriteError(repo, result.stderr));
    if (refused) {
      // What git began to write stays as `objects/xx/tmp_obj_*`, taking the room it ran out of;
      // holding the memory lock, no other git of ours writes objects into this repository now.
      if (opts.clearStaleLocks) await removeUnfinishedObjects(repo);
      // `<dataDir>/history/<key>/repo.git`: the folder a person knows is the data folder.
      const dataDir = path.dirname(path.dirname(path.dirname(repo.gitDir)));
      throw new HistoryError('disk-refused', `Memdir cannot keep this change in its history: the disk holding its data folder ${dataDir} ${refused.words}`, {
        cause: Object.assign(new Error(refused.words), { code: refused.code }),
      });
    }
    const said =
      result.stderr
        .split('\n')
        .find((line) => line.trim() !== '')
        ?.replace(/^(fatal|error): /, '') ?? `exit code ${result.code}`;
    throw new HistoryError('git-failed', `Memdir's history is unavailable: git ${args[0] ?? ''} failed (${said.trim()})`);
  }
  return result;
}

/** Removes the temp files (`tmp_obj_*`, `tmp_pack_*`, `tmp_idx_*`) a git stopped by a full disk left in the object store. */
async function removeUnfinishedObjects(repo: ShadowRepo): Promise<void> {
  const objects = path.join(repo.gitDir, 'objects');
  const folders = await fs.readdir(objects).catch(() => [] as string[]);
  for (const folder of folders.filter((name) => /^([0-9a-f]{2}|pack)$/.test(name))) {
    for (const name of await fs.readdir(path.join(objects, folder)).catch(() => [] as string[])) {
      if (/^tmp_(obj|pack|idx)_/.test(name)) await fs.rm(path.join(objects, folder, name), { force: true });
    }
  }
}

const FULL_WORDS = 'is full — free some space and try again';

/** git's words for a write the disk refused (it prints strerror, or its own "Out of diskspace"), as the Node code and a clause. */
function diskRefusal(stderr: string): { code: string; words: string } | null {
  if (/No space left on device|Out of diskspace/i.test(stderr)) return { code: 'ENOSPC', words: FULL_WORDS };
  if (/Disk quota exceeded/i.test(stderr)) return { code: 'EDQUOT', words: 'has no quota left — free some space and try again' };
  if (/Read-only file system/i.test(stderr)) return { code: 'EROFS', words: 'is read-only' };
  return null;
}

/** Below this much free room, a write git could not make is taken for a full disk. */
const NEARLY_FULL_BYTES = 1024 * 1024;

/**
 * git does not always say why a write failed: a ref it could not update is "couldn't write
 * '…/main.lock'", with no reason. When the disk holding the repository is (nearly) full, that is why.
 */
async function fullDiskBehindWriteError(repo: ShadowRepo, stderr: string): Promise<{ code: string; words: string } | null> {
  if (!/couldn't write|unable to write|write error|failed to write|could not write/i.test(stderr)) return null;
  const room = await fs.statfs(repo.gitDir).catch(() => null);
  return room && room.bavail * room.bsize < NEARLY_FULL_BYTES ? { code: 'ENOSPC', words: FULL_WORDS } : null;
}

/** Create the bare repository: no template (no sample hooks, no description file). */
export async function gitInitBare(repo: ShadowRepo): Promise<void> {
  await git(repo, ['-c', 'init.defaultBranch=main', 'init', '-q', '--bare', '--template='], { emptyTemplate: true });
}

/** A blob's bytes, unchanged (a memory restored from history is written back byte for byte). */
export async function gitBlob(repo: ShadowRepo, oid: string): Promise<Buffer> {
  const outcome: Outcome = { code: 0, stderr: '' };
  let bytes: Buffer;
  try {
    bytes = await (await client(repo, {}, outcome)).binaryCatFile(['blob', oid]);
  } catch (error) {
    throw toHistoryError(error);
  }
  if (outcome.code !== 0)
    throw new HistoryError('git-failed', `Memdir's history is unavailable: git cat-file failed (${outcome.stderr.trim() || `exit code ${outcome.code}`})`);
  return bytes;
}

/**
 * Several blobs' bytes, unchanged, by id, read by one `git cat-file --batch` (one git per blob
 * made reading a history of a few hundred revisions take seconds).
 */
export async function gitBlobs(repo: ShadowRepo, oids: readonly string[]): Promise<Map<string, Buffer>> {
  const blobs = new Map<string, Buffer>();
  if (oids.length === 0) return blobs;
  const outcome: Outcome = { code: 0, stderr: '' };
  let out: Buffer;
  try {
    out = await (await client(repo, { input: `${oids.join('\n')}\n` }, outcome)).binaryCatFile(['--batch']);
  } catch (error) {
    throw toHistoryError(error);
  }
  const failed = (why: string) => new HistoryError('git-failed', `Memdir's history is unavailable: git cat-file failed (${why})`);
  if (outcome.code !== 0) throw failed(outcome.stderr.trim() || `exit code ${outcome.code}`);
  // Each answer is `<id> blob <size>\n<size bytes>\n`.
  for (let at = 0; at < out.length; ) {
    const end = out.indexOf(0x0a, at);
    const header = out.subarray(at, end === -1 ? out.length : end).toString('utf8');
    const answer = /^([0-9a-f]+) blob (\d+)$/.exec(header);
    if (end === -1 || !answer) throw failed(`it answered "${header.slice(0, 80)}"`);
    const size = Number(answer[2]);
    blobs.set(answer[1]!, out.subarray(end + 1, end + 1 + size));
    at = end + 1 + size + 1;
  }
  return blobs;
}

/**
 * The files of the memory dir that differ from the newest entry (relative to it; git's status,
 * untracked ones too). `putBack`: without git's optional locks — status would refresh the index,
 * a write the full disk that refused the change refuses too.
 */
export async function changedFiles(repo: ShadowRepo, opts: { putBack?: boolean } = {}): Promise<string[]> {
  const args = ['status', '--porcelain', '-z', '--untracked-files=all', '--no-renames'];
  const status = opts.putBack
    ? await git(repo, ['--no-optional-locks', ...args], { workTree: true })
    : await git(repo, args, { workTree: true, clearStaleLocks: true });
  return status.stdout
    .split('\0')
    .filter((record) => record.length > 3)
    .map((record) => record.slice(3));
}
