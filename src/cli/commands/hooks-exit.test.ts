// `memdir hooks status` tells a script by its exit what it found (EXIT_CODES_HELP: 1 problems found):
// a settings.json it cannot read is a problem to fix, never a plain "not connected" with exit 0.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CliIo } from '../command.js';
import { runCli } from '../main.js';

let root: string;
beforeEach(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-hooks-exit-')));
  await fs.mkdir(path.join(root, 'home'), { recursive: true });
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

async function memdir(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = { out: (t) => (out += t), err: (t) => (err += t), env: { MEMDIR_DATA_DIR: path.join(root, 'data'), HOME: root }, cwd: root };
  return { code: await runCli([...args, '--home', path.join(root, 'home')], io), out, err };
}

describe('memdir hooks status: its exit', () => {
  it('1 when settings.json cannot be read (not valid JSON): the problem is printed, in text and JSON alike', async () => {
    await fs.writeFile(path.join(root, 'home', 'settings.json'), '{bad');
    const text = await memdir(['hooks', 'status']);
    expect(text.out).toMatch(/problem: .*settings\.json cannot be changed: it is not valid JSON/);
    expect(text.code).toBe(1);
    const json = await memdir(['hooks', 'status', '--json']);
    expect((JSON.parse(json.out) as { problems: string[] }).problems).toEqual([expect.stringContaining('not valid JSON')]);
    expect(json.code).toBe(1);
  });

  it('the same as its problems say otherwise: 0 exactly when it lists none', async () => {
    await fs.writeFile(path.join(root, 'home', 'settings.json'), '{}\n');
    const run = await memdir(['hooks', 'status', '--json']);
    const { problems } = JSON.parse(run.out) as { problems: string[] };
    expect(run.code).toBe(problems.length > 0 ? 1 : 0);
  });
});
