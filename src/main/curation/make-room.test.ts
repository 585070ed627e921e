import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listHistory, restoreFromHistory } from '../history/history.js';
import { scanMemoryDir } from '../memdir/scan-dir.js';
import { makeRoom } from './make-room.js';

let root: string;
let memoryDir: string;
const where = () => ({ memoryDir, scope: 'private' as const, dataDir: path.join(root, 'data') });
const read = (rel: string) => fs.readFile(path.join(memoryDir, rel), 'utf8');
const topic = (name: string, description: string, body: string) => `---\nname: ${name}\ndescription: ${description}\ntype: project\n---\n\n${body}\n`;

beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-room-'));
  memoryDir = path.join(root, 'memory');
  await fs.mkdir(memoryDir);
  // 215 pointers: the last 15 never reach the agent.
  for (let i = 0; i < 215; i++) await fs.writeFile(path.join(memoryDir, `source_${i}.md`), topic(`Source ${i}`, `feed ${i}`, `Feed ${i} arrives hourly.`));
  await fs.writeFile(
    path.join(memoryDir, 'MEMORY.md'),
    `# Sources\n${Array.from({ length: 215 }, (_, i) => `- [Source ${i}](source_${i}.md) — feed ${i}, with a long explanation of its schedule and owner`).join('\n')}\n`,
  );
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

describe('makeRoom', () => {
  it('brings an index under the cut as one history entry that one restore undoes', async () => {
    const baseText = await read('MEMORY.md');
    expect(scanMemoryDir(memoryDir, { scope: 'private' }).index.cut).toHaveLength(16);
    const { impact, entry, notes } = await makeRoom(where(), {
      baseText,
      actions: [
        ...Array.from({ length: 8 }, (_, i) => ({ kind: 'merge' as const, line: 3 + i, into: 2 })),
        ...Array.from({ length: 8 }, (_, i) => ({ kind: 'drop' as const, line: 20 + i })),
        { kind: 'move-hook', line: 100, hook: 'feed 98' },
      ],
      now: new Date('2026-12-05T10:00:00Z'),
    });
    expect(impact.after).toMatchObject({ lines: 200, truncated: false, cut: 0 });
    const scan = scanMemoryDir(memoryDir, { scope: 'private' });
    expect(scan.index.cut).toEqual([]);
    expect(scan.problems.filter((p) => p.code === 'over-limit' || p.code === 'dangling-link')).toEqual([]);
    // Merged memories are gone, their text is in the keeper; dropped pointers' memories stay (recall still finds them).
    expect(await read('source_0.md')).toContain('Feed 8 arrives hourly.');
    await expect(read('source_1.md')).rejects.toThrow();
    expect(await read('source_18.md')).toContain('Feed 18');
    expect(await read('source_98.md')).toContain('feed 98, with a long explanation of its schedule and owner');
    expect(notes).toContain('Merged source_1.md, source_2.md, source_3.md, source_4.md, source_5.md, source_6.md, source_7.md, source_8.md into source_0.md.');
    const history = await listHistory(memoryDir, { dataDir: where().dataDir });
    expect(history[0]!.rev).toBe(entry!.rev);
    expect(history[0]!.summary).toBe('Make room in MEMORY.md: merge, drop, move-hook (17 choices)');
    await restoreFromHistory(memoryDir, `${entry!.rev}~1`, { dataDir: where().dataDir });
    expect(await read('MEMORY.md')).toBe(baseText);
    expect(await read('source_1.md')).toContain('Feed 1 arrives hourly.');
  });

  it('moves prose lines into a new memory in their place', async () => {
    await fs.writeFile(path.join(memoryDir, 'MEMORY.md'), '# Notes\nBuild with make.\nDeploy on Tuesdays.\n- [Source 0](source_0.md) — feed 0\n');
    await makeRoom(where(), {
      baseText: await read('MEMORY.md'),
      actions: [
        {
          kind: 'move-lines',
          lines: [2, 3],
          file: 'project_build_deploy.md',
          name: 'Build and deploy',
          description: 'How to build; deploys on Tuesdays',
          type: 'project',
        },
      ],
    });
    expect(await read('MEMORY.md')).toBe(
      '# Notes\n- [Build and deploy](project_build_deploy.md) — How to build; deploys on Tuesdays\n- [Source 0](source_0.md) — feed 0\n',
    );
    expect(await read('project_build_deploy.md')).toBe(
      '---\nname: Build and deploy\ndescription: How to build; deploys on Tuesdays\nmetadata:\n  node_type: memory\n  type: project\n---\n\nBuild with make.\nDeploy on Tuesdays.\n',
    );
  });

  it('writes nothing when MEMORY.md changed meanwhile, or when a choice cannot be made', async () => {
    const baseText = await read('MEMORY.md');
    await fs.appendFile(path.join(memoryDir, 'MEMORY.md'), '- [New](new.md) — appended by Claude Code\n');
    await expect(makeRoom(where(), { baseText, actions: [{ kind: 'drop', line: 2 }] })).rejects.toMatchObject({ code: 'conflict' });
    const now = await read('MEMORY.md');
    await expect(
      makeRoom(where(), { baseText: now, actions: [{ kind: 'move-lines', lines: [1], file: 'source_3.md', name: 'x', description: 'y', type: 'project' }] }),
    ).rejects.toMatchObject({ code: 'exists' });
    await expect(makeRoom(where(), { baseText: now, actions: [{ kind: 'merge', line: 2, into: 1 }] })).rejects.toMatchObject({
      message: 'Line 1 is not a pointer: a memory can only be merged into another memory.',
    });
    expect(await read('MEMORY.md')).toBe(now);
    expect(await read('source_0.md')).not.toContain('Merged');
  });

  it('writes no file when a merge is refused after other choices were checked', async () => {
    await fs.writeFile(path.join(memoryDir, 'source_5.md'), '---\nname: Source 5\ndescription: feed 5\ntype: notes\n---\n\nFeed 5 arrives hourly.\n');
    const baseText = await read('MEMORY.md');
    const before = await read('source_9.md');
    await expect(
      makeRoom(where(), {
        baseText,
        actions: [
          { kind: 'move-hook', line: 11, hook: 'feed 9' },
          { kind: 'merge', line: 7, into: 2 },
        ],
      }),
    ).rejects.toMatchObject({
      message: 'source_5.md has no valid type (user, feedback, project or reference); fix its frontmatter before merging.',
    });
    expect(await read('source_9.md')).toBe(before);
    expect(await read('MEMORY.md')).toBe(baseText);
  });
});

