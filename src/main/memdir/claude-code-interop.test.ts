/**
 * Memdir against the real Claude Code (R-KEY, R-LAYOUT): in each kind of checkout, Claude Code
 * is run once and Memdir must name the same memory directory its system prompt names, and the
 * transcript must land in the launch directory's folder. Skipped with a reason when the binary
 * is not installed (test-support/claude-code.ts).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sanitizeDirName } from '../../shared/sanitize.js';
import { locateProject } from './projects.js';
import { isolatedGitEnv } from './run-git.js';
import { claudeCodeSkipReason, runClaudeCode } from './test-support/claude-code.js';

const gitEnv = { ...isolatedGitEnv(), GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
function git(cwd: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'init.defaultBranch=main', '-c', 'protocol.file.allow=always', ...args], { cwd, env: gitEnv, stdio: 'pipe' });
}

let tmp: string;
let runs = 0;

/** Run Claude Code in `cwd` with a fresh config dir; check Memdir agrees on memory and transcript folder. */
async function agree(cwd: string, env: Record<string, string> = {}): Promise<{ memoryDir: string | null; transcriptFolder: string | null; expectedMemoryDir: string }> {
  const configDir = path.join(tmp, `config-${++runs}`);
  const run = await runClaudeCode({ cwd, configDir, scratch: path.join(tmp, `scratch-${runs}`), env });
  expect(run.exitCode, run.output).toBe(0);
  const memdir = await locateProject(configDir, cwd, {});
  return { memoryDir: run.memoryDir, transcriptFolder: run.transcriptFolder, expectedMemoryDir: memdir.memoryDir };
}

describe.skipIf(claudeCodeSkipReason !== null)(`the real Claude Code agrees with Memdir on the key (${claudeCodeSkipReason ?? 'installed'})`, () => {
  let repo: string;
  beforeAll(async () => {
    tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-cc-key-')));
    repo = path.join(tmp, 'repo');
    await fs.mkdir(path.join(repo, 'sub'), { recursive: true });
    git(repo, 'init', '-q');
    git(repo, 'commit', '-q', '--allow-empty', '-m', 'init');
  });
  afterAll(async () => {
    if (tmp) await fs.rm(tmp, { recursive: true, force: true });
  });

  it('a subdirectory reads the repository memory; its transcript goes to the subdirectory folder', async () => {
    const r = await agree(path.join(repo, 'sub'));
    expect(r.memoryDir).toBe(r.expectedMemoryDir);
    expect(path.basename(path.dirname(r.expectedMemoryDir))).toBe(sanitizeDirName(repo));
    expect(r.transcriptFolder).toBe(sanitizeDirName(path.join(repo, 'sub')));
  });

  it('a valid linked worktree reads the main repository memory, also without git on PATH', async () => {
    const worktree = path.join(tmp, 'wt-feature');
    git(repo, 'worktree', 'add', '-q', worktree);
    const noGit = path.join(tmp, 'no-git-bin');
    await fs.mkdir(noGit, { recursive: true });
    for (const env of [{}, { PATH: noGit }] as Record<string, string>[]) {
      const r = await agree(worktree, env);
      expect(r.memoryDir).toBe(r.expectedMemoryDir);
      expect(path.basename(path.dirname(r.expectedMemoryDir))).toBe(sanitizeDirName(repo));
      expect(r.transcriptFolder).toBe(sanitizeDirName(worktree));
    }
  });

  it('a worktree whose main repository moved, a broken back-link and a submodule each keep their own memory', async () => {
    const main = path.join(tmp, 'moving');
    await fs.mkdir(main);
    git(main, 'init', '-q');
    git(main, 'commit', '-q', '--allow-empty', '-m', 'init');
    const moved = path.join(tmp, 'moved-wt');
    git(main, 'worktree', 'add', '-q', moved);
    await fs.rename(main, path.join(tmp, 'moving-elsewhere'));

    const broken = path.join(tmp, 'broken-wt');
    git(repo, 'worktree', 'add', '-q', broken);
    await fs.writeFile(path.join(repo, '.git', 'worktrees', 'broken-wt', 'gitdir'), '/nowhere/.git\n');

    const lib = path.join(tmp, 'lib-src');
    await fs.mkdir(lib);
    git(lib, 'init', '-q');
    git(lib, 'commit', '-q', '--allow-empty', '-m', 'init');
    git(repo, 'submodule', 'add', '-q', lib, 'vendor/lib');
    const submodule = path.join(repo, 'vendor', 'lib');

    for (const own of [moved, broken, submodule]) {
      const r = await agree(own);
      expect(r.memoryDir).toBe(r.expectedMemoryDir);
      expect(path.basename(path.dirname(r.expectedMemoryDir))).toBe(sanitizeDirName(own));
    }
  });

  it('a worktree of a bare repository reads the bare repository memory', async () => {
    const bare = path.join(tmp, 'project.git');
    git(tmp, 'clone', '-q', '--bare', repo, bare);
    const worktree = path.join(tmp, 'bare-wt');
    git(bare, 'worktree', 'add', '-q', worktree, 'main');
    const r = await agree(worktree);
    expect(r.memoryDir).toBe(r.expectedMemoryDir);
    expect(path.basename(path.dirname(r.expectedMemoryDir))).toBe(sanitizeDirName(bare));
  });

  it.skipIf(process.getuid?.() !== 0)('a repository git calls "dubious ownership" still reads its root memory (needs root to hand it to another user)', async () => {
    const theirs = path.join(tmp, 'theirs');
    await fs.mkdir(path.join(theirs, 'sub'), { recursive: true });
    git(theirs, 'init', '-q');
    execFileSync('chown', ['-R', 'nobody', theirs]);
    const r = await agree(path.join(theirs, 'sub'));
    expect(r.memoryDir).toBe(r.expectedMemoryDir);
    expect(path.basename(path.dirname(r.expectedMemoryDir))).toBe(sanitizeDirName(theirs));
  });
});
