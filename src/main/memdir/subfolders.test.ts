import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listSubfolders } from './subfolders.js';

let tmp: string;
beforeEach(async () => {
  tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-subfolders-')));
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

describe('listSubfolders (the one listing of a folder’s subfolders)', () => {
  it('lists the folders, sorted, and a link to a folder marked as a link; not files, dot-folders, dangling links or names that are not UTF-8', async () => {
    const dir = path.join(tmp, 'agent-memory');
    for (const name of ['zeta', 'alpha', '.hidden', 'Beta']) await fs.mkdir(path.join(dir, name), { recursive: true });
    await fs.writeFile(path.join(dir, 'notes.md'), 'a file\n');
    await fs.mkdir(path.join(tmp, 'elsewhere'));
    await fs.symlink(path.join(tmp, 'elsewhere'), path.join(dir, 'linked'));
    await fs.symlink(path.join(tmp, 'nowhere'), path.join(dir, 'dangling'));
    await fs.symlink(path.join(dir, 'notes.md'), path.join(dir, 'to-a-file'));
    // Latin-1 "café": no path Claude Code writes, and read as text it would name another folder.
    await fs.mkdir(Buffer.concat([Buffer.from(`${dir}/caf`), Buffer.from([0xe9])]));
    expect(listSubfolders(dir)).toEqual([
      { name: 'Beta', link: false },
      { name: 'alpha', link: false },
      { name: 'linked', link: true },
      { name: 'zeta', link: false },
    ]);
  });

  it('gives [] for a folder that is missing, a file, or a link to a file', async () => {
    await fs.writeFile(path.join(tmp, 'file'), 'x');
    await fs.symlink(path.join(tmp, 'file'), path.join(tmp, 'link'));
    expect(listSubfolders(path.join(tmp, 'missing'))).toEqual([]);
    expect(listSubfolders(path.join(tmp, 'file'))).toEqual([]);
    expect(listSubfolders(path.join(tmp, 'link'))).toEqual([]);
  });

  it('skips a link it cannot follow (a loop, a link through a file) instead of failing the whole listing', async () => {
    const dir = path.join(tmp, 'projects');
    await fs.mkdir(path.join(dir, 'kept'), { recursive: true });
    await fs.writeFile(path.join(tmp, 'file'), 'x');
    await fs.symlink(path.join(dir, 'loop'), path.join(dir, 'loop'));
    await fs.symlink(path.join(tmp, 'file', 'below'), path.join(dir, 'through-a-file'));
    expect(listSubfolders(dir)).toEqual([{ name: 'kept', link: false }]);
  });
});
