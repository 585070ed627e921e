// `--home` (and $CLAUDE_CONFIG_DIR) naming a file: every command that reads the home says so, exit 2 —
// never "No live sessions." or an empty answer, as if an empty home had been read (one check: homeFrom).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './main.js';

let root: string;
let file: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-home-file-')));
  file = path.join(root, 'not-a-home');
  await fs.writeFile(file, 'x');
  await fs.mkdir(path.join(root, 'proj'));
  env = { MEMDIR_DATA_DIR: path.join(root, 'data'), CLAUDE_CONFIG_DIR: path.join(root, 'home'), PATH: path.join(root, 'no-claude-here') };
});
afterAll(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

async function cli(argv: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, { out: (t) => (out += t), err: (t) => (err += t), env: { ...env, ...extraEnv }, cwd: root });
  return { code, out, err };
}

const said = () => `${file} is a file, not a folder: give Claude Code's home folder (--home, $CLAUDE_CONFIG_DIR, else ~/.claude).`;

describe('a home that is a file', () => {
  it.each([
    [['scan']],
    [['session', 'status']],
    [['session', 'status', '--json']],
    [['lint', '--project', 'proj']],
    [['agents', '--project', 'proj']],
    [['orphans']],
    [['merge', 'list']],
    [['extract', '--project', 'proj']],
    [['hooks', 'status']],
    [['dream', 'list', '--project', 'proj']],
    [['team', 'status', '--project', 'proj']],
    [['where', 'proj']],
  ])('memdir %j --home <a file> says the home is a file, exit 2', async (argv) => {
    const r = await cli([...argv, '--home', file]);
    expect(r.out).toBe('');
    expect(r.err).toContain(said());
    expect(r.code).toBe(2);
  });

  it('personal status without --project reads no home: it answers of the machine', async () => {
    expect((await cli(['personal', 'status', '--home', file])).code).toBe(0);
  });

  it('$CLAUDE_CONFIG_DIR naming a file is the same', async () => {
    const r = await cli(['session', 'status'], { CLAUDE_CONFIG_DIR: file });
    expect(r.err).toContain(said());
    expect(r.code).toBe(2);
  });
});
