/**
 * What a killed writer may leave, checked the same way by the crash test (crash.test.ts) and the
 * `kill` bench: a writer logs `intend <file> <sha256>` before each write and `done <file>
 * <sha256>` after it; every file must then hold its last done content or one it intended after
 * that, a file once written must still be there, and the shadow history must pass `git fsck`.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { parseIndex } from '../../../shared/index-format.js';
import { TEMP_FILE_PREFIX } from '../../core/safe-fs.js';

const run = promisify(execFile);

export const sha256 = (data: Buffer | string): string => createHash('sha256').update(data).digest('hex');

/** Per file: the hash of its last completed write, and hashes of writes begun after it. */
export function expectedContents(log: string): Map<string, { done: string | null; pending: Set<string> }> {
  const files = new Map<string, { done: string | null; pending: Set<string> }>();
  // The last line may be torn by the kill; only whole lines count.
  for (const line of log.split('\n').slice(0, -1)) {
    const [kind, file = '', hash = ''] = line.split(' ');
    const state = files.get(file) ?? { done: null, pending: new Set<string>() };
    files.set(file, state);
    if (kind === 'intend') state.pending.add(hash);
    else state.done = hash;
    if (kind !== 'intend') state.pending.clear();
  }
  return files;
}

/** What a memory directory holds after a kill, against the writer's log. */
export interface CrashCheck {
  /** Files whose content was never written whole. */
  torn: string[];
  /** Files whose write completed and that are gone. */
  vanished: string[];
  /** Memdir temp files left behind (cleaned by the next writer). */
  temps: number;
  /** Dotfiles that are not Memdir's temp files. */
  strays: string[];
  /** A MEMORY.md with a line that is not a pointer (this writer only writes pointers). */
  badIndex: boolean;
}

/** Check `dir` (top level) against `log` (see the file comment). */
export async function checkAfterKill(dir: string, log: string): Promise<CrashCheck> {
  const expected = expectedContents(log);
  const check: CrashCheck = { torn: [], vanished: [], temps: 0, strays: [], badIndex: false };
  for (const name of await fs.readdir(dir)) {
    if (name.startsWith('.')) {
      if (name.startsWith(TEMP_FILE_PREFIX)) check.temps++;
      else check.strays.push(name);
      continue;
    }
    const data = await fs.readFile(path.join(dir, name));
    const state = expected.get(name);
    const hash = sha256(data);
    if (!state || (hash !== state.done && !state.pending.has(hash))) check.torn.push(name);
    if (name === 'MEMORY.md' && !parseIndex(data.toString('utf8')).lines.every((l) => l.kind === 'entry')) check.badIndex = true;
  }
  for (const [name, state] of expected) {
    if (
      state.done !== null &&
      !(await fs.access(path.join(dir, name)).then(
        () => true,
        () => false,
      ))
    )
      check.vanished.push(name);
  }
  return check;
}

/** `git fsck` on the one shadow repository under `dataDir`; before its first commit there may be none. */
export async function fsckHistory(dataDir: string, mustExist: boolean): Promise<void> {
  const [key = ''] = await fs.readdir(path.join(dataDir, 'history')).catch(() => []);
  const gitDir = path.join(dataDir, 'history', key, 'repo.git');
  if (
    !mustExist &&
    !(await fs.access(path.join(gitDir, 'HEAD')).then(
      () => true,
      () => false,
    ))
  )
    return;
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GIT_')));
  try {
    await run('git', [`--git-dir=${gitDir}`, 'fsck', '--strict', '--no-dangling', '--no-progress'], { env: { ...env, GIT_CONFIG_NOSYSTEM: '1' } });
  } catch (error) {
    const { stderr = '', stdout = '' } = error as { stderr?: string; stdout?: string };
    throw new Error(`git fsck of the history failed: ${`${stderr}${stdout}`.trim().split('\n').slice(0, 5).join(' | ') || (error as Error).message}`, {
      cause: error,
    });
  }
}

/**
 * Wait until no process is left in the process group `pgid` (a worker spawned `detached`, and
 * the git it ran). Killing a worker with SIGKILL leaves the git child it was waiting for running
 * a moment longer, as it would on a real machine; a next start comes after that moment.
 */
export async function processGroupGone(pgid: number, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      process.kill(-pgid, 0);
    } catch {
      return true;
    }
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
