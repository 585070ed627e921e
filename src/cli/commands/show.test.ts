import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../main.js';

// `memdir show <project> <file>` reads a memory the way the app opens one (memdir's readMemoryFile):
// a link that stays in the memory directory is read, one leading out of it never is.
let root: string;
let home: string;
let memory: string;

async function run(...argv: string[]) {
  let out = '';
  let err = '';
  const env = { CLAUDE_CONFIG_DIR: home, MEMDIR_DATA_DIR: path.join(root, 'data') };
  const code = await runCli(argv, { out: (t) => (out += t), err: (t) => (err += t), env, cwd: root });
  return { code, out, err };
}

beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-show-'));
  home = path.join(root, 'home');
  memory = path.join(home, 'projects', '-work-app', 'memory');
  await fs.mkdir(memory, { recursive: true });
  await fs.mkdir(path.join(root, 'outside'));
  await fs.writeFile(path.join(root, 'outside', 'secret.md'), 'SECRET-FROM-OUTSIDE\n');
  await fs.symlink(path.join(root, 'outside', 'secret.md'), path.join(memory, 'leak.md'));
  await fs.writeFile(path.join(memory, 'user_role.md'), '---\nname: Role\ndescription: who\ntype: user\n---\nA maintainer.\n');
  await fs.symlink('user_role.md', path.join(memory, 'role-alias.md'));
});
afterAll(() => fs.rm(root, { recursive: true, force: true }));

describe('memdir show <project> <file>', () => {
  it('refuses a link leading outside the memory directory and prints nothing of its target', async () => {
    const shown = await run('show', '-work-app', 'leak.md');
    expect(shown.code).toBe(2);
    expect(shown.out).toBe('');
    expect(shown.err).not.toContain('SECRET-FROM-OUTSIDE');
    expect(shown.err).toContain('leak.md');
    expect(shown.err).toMatch(/outside the memory directory/);
  });

  it('reads a link that stays inside the memory directory, as the app opens it', async () => {
    const shown = await run('show', '-work-app', 'role-alias.md', '--json');
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.out)).toMatchObject({ file: 'role-alias.md', name: 'Role', type: 'user', body: 'A maintainer.\n' });
  });

  it('says a name that is not a memory is not one', async () => {
    const shown = await run('show', '-work-app', 'nope.md');
    expect(shown.code).toBe(2);
    // Never a memory: not said to be gone ("no longer exists" is for a file Memdir's history saw).
    expect(shown.err).toContain('There is no memory named "nope.md" in ');
    expect(shown.err).not.toContain('no longer exists');
  });
});
