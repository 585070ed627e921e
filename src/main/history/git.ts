/**
 * Runs the system `git` against one shadow history repository, insulated from the user's git set-up:
 * no shell, no inherited GIT_* variables (GIT_DIR, GIT_INDEX_FILE… could redirect it), no system
 * or global config (a global `core.excludesFile` could silently stop memories being recorded, a
 * global identity or signing key must never be needed), no hooks.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';

/** A history operation that could not be done, with a sentence a person understands. */
export class HistoryError extends Error {
  override readonly name = 'HistoryError';
  constructor(
    readonly reason: 'bad-revision' | 'bad-path' | 'bad-argument' | 'not-found' | 'git-missing' | 'git-failed',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** One shadow repository and the memory dir it records. */
export interface ShadowRepo {
  /** The bare repository (`…/history/<key>/repo.git`). */
  gitDir: string;
  /** Real path of the memory dir: the work tree. */
  workTree: string;
}

export interface GitResult {
  code: number;
  stdout: Buffer;
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
}

const NULL_DEVICE = process.platform === 'win32' ? 'NUL' : '/dev/null';

function gitEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.toUpperCase().startsWith('GIT_')) env[key] = value;
  }
  return {
    ...env,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: NULL_DEVICE,
    GIT_TERMINAL_PROMPT: '0',
    // English messages: stale-lock recovery recognises git's "Unable to create '…lock'" text.
    LC_ALL: 'C',
    ...extra,
  };
}

function gitArgs(repo: ShadowRepo, args: string[], workTree: boolean): string[] {
  return [
    `--git-dir=${repo.gitDir}`,
    ...(workTree ? [`--work-tree=${repo.workTree}`] : []),
    '--literal-pathspecs',
    '-c', 'user.name=Memdir',
    '-c', 'user.email=memdir@localhost',
    '-c', 'commit.gpgsign=false',
    '-c', 'tag.gpgsign=false',
    '-c', 'core.autocrlf=false',
    '-c', 'core.safecrlf=false',
    '-c', 'core.quotepath=false',
    '-c', 'core.precomposeunicode=true',
    '-c', 'core.fsmonitor=false',
    // A folder that never exists: no hook can run, on every platform.
    '-c', `core.hooksPath=${path.join(repo.gitDir, 'memdir-no-hooks')}`,
    // Objects and refs reach the disk before a commit returns, so a power cut cannot leave
    // an empty object file behind (SIGKILL alone cannot, git writes objects via rename).
    '-c', 'core.fsync=committed',
    // Auto-gc in the foreground, under our lock, rather than a detached process whose lock
    // files we would later take for stale ones.
    '-c', 'gc.autoDetach=false',
    '-c', 'log.showSignature=false',
    ...args,
  ];
}

function runOnce(repo: ShadowRepo, args: string[], opts: GitOptions): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'git',
      gitArgs(repo, args, opts.workTree ?? false),
      { cwd: path.dirname(repo.gitDir), env: gitEnv(opts.env), encoding: 'buffer', maxBuffer: 256 * 1024 * 1024, windowsHide: true },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : null) : 0;
        if (err && code === null) {
          if (err.code === 'ENOENT') {
            reject(new HistoryError('git-missing', 'Memdir keeps history with git, and git was not found; install git and try again', { cause: err }));
          } else {
            reject(new HistoryError('git-failed', `History is unavailable: could not run git (${err.message})`, { cause: err }));
          }
          return;
        }
        resolve({ code: code ?? 0, stdout, stderr: stderr.toString('utf8') });
      },
    );
    // git may exit without reading stdin; the resulting EPIPE is not our error to report.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(opts.input ?? '');
  });
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
    const said = result.stderr.split('\n').find((line) => line.trim() !== '')?.replace(/^(fatal|error): /, '') ?? `exit code ${result.code}`;
    throw new HistoryError('git-failed', `Memdir's history is unavailable: git ${args[0] ?? ''} failed (${said.trim()})`);
  }
  return result;
}
