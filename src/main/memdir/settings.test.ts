import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SETTINGS_CASES, SETTINGS_REJECTED, writeCase } from './test-support/settings-rejected-cases.js';
import { type LaunchContext, type ReadSettingsOptions, readEffectiveSettings as read, validateMemoryDirectory } from './settings.js';

let tmp: string;
let home: string;
let repo: string;
let userHome: string;
let env: NodeJS.ProcessEnv;
let managedDir: string;

/** Settings of a session launched at the repository root (no managed settings unless a test writes them). */
const readEffectiveSettings = (h: string, launchDir: string | null, e: NodeJS.ProcessEnv, options: ReadSettingsOptions = {}) =>
  read(h, launchDir === null ? null : ({ launchDir, canonicalRoot: launchDir } satisfies LaunchContext), e, { managedDir, ...options });

beforeEach(async () => {
  tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-settings-')));
  userHome = path.join(tmp, 'me');
  home = path.join(userHome, '.claude');
  repo = path.join(tmp, 'repo');
  await fs.mkdir(home, { recursive: true });
  await fs.mkdir(path.join(repo, '.claude'), { recursive: true });
  env = { HOME: userHome };
  managedDir = path.join(tmp, 'managed');
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

const userFile = () => path.join(home, 'settings.json');
const projectFile = () => path.join(repo, '.claude', 'settings.json');
const localFile = () => path.join(repo, '.claude', 'settings.local.json');
async function write(file: string, value: unknown): Promise<void> {
  await fs.writeFile(file, typeof value === 'string' ? value : JSON.stringify(value));
}

describe('readEffectiveSettings (R-SETTINGS)', () => {
  it("defaults to memory on, the default directory and Memdir's scheduled dreams off", async () => {
    expect(await readEffectiveSettings(home, repo, env)).toEqual({
      autoMemoryEnabled: true,
      autoMemoryEnabledSource: 'default',
      autoMemoryEnabledFrom: null,
      autoMemoryDirectory: null,
      autoMemoryDirectorySource: 'default',
      autoMemoryDirectoryFrom: null,
      autoMemoryDirectoryTrust: null,
      memoryBase: null,
      autoDreamEnabled: false,
      autoDreamEnabledSource: 'default',
      autoDreamEnabledFrom: null,
      launchDir: repo,
      permissionRules: [],
      memoryStores: null,
      files: [
        { source: 'managed', file: path.join(managedDir, 'managed-settings.json'), exists: false },
        { source: 'local', file: localFile(), exists: false },
        { source: 'project', file: projectFile(), exists: false },
        { source: 'user', file: userFile(), exists: false },
      ],
      ignored: [],
      problems: [],
    });
  });

  it('works for a home that does not exist', async () => {
    const s = await readEffectiveSettings(path.join(tmp, 'missing-home'), null, env);
    expect(s.autoMemoryEnabled).toBe(true);
    expect(s.problems).toEqual([]);
  });

  it('turns memory off from the user settings', async () => {
    await write(userFile(), { autoMemoryEnabled: false });
    const s = await readEffectiveSettings(home, repo, env);
    expect([s.autoMemoryEnabled, s.autoMemoryEnabledSource]).toEqual([false, 'user']);
  });

  it('lets the shared project settings switch memory (no path involved)', async () => {
    await write(projectFile(), { autoMemoryEnabled: false });
    const s = await readEffectiveSettings(home, repo, env);
    expect([s.autoMemoryEnabled, s.autoMemoryEnabledSource]).toEqual([false, 'project']);
  });

  it('puts local over project over user', async () => {
    await write(userFile(), { autoMemoryEnabled: false });
    await write(projectFile(), { autoMemoryEnabled: false });
    await write(localFile(), { autoMemoryEnabled: true });
    const s = await readEffectiveSettings(home, repo, env);
    expect([s.autoMemoryEnabled, s.autoMemoryEnabledSource, s.autoMemoryEnabledFrom]).toEqual([true, 'local', localFile()]);
    expect(s.ignored.map((i) => [i.file, i.key])).toEqual([
      [projectFile(), 'autoMemoryEnabled'],
      [userFile(), 'autoMemoryEnabled'],
    ]);
  });

  it('reads only the user settings without a project', async () => {
    await write(projectFile(), { autoMemoryEnabled: false });
    await write(userFile(), { autoDreamEnabled: false });
    const s = await readEffectiveSettings(home, null, env);
    expect(s.autoMemoryEnabled).toBe(true);
    expect(s.autoDreamEnabled).toBe(false);
  });

  it.each(['1', 'true', 'TRUE', ' yes ', 'on'])('CLAUDE_CODE_DISABLE_AUTO_MEMORY=%j turns memory off over every file', async (value) => {
    await write(localFile(), { autoMemoryEnabled: true });
    const s = await readEffectiveSettings(home, repo, { ...env, CLAUDE_CODE_DISABLE_AUTO_MEMORY: value });
    expect([s.autoMemoryEnabled, s.autoMemoryEnabledSource, s.autoMemoryEnabledFrom]).toEqual([false, 'env', 'CLAUDE_CODE_DISABLE_AUTO_MEMORY']);
    expect(s.ignored).toContainEqual({ file: localFile(), key: 'autoMemoryEnabled', reason: 'overridden by CLAUDE_CODE_DISABLE_AUTO_MEMORY' });
  });

  it('CLAUDE_CODE_DISABLE_AUTO_MEMORY=0 forces memory on, as in Claude Code', async () => {
    await write(userFile(), { autoMemoryEnabled: false });
    const s = await readEffectiveSettings(home, repo, { ...env, CLAUDE_CODE_DISABLE_AUTO_MEMORY: '0' });
    expect([s.autoMemoryEnabled, s.autoMemoryEnabledSource]).toEqual([true, 'env']);
  });

  it('ignores an unrecognised CLAUDE_CODE_DISABLE_AUTO_MEMORY value', async () => {
    await write(userFile(), { autoMemoryEnabled: false });
    const s = await readEffectiveSettings(home, repo, { ...env, CLAUDE_CODE_DISABLE_AUTO_MEMORY: 'maybe' });
    expect([s.autoMemoryEnabled, s.autoMemoryEnabledSource]).toEqual([false, 'user']);
  });

  it('a non-boolean autoMemoryEnabled drops its whole file, as Claude Code does, and the next file decides', async () => {
    await write(localFile(), { autoMemoryEnabled: 'false' });
    await write(userFile(), { autoMemoryEnabled: false });
    const s = await readEffectiveSettings(home, repo, env);
    expect([s.autoMemoryEnabled, s.autoMemoryEnabledSource]).toEqual([false, 'user']);
    expect(s.ignored).toEqual([
      {
        file: localFile(),
        key: 'autoMemoryEnabled',
        reason:
          'Claude Code 2.1.332 does not load this file at all: "autoMemoryEnabled" must be true or false, and it is text. It drops a settings file with any such error whole, so none of its settings applies (its env block neither).',
      },
    ]);
  });

  it('lists the deny and ask rules of every file, managed over local over project over user (R-DREAM-GATE)', async () => {
    await fs.mkdir(managedDir, { recursive: true });
    await write(path.join(managedDir, 'managed-settings.json'), { permissions: { ask: ['Write'] } });
    await write(localFile(), { permissions: { deny: ['Edit(//tmp/x/**)', 42], allow: ['Read'] } });
    await write(projectFile(), { permissions: 'none' });
    await write(userFile(), { permissions: { deny: ['Bash'], ask: ['Edit'] } });
    expect((await readEffectiveSettings(home, repo, env)).permissionRules).toEqual([
      { behavior: 'ask', rule: 'Write', file: path.join(managedDir, 'managed-settings.json') },
      { behavior: 'deny', rule: 'Edit(//tmp/x/**)', file: localFile() },
      { behavior: 'deny', rule: 'Bash', file: userFile() },
      { behavior: 'ask', rule: 'Edit', file: userFile() },
    ]);
  });

  it('reads autoDreamEnabled with the same precedence, default off', async () => {
    await write(userFile(), { autoDreamEnabled: true });
    expect(await readEffectiveSettings(home, repo, env)).toMatchObject({
      autoDreamEnabled: true,
      autoDreamEnabledSource: 'user',
      autoDreamEnabledFrom: userFile(),
    });
    await write(projectFile(), { autoDreamEnabled: false });
    expect((await readEffectiveSettings(home, repo, env)).autoDreamEnabled).toBe(false);
    await write(localFile(), { autoDreamEnabled: true });
    expect(await readEffectiveSettings(home, repo, env)).toMatchObject({ autoDreamEnabled: true, autoDreamEnabledSource: 'local' });
  });

  describe('autoMemoryDirectory', () => {
    it('moves the memory directory from the user settings', async () => {
      const target = path.join(tmp, 'my-memory');
      await write(userFile(), { autoMemoryDirectory: target });
      const s = await readEffectiveSettings(home, repo, env);
      expect([s.autoMemoryDirectory, s.autoMemoryDirectorySource]).toEqual([target, 'user']);
    });

    it('expands ~/ to the user home (not the Claude home) and drops a trailing slash', async () => {
      await write(userFile(), { autoMemoryDirectory: '~/notes/memory/' });
      const s = await readEffectiveSettings(home, repo, env);
      expect(s.autoMemoryDirectory).toBe(path.join(userHome, 'notes', 'memory'));
    });

    it('puts local settings over user settings', async () => {
      await write(userFile(), { autoMemoryDirectory: path.join(tmp, 'from-user') });
      await write(localFile(), { autoMemoryDirectory: path.join(tmp, 'from-local') });
      const s = await readEffectiveSettings(home, repo, env);
      expect([s.autoMemoryDirectory, s.autoMemoryDirectorySource]).toEqual([path.join(tmp, 'from-local'), 'local']);
      expect(s.ignored).toEqual([{ file: userFile(), key: 'autoMemoryDirectory', reason: `overridden by ${localFile()}` }]);
    });

    it('takes it from the shared project settings, below local and above user settings, as Claude Code 2.1.332 does', async () => {
      await write(projectFile(), { autoMemoryDirectory: '~/.ssh' });
      let s = await readEffectiveSettings(home, repo, env);
      expect([s.autoMemoryDirectory, s.autoMemoryDirectorySource, s.autoMemoryDirectoryFrom]).toEqual([path.join(userHome, '.ssh'), 'project', projectFile()]);
      expect(s.ignored).toEqual([]);

      await write(userFile(), { autoMemoryDirectory: path.join(tmp, 'mine') });
      await write(projectFile(), { autoMemoryDirectory: path.join(tmp, 'theirs') });
      s = await readEffectiveSettings(home, repo, env);
      expect([s.autoMemoryDirectory, s.autoMemoryDirectorySource]).toEqual([path.join(tmp, 'theirs'), 'project']);
      expect(s.ignored).toEqual([{ file: userFile(), key: 'autoMemoryDirectory', reason: `overridden by ${projectFile()}` }]);

      await write(localFile(), { autoMemoryDirectory: path.join(tmp, 'local') });
      s = await readEffectiveSettings(home, repo, env);
      expect([s.autoMemoryDirectory, s.autoMemoryDirectorySource]).toEqual([path.join(tmp, 'local'), 'local']);
      expect(s.ignored.map((i) => i.file)).toEqual([projectFile(), userFile()]);
    });

    it('ignores a relative path, as Claude Code does, and reports it', async () => {
      await write(localFile(), { autoMemoryDirectory: '.claude/memory' });
      const s = await readEffectiveSettings(home, repo, env);
      expect(s.autoMemoryDirectory).toBeNull();
      expect(s.ignored).toHaveLength(1);
      expect(s.ignored[0]!.reason).toMatch(/not an absolute path/);
    });

    it('lets an invalid local value shadow the user value, as Claude Code does', async () => {
      await write(userFile(), { autoMemoryDirectory: path.join(tmp, 'from-user') });
      await write(localFile(), { autoMemoryDirectory: 'relative/dir' });
      const s = await readEffectiveSettings(home, repo, env);
      expect([s.autoMemoryDirectory, s.autoMemoryDirectorySource]).toEqual([null, 'default']);
      expect(s.ignored.map((i) => i.file)).toEqual([localFile(), userFile()]);
    });

    it('a value that is not a string drops its whole file, as Claude Code does, and the user settings decide', async () => {
      await write(localFile(), { autoMemoryDirectory: 42 });
      await write(userFile(), { autoMemoryDirectory: path.join(tmp, 'from-user') });
      const s = await readEffectiveSettings(home, repo, env);
      expect(s.autoMemoryDirectory).toBe(path.join(tmp, 'from-user'));
      expect(s.ignored.map((i) => [i.file, i.key])).toEqual([[localFile(), 'autoMemoryDirectory']]);
      expect(s.ignored[0]!.reason).toContain('"autoMemoryDirectory" must be text, and it is a number');
    });

    it('NFC-normalises the directory', async () => {
      await write(userFile(), { autoMemoryDirectory: path.join(tmp, 'cafe\u0301') });
      expect((await readEffectiveSettings(home, repo, env)).autoMemoryDirectory).toBe(path.join(tmp, 'caf\u00e9'));
    });
  });

  describe('bad settings files never throw', () => {
    it('reports malformed JSON and still applies the other files', async () => {
      await write(userFile(), '{ "autoMemoryEnabled": false, ');
      await write(localFile(), { autoDreamEnabled: false });
      const s = await readEffectiveSettings(home, repo, env);
      expect(s.autoMemoryEnabled).toBe(true);
      expect(s.autoDreamEnabled).toBe(false);
      expect(s.problems).toHaveLength(1);
      expect(s.problems[0]!.file).toBe(userFile());
      expect(s.problems[0]!.message).toBe(
        'Claude Code 2.1.332 does not load this file at all: it is not valid JSON (line 1, column 31). It drops a settings file with any such error whole, so none of its settings applies (its env block neither).',
      );
      expect(s.ignored).toEqual([{ file: userFile(), key: '', reason: s.problems[0]!.message }]);
    });

    it('drops a file that is not JSON whole, as the real client did (test/fixtures/claude-code/settings-unparseable-2.1.332.json)', async () => {
      const recorded = JSON.parse(
        await fs.readFile(path.resolve(import.meta.dirname, '../../../test/fixtures/claude-code/settings-unparseable-2.1.332.json'), 'utf8'),
      ) as { cases: { name: string; file: string; text: string; loaded: boolean }[] };
      expect(recorded.cases.length).toBeGreaterThan(0);
      for (const c of recorded.cases) {
        await fs.rm(home, { recursive: true, force: true });
        await fs.rm(path.join(repo, '.claude'), { recursive: true, force: true });
        await fs.mkdir(home, { recursive: true });
        await fs.mkdir(path.join(repo, '.claude'), { recursive: true });
        const file = c.file.replace('<case>/config', home).replace('<case>/repo', repo);
        await write(file, c.text);
        const s = await readEffectiveSettings(home, repo, env);
        // The case's text holds autoMemoryEnabled: false; the client ran with memory on (not loaded).
        expect(s.autoMemoryEnabled, c.name).toBe(!c.loaded);
        expect(
          s.ignored.map((i) => [i.file, i.key]),
          c.name,
        ).toEqual(c.loaded ? [] : [[file, '']]);
      }
    });

    it('reports JSON that is not an object', async () => {
      await write(projectFile(), '[1, 2]');
      await write(localFile(), 'null');
      const s = await readEffectiveSettings(home, repo, env);
      expect(s.problems.map((p) => p.file).sort()).toEqual([localFile(), projectFile()].sort());
      expect(s.problems[0]!.message).toMatch(/not a JSON object/);
    });

    it('accepts an empty file and a UTF-8 BOM', async () => {
      await write(userFile(), '');
      await write(localFile(), '\uFEFF{"autoMemoryEnabled": false}');
      const s = await readEffectiveSettings(home, repo, env);
      expect(s.problems).toEqual([]);
      expect([s.autoMemoryEnabled, s.autoMemoryEnabledSource]).toEqual([false, 'local']);
    });

    it('reports a directory where a settings file should be', async () => {
      await fs.mkdir(userFile());
      const s = await readEffectiveSettings(home, repo, env);
      expect(s.problems).toEqual([{ file: userFile(), message: 'Cannot read these settings (it is a folder, not a file); they are not applied.' }]);
    });

    it.skipIf(process.getuid?.() === 0)('reports an unreadable file', async () => {
      await write(userFile(), { autoMemoryEnabled: false });
      await fs.chmod(userFile(), 0o000);
      const s = await readEffectiveSettings(home, repo, env);
      expect(s.autoMemoryEnabled).toBe(true);
      expect(s.problems[0]!.message).toMatch(/permission denied/);
    });
  });
});

describe('Claude Code 2.1.332 rules, as observed with the real client (R-SETTINGS)', () => {
  const managedFile = () => path.join(managedDir, 'managed-settings.json');
  const dropIn = (name: string) => path.join(managedDir, 'managed-settings.d', name);
  beforeEach(async () => {
    await fs.mkdir(path.join(managedDir, 'managed-settings.d'), { recursive: true });
  });

  it('managed settings win over local and user settings, either way', async () => {
    await write(managedFile(), { autoMemoryEnabled: false });
    await write(localFile(), { autoMemoryEnabled: true });
    expect(await readEffectiveSettings(home, repo, env)).toMatchObject({
      autoMemoryEnabled: false,
      autoMemoryEnabledSource: 'managed',
      autoMemoryEnabledFrom: managedFile(),
    });
    await write(managedFile(), { autoMemoryEnabled: true });
    await write(localFile(), { autoMemoryEnabled: false });
    expect(await readEffectiveSettings(home, repo, env)).toMatchObject({ autoMemoryEnabled: true, autoMemoryEnabledSource: 'managed' });
  });

  it('merges managed-settings.d drop-ins over the base file in name order', async () => {
    await write(managedFile(), { autoMemoryEnabled: true });
    await write(dropIn('10-memory.json'), { autoMemoryEnabled: false });
    expect(await readEffectiveSettings(home, repo, env)).toMatchObject({ autoMemoryEnabled: false, autoMemoryEnabledFrom: dropIn('10-memory.json') });
    await write(dropIn('20-memory.json'), { autoMemoryEnabled: true });
    await write(dropIn('.hidden.json'), { autoMemoryEnabled: false });
    await write(dropIn('notes.txt'), '{"autoMemoryEnabled": false}');
    expect(await readEffectiveSettings(home, repo, env)).toMatchObject({ autoMemoryEnabled: true, autoMemoryEnabledFrom: dropIn('20-memory.json') });
  });

  it('takes the memory directory from managed settings first', async () => {
    await write(dropIn('10.json'), { autoMemoryDirectory: path.join(tmp, 'policy') });
    await write(localFile(), { autoMemoryDirectory: path.join(tmp, 'local') });
    expect(await readEffectiveSettings(home, repo, env)).toMatchObject({ autoMemoryDirectory: path.join(tmp, 'policy'), autoMemoryDirectorySource: 'managed' });
  });

  it("says whether the folder is trusted when a repository's settings move the memory: Claude Code follows them in claude -p, and in a session only once the folder is trusted", async () => {
    const trust = async (e = env) => (await readEffectiveSettings(home, repo, e)).autoMemoryDirectoryTrust;
    const config = path.join(userHome, '.claude.json');
    await write(projectFile(), { autoMemoryDirectory: path.join(tmp, 'theirs') });
    expect(await trust()).toMatchObject({ trusted: false, config: null });
    await write(config, { projects: { [repo]: { hasTrustDialogAccepted: true } } });
    expect(await trust()).toEqual({ trusted: true, config, folder: repo });
    // A folder above counts (outside git), another folder does not.
    await write(config, { projects: { [tmp]: { hasTrustDialogAccepted: true }, [repo]: { hasTrustDialogAccepted: false } } });
    expect(await trust()).toEqual({ trusted: true, config, folder: tmp });
    await write(config, { projects: { [path.join(repo, 'other')]: { hasTrustDialogAccepted: true } } });
    expect(await trust()).toEqual({ trusted: false, config, folder: null });
    // In a git repository, a folder above its root does not.
    await fs.mkdir(path.join(repo, '.git'));
    await write(config, { projects: { [tmp]: { hasTrustDialogAccepted: true } } });
    expect(await trust()).toEqual({ trusted: false, config, folder: null });
    // With CLAUDE_CONFIG_DIR the config is inside it.
    await write(path.join(home, '.claude.json'), { projects: { [repo]: { hasTrustDialogAccepted: true } } });
    expect(await trust({ ...env, CLAUDE_CONFIG_DIR: home })).toEqual({ trusted: true, config: path.join(home, '.claude.json'), folder: repo });
    // Local settings are gated the same way; the user's own settings are not.
    await write(localFile(), { autoMemoryDirectory: path.join(tmp, 'local') });
    expect(await trust()).toMatchObject({ trusted: false });
    await fs.rm(localFile());
    await fs.rm(projectFile());
    await write(userFile(), { autoMemoryDirectory: path.join(tmp, 'mine') });
    expect(await trust()).toBeNull();
  });

  it('says that a broken managed file stops Claude Code', async () => {
    await write(managedFile(), 'not json');
    const s = await readEffectiveSettings(home, repo, env);
    expect(s.problems).toHaveLength(1);
    expect(s.problems[0]!.message).toMatch(/^Claude Code refuses to start while this file is broken: it is not valid JSON/);
  });

  it('CLAUDE_CODE_DISABLE_AUTO_MEMORY=0 forces memory on even over managed settings', async () => {
    await write(managedFile(), { autoMemoryEnabled: false });
    expect(await readEffectiveSettings(home, repo, { ...env, CLAUDE_CODE_DISABLE_AUTO_MEMORY: '0' })).toMatchObject({
      autoMemoryEnabled: true,
      autoMemoryEnabledSource: 'env',
    });
  });

  it('safe mode and --bare (CLAUDE_CODE_SIMPLE) turn memory off even when it is forced on', async () => {
    const forced = { ...env, CLAUDE_CODE_DISABLE_AUTO_MEMORY: '0' };
    expect(await readEffectiveSettings(home, repo, { ...forced, CLAUDE_CODE_SAFE_MODE: '1' })).toMatchObject({
      autoMemoryEnabled: false,
      autoMemoryEnabledFrom: 'CLAUDE_CODE_SAFE_MODE',
    });
    expect(await readEffectiveSettings(home, repo, { ...forced, CLAUDE_CODE_SIMPLE: 'true' })).toMatchObject({
      autoMemoryEnabled: false,
      autoMemoryEnabledFrom: 'CLAUDE_CODE_SIMPLE',
    });
    for (const off of ['0', 'false', '']) {
      expect((await readEffectiveSettings(home, repo, { ...env, CLAUDE_CODE_SIMPLE: off, CLAUDE_CODE_SAFE_MODE: off })).autoMemoryEnabled).toBe(true);
    }
  });

  it('a remote session has no memory unless it is given a memory directory', async () => {
    expect(await readEffectiveSettings(home, repo, { ...env, CLAUDE_CODE_REMOTE: '1' })).toMatchObject({
      autoMemoryEnabled: false,
      autoMemoryEnabledFrom: 'CLAUDE_CODE_REMOTE',
    });
    expect(await readEffectiveSettings(home, repo, { ...env, CLAUDE_CODE_REMOTE: '1', CLAUDE_CODE_DISABLE_AUTO_MEMORY: '0' })).toMatchObject({
      autoMemoryEnabled: true,
    });
    const remoteDir = path.join(tmp, 'remote-memory');
    expect(await readEffectiveSettings(home, repo, { ...env, CLAUDE_CODE_REMOTE: '1', CLAUDE_CODE_REMOTE_MEMORY_DIR: remoteDir })).toMatchObject({
      autoMemoryEnabled: true,
      memoryBase: remoteDir,
    });
  });

  it('applies the env blocks of settings files over the shell, managed over local over project over user', async () => {
    await write(userFile(), { env: { CLAUDE_CODE_DISABLE_AUTO_MEMORY: '1' } });
    expect(await readEffectiveSettings(home, repo, { ...env, CLAUDE_CODE_DISABLE_AUTO_MEMORY: '0' })).toMatchObject({
      autoMemoryEnabled: false,
      autoMemoryEnabledFrom: `CLAUDE_CODE_DISABLE_AUTO_MEMORY in the env block of ${userFile()}`,
    });
    await write(projectFile(), { env: { CLAUDE_CODE_DISABLE_AUTO_MEMORY: '0' } });
    expect((await readEffectiveSettings(home, repo, env)).autoMemoryEnabled).toBe(true);
    await write(localFile(), { env: { CLAUDE_CODE_DISABLE_AUTO_MEMORY: 1 } });
    expect((await readEffectiveSettings(home, repo, env)).autoMemoryEnabled).toBe(false);
    // --bare and safe mode come from your own settings, never from a repository's files.
    await write(localFile(), { env: { CLAUDE_CODE_SIMPLE: '1', CLAUDE_CODE_SAFE_MODE: '1' } });
    expect((await readEffectiveSettings(home, repo, env)).autoMemoryEnabled).toBe(true);
    await write(userFile(), { env: { CLAUDE_CODE_SIMPLE: '1' } });
    expect(await readEffectiveSettings(home, repo, env)).toMatchObject({
      autoMemoryEnabled: false,
      autoMemoryEnabledFrom: `CLAUDE_CODE_SIMPLE in the env block of ${userFile()}`,
    });
  });

  it("takes the variables that move the memory from your own settings' env blocks, not a repository's", async () => {
    const target = path.join(tmp, 'elsewhere');
    await write(projectFile(), { env: { CLAUDE_COWORK_MEMORY_PATH_OVERRIDE: target, CLAUDE_CODE_REMOTE_MEMORY_DIR: target } });
    await write(localFile(), { env: { CLAUDE_CODE_REMOTE_MEMORY_DIR: target } });
    expect(await readEffectiveSettings(home, repo, env)).toMatchObject({ autoMemoryDirectory: null, memoryBase: null });
    await write(userFile(), { env: { CLAUDE_CODE_REMOTE_MEMORY_DIR: target } });
    expect((await readEffectiveSettings(home, repo, env)).memoryBase).toBe(target);
  });

  it('CLAUDE_COWORK_MEMORY_PATH_OVERRIDE moves the memory when it is an absolute path, from the shell or an env block', async () => {
    const target = path.join(tmp, 'cowork');
    expect(await readEffectiveSettings(home, repo, { ...env, CLAUDE_COWORK_MEMORY_PATH_OVERRIDE: target })).toMatchObject({
      autoMemoryDirectory: target,
      autoMemoryDirectorySource: 'env',
    });
    const tilde = await readEffectiveSettings(home, repo, { ...env, CLAUDE_COWORK_MEMORY_PATH_OVERRIDE: '~/cw' });
    expect(tilde.autoMemoryDirectory).toBeNull();
    expect(tilde.ignored[0]).toMatchObject({ key: 'CLAUDE_COWORK_MEMORY_PATH_OVERRIDE' });
    await write(userFile(), { env: { CLAUDE_COWORK_MEMORY_PATH_OVERRIDE: target } });
    expect((await readEffectiveSettings(home, repo, env)).autoMemoryDirectory).toBe(target);
  });

  it("reads the settings of a deleted launch directory as the disk would give them: its own files missing, its repository root's read", async () => {
    await fs.mkdir(path.join(repo, '.git'), { recursive: true });
    await write(localFile(), { autoMemoryEnabled: false });
    await write(userFile(), { autoDreamEnabled: true });
    const gone = path.join(repo, 'deleted', 'sub');
    const outside = path.join(tmp, 'plain', 'gone');
    for (const launch of [
      { launchDir: gone, canonicalRoot: repo },
      { launchDir: outside, canonicalRoot: outside },
    ]) {
      const fromDisk = await read(home, launch, env, { managedDir });
      const known = await read(home, { ...launch, missing: true }, env, { managedDir });
      expect(known, launch.launchDir).toStrictEqual(fromDisk);
    }
    expect(await read(home, { launchDir: gone, canonicalRoot: repo, missing: true }, env, { managedDir })).toMatchObject({
      autoMemoryEnabled: false,
      autoMemoryEnabledFrom: localFile(),
      autoDreamEnabled: true,
    });
  });

  describe('local settings of a session launched in a subdirectory', () => {
    const sub = () => path.join(repo, 'sub');
    const subLocal = () => path.join(sub(), '.claude', 'settings.local.json');
    const launchInSub = (e = env) => read(home, { launchDir: sub(), canonicalRoot: repo }, e, { managedDir });
    beforeEach(async () => {
      await fs.mkdir(path.join(repo, '.git'), { recursive: true });
      await fs.mkdir(path.join(sub(), '.claude'), { recursive: true });
    });

    it("reads the launch directory's own local settings", async () => {
      await write(subLocal(), { autoMemoryEnabled: false });
      expect(await launchInSub()).toMatchObject({
        autoMemoryEnabled: false,
        autoMemoryEnabledSource: 'local',
        autoMemoryEnabledFrom: subLocal(),
        launchDir: sub(),
      });
    });

    it("reads the repository root's local settings too, over the launch directory's", async () => {
      await write(localFile(), { autoMemoryEnabled: false });
      await write(subLocal(), { autoMemoryEnabled: true });
      const s = await launchInSub();
      expect(s).toMatchObject({ autoMemoryEnabled: false, autoMemoryEnabledFrom: localFile() });
      expect(s.files.filter((f) => f.source === 'local').map((f) => f.file)).toEqual([localFile(), subLocal()]);
    });

    it('reads project settings only from the launch directory, never from the repository root', async () => {
      await write(projectFile(), { autoMemoryEnabled: false });
      expect(await launchInSub()).toMatchObject({ autoMemoryEnabled: true, autoMemoryEnabledSource: 'default' });
    });

    it.skipIf(process.getuid?.() !== 0)("keeps to the launch directory when the repository root is someone else's (needs root to chown)", async () => {
      await write(localFile(), { autoMemoryEnabled: false });
      execFileSync('chown', ['nobody', repo, path.join(repo, '.git')]);
      expect((await launchInSub()).autoMemoryEnabled).toBe(true);
    });

    it('keeps to the launch directory when the repository root is the home directory', async () => {
      await write(localFile(), { autoMemoryEnabled: false });
      expect((await launchInSub({ ...env, HOME: repo })).autoMemoryEnabled).toBe(true);
    });
  });
});

describe('validateMemoryDirectory', () => {
  const e = { HOME: '/home/me' };
  it.each([
    ['/', /root/],
    ['/a', /root/],
    ['', /empty/],
    ['~', /home directory/],
    ['~/', /home directory/],
    ['~/.', /home directory/],
    ['~/..', /home directory/],
    ['~/x/../..', /home directory/],
    ['relative/dir', /absolute/],
    ['./x', /absolute/],
    ['//server/share/mem', /UNC/],
    ['\\\\server\\share\\mem', /UNC/],
    ['/tmp/a\0b', /null byte/],
  ])('refuses %j', (raw, reason) => {
    const result = validateMemoryDirectory(raw, e);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(reason);
  });

  it.each([
    ['/var/memory', '/var/memory'],
    ['/var/memory///', '/var/memory'],
    ['/var/./x/../memory', '/var/memory'],
    ['~/mem', '/home/me/mem'],
    ['~/../shared/mem', '/home/shared/mem'],
  ])('accepts %j as %j', (raw, dir) => {
    expect(validateMemoryDirectory(raw, e)).toEqual({ ok: true, dir });
  });
});

describe('settings files Claude Code drops whole (review x5 F1, recorded from 2.1.332)', () => {
  it('drops a file for each schema error the client drops it for, says so in ignored, and keeps the files it keeps', async () => {
    const byName = new Map(SETTINGS_CASES.map((c) => [c.name, c]));
    expect(SETTINGS_REJECTED.cases.map((c) => c.name)).toEqual(SETTINGS_CASES.map((c) => c.name));
    for (const recorded of SETTINGS_REJECTED.cases) {
      const c = byName.get(recorded.name)!;
      await fs.rm(path.join(repo, '.claude'), { recursive: true, force: true });
      await fs.rm(userFile(), { force: true });
      const movedTo = path.join(tmp, 'moved');
      const file = writeCase(c, repo, home, movedTo);
      const s = await readEffectiveSettings(home, repo, env);
      const probeInEffect = c.probe === 'off' ? !s.autoMemoryEnabled : s.autoMemoryDirectory !== null;
      expect(probeInEffect, c.name).toBe(recorded.loaded);
      const dropped = s.ignored.find((i) => i.file === file && i.reason.startsWith('Claude Code 2.1.332 does not load this file at all'));
      expect(dropped?.key ?? null, c.name).toBe(recorded.loaded ? null : recorded.at);
      if (dropped) expect(s.problems).toContainEqual({ file, message: dropped.reason });
    }
  });

  it('says why in a sentence that names the setting and the way to fix the old hook format', async () => {
    await write(userFile(), { autoMemoryEnabled: false, hooks: { PreToolUse: [{ matcher: 'Bash', command: 'echo hi' }] } });
    const s = await readEffectiveSettings(home, repo, env);
    expect(s.autoMemoryEnabled).toBe(true);
    expect(s.ignored).toEqual([
      {
        file: userFile(),
        key: 'hooks.PreToolUse.0',
        reason:
          'Claude Code 2.1.332 does not load this file at all: hooks.PreToolUse[0] is in the old hook format ({"matcher", "command"}); it is now {"matcher": …, "hooks": [{"type": "command", "command": …}]}. It drops a settings file with any such error whole, so none of its settings applies (its env block neither).',
      },
    ]);
  });
});
