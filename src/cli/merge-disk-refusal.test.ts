/**
 * `memdir merge` (a clone merge) and `memdir relink` (a moved project) when the disk says no (a real full tmpfs: the
 * Claude Code home's, or Memdir's data folder's): at every point the disk can run out, the two
 * memory folders are as they were or merged (never between), History holds a merge entry exactly
 * when they were merged, the command says why in a sentence, no temp file is left — and the same
 * command, once there is room, merges.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sanitizeDirName } from '../shared/sanitize.js';
import { mountSmallDisk, smallDiskUnavailable, type SmallDisk } from '../main/core/test-support/small-disk.js';
import { addMemories, addSession, git, makeRepo, topic } from '../main/relink/test-support/moved-project.js';
import { runCli } from './main.js';

let root: string;
let home: string;
const disks: SmallDisk[] = [];

async function memdir(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io = { out: (t: string) => (out += t), err: (t: string) => (err += t), env: { MEMDIR_DATA_DIR: path.join(root, 'data'), HOME: root }, cwd: root };
  const code = await runCli([...args, '--home', home], io);
  return { code, out, err };
}

async function files(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of (await fs.readdir(dir).catch(() => [])).sort()) if (!name.startsWith('.')) out[name] = await fs.readFile(path.join(dir, name), 'utf8');
  return out;
}

async function leftovers(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const e of await fs.readdir(dir, { recursive: true, withFileTypes: true }))
    if (/^(\.memdir-tmp-|tmp_obj_|tmp_idx_|tmp_pack_)|\.lock$/.test(e.name) && !e.parentPath.includes(`${path.sep}locks`))
      found.push(path.join(e.parentPath, e.name));
  return found;
}

beforeEach(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-merge-disk-')));
  home = path.join(root, 'home');
});
afterEach(async () => {
  for (const d of disks.splice(0)) d.unmount();
  await fs.rm(root, { recursive: true, force: true });
});

describe.skipIf(smallDiskUnavailable !== null)(`a merge when the disk says no${smallDiskUnavailable ? ` (skipped: ${smallDiskUnavailable})` : ''}`, () => {
  for (const kind of ['merge', 'relink'] as const)
    for (const which of ['home', 'data'] as const)
      for (const free of which === 'home' ? [0, 8, 16, 24, 32, 40] : [0, 8, 16, 32, 64, 96, 112])
        it(`${kind}, ${which} disk with ${free} KiB free: the folders as they were or merged, and the merge goes through once there is room`, async () => {
          const homeDisk = mountSmallDisk(home, 4 * 1024 * 1024);
          disks.push(homeDisk);
          const dataDisk = mountSmallDisk(path.join(root, 'data'), 4 * 1024 * 1024);
          disks.push(dataDisk);
          const from = path.join(root, 'src', 'shop');
          await makeRepo(from);
          await addSession(home, from);
          const big = randomBytes(4000).toString('hex');
          const fromMemory = await addMemories(home, from, {
            'MEMORY.md': '- [SQL](sql.md) — by hand\n- [Deploy](deploy.md) — staging first\n',
            'sql.md': topic('SQL', 'feedback', `by hand ${big}`),
            'deploy.md': topic('Deploy', 'project', `staging first ${big}`),
          });
          expect((await memdir('history', from)).code).toBe(0);
          const into = path.join(root, 'work', 'shop');
          await fs.mkdir(path.dirname(into), { recursive: true });
          if (kind === 'relink') await fs.rename(from, into);
          else git(root, 'clone', '-q', from, into);
          await addSession(home, into);
          const intoMemory = await addMemories(home, into, { 'mine.md': topic('Mine', 'user', 'mine') });
          expect((await memdir('history', into)).code).toBe(0);
          const apart = { from: await files(fromMemory), into: await files(intoMemory) };
          const entries = async () => (JSON.parse((await memdir('history', into, '--json')).out) as { entries: { source: string; summary: string }[] }).entries;
          const relinkEntries = async () => (await entries()).filter((e) => e.source === 'relink').length;
          /** Steps of the merge written and then put back (the message says both stay in History). */
          const putBack = async () => (await entries()).filter((e) => e.source === 'restore' && /^Put back: (Merged|Relinked) from/.test(e.summary)).length;

          (which === 'home' ? homeDisk : dataDisk).leaveFree(free * 1024);
          const command = () =>
            kind === 'relink'
              ? memdir('relink', sanitizeDirName(from), into, '--yes', '--json')
              : memdir('merge', sanitizeDirName(from), sanitizeDirName(into), '--yes', '--json');
          const first = await command();
          homeDisk.free();
          dataDisk.free();
          const now = { from: await files(fromMemory), into: await files(intoMemory) };
          const merged = first.code === 0;
          if (!merged) {
            expect(first.err).toMatch(/full|no space/i);
            expect(first.err).not.toMatch(/ENOSPC|Something went wrong|git |sha1/);
            // What could not be saved, in words: never the name of one of Memdir's own files (turning.json).
            expect(first.err).not.toMatch(/\.jsonl?\b/);
            // Nothing of it stays: both folders as they were; a step History holds is followed by its put-back.
            expect(now).toEqual(apart);
            expect(await relinkEntries()).toBe(await putBack());
          } else {
            expect(Object.keys(now.into).sort()).toEqual(['MEMORY.md', 'deploy.md', 'mine.md', 'sql.md']);
            expect(await relinkEntries()).toBe(1);
          }
          expect(await leftovers(home)).toEqual([]);
          expect(await leftovers(path.join(root, 'data'))).toEqual([]);

          if (!merged) {
            const again = await command();
            expect(again.code, again.err).toBe(0);
            expect(Object.keys(await files(intoMemory)).sort()).toEqual(['MEMORY.md', 'deploy.md', 'mine.md', 'sql.md']);
            expect(await relinkEntries()).toBe(1 + (await putBack()));
          }
        });
});
