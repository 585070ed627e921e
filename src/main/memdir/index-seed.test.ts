// R-INDEX: a Memdir write that creates MEMORY.md where Claude Code 2.1.332 would have built one
// (memories, no MEMORY.md) first writes what Claude Code would have built from the memories there
// (shared/index-build.ts), then its own pointer: the other memories stay listed for the agent.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { buildIndexLikeClaudeCode } from '../../shared/index-build.js';
import { deletedFiles, listHistory } from '../history/history.js';
import { createMemory, deleteMemory, type Where } from './memory-service.js';
import { scanMemoryDir } from './scan-dir.js';
import { restoreMemoryFile, undoChange } from './undo-change.js';

let root: string;
let where: Where;
const memoryDir = () => where.memoryDir;
const read = (rel: string) => fs.readFile(path.join(memoryDir(), rel), 'utf8');

beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-index-seed-'));
  where = { memoryDir: path.join(root, 'memory'), scope: 'private', dataDir: path.join(root, 'data') };
  await fs.mkdir(memoryDir());
  for (const [file, hook, at] of [
    ['feedback_sql.md', 'we write SQL, no ORM', 1_767_225_600],
    ['deploy.md', 'deploys go through the staging cluster first', 1_767_225_660],
  ] as const) {
    await fs.writeFile(path.join(memoryDir(), file), `---\nname: ${file}\ndescription: ${hook}\ntype: project\n---\nBody.\n`);
    await fs.utimes(path.join(memoryDir(), file), at, at);
  }
});
afterEach(() => fs.rm(root, { recursive: true, force: true }));

const built = '- [deploy](deploy.md) — deploys go through the staging cluster first\n- [feedback_sql](feedback_sql.md) — we write SQL, no ORM\n';
const mine = '- [Friday freeze](project_friday_freeze.md) — no deploys on Fridays\n';
const create = () =>
  createMemory(where, { fields: { name: 'Friday freeze', description: 'no deploys on Fridays', type: 'project' }, body: 'Because.\n', source: 'manual' });

it('saving a memory writes the index Claude Code would have built, then its pointer: every memory stays listed', async () => {
  // What Claude Code would write at session start, before the save (the recorded rule).
  expect(
    buildIndexLikeClaudeCode([
      { file: 'deploy.md', description: 'deploys go through the staging cluster first' },
      { file: 'feedback_sql.md', description: 'we write SQL, no ORM' },
    ]).text,
  ).toBe(built);
  const { entry } = await create();
  expect(await read('MEMORY.md')).toBe(built + mine);
  const scan = scanMemoryDir(memoryDir(), { scope: 'private' });
  expect(scan.problems.filter((p) => p.code === 'orphan')).toEqual([]);
  expect(entry!.summary).toBe('Create project_friday_freeze.md; MEMORY.md written with the 2 pointers Claude Code would have built');
  expect((await listHistory(memoryDir(), { dataDir: where.dataDir! }))[0]!.summary).toBe(entry!.summary);
});

it('one history entry: its undo leaves the folder with no MEMORY.md again', async () => {
  const { entry } = await create();
  const before = (await listHistory(memoryDir(), { dataDir: where.dataDir! })).length;
  await undoChange({ memoryDir: memoryDir(), dataDir: where.dataDir!, rev: entry!.rev });
  await expect(fs.lstat(path.join(memoryDir(), 'MEMORY.md'))).rejects.toThrow();
  await expect(fs.lstat(path.join(memoryDir(), 'project_friday_freeze.md'))).rejects.toThrow();
  expect((await listHistory(memoryDir(), { dataDir: where.dataDir! })).length).toBe(before + 1);
});

it('an empty or blank MEMORY.md is kept as Claude Code keeps it: only the pointer is added', async () => {
  for (const kept of ['', '  \n\n']) {
    await fs.writeFile(path.join(memoryDir(), 'MEMORY.md'), kept);
    await fs.rm(path.join(memoryDir(), 'project_friday_freeze.md'), { force: true });
    const { entry } = await create();
    expect(await read('MEMORY.md')).not.toContain('deploy.md');
    expect(await read('MEMORY.md')).toContain('project_friday_freeze.md');
    expect(entry!.summary).toBe('Create project_friday_freeze.md');
  }
});

it('a folder with no other memory gets just the pointer, and no note', async () => {
  await fs.rm(path.join(memoryDir(), 'deploy.md'));
  await fs.rm(path.join(memoryDir(), 'feedback_sql.md'));
  const { entry } = await create();
  expect(await read('MEMORY.md')).toBe(mine);
  expect(entry!.summary).toBe('Create project_friday_freeze.md');
});

it('restoring a deleted memory where there is no MEMORY.md writes the index Claude Code would have built, then its pointer', async () => {
  await createMemory(where, {
    fields: { name: 'Gone', description: 'a memory deleted and brought back', type: 'project' },
    body: 'Back.\n',
    file: 'gone.md',
    noPointer: true,
  });
  await deleteMemory(where, 'gone.md');
  await expect(fs.lstat(path.join(memoryDir(), 'MEMORY.md'))).rejects.toThrow();
  const [gone] = await deletedFiles(memoryDir(), { dataDir: where.dataDir! });
  const restored = await restoreMemoryFile({ memoryDir: memoryDir(), dataDir: where.dataDir!, rev: gone!.rev, file: gone!.path });
  expect(await read('MEMORY.md')).toBe(`${built}- [Gone](gone.md) — a memory deleted and brought back\n`);
  expect(restored.entry!.summary).toMatch(/^Restored gone\.md as it was after .*; MEMORY\.md written with the 2 pointers Claude Code would have built$/);
  await undoChange({ memoryDir: memoryDir(), dataDir: where.dataDir!, rev: restored.entry!.rev });
  await expect(fs.lstat(path.join(memoryDir(), 'MEMORY.md'))).rejects.toThrow();
  await expect(fs.lstat(path.join(memoryDir(), 'gone.md'))).rejects.toThrow();
});
