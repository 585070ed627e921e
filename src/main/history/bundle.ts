/**
 * A memory dir's history as one file, and back (issue 18, export and import): `git bundle` of
 * the shadow repository, which a person can inspect with `git bundle list-heads` or clone. An
 * imported bundle is kept in the target's shadow repository under `refs/memdir/imports/<name>`,
 * so the history the memories had elsewhere stays readable beside their new one.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { HistoryError, git, gitInitBare } from './git.js';
import { ensureShadowRepo, openShadowRepo } from './shadow-repo.js';
import { withMemoryLock } from '../core/memory-lock.js';

async function withTempFile<T>(fn: (file: string) => Promise<T>): Promise<T> {
  const file = path.join(os.tmpdir(), `memdir-bundle-${process.pid}-${randomBytes(6).toString('hex')}.bundle`);
  try {
    return await fn(file);
  } finally {
    await fs.rm(file, { force: true });
  }
}

/** The whole history of `memoryDir` as a git bundle, or null when nothing was recorded yet. */
export async function bundleHistory(memoryDir: string, opts: { dataDir?: string } = {}): Promise<Buffer | null> {
  const repo = await openShadowRepo(memoryDir, opts.dataDir);
  if (!repo) return null;
  const head = await git(repo, ['rev-parse', '-q', '--verify', 'HEAD^{commit}'], { okCodes: [1, 128] });
  if (head.code !== 0) return null;
  return withTempFile(async (file) => {
    await git(repo, ['bundle', 'create', '-q', file, 'HEAD']);
    return fs.readFile(file);
  });
}

/** Whether `bundle` is a complete git bundle (checked in a throwaway repository: nothing of the user's is touched). */
export async function isReadableBundle(bundle: Buffer): Promise<boolean> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-bundle-check-'));
  try {
    const repo = { gitDir: path.join(dir, 'repo.git'), workTree: dir };
    await gitInitBare(repo);
    const file = path.join(dir, 'history.bundle');
    await fs.writeFile(file, bundle);
    return (await git(repo, ['bundle', 'verify', '-q', file], { okCodes: [1, 128] })).code === 0;
  } catch {
    return false;
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

/**
 * Keep the history in `bundle` in the shadow repository of `memoryDir` as
 * `refs/memdir/imports/<name>` (the bundle is verified first). Returns the commit it points at.
 * @throws {HistoryError} when the bundle is not a readable git bundle.
 */
export async function keepBundledHistory(memoryDir: string, bundle: Buffer, name: string, opts: { dataDir?: string } = {}): Promise<string> {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(name)) throw new HistoryError('bad-argument', `"${name}" cannot name an imported history`);
  return withMemoryLock(
    memoryDir,
    async () => {
      const repo = await ensureShadowRepo(memoryDir, opts.dataDir);
      return withTempFile(async (file) => {
        await fs.writeFile(file, bundle);
        const verified = await git(repo, ['bundle', 'verify', '-q', file], { okCodes: [1, 128] });
        if (verified.code !== 0) throw new HistoryError('bad-argument', 'The history in the archive is not a readable git bundle');
        await git(repo, ['fetch', '-q', '--no-tags', file, `+HEAD:refs/memdir/imports/${name}`]);
        return (await git(repo, ['rev-parse', `refs/memdir/imports/${name}`])).stdout.trim();
      });
    },
    { ...(opts.dataDir ? { dataDir: opts.dataDir } : {}) },
  );
}
