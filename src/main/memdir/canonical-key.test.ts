import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canonicalKey, DirectoryError, explainCanonicalKey, newKeyWalkMemo } from './canonical-key.js';
import { sanitizeDirName } from '../../shared/sanitize.js';
import { NFD_KEY_CASES, NFD_KEY_FIXTURE } from './test-support/nfd-key-fixture.js';
import { git } from './test-support/test-git.js';

async function repoWithCommit(dir: string): Promise<string> {
  await fs.mkdir(dir, { recursive: true });
  git(dir, 'init', '-q');
  git(dir, 'commit', '-q', '--allow-empty', '-m', 'init');
  return dir;
}

let tmp: string;
beforeEach(async () => {
  tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-key-')));
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

describe('canonicalKey (R-KEY)', () => {
  it('is the directory itself outside git', async () => {
    const dir = path.join(tmp, 'plain', 'deeper');
    await fs.mkdir(dir, { recursive: true });
    expect(await canonicalKey(dir)).toBe(dir);
  });

  it('is the repository root from the root and from any subdirectory', async () => {
    const repo = await repoWithCommit(path.join(tmp, 'repo'));
    const sub = path.join(repo, 'src', 'lib');
    await fs.mkdir(sub, { recursive: true });
    expect(await canonicalKey(repo)).toBe(repo);
    expect(await canonicalKey(sub)).toBe(repo);
  });

  it('gives a linked worktree (and its subdirectories) the main worktree root', async () => {
    const repo = await repoWithCommit(path.join(tmp, 'repo'));
    const worktree = path.join(tmp, 'elsewhere', 'feature');
    git(repo, 'worktree', 'add', '-q', worktree);
    await fs.mkdir(path.join(worktree, 'pkg'));
    expect(await canonicalKey(worktree)).toBe(repo);
    expect(await canonicalKey(path.join(worktree, 'pkg'))).toBe(repo);
  });

  it('resolves symlinks: a linked path to a repository subdirectory keys to the real root', async () => {
    const repo = await repoWithCommit(path.join(tmp, 'repo'));
    await fs.mkdir(path.join(repo, 'sub'));
    await fs.symlink(path.join(repo, 'sub'), path.join(tmp, 'link-to-sub'));
    await fs.symlink(repo, path.join(tmp, 'link-to-repo'));
    expect(await canonicalKey(path.join(tmp, 'link-to-sub'))).toBe(repo);
    expect(await canonicalKey(path.join(tmp, 'link-to-repo'))).toBe(repo);
  });

  it('resolves symlinks outside git too', async () => {
    const real = path.join(tmp, 'real');
    await fs.mkdir(real);
    await fs.symlink(real, path.join(tmp, 'alias'));
    expect(await canonicalKey(path.join(tmp, 'alias'))).toBe(real);
  });

  it('accepts relative paths', async () => {
    const repo = await repoWithCommit(path.join(tmp, 'repo'));
    expect(await canonicalKey(path.relative(process.cwd(), repo))).toBe(repo);
  });

  it('keys a folder named in decomposed Unicode as it is on disk, as the recorded client does (review x5 F3)', async () => {
    const base = path.join(tmp, 'nfd');
    const prefix = sanitizeDirName(base);
    for (const c of NFD_KEY_CASES) {
      const dir = path.join(base, ...c.launch.split('/'));
      await fs.mkdir(dir, { recursive: true });
      if (c.git) git(path.join(base, c.launch.split('/')[0]!), 'init', '-q');
    }
    const seen = [];
    for (const c of NFD_KEY_CASES) {
      const dir = path.join(base, ...c.launch.split('/'));
      const key = await canonicalKey(dir);
      seen.push({ launch: c.launch, memoryFolder: sanitizeDirName(key).slice(prefix.length), transcriptFolder: sanitizeDirName(dir).slice(prefix.length) });
    }
    expect(seen).toEqual(NFD_KEY_FIXTURE.cases);
    // The decomposed bytes stay: `café` written `e` + U+0301 is not the composed `é`.
    expect(await canonicalKey(path.join(base, 'cafe\u0301 proj', 'sub-\u00e9'))).toBe(path.join(base, 'cafe\u0301 proj'));
  });

  it('keys a submodule to its own root', async () => {
    const source = await repoWithCommit(path.join(tmp, 'lib-src'));
    const outer = await repoWithCommit(path.join(tmp, 'outer'));
    git(outer, 'submodule', 'add', '-q', source, 'vendor/lib');
    const submodule = path.join(outer, 'vendor', 'lib');
    expect(await canonicalKey(submodule)).toBe(submodule);
    expect(await canonicalKey(path.join(outer, 'vendor'))).toBe(outer);
    expect(source).not.toBe(submodule);
  });

  it('keys a repository with a separate git dir to its work tree', async () => {
    const work = path.join(tmp, 'work');
    await fs.mkdir(work);
    git(work, 'init', '-q', '--separate-git-dir', path.join(tmp, 'store.git'));
    expect(await canonicalKey(work)).toBe(work);
  });

  it('keys the inside of a .git directory to the repository root', async () => {
    const repo = await repoWithCommit(path.join(tmp, 'repo'));
    expect(await canonicalKey(path.join(repo, '.git', 'refs'))).toBe(repo);
  });

  it('keys a bare repository to itself and its linked worktrees to the bare repository', async () => {
    const seed = await repoWithCommit(path.join(tmp, 'seed'));
    const bare = path.join(tmp, 'project.git');
    git(tmp, 'clone', '-q', '--bare', seed, bare);
    expect(await canonicalKey(bare)).toBe(bare);
    const wt = path.join(tmp, 'wt-main');
    git(bare, 'worktree', 'add', '-q', wt, 'main');
    expect(await canonicalKey(wt)).toBe(bare);
  });

  it('is not redirected by GIT_DIR or GIT_WORK_TREE inherited from the environment', async () => {
    const repo = await repoWithCommit(path.join(tmp, 'repo'));
    const decoy = await repoWithCommit(path.join(tmp, 'decoy'));
    const plain = path.join(tmp, 'plain');
    await fs.mkdir(plain);
    const saved = { GIT_DIR: process.env.GIT_DIR, GIT_WORK_TREE: process.env.GIT_WORK_TREE };
    process.env.GIT_DIR = path.join(decoy, '.git');
    process.env.GIT_WORK_TREE = decoy;
    try {
      expect(await canonicalKey(repo)).toBe(repo);
      expect(await canonicalKey(plain)).toBe(plain);
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it('throws a DirectoryError with a clear message for a missing directory', async () => {
    const missing = path.join(tmp, 'no-such-dir');
    const error = await canonicalKey(missing).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DirectoryError);
    expect((error as DirectoryError).reason).toBe('missing');
    expect((error as DirectoryError).message).toBe(`Cannot use "${missing}" as a project directory: it does not exist.`);
  });

  it('throws a DirectoryError for a file and for a dangling symlink', async () => {
    const file = path.join(tmp, 'file.txt');
    await fs.writeFile(file, 'x');
    await expect(canonicalKey(file)).rejects.toMatchObject({ reason: 'not-a-directory' });
    await expect(canonicalKey(path.join(file, 'below'))).rejects.toMatchObject({ reason: 'not-a-directory' });
    await fs.symlink(path.join(tmp, 'gone'), path.join(tmp, 'dangling'));
    await expect(canonicalKey(path.join(tmp, 'dangling'))).rejects.toMatchObject({ reason: 'missing' });
  });

  it('finds the project without git: no git on PATH, a subdirectory and a linked worktree still share the repository key', async () => {
    const repo = await repoWithCommit(path.join(tmp, 'repo'));
    const sub = path.join(repo, 'src');
    await fs.mkdir(sub);
    const worktree = path.join(tmp, 'wt');
    git(repo, 'worktree', 'add', '-q', worktree);
    const emptyBin = path.join(tmp, 'empty-bin');
    await fs.mkdir(emptyBin);
    const saved = process.env.PATH;
    process.env.PATH = emptyBin;
    try {
      expect(await canonicalKey(sub)).toBe(repo);
      expect(await canonicalKey(worktree)).toBe(repo);
    } finally {
      process.env.PATH = saved;
    }
  });

  it('keys a worktree whose main repository moved to its own root, and says why', async () => {
    const repo = await repoWithCommit(path.join(tmp, 'repo'));
    const worktree = path.join(tmp, 'wt');
    git(repo, 'worktree', 'add', '-q', worktree);
    await fs.rename(repo, path.join(tmp, 'repo-moved'));
    const explained = await explainCanonicalKey(worktree);
    expect(explained.key).toBe(worktree);
    expect(explained.via).toBe('own-root');
    expect(explained.worktree).toMatchObject({ valid: false, gitdir: path.join(repo, '.git', 'worktrees', 'wt') });
    expect(explained.detail).toContain('was the main repository moved or deleted?');
  });

  it('keys a repository git calls "dubious ownership" to its root (the key is read from files)', async () => {
    if (process.getuid?.() !== 0) return; // Only root can hand a repository to another owner here.
    const repo = path.join(tmp, 'theirs');
    await fs.mkdir(path.join(repo, 'sub'), { recursive: true });
    git(repo, 'init', '-q');
    execFileSync('chown', ['-R', 'nobody', repo]);
    expect(await canonicalKey(path.join(repo, 'sub'))).toBe(repo);
  });

  it('keys a worktree with a broken back-link to its own root', async () => {
    const repo = await repoWithCommit(path.join(tmp, 'repo'));
    const worktree = path.join(tmp, 'wt');
    git(repo, 'worktree', 'add', '-q', worktree);
    await fs.writeFile(path.join(repo, '.git', 'worktrees', 'wt', 'gitdir'), '/nowhere/.git\n');
    const explained = await explainCanonicalKey(worktree);
    expect(explained.key).toBe(worktree);
    expect(explained.worktree?.problem).toContain('names /nowhere/.git, not this worktree');
  });

  it('keys a worktree whose entry is not under <commondir>/worktrees, or whose commondir is a symlink, to its own root', async () => {
    const repo = await repoWithCommit(path.join(tmp, 'repo'));
    const worktree = path.join(tmp, 'wt');
    git(repo, 'worktree', 'add', '-q', worktree);
    const entry = path.join(repo, '.git', 'worktrees', 'wt');
    await fs.writeFile(path.join(entry, 'commondir'), `${path.join(tmp, 'elsewhere')}\n`);
    expect((await explainCanonicalKey(worktree)).worktree?.problem).toContain('is not an entry of');
    await fs.rm(path.join(entry, 'commondir'));
    await fs.writeFile(path.join(tmp, 'commondir-target'), '../..\n');
    await fs.symlink(path.join(tmp, 'commondir-target'), path.join(entry, 'commondir'));
    expect(await canonicalKey(worktree)).toBe(worktree);
  });

  it('explains which .git it found: a repository, a valid worktree, nothing', async () => {
    const repo = await repoWithCommit(path.join(tmp, 'repo'));
    const worktree = path.join(tmp, 'wt');
    git(repo, 'worktree', 'add', '-q', worktree);
    const plain = path.join(tmp, 'plain');
    await fs.mkdir(plain);
    expect(await explainCanonicalKey(path.join(repo))).toMatchObject({
      via: 'repository',
      root: repo,
      gitEntry: { path: path.join(repo, '.git'), kind: 'directory' },
      worktree: null,
    });
    expect(await explainCanonicalKey(worktree)).toMatchObject({
      key: repo,
      via: 'worktree',
      root: worktree,
      gitEntry: { kind: 'file' },
      worktree: { valid: true, problem: null, gitdir: path.join(repo, '.git', 'worktrees', 'wt'), commondir: path.join(repo, '.git') },
    });
    expect(await explainCanonicalKey(plain)).toMatchObject({ key: plain, via: 'no-git', gitEntry: null });
  });

  it('keeps the main repository path as the worktree entry names it (Claude Code does not resolve it)', async () => {
    await fs.mkdir(path.join(tmp, 'real'));
    await fs.symlink(path.join(tmp, 'real'), path.join(tmp, 'alias'));
    const repo = await repoWithCommit(path.join(tmp, 'real', 'repo'));
    const worktree = path.join(tmp, 'wt');
    git(repo, 'worktree', 'add', '-q', worktree);
    await fs.writeFile(path.join(worktree, '.git'), `gitdir: ${path.join(tmp, 'alias', 'repo', '.git', 'worktrees', 'wt')}\n`);
    expect(await canonicalKey(worktree)).toBe(path.join(tmp, 'alias', 'repo'));
  });

  it('counts a .git that is a link to a directory, and ignores a .git that is neither file nor directory', async () => {
    const store = path.join(tmp, 'store');
    await fs.mkdir(store);
    const linked = path.join(tmp, 'linked', 'sub');
    await fs.mkdir(linked, { recursive: true });
    await fs.symlink(store, path.join(tmp, 'linked', '.git'));
    expect(await canonicalKey(linked)).toBe(path.join(tmp, 'linked'));
    const dangling = path.join(tmp, 'dangling-git', 'sub');
    await fs.mkdir(dangling, { recursive: true });
    await fs.symlink(path.join(tmp, 'gone'), path.join(tmp, 'dangling-git', '.git'));
    expect(await canonicalKey(dangling)).toBe(dangling);
  });

  it('keys a launch directory that no longer exists from its nearest parent when asked to', async () => {
    const repo = await repoWithCommit(path.join(tmp, 'repo'));
    const gone = path.join(repo, 'deleted', 'deeper');
    await expect(explainCanonicalKey(gone)).rejects.toMatchObject({ reason: 'missing' });
    expect(await explainCanonicalKey(gone, { missingOk: true })).toMatchObject({ key: repo, exists: false, via: 'repository' });
    const outside = path.join(tmp, 'plain', 'deleted');
    await fs.mkdir(path.join(tmp, 'plain'));
    expect(await explainCanonicalKey(outside, { missingOk: true })).toMatchObject({ key: outside, exists: false, via: 'no-git' });
  });

  it('keys the launch directories of one pass sharing what their walks up found, each as it would alone', async () => {
    const repo = await repoWithCommit(path.join(tmp, 'repo'));
    const worktree = path.join(tmp, 'elsewhere', 'feature');
    git(repo, 'worktree', 'add', '-q', worktree);
    await fs.mkdir(path.join(repo, 'src', 'lib'), { recursive: true });
    await fs.mkdir(path.join(tmp, 'plain', 'here'), { recursive: true });
    const dirs = [
      repo,
      path.join(repo, 'src'),
      path.join(repo, 'src', 'lib'),
      path.join(repo, 'deleted', 'one'),
      path.join(repo, 'deleted', 'two'),
      path.join(repo, 'src', 'gone'),
      worktree,
      path.join(worktree, 'gone'),
      path.join(tmp, 'plain', 'here'),
      path.join(tmp, 'plain', 'gone'),
      path.join(tmp, 'plain', 'gone', 'deeper'),
    ];
    const alone = await Promise.all(dirs.map((d) => explainCanonicalKey(d, { missingOk: true })));
    const memo = newKeyWalkMemo();
    // Twice through the same memo: the second pass is answered from it.
    for (let pass = 0; pass < 2; pass++) {
      for (const [i, d] of dirs.entries()) expect(await explainCanonicalKey(d, { missingOk: true, memo }), d).toStrictEqual(alone[i]);
    }
    expect(alone.map((e) => e.key)).toEqual([
      repo,
      repo,
      repo,
      repo,
      repo,
      repo,
      repo,
      repo,
      path.join(tmp, 'plain', 'here'),
      path.join(tmp, 'plain', 'gone'),
      path.join(tmp, 'plain', 'gone', 'deeper'),
    ]);
  });
});