describe('a folder with no MEMORY.md', () => {
  // R-INDEX: Make room only takes lines out of an index there is: it never creates MEMORY.md, so
  // it never stops the index Claude Code builds where there is none (memory-service's seedIndex).
  it('is refused, writing nothing: there is no line to make room from', async () => {
    await fs.rm(path.join(memoryDir, 'MEMORY.md'));
    for (const action of [
      { kind: 'drop' as const, line: 1 },
      { kind: 'merge' as const, line: 2, into: 1 },
    ]) {
      await expect(makeRoom(where(), { baseText: '', actions: [action] })).rejects.toMatchObject({
        code: 'invalid-input',
        message: expect.stringMatching(/^Line \d is not in MEMORY\.md any more\.$/),
      });
    }
    await expect(fs.lstat(path.join(memoryDir, 'MEMORY.md'))).rejects.toThrow();
    expect(await fs.readFile(path.join(memoryDir, 'source_1.md'), 'utf8')).toContain('Feed 1');
  });
});

describe('a new memory from moved lines, named as an existing one in another Unicode form', () => {
  it('is refused with the reason, and writes nothing', async () => {
    const nfd = 'project_cafe\u0301.md';
    const nfc = 'project_caf\u00e9.md';
    await fs.writeFile(path.join(memoryDir, nfd), topic('Café', 'the café', 'Opens at 8.'));
    await fs.writeFile(path.join(memoryDir, 'MEMORY.md'), `# Notes\nThe café opens at 9 on Sundays.\n- [Café](${nfd}) — the café\n`);
    const baseText = await read('MEMORY.md');
    const error = await makeRoom(where(), {
      baseText,
      actions: [{ kind: 'move-lines', lines: [2], file: nfc, name: 'Sundays', description: 'Sunday hours', type: 'project' }],
    }).catch((e: unknown) => e as { code: string; message: string });
    expect(error).toMatchObject({ code: 'exists', message: expect.stringContaining('is the same name, written in another Unicode form') });
    expect((await fs.readdir(memoryDir)).filter((n) => n.normalize('NFC') === nfc)).toEqual([nfd]);
    expect(await read(nfd)).toBe(topic('Café', 'the café', 'Opens at 8.'));
    expect(await read('MEMORY.md')).toBe(baseText);
  });
});

describe('a new memory from moved lines, its name typed in decomposed form', () => {
  it('is written under the name its pointer says, in the one form Memdir writes', async () => {
    const nfd = 'project_cafe\u0301.md';
    const nfc = 'project_caf\u00e9.md';
    await fs.writeFile(path.join(memoryDir, 'MEMORY.md'), '# Notes\nThe café opens at 9 on Sundays.\n- [Source 0](source_0.md) — feed 0\n');
    await makeRoom(where(), {
      baseText: await read('MEMORY.md'),
      actions: [{ kind: 'move-lines', lines: [2], file: nfd, name: 'Sundays', description: 'Sunday hours', type: 'project' }],
    });
    expect((await fs.readdir(memoryDir)).filter((n) => n.normalize('NFC') === nfc)).toEqual([nfc]);
    expect(await read('MEMORY.md')).toBe(`# Notes\n- [Sundays](${nfc}) — Sunday hours\n- [Source 0](source_0.md) — feed 0\n`);
    const scan = scanMemoryDir(memoryDir, { scope: 'private' });
    expect(scan.problems.filter((p) => p.code === 'dangling-link' || (p.code === 'orphan' && p.file === nfc))).toEqual([]);
  });
});
