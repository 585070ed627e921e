// `memdir restore … --as NAME`: the sentence names the file written, not only the one restored from.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { CliIo } from '../command.js';
import { runCli } from '../main.js';

let root: string;
let home: string;
let memory: string;

beforeEach(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-restore-as-')));
  home = path.join(root, 'home');
  memory = path.join(home, 'projects', '-work-app', 'memory');
  await fs.mkdir(memory, { recursive: true });
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

async function memdir(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = { out: (t) => (out += t), err: (t) => (err += t), env: { MEMDIR_DATA_DIR: path.join(root, 'data'), HOME: root }, cwd: root };
  const code = await runCli(args, io);
  return { code, out, err };
}

it('restore --as says where the old version went; the file it came from is left as it is', async () => {
  const topic = (body: string) => `---\nname: Deploys\ndescription: when we ship\ntype: project\n---\n\n${body}\n`;
  await fs.writeFile(path.join(memory, 'MEMORY.md'), '- [Deploys](project_deploys.md) — when we ship\n');
  await fs.writeFile(path.join(memory, 'project_deploys.md'), topic('No deploys on Fridays.'));
  const first = JSON.parse((await memdir(['history', '-work-app', '--home', home, '--json'])).out);
  const rev = ((first.entries ?? first) as { rev: string }[])[0]!.rev;
  await fs.writeFile(path.join(memory, 'project_deploys.md'), topic('Deploys any day but Sunday.'));
  await memdir(['history', '-work-app', '--home', home]);

  const r = await memdir(['restore', '-work-app', rev, 'project_deploys.md', '--as', 'project_deploys_old.md', '--home', home]);
  expect(r.code).toBe(0);
  expect(r.out).toMatch(/^Restored project_deploys\.md as project_deploys_old\.md to /);
  expect(await fs.readFile(path.join(memory, 'project_deploys_old.md'), 'utf8')).toContain('No deploys on Fridays.');
  expect(await fs.readFile(path.join(memory, 'project_deploys.md'), 'utf8')).toContain('Deploys any day but Sunday.');
});
