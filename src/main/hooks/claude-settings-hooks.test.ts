import fs from 'node:fs/promises';
import { diffChars } from 'diff';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SettingsFileError } from '../settings/claude-settings-file.js';
import {
  type HookCommandOptions,
  applyHooksChange,
  hookCommand,
  installedHookCommand,
  memdirHookEventOf,
  planHooksChange,
  readHooksStatus,
} from './claude-settings-hooks.js';

let root: string;
let home: string;
let options: HookCommandOptions;
const settingsFile = () => path.join(home, 'settings.json');
const read = () => fs.readFile(settingsFile(), 'utf8');
const json = async () =>
  JSON.parse(await read()) as { hooks?: Record<string, { matcher?: string; hooks: { command: string; async?: boolean; timeout?: number }[] }[]> } & Record<
    string,
    unknown
  >;

beforeEach(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-hooks-settings-')));
  home = path.join(root, 'claude home');
  await fs.mkdir(home);
  const cliEntry = path.join(root, 'app', 'out', 'cli', 'memdir.js');
  await fs.mkdir(path.dirname(cliEntry), { recursive: true });
  await fs.writeFile(cliEntry, '');
  options = { dataDir: path.join(root, 'data'), execPath: '/usr/bin/node', cliEntry, electron: false, platform: 'linux' };
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

async function connect(with_: HookCommandOptions = options): Promise<void> {
  const plan = await planHooksChange(home, 'connect', with_);
  await applyHooksChange(home, 'connect', plan.baseHash, with_);
}
async function disconnect(): Promise<void> {
  const plan = await planHooksChange(home, 'disconnect', options);
  await applyHooksChange(home, 'disconnect', plan.baseHash, options);
}

const EXISTING = `{
  "model": "opus",
  "permissions": {
    "allow": [
      "Bash(npm test)"
    ]
  },
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "notify-send done"
          }
        ]
      }
    ],
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "./check.sh"
          }
        ]
      }
    ]
  },
  "autoMemoryEnabled": true
}
`;

describe('the hook command', () => {
  it("uses absolute paths, quotes what needs it, and is recognised as Memdir's", () => {
    const command = hookCommand('Stop', options);
    expect(command).toBe(`/usr/bin/node ${options.cliEntry} hook Stop --data-dir ${options.dataDir}`);
    expect(hookCommand('Stop', { ...options, dataDir: '/a b/data' })).toMatch(/ --data-dir '\/a b\/data'$/);
    expect(memdirHookEventOf(command)).toBe('Stop');
    expect(memdirHookEventOf(hookCommand('PreCompact', { ...options, cliEntry: "/a b/it's/memdir.js" }))).toBe('PreCompact');
    expect(hookCommand('Stop', { ...options, electron: true })).toMatch(/^ELECTRON_RUN_AS_NODE=1 /);
    expect(hookCommand('Stop', { ...options, platform: 'win32', execPath: 'C:\\node.exe' })).toMatch(/^"C:\\node\.exe" ".*memdir\.js" hook Stop --data-dir "/);
    expect(memdirHookEventOf('memdir hook SessionEnd')).toBe('SessionEnd');
    expect(memdirHookEventOf('notify-send done')).toBeNull();
    expect(memdirHookEventOf('memdir hooked Stop')).toBeNull();
  });
});

/** Hand-formatted settings files, as people keep them. */
const HAND_FORMATTED: Record<string, string> = {
  'inline arrays':
    '{\n  "permissions": {"allow": ["Bash(npm test)", "Read"], "deny": []},\n  "hooks": {\n    "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]\n  }\n}\n',
  'an empty hooks object': '{\n  "model": "opus",\n  "hooks": {}\n}\n',
  'empty event lists':
    '{\n  "hooks": {\n    "Stop": [],\n    "PreCompact": [],\n    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./check.sh"}]}]\n  }\n}\n',
  'tabs and CRLF': '{\r\n\t"model": "opus",\r\n\t"env": {\r\n\t\t"FOO": "1"\r\n\t}\r\n}\r\n',
  'one line': '{"model":"opus","hooks":{"PreToolUse":[]}}',
  'comments and trailing commas':
    '{\n  // mine\n  "model": "opus", /* big */\n  "hooks": {\n    "Stop": [\n      {"hooks": [{"type": "command", "command": "say done"}]}, // ping me\n    ],\n  },\n}\n',
  'four-space indent, no final newline':
    '{\n    "model": "opus",\n    "statusLine": {\n        "type": "command",\n        "command": "~/bin/status"\n    }\n}',
};

describe('hand-formatted settings.json (issue 13, item 7)', () => {
  for (const [shape, text] of Object.entries(HAND_FORMATTED)) {
    it(`connect then disconnect leaves it byte-identical: ${shape}`, async () => {
      await fs.writeFile(settingsFile(), text);
      await connect();
      const connected = await read();
      // Only additions: no byte of the original is removed or changed.
      expect(
        diffChars(text, connected).filter((part) => part.removed),
        connected,
      ).toEqual([]);
      expect(await readHooksStatus(home, options)).toMatchObject({ connected: 'all' });
      await disconnect();
      expect(await read()).toBe(text);
    });
  }

  it('keeps what the user changed meanwhile, and still takes out exactly its own entries', async () => {
    await fs.writeFile(settingsFile(), HAND_FORMATTED['an empty hooks object']!);
    await connect();
    await fs.writeFile(settingsFile(), (await read()).replace('"model": "opus"', '"model": "sonnet"'));
    await disconnect();
    expect(await read()).toBe('{\n  "model": "sonnet",\n  "hooks": {}\n}\n');
  });
});

describe('connect and disconnect', () => {
  it('merges with existing hooks and keys, shows a diff first, and writes a backup', async () => {
    await fs.writeFile(settingsFile(), EXISTING);
    const plan = await planHooksChange(home, 'connect', options);
    expect(plan).toMatchObject({ changed: true, problems: [], warnings: [] });
    expect(plan.diff).toMatch(/^diff --git a\/settings\.json b\/settings\.json\n--- a\/settings\.json\n\+\+\+ b\/settings\.json\n@@/);
    expect(plan.diff).toContain('+            "command": "/usr/bin/node');
    expect(plan.diff).toContain('# memdir hook Stop');
    // Nothing is written by planning.
    expect(await read()).toBe(EXISTING);

    const result = await applyHooksChange(home, 'connect', plan.baseHash, options);
    expect(result.backup).toBe(`${settingsFile()}.memdir-backup`);
    expect(await fs.readFile(result.backup!, 'utf8')).toBe(EXISTING);
    const after = await json();
    expect(after.model).toBe('opus');
    expect(after.permissions).toEqual({ allow: ['Bash(npm test)'] });
    expect(after.autoMemoryEnabled).toBe(true);
    expect(Object.keys(after)).toEqual(['model', 'permissions', 'hooks', 'autoMemoryEnabled']);
    expect(after.hooks!.PreToolUse).toEqual([{ matcher: 'Bash', hooks: [{ type: 'command', command: './check.sh' }] }]);
    expect(after.hooks!.Stop!.map((g) => g.hooks.map((h) => h.command))).toEqual([['notify-send done'], [installedHookCommand('Stop', options)]]);
    // Synchronous: Claude Code waits the few milliseconds the shell needs (an exiting claude -p SIGTERMs async hooks).
    expect(after.hooks!.Stop![1]!.hooks[0]).toEqual({ type: 'command', command: installedHookCommand('Stop', options), timeout: 10 });
    expect(after.hooks!.PreCompact).toEqual([{ matcher: '', hooks: [expect.objectContaining({ command: installedHookCommand('PreCompact', options) })] }]);
    expect(after.hooks!.SessionEnd![0]!.hooks[0]!.command).toBe(installedHookCommand('SessionEnd', options));
    // SessionStart is waited for (its answer is the note), after a compaction or a resume only.
    expect(after.hooks!.SessionStart).toEqual([
      { matcher: 'compact|resume', hooks: [{ type: 'command', command: hookCommand('SessionStart', options), timeout: 10 }] },
    ]);
    expect(await readHooksStatus(home, options)).toMatchObject({ connected: 'all', problems: [] });
  });

  it('spools with a shell command on Linux and macOS, and with memdir hook on Windows', () => {
    expect(installedHookCommand('Stop', options)).toMatch(/^trap '' TERM HUP; .*hook-spool.*; exit 0 # memdir hook Stop$/);
    expect(installedHookCommand('SessionStart', options)).toBe(hookCommand('SessionStart', options));
    expect(installedHookCommand('Stop', { ...options, platform: 'win32', execPath: 'C:\\node.exe' })).toBe(
      hookCommand('Stop', { ...options, platform: 'win32', execPath: 'C:\\node.exe' }),
    );
    for (const event of ['Stop', 'PreCompact', 'SessionEnd', 'SessionStart'] as const)
      expect(memdirHookEventOf(installedHookCommand(event, options))).toBe(event);
  });

  it('warns that Claude Code ignores a settings.json with comments, and still edits it byte for byte', async () => {
    await fs.writeFile(settingsFile(), '{\n  // personal\n  "model": "opus"\n}\n');
    const plan = await planHooksChange(home, 'connect', options);
    expect(plan.warnings).toEqual([expect.stringContaining('ignores this whole file')]);
    expect(plan.changed).toBe(true);
    expect((await readHooksStatus(home, options)).problems).toEqual([expect.stringContaining('ignores this whole file')]);
  });

  it('is idempotent, and disconnecting restores the file exactly', async () => {
    await fs.writeFile(settingsFile(), EXISTING);
    await connect();
    const connected = await read();
    const again = await planHooksChange(home, 'connect', options);
    expect(again).toMatchObject({ changed: false, diff: '' });
    await applyHooksChange(home, 'connect', again.baseHash, options);
    expect(await read()).toBe(connected);
    await disconnect();
    expect(await read()).toBe(EXISTING);
    expect(await readHooksStatus(home, options)).toMatchObject({ connected: 'none' });
    expect(await planHooksChange(home, 'disconnect', options)).toMatchObject({ changed: false });
  });

  it('creates settings.json when there is none, and removes only what it added', async () => {
    await connect();
    expect(Object.keys((await json()).hooks!)).toEqual(['Stop', 'PreCompact', 'SessionEnd', 'SessionStart']);
    await disconnect();
    expect(await read()).toBe('{}\n');
  });

  it('updates a stale command from a moved install in place, and drops duplicates', async () => {
    const old = { type: 'command', command: '/old/node /old/out/cli/memdir.js hook Stop', timeout: 5 };
    await fs.writeFile(
      settingsFile(),
      JSON.stringify({ hooks: { Stop: [{ hooks: [old, { type: 'command', command: 'say hi' }] }, { hooks: [{ ...old }] }] } }, null, 2),
    );
    expect(await readHooksStatus(home, options)).toMatchObject({ connected: 'partial', problems: [expect.stringContaining('older command')] });
    await connect();
    const stop = (await json()).hooks!.Stop!;
    expect(stop).toHaveLength(1);
    expect(stop[0]!.hooks.map((h) => h.command)).toEqual([installedHookCommand('Stop', options), 'say hi']);
    expect(stop[0]!.hooks[0]).toEqual({ type: 'command', command: installedHookCommand('Stop', options), timeout: 10 });
    expect(await readHooksStatus(home, options)).toMatchObject({ connected: 'all', problems: [] });
  });

  it('makes an async spooling hook of an older install synchronous, and calls it out of date until then', async () => {
    const stale = { type: 'command', command: installedHookCommand('Stop', options), timeout: 10, async: true };
    await fs.writeFile(settingsFile(), JSON.stringify({ hooks: { Stop: [{ hooks: [stale] }] } }, null, 2));
    expect((await readHooksStatus(home, options)).events.find((e) => e.event === 'Stop')).toMatchObject({ current: false });
    await connect();
    expect((await json()).hooks!.Stop![0]!.hooks[0]).toEqual({ type: 'command', command: installedHookCommand('Stop', options), timeout: 10 });
    expect(await readHooksStatus(home, options)).toMatchObject({ connected: 'all', problems: [] });
    // On Windows the hook is memdir hook under Node: slow to start, so it stays async.
    const win = { ...options, platform: 'win32' as const, execPath: 'C:\\node.exe' };
    await connect(win);
    expect((await json()).hooks!.Stop![0]!.hooks[0]).toMatchObject({ command: installedHookCommand('Stop', win), async: true });
  });

  it('writes with the indentation and line endings it finds', async () => {
    const tabbed = '{\r\n\t"model": "opus"\r\n}\r\n';
    await fs.writeFile(settingsFile(), tabbed);
    await connect();
    expect(await read()).toMatch(/^\{\r\n\t"model": "opus",\r\n\t"hooks": \{\r\n\t\t"Stop": \[\r\n\t\t\t\{\r\n/);
    expect(await read()).not.toMatch(/[^\r]\n/);
    await disconnect();
    expect(await read()).toBe(tabbed);
  });

  it('never writes a file it cannot read, or hooks of an unexpected shape', async () => {
    for (const text of ['{"model": "opus",', '[1, 2]', '{"hooks": []}', '{"hooks": {"Stop": {"command": "x"}}}']) {
      await fs.writeFile(settingsFile(), text);
      const plan = await planHooksChange(home, 'connect', options);
      expect(plan.problems, text).toHaveLength(1);
      await expect(applyHooksChange(home, 'connect', plan.baseHash, options)).rejects.toBeInstanceOf(SettingsFileError);
      expect(await read()).toBe(text);
    }
  });

  it('refuses to apply when the file changed since the diff was shown', async () => {
    await fs.writeFile(settingsFile(), '{}');
    const plan = await planHooksChange(home, 'connect', options);
    await fs.writeFile(settingsFile(), '{"model": "sonnet"}');
    await expect(applyHooksChange(home, 'connect', plan.baseHash, options)).rejects.toMatchObject({ code: 'conflict' });
    expect(await read()).toBe('{"model": "sonnet"}');
  });

  it('writes through a symlinked settings.json (dotfiles) and keeps its mode', async () => {
    const target = path.join(root, 'dotfiles', 'claude-settings.json');
    await fs.mkdir(path.dirname(target));
    await fs.writeFile(target, '{}\n', { mode: 0o640 });
    await fs.symlink(target, settingsFile());
    await connect();
    expect((await fs.lstat(settingsFile())).isSymbolicLink()).toBe(true);
    expect(JSON.parse(await fs.readFile(target, 'utf8')).hooks.Stop).toHaveLength(1);
    expect((await fs.stat(target)).mode & 0o777).toBe(0o640);
  });

  it('reports a command that could not run (no CLI entry)', async () => {
    expect((await readHooksStatus(home, { ...options, cliEntry: path.join(root, 'missing.js') })).problems).toEqual([
      expect.stringContaining('does not exist'),
    ]);
  });
});
