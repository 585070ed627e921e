import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemory, deleteMemory } from '../memdir/memory-service.js';
import { makeRoom } from './make-room.js';
import { projectTimeline } from './timeline.js';

let root: string;
let memoryDir: string;
beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-timeline-'));
  memoryDir = path.join(root, 'memory');
  await fs.mkdir(memoryDir);
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

describe('projectTimeline', () => {
  it('gives the number of memories and the size of MEMORY.md after each change, oldest first', async () => {
    const where = { memoryDir, scope: 'private' as const, dataDir: path.join(root, 'data') };
    for (let i = 0; i < 3; i++)
      await createMemory(where, { fields: { name: `Feed ${i}`, description: `feed ${i} arrives hourly`, type: 'project' }, body: '' });
    await deleteMemory(where, 'project_feed_1.md');
    await makeRoom(where, { baseText: await fs.readFile(path.join(memoryDir, 'MEMORY.md'), 'utf8'), actions: [{ kind: 'shorten', line: 1, hook: 'feed 0' }] });
    const points = await projectTimeline(memoryDir, { memories: 2, teamMemories: 0 }, { dataDir: where.dataDir });
    expect(points.map((p) => [p.summary.split(' ')[0], p.memories, p.indexLines])).toEqual([
      ['Create', 1, 1],
      ['Create', 2, 2],
      ['Create', 3, 3],
      ['Delete', 2, 2],
      ['Make', 2, 2],
    ]);
    expect(points.at(-1)!.indexChars).toBeLessThan(points.at(-2)!.indexChars!);
    expect(points.every((p) => p.indexCut === false)).toBe(true);
  });
});
