// Review x4 F1: the merged text the app's Save merge sends (identity.resolve → resolveMergeConflict)
// is refused as team and personal resolve refuse it — a conflict marker named by line, a binary or
// non-Unicode text, more than a memory may hold — and nothing is written.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sanitizeDirName } from '../../shared/sanitize.js';
import { conflictSides, relink, resolveMergeConflict } from './index.js';
import { movedWithOneConflict } from './test-support/moved-project.js';

let tmp: string;
beforeEach(async () => {
  tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-resolve-text-')));
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

describe('a merged text is checked by one rule, wherever it is saved', () => {
  it('refuses markers, binary, lone surrogates and over 1 MB with a sentence; the memory and the conflict stay', async () => {
    const home = path.join(tmp, 'home');
    const dataDir = path.join(tmp, 'data');
    const { oldPath, newPath, newMemory } = await movedWithOneConflict(home, tmp);
    const record = await relink({ home, dataDir }, sanitizeDirName(oldPath), newPath);
    const before = await fs.readFile(path.join(newMemory, 'feedback_sql.md'), 'utf8');
    const save = (text: string) => resolveMergeConflict(dataDir, record.id, 0, 'merged', text);

    const { both } = await conflictSides(dataDir, record.id, 0);
    await expect(save(`${both}<<<<<<< here\nby hand\n=======\nORM\n>>>>>>> moved\n`)).rejects.toThrow(
      /^The merged text of feedback_sql\.md still holds a conflict marker on line \d+ \("<<<<<<< here"\); nothing was written\./,
    );
    await expect(save(`${both}\0\x01\x02`)).rejects.toThrow(
      'The merged text of feedback_sql.md is binary (it holds a NUL character), not text; nothing was written.',
    );
    await expect(save(`${both}half a pair \ud800 here\n`)).rejects.toThrow(
      'The merged text of feedback_sql.md holds a character that is not valid Unicode (half of a surrogate pair) on line',
    );
    await expect(save('x'.repeat(1_200_000))).rejects.toThrow('This memory is 1.2 MB; a memory can be at most 1 MB; nothing was written.');
    expect(await fs.readFile(path.join(newMemory, 'feedback_sql.md'), 'utf8')).toBe(before);
    expect((await conflictSides(dataDir, record.id, 0)).record.conflicts[0]!.status).toBe('open');
    // A clean merge is still written.
    await save(`${both}\nMerged by hand.\n`);
    expect(await fs.readFile(path.join(newMemory, 'feedback_sql.md'), 'utf8')).toBe(`${both}\nMerged by hand.\n`);
  });
});
