/**
 * `memdir undo` when the disk holding Memdir's data folder is too full to record it: the CLI says
 * so in a sentence (never git's "couldn't write '…/main.lock'"), the memory folder is as it was —
 * not undone on disk while the command said it failed — and the same undo works once there is room.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './main.js';
import { mountSmallDisk, smallDiskUnavailable, type SmallDisk } from '../main/core/test-support/small-disk.js';

let root: string;
let dataDisk: SmallDisk;
let home: string;
let mem: string;

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const env = { MEMDIR_DATA_DIR: path.join(dataDisk.dir, 'data'), CLAUDE_CONFIG_DIR: home };
  const code = await runCli(argv, { out: (t) => (out += t), err: (t) => (err += t), env, cwd: root });
  return { code, out, err };
}

async function folder(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of (await fs.readdir(mem)).sort()) out[name] = await fs.readFile(path.join(mem, name), 'utf8');
  return out;
}

describe.skipIf(smallDiskUnavailable !== null)(`memdir undo when the disk says no${smallDiskUnavailable ? ` (skipped: ${smallDiskUnavailable})` : ''}`, () => {
  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(await fs.realpath(os.tmpdir()), 'memdir-cli-disk-'));
    dataDisk = mountSmallDisk(path.join(root, 'data-disk'), 4 * 1024 * 1024);
    home = path.join(root, 'claude');
    mem = path.join(home, 'projects', '-work-p', 'memory');
    await fs.mkdir(mem, { recursive: true });
    await fs.writeFile(path.join(mem, 'MEMORY.md'), '- [A](a.md) — a\n- [B](b.md) — b\n');
    for (const n of ['a', 'b']) await fs.writeFile(path.join(mem, `${n}.md`), `---\nname: ${n}\ndescription: ${n}\ntype: user\n---\n\nbody ${n}\n`);
  });
  afterAll(async () => {
    dataDisk?.unmount();
    await fs.rm(root, { recursive: true, force: true });
  });

  it('says the data folder is full, leaves the memory folder as it was, and undoes once there is room', async () => {
    expect((await run('history', '-work-p')).code).toBe(0);
    await fs.rm(path.join(mem, 'b.md'));
    await fs.writeFile(path.join(mem, 'a.md'), `---\nname: a\ndescription: a\ntype: user\n---\n\n${'changed '.repeat(2000)}\n`);
    const listed = JSON.parse((await run('history', '-work-p', '--json')).out) as { entries: { rev: string }[] };
    const rev = listed.entries[0]!.rev;
    const before = await folder();

    dataDisk.leaveFree(8 * 1024);
    const refused = await run('undo', '-work-p', rev);
    expect(refused.code).not.toBe(0);
    expect(refused.err).toMatch(/full — free some space and try again/);
    expect(refused.err).not.toMatch(/git |couldn't write|\.lock|ENOSPC|Something went wrong/);
    expect(await folder()).toEqual(before);

    dataDisk.free();
    const undone = await run('undo', '-work-p', rev);
    expect(undone.code).toBe(0);
    expect(Object.keys(await folder())).toEqual(['MEMORY.md', 'a.md', 'b.md']);
  });
});
