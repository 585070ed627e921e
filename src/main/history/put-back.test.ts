/**
 * A change the disk refuses half-way is taken back (put-back.ts) — only what the change itself
 * wrote: a memory Claude Code saved into the folder while the change ran is not the change's, and
 * stays, to be recorded as Claude Code's.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../core/safe-fs.js';
import { mountSmallDisk, smallDiskUnavailable, type SmallDisk } from '../core/test-support/small-disk.js';
import { listHistory, recordExternalChanges, transact } from './history.js';

let root: string;
let disk: SmallDisk;
let mem: string;
let dataDir: string;
const read = (rel: string) => fs.readFile(path.join(mem, rel), 'utf8');

describe.skipIf(smallDiskUnavailable !== null)(
  `putting back a change the disk refused${smallDiskUnavailable ? ` (skipped: ${smallDiskUnavailable})` : ''}`,
  () => {
    beforeEach(async () => {
      root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-put-back-')));
      disk = mountSmallDisk(path.join(root, 'small'), 1024 * 1024);
      mem = path.join(disk.dir, 'memory');
      dataDir = path.join(root, 'data');
      await fs.mkdir(mem);
      await fs.writeFile(path.join(mem, 'MEMORY.md'), '- [A](a.md) — a\n');
      await fs.writeFile(path.join(mem, 'a.md'), 'a as it was\n');
      await recordExternalChanges(mem, { dataDir });
    });
    afterEach(async () => {
      disk?.unmount();
      await fs.rm(root, { recursive: true, force: true });
    });

    it('puts back the files the change wrote and leaves the memory Claude Code saved meanwhile', async () => {
      const refused = transact(mem, { source: 'manual', summary: 'Write three', dataDir }, async () => {
        await writeFileAtomic(mem, 'a.md', 'a changed\n');
        await writeFileAtomic(mem, 'b.md', 'b, new\n');
        // Claude Code saves a memory while the change runs; then the disk fills up.
        await fs.writeFile(path.join(mem, 'feedback_claude.md'), 'written by Claude Code\n');
        disk.leaveFree(0);
        await writeFileAtomic(mem, 'big.md', 'x'.repeat(64 * 1024));
      });
      await expect(refused).rejects.toThrow(/full/);
      disk.free();
      expect(await read('a.md')).toBe('a as it was\n');
      await expect(read('b.md')).rejects.toThrow();
      await expect(read('big.md')).rejects.toThrow();
      // Was: removed with the change (put back was everything git saw changed since the last entry).
      expect(await read('feedback_claude.md')).toBe('written by Claude Code\n');
      const entry = await recordExternalChanges(mem, { dataDir });
      expect(entry).toMatchObject({ source: 'external', files: [{ path: 'feedback_claude.md', status: 'added' }] });
      expect((await listHistory(mem, { dataDir })).map((e) => e.summary)).not.toContain('Write three');
    });

    it("a change that keeps a replaced version (keep the team's) and then cannot be recorded leaves the file as it was, never the replaced version", async () => {
      // The memory on a disk with room, its history on the small one (the data folder's disk is full).
      const team = path.join(root, 'team-memory');
      const history = path.join(disk.dir, 'history');
      await fs.mkdir(team);
      await fs.writeFile(path.join(team, 'k.md'), "the team's version\n");
      await recordExternalChanges(team, { dataDir: history });
      const refused = transact(
        team,
        {
          source: 'sync',
          summary: "Resolve the conflict on k.md: kept the team's version",
          dataDir: history,
          replaces: [{ path: 'k.md', content: Buffer.from('my version\n'), summary: 'Your version of k.md' }],
        },
        async () => {
          disk.leaveFree(0);
        },
      );
      await expect(refused).rejects.toThrow(/full|ENOSPC|space/i);
      disk.free();
      // Was: put back to the replaced version (history's newest entry then), so mine went over the team's on disk.
      expect(await fs.readFile(path.join(team, 'k.md'), 'utf8')).toBe("the team's version\n");
    });
  },
);
