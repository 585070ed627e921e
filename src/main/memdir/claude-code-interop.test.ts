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
import { resolveHome } from './home.js';
import { locateProject } from './projects.js';
import { scanMemoryDir } from './scan-dir.js';
import { scanHome } from './scan-home.js';
import { claudeCodeSkipReason, observeClaudeCode } from './test-support/claude-code.js';
import { git } from './test-support/test-git.js';
import {
  SETTINGS_CASES,
  SETTINGS_REJECTED,
  SETTINGS_REJECTED_FIXTURE,
  type SettingsRejectedFixture,
  writeCase,
} from './test-support/settings-rejected-cases.js';
import { NFD_KEY_CASES, NFD_KEY_FIXTURE, NFD_KEY_FIXTURE_PATH } from './test-support/nfd-key-fixture.js';

let tmp: string;
let runs = 0;

/** Run Claude Code in `cwd` with a fresh config dir; check Memdir agrees on memory and transcript folder. */
async function agree(
  cwd: string,
  env: Record<string, string> = {},
): Promise<{ memoryDir: string | null; transcriptFolder: string | null; expectedMemoryDir: string }> {
  const configDir = path.join(tmp, `config-${++runs}`);
  const run = await observeClaudeCode({ cwd, configDir, scratch: path.join(tmp, `scratch-${runs}`), env });
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

  it('R-SANITIZE: a key past 200 characters is cut and suffixed, and every UTF-16 unit outside [A-Za-z0-9] is a dash', async () => {
    const long = path.join(tmp, 'a'.repeat(120), 'b_c.d'.repeat(30));
    const wide = path.join(tmp, '项目 😀 ü');
    for (const dir of [long, wide]) {
      await fs.mkdir(dir, { recursive: true });
      git(dir, 'init', '-q');
      const r = await agree(dir);
      expect(r.memoryDir).toBe(r.expectedMemoryDir);
      const name = path.basename(path.dirname(r.expectedMemoryDir));
      expect(r.transcriptFolder).toBe(name);
      // 2.1.332's native build suffixes the djb2 hash too (older builds may not: look-ups match on the prefix).
      expect(name).toBe(sanitizeDirName(dir));
    }
    expect(sanitizeDirName(long)).toMatch(/^-.{199}-[0-9a-z]+$/);
    expect(sanitizeDirName(wide).endsWith('-'.repeat(7))).toBe(true);
  });

  it('keys a folder named in decomposed Unicode (NFD) as it is on disk, not NFC-normalised; an NFD config dir is normalised (review x5 F3)', async () => {
    // "café" as macOS, zip and rsync leave it: `e` + U+0301. The binary keys the bytes the OS gives.
    const cases = NFD_KEY_CASES.map((c) => ({ ...c, cwd: path.join(tmp, 'nfd', ...c.launch.split('/')) }));
    for (const c of cases) {
      await fs.mkdir(c.cwd, { recursive: true });
      if (c.git) git(path.join(tmp, 'nfd', c.launch.split('/')[0]!), 'init', '-q');
    }
    const seen: { launch: string; memoryFolder: string; transcriptFolder: string }[] = [];
    const prefix = sanitizeDirName(path.join(tmp, 'nfd'));
    for (const c of cases) {
      const r = await agree(c.cwd);
      expect(r.memoryDir, c.launch).toBe(r.expectedMemoryDir);
      const memoryFolder = path.basename(path.dirname(r.memoryDir!));
      expect(r.transcriptFolder, c.launch).toBe(sanitizeDirName(c.cwd));
      seen.push({ launch: c.launch, memoryFolder: memoryFolder.slice(prefix.length), transcriptFolder: r.transcriptFolder!.slice(prefix.length) });
    }
    // The config dir is the other way round: the client NFC-normalises it, and so does Memdir.
    const nfdConfig = path.join(tmp, 'Rene\u0301', '.claude');
    const run = await observeClaudeCode({ cwd: repo, configDir: nfdConfig, scratch: path.join(tmp, `scratch-${++runs}`) });
    expect(run.exitCode, run.output).toBe(0);
    expect(run.memoryDir).toBe((await locateProject(resolveHome({ CLAUDE_CONFIG_DIR: nfdConfig }), repo, {})).memoryDir);
    expect(run.memoryDir!.startsWith(path.join(tmp, 'Ren\u00e9'))).toBe(true);
    const recorded = { ...NFD_KEY_FIXTURE, configDirNormalised: true, cases: seen };
    if (process.env.MEMDIR_RECORD_KEY_FIXTURES === '1') await fs.writeFile(NFD_KEY_FIXTURE_PATH, `${JSON.stringify(recorded, null, 1)}\n`);
    else expect(recorded).toEqual(NFD_KEY_FIXTURE);
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

  it('loads a pointer whose link holds a raw space as written, so Memdir reads it as a pointer too (review x1 F9)', async () => {
    const cwd = path.join(repo, 'sub');
    const configDir = path.join(tmp, `config-${++runs}`);
    const { memoryDir } = await locateProject(configDir, cwd, {});
    await fs.mkdir(memoryDir, { recursive: true });
    const line = '- [My notes](my notes.md) — notes kept with a space in the name';
    await fs.writeFile(path.join(memoryDir, 'MEMORY.md'), `${line}\n`);
    await fs.writeFile(path.join(memoryDir, 'my notes.md'), '---\nname: My notes\ndescription: notes\ntype: user\n---\n\nbody\n');
    const run = await observeClaudeCode({ cwd, configDir, scratch: path.join(tmp, `scratch-${runs}`) });
    expect(run.exitCode, run.output).toBe(0);
    // The model is given the line as it is written: it reads `my notes.md` from it, as Memdir's index reading now does.
    expect(run.requests).toContain(JSON.stringify(line).slice(1, -1));
    expect(scanMemoryDir(memoryDir, { scope: 'private' }).problems).toEqual([]);
  });

  it.skipIf(process.getuid?.() !== 0)(
    'a repository git calls "dubious ownership" still reads its root memory (needs root to hand it to another user)',
    async () => {
      const theirs = path.join(tmp, 'theirs');
      await fs.mkdir(path.join(theirs, 'sub'), { recursive: true });
      git(theirs, 'init', '-q');
      execFileSync('chown', ['-R', 'nobody', theirs]);
      const r = await agree(path.join(theirs, 'sub'));
      expect(r.memoryDir).toBe(r.expectedMemoryDir);
      expect(path.basename(path.dirname(r.expectedMemoryDir))).toBe(sanitizeDirName(theirs));
    },
  );
});

describe.skipIf(claudeCodeSkipReason !== null)(
  `the real Claude Code agrees with Memdir on settings and transcript folders (${claudeCodeSkipReason ?? 'installed'})`,
  () => {
    let repo: string;
    let sub: string;
    beforeAll(async () => {
      tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-cc-settings-')));
    });
    afterAll(async () => {
      if (tmp) await fs.rm(tmp, { recursive: true, force: true });
    });

    /** A fresh repository with a subdirectory, and the given files (relative to the repository). */
    async function fresh(files: Record<string, unknown> = {}): Promise<void> {
      repo = path.join(tmp, `repo-${++runs}`);
      sub = path.join(repo, 'sub');
      await fs.mkdir(sub, { recursive: true });
      git(repo, 'init', '-q');
      for (const [rel, value] of Object.entries(files)) {
        await fs.mkdir(path.dirname(path.join(repo, rel)), { recursive: true });
        await fs.writeFile(path.join(repo, rel), JSON.stringify(value));
      }
    }

    /** Whether Claude Code loaded memory, and whether Memdir says it is on, for one launch. */
    async function both(
      cwd: string,
      options: { env?: Record<string, string>; user?: unknown } = {},
    ): Promise<{ claude: string | null; memdir: string | null }> {
      const configDir = path.join(tmp, `config-${++runs}`);
      await fs.mkdir(configDir, { recursive: true });
      if (options.user) await fs.writeFile(path.join(configDir, 'settings.json'), JSON.stringify(options.user));
      const run = await observeClaudeCode({ cwd, configDir, scratch: path.join(tmp, `scratch-${runs}`), ...(options.env ? { env: options.env } : {}) });
      expect(run.exitCode, run.output).toBe(0);
      const loc = await locateProject(configDir, cwd, { ...options.env, HOME: path.join(tmp, `scratch-${runs}`, 'home') });
      return { claude: run.memoryDir, memdir: loc.settings.autoMemoryEnabled ? loc.memoryDir : null };
    }

    it('reads local settings in the launch directory and at the repository root, project settings only in the launch directory', async () => {
      await fresh({ 'sub/.claude/settings.local.json': { autoMemoryEnabled: false } });
      let r = await both(sub);
      expect(r.memdir).toBe(r.claude);
      expect(r.claude).toBeNull();
      r = await both(repo);
      expect(r.memdir).toBe(r.claude);
      expect(r.claude).not.toBeNull();

      await fresh({ '.claude/settings.local.json': { autoMemoryEnabled: false }, 'sub/.claude/settings.local.json': { autoMemoryEnabled: true } });
      r = await both(sub);
      expect(r.memdir).toBe(r.claude);
      expect(r.claude).toBeNull();

      await fresh({ '.claude/settings.json': { autoMemoryEnabled: false } });
      r = await both(sub);
      expect(r.memdir).toBe(r.claude);
      expect(r.claude).not.toBeNull();
    });

    it('follows the environment variables its memory check reads, from the shell and from settings env blocks', async () => {
      await fresh();
      const cases: { env?: Record<string, string>; user?: unknown; on: boolean }[] = [
        { env: { CLAUDE_CODE_DISABLE_AUTO_MEMORY: '1' }, on: false },
        { env: { CLAUDE_CODE_DISABLE_AUTO_MEMORY: '0' }, user: { autoMemoryEnabled: false }, on: true },
        { env: { CLAUDE_CODE_SAFE_MODE: '1', CLAUDE_CODE_DISABLE_AUTO_MEMORY: '0' }, on: false },
        { env: { CLAUDE_CODE_SIMPLE: '1', CLAUDE_CODE_DISABLE_AUTO_MEMORY: '0' }, on: false },
        { env: { CLAUDE_CODE_REMOTE: '1' }, on: false },
        { env: { CLAUDE_CODE_REMOTE: '1', CLAUDE_CODE_DISABLE_AUTO_MEMORY: '0' }, on: true },
        { env: { CLAUDE_CODE_DISABLE_AUTO_MEMORY: '0' }, user: { env: { CLAUDE_CODE_DISABLE_AUTO_MEMORY: '1' } }, on: false },
        { user: { env: { CLAUDE_CODE_SIMPLE: '1' } }, on: false },
        { user: { env: { CLAUDE_CODE_REMOTE: '1' } }, on: true },
        { env: { CLAUDE_CODE_DISABLE_AUTO_MEMORY: 'maybe' }, on: true },
      ];
      for (const c of cases) {
        const r = await both(repo, c);
        expect(r.memdir, JSON.stringify(c)).toBe(r.claude);
        expect(r.claude !== null, JSON.stringify(c)).toBe(c.on);
      }
    });

    it('moves the memory where CLAUDE_CODE_REMOTE_MEMORY_DIR and CLAUDE_COWORK_MEMORY_PATH_OVERRIDE say, and where local settings say', async () => {
      await fresh({ '.claude/settings.local.json': { autoMemoryDirectory: path.join(tmp, 'local-memory') } });
      for (const env of [{}, { CLAUDE_COWORK_MEMORY_PATH_OVERRIDE: path.join(tmp, 'cowork') }, { CLAUDE_COWORK_MEMORY_PATH_OVERRIDE: '~/cowork' }] as Record<
        string,
        string
      >[]) {
        const r = await both(sub, { env });
        expect(r.memdir, JSON.stringify(env)).toBe(r.claude);
      }
      await fresh({ '.claude/settings.json': { env: { CLAUDE_COWORK_MEMORY_PATH_OVERRIDE: path.join(tmp, 'from-repo') } } });
      const fromRepo = await both(repo);
      expect(fromRepo.memdir).toBe(fromRepo.claude);
      await fresh();
      const r = await both(repo, { env: { CLAUDE_CODE_REMOTE_MEMORY_DIR: path.join(tmp, 'remote') } });
      expect(r.memdir).toBe(r.claude);
      expect(r.claude).toBe(path.join(tmp, 'remote', 'projects', sanitizeDirName(repo), 'memory'));
    });

    it("moves the memory where the repository's shared settings say, below local settings and above your own, in the launch directory only", async () => {
      const shared = path.join(tmp, 'shared-memory');
      await fresh({ '.claude/settings.json': { autoMemoryDirectory: shared } });
      let r = await both(repo);
      expect(r.memdir).toBe(r.claude);
      expect(r.claude).toBe(shared);
      r = await both(repo, { user: { autoMemoryDirectory: path.join(tmp, 'my-memory') } });
      expect(r.memdir).toBe(r.claude);
      expect(r.claude).toBe(shared);
      // Project settings are the launch directory's: a subdirectory's session reads the default.
      r = await both(sub);
      expect(r.memdir).toBe(r.claude);
      expect(r.claude).toBe(path.join(tmp, `config-${runs}`, 'projects', sanitizeDirName(repo), 'memory'));

      await fresh({
        '.claude/settings.json': { autoMemoryDirectory: '~/shared' },
        '.claude/settings.local.json': { autoMemoryDirectory: path.join(tmp, 'local') },
      });
      r = await both(repo);
      expect(r.memdir).toBe(r.claude);
      expect(r.claude).toBe(path.join(tmp, 'local'));
      await fresh({ '.claude/settings.json': { autoMemoryDirectory: '~/shared' } });
      r = await both(repo);
      expect(r.memdir).toBe(r.claude);
      expect(r.claude).toBe(path.join(tmp, `scratch-${runs}`, 'home', 'shared'));
    });

    it('drops a settings file whole for the schema errors Claude Code drops it for, and only those (review x5 F1; recorded)', async () => {
      const seen: SettingsRejectedFixture['cases'] = [];
      for (const c of SETTINGS_CASES) {
        await fresh();
        const configDir = path.join(tmp, `config-${++runs}`);
        const movedTo = path.join(tmp, `moved-${runs}`);
        const file = writeCase(c, repo, configDir, movedTo);
        const run = await observeClaudeCode({ cwd: repo, configDir, scratch: path.join(tmp, `scratch-${runs}`) });
        expect(run.exitCode, run.output).toBe(0);
        // The client lists each file it dropped as `<file> (<dotted path>): <why>`.
        const named = run.output.indexOf(`${file} (`);
        const at = named === -1 ? null : run.output.slice(named + file.length + 2, run.output.indexOf(')', named + file.length));
        // Loaded: its probe setting took effect (a file can be named with a warning and still load: a broken PostToolUse hook).
        const loaded = c.probe === 'off' ? run.memoryDir === null : run.memoryDir !== path.join(configDir, 'projects', sanitizeDirName(repo), 'memory');
        seen.push({ name: c.name, loaded, at });
        const loc = await locateProject(configDir, repo, { HOME: path.join(tmp, `scratch-${runs}`, 'home') });
        expect(loc.settings.autoMemoryEnabled ? loc.memoryDir : null, c.name).toBe(run.memoryDir);
        const ignored = loc.settings.ignored.find((i) => i.file === file && i.reason.startsWith('Claude Code 2.1.332 does not load this file'));
        expect(ignored?.key ?? null, c.name).toBe(loaded ? null : at);
      }
      const recorded: SettingsRejectedFixture = {
        claudeCode: '2.1.332',
        how: "src/main/memdir/claude-code-interop.test.ts ('drops a settings file whole'): per case (settings-rejected-cases.ts), claude -p in a fresh repository with the case's file; loaded = the file's probe setting (autoMemoryEnabled false, or an autoMemoryDirectory) took effect; at = the dotted path the client named after the file in its output (a file can be named and still load).",
        cases: seen,
      };
      if (process.env.MEMDIR_RECORD_SETTINGS_FIXTURE === '1') await fs.writeFile(SETTINGS_REJECTED_FIXTURE, `${JSON.stringify(recorded, null, 1)}\n`);
      else expect(recorded).toEqual(SETTINGS_REJECTED);
    }, 600_000);

    it('scans the sessions of a subdirectory and a worktree as one project, the one whose memory they read', async () => {
      await fresh();
      git(repo, 'commit', '-q', '--allow-empty', '-m', 'init');
      const worktree = path.join(tmp, `wt-${runs}`);
      git(repo, 'worktree', 'add', '-q', worktree);
      const configDir = path.join(tmp, `config-${++runs}`);
      for (const cwd of [repo, sub, worktree]) {
        const run = await observeClaudeCode({ cwd, configDir, scratch: path.join(tmp, `scratch-${runs}`) });
        expect(run.exitCode, run.output).toBe(0);
      }
      const scan = await scanHome(configDir, { env: {} });
      expect(scan.projects.map((p) => p.dir)).toEqual([sanitizeDirName(repo)]);
      expect(scan.projects[0]!.launchDirs.map((l) => l.cwd).sort()).toEqual([repo, sub, worktree].sort());
      expect(scan.projects[0]!.transcripts).toBe(3);
    });
  },
);
