import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readEffectiveSettings, validateMemoryDirectory } from './settings.js';

let tmp: string;
let home: string;
let repo: string;
let userHome: string;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-settings-')));
  userHome = path.join(tmp, 'me');
  home = path.join(userHome, '.claude');
  repo = path.join(tmp, 'repo');
  await fs.mkdir(home, { recursive: true });
  await fs.mkdir(path.join(repo, '.claude'), { recursive: true });
  env = { HOME: userHome };
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
  it('defaults to memory on, the default directory and dreams on', async () => {
    expect(await readEffectiveSettings(home, repo, env)).toEqual({
      autoMemoryEnabled: true,
      autoMemoryEnabledSource: 'default',
      autoMemoryDirectory: null,
      autoMemoryDirectorySource: 'default',
      autoDreamEnabled: true,
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
    expect([s.autoMemoryEnabled, s.autoMemoryEnabledSource]).toEqual([true, 'local']);
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
    expect([s.autoMemoryEnabled, s.autoMemoryEnabledSource]).toEqual([false, 'env']);
    expect(s.ignored).toContainEqual({
      file: localFile(),
      key: 'autoMemoryEnabled',
      reason: 'overridden by the environment variable CLAUDE_CODE_DISABLE_AUTO_MEMORY',
    });
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

  it('reports a non-boolean autoMemoryEnabled and uses the next file', async () => {
    await write(localFile(), { autoMemoryEnabled: 'false' });
    await write(userFile(), { autoMemoryEnabled: false });
    const s = await readEffectiveSettings(home, repo, env);
    expect([s.autoMemoryEnabled, s.autoMemoryEnabledSource]).toEqual([false, 'user']);
    expect(s.ignored).toEqual([{ file: localFile(), key: 'autoMemoryEnabled', reason: 'it must be true or false' }]);
  });

  it('reads autoDreamEnabled with the same precedence, default on', async () => {
    await write(userFile(), { autoDreamEnabled: true });
    await write(projectFile(), { autoDreamEnabled: false });
    expect((await readEffectiveSettings(home, repo, env)).autoDreamEnabled).toBe(false);
    await write(localFile(), { autoDreamEnabled: true });
    expect((await readEffectiveSettings(home, repo, env)).autoDreamEnabled).toBe(true);
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
      expect(s.ignored).toEqual([{ file: userFile(), key: 'autoMemoryDirectory', reason: 'overridden by the local settings' }]);
    });

    it('never takes it from the shared project settings, and says so', async () => {
      await write(projectFile(), { autoMemoryDirectory: '~/.ssh' });
      const s = await readEffectiveSettings(home, repo, env);
      expect([s.autoMemoryDirectory, s.autoMemoryDirectorySource]).toEqual([null, 'default']);
      expect(s.ignored).toEqual([
        {
          file: projectFile(),
          key: 'autoMemoryDirectory',
          reason: 'only your own or local settings may move the memory directory, not the shared project settings',
        },
      ]);
    });

    it('keeps a user value when the project settings try to override it', async () => {
      await write(userFile(), { autoMemoryDirectory: path.join(tmp, 'mine') });
      await write(projectFile(), { autoMemoryDirectory: path.join(tmp, 'theirs') });
      const s = await readEffectiveSettings(home, repo, env);
      expect([s.autoMemoryDirectory, s.autoMemoryDirectorySource]).toEqual([path.join(tmp, 'mine'), 'user']);
      expect(s.ignored.map((i) => i.file)).toEqual([projectFile()]);
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

    it('reports a value that is not a string and falls through to the user settings', async () => {
      await write(localFile(), { autoMemoryDirectory: 42 });
      await write(userFile(), { autoMemoryDirectory: path.join(tmp, 'from-user') });
      const s = await readEffectiveSettings(home, repo, env);
      expect(s.autoMemoryDirectory).toBe(path.join(tmp, 'from-user'));
      expect(s.ignored).toEqual([{ file: localFile(), key: 'autoMemoryDirectory', reason: 'it must be a path (a string)' }]);
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
      expect(s.problems[0]!.message).toMatch(/^These settings are not valid JSON \(.+\); none of them is applied\.$/);
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
      expect(s.problems).toEqual([{ file: userFile(), message: 'Cannot read these settings (it is a directory); they are not applied.' }]);
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
