// Session 40 review of `memdir` as a scriptable product: the real `memdir` process, as a script or a
// person at a terminal meets it — a misspelt command or option, `memdir help <command>`, Ctrl-C.
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const MEMDIR = path.join(import.meta.dirname, 'memdir.ts');
let root: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-scripting-')));
  env = { ...process.env, CLAUDE_CONFIG_DIR: path.join(root, 'home'), MEMDIR_DATA_DIR: path.join(root, 'data'), NO_COLOR: '1' };
  delete env.MEMDIR_DEBUG;
});
afterAll(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
  err: string;
}

/** Run the real memdir; `whenStarted` (given the child) may signal it. */
function memdir(args: string[], whenStarted?: (child: ReturnType<typeof spawn>) => void): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', MEMDIR, ...args], {
      env,
      cwd: path.resolve(import.meta.dirname, '../..'),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.once('error', reject);
    child.once('exit', (code, signal) => setImmediate(() => resolve({ code, signal, out, err })));
    whenStarted?.(child);
  });
}

describe('a misspelt command, subcommand or option gets a suggestion, not a dump', () => {
  it.each([
    [['scna'], 'memdir: unknown command "scna": did you mean `memdir scan`? Run `memdir --help` for the list.\n'],
    [['hisotry', 'x'], 'memdir: unknown command "hisotry": did you mean `memdir history`? Run `memdir --help` for the list.\n'],
    [['team', 'sycn'], 'memdir team: unknown subcommand "sycn": did you mean `memdir team sync`? Run `memdir team --help`.\n'],
    [['dream', 'stauts', '--project', 'x'], 'memdir dream: unknown subcommand "stauts": did you mean `memdir dream status`? Run `memdir dream --help`.\n'],
    [['scan', '--jsno'], 'memdir scan: unknown option --jsno: did you mean --json? Run `memdir scan --help`.\n'],
    [['scan', '-j'], 'memdir scan: unknown option -j: did you mean --json? Run `memdir scan --help`.\n'],
    [['lint', '--hoem', 'H'], 'memdir lint: unknown option --hoem: did you mean --home? Run `memdir lint --help`.\n'],
  ])('memdir %j', async (args, err) => {
    const run = await memdir(args);
    expect(run).toMatchObject({ code: 2, out: '', err });
  });

  it('a word near nothing is named with the list to choose from', async () => {
    const run = await memdir(['team', 'frobnicate']);
    expect(run.code).toBe(2);
    expect(run.err).toBe(
      'memdir team: unknown subcommand "frobnicate" (connect, status, sync, conflicts, resolve, retire, disconnect). Run `memdir team --help`.\n',
    );
  });

  it('memdir help <command> prints that command’s help, as <command> --help does', async () => {
    const [help, flag] = await Promise.all([memdir(['help', 'team', 'sync']), memdir(['team', 'sync', '--help'])]);
    expect(help).toMatchObject({ code: 0, err: '' });
    expect(help.out).toContain('Usage: memdir team sync');
    expect(help.out).toBe(flag.out);
  });
});
