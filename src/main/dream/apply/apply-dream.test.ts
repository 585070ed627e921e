// R-INDEX: a dream that creates MEMORY.md where Claude Code 2.1.332 would have built one (memories,
// no MEMORY.md) starts its Prune from what Claude Code would have built from the memories it did
// not touch: they stay listed as the client lists them, and the dream's own pointers follow.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { listHistory } from '../../history/history.js';
import { predictBuiltIndex, undoChange } from '../../memdir/index.js';
import { applyDream } from './apply-dream.js';

let root: string;
let memoryDir: string;
let dataDir: string;
const topic = (name: string, description: string, body = 'Body.') => `---\nname: ${name}\ndescription: ${description}\ntype: project\n---\n${body}\n`;

beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-dream-seed-'));
  memoryDir = path.join(root, 'memory');
  dataDir = path.join(root, 'data');
  await fs.mkdir(memoryDir);
  for (const [file, hook, at] of [
    ['sql.md', 'we write SQL, no ORM', 1_767_225_600],
    ['deploy.md', 'deploys go through the staging cluster first', 1_767_225_660],
    ['notes.md', 'release notes are due yesterday', 1_767_225_720],
  ] as const) {
    await fs.writeFile(path.join(memoryDir, file), topic(file.replace(/\.md$/, ''), hook));
    await fs.utimes(path.join(memoryDir, file), at, at);
  }
});
afterEach(() => fs.rm(root, { recursive: true, force: true }));

it('a dream creating MEMORY.md keeps the pointers Claude Code would have built, then its own; one entry, whose undo leaves no MEMORY.md', async () => {
  const built = predictBuiltIndex(memoryDir, { leaveOut: new Set(['notes.md']) })!.text;
  expect(built).toBe('- [deploy](deploy.md) — deploys go through the staging cluster first\n- [sql](sql.md) — we write SQL, no ORM\n');
  const before = topic('notes', 'release notes are due yesterday');
  const after = topic('notes', 'release notes are due on 2026-12-05');
  const result = await applyDream({
    memoryDir,
    dataDir,
    id: 'd1',
    describe: () => 'Dates made absolute.',
    changes: [{ file: 'notes.md', action: 'update', kind: 'dates', reason: 'a relative date', group: null, before, after }],
    index: { retarget: new Map(), stale: new Set(), descriptions: new Map() },
    indexesBefore: new Map([['MEMORY.md', null]]),
  });
  expect(await fs.readFile(path.join(memoryDir, 'MEMORY.md'), 'utf8')).toBe(`${built}- [notes](notes.md) — release notes are due on 2026-12-05\n`);
  expect(result.entry!.summary).toBe('dream d1; MEMORY.md written with the 2 pointers Claude Code would have built');
  const count = (await listHistory(memoryDir, { dataDir })).length;
  await undoChange({ memoryDir, dataDir, rev: result.entry!.rev });
  await expect(fs.lstat(path.join(memoryDir, 'MEMORY.md'))).rejects.toThrow();
  expect(await fs.readFile(path.join(memoryDir, 'notes.md'), 'utf8')).toBe(before);
  expect((await listHistory(memoryDir, { dataDir })).length).toBe(count + 1);
});
