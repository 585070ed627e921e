import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hookCommand, installedMemdirCommand } from './hook-command.js';
import { memdirHookEventOf } from './claude-settings-hooks.js';

let root: string;
beforeEach(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-hook-command-')));
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

/** An installed app's layout: `<resources>/app.asar(.unpacked)/out/cli/memdir.js` and `<resources>/bin/memdir`. */
async function installedApp(resources: string): Promise<{ cli: string; script: string }> {
  const cli = path.join(resources, 'app.asar.unpacked', 'out', 'cli', 'memdir.js');
  const script = path.join(resources, 'bin', 'memdir');
  await fs.mkdir(path.dirname(cli), { recursive: true });
  await fs.mkdir(path.dirname(script), { recursive: true });
  await fs.writeFile(cli, '');
  await fs.writeFile(script, '#!/bin/sh\n', { mode: 0o755 });
  return { cli, script };
}

describe('the hook command of an installed app', () => {
  it('runs the memdir script shipped beside the app, whichever path the CLI was reached by', async () => {
    const { cli, script } = await installedApp(path.join(root, 'Memdir App', 'resources'));
    expect(installedMemdirCommand(cli)).toBe(script);
    expect(installedMemdirCommand(cli.replace('app.asar.unpacked', 'app.asar'))).toBe(script);
    const command = hookCommand('Stop', { dataDir: path.join(root, 'data'), cliEntry: cli, execPath: '/opt/Memdir/memdir', electron: true, platform: 'linux' });
    expect(command).toBe(`'${script}' hook Stop --data-dir ${path.join(root, 'data')}`);
    expect(memdirHookEventOf(command)).toBe('Stop');
    expect(hookCommand('SessionEnd', { dataDir: 'C:\\data', cliEntry: cli, platform: 'win32' })).toMatch(/^".*\\?bin[\\/]memdir" hook SessionEnd --data-dir "/);
  });

  it('is the checkout’s node and CLI when there is no installed app', async () => {
    const cli = path.join(root, 'checkout', 'out', 'cli', 'memdir.js');
    expect(installedMemdirCommand(cli)).toBeNull();
    // An app.asar folder without the script is not an installed app either.
    const bare = path.join(root, 'x', 'app.asar', 'out', 'cli', 'memdir.js');
    expect(installedMemdirCommand(bare)).toBeNull();
    expect(hookCommand('Stop', { dataDir: '/d', cliEntry: cli, execPath: '/usr/bin/node', electron: false, platform: 'linux' })).toBe(
      `/usr/bin/node ${cli} hook Stop --data-dir /d`,
    );
  });
});
