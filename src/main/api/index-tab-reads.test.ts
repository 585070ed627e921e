import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppContext } from '../app/app-context.js';
import { type OpenCounter, countOpens } from '../memdir/test-support/open-counter.js';
import { createAppDispatcher } from './index.js';
import type { Dispatcher } from './dispatch.js';

// The MEMORY.md tab of a folder with no MEMORY.md: each refresh asks index.read and index.loaded.
// The built index Claude Code would write is predicted once, from the scan the app's cache keeps:
// counted by the kernel's own record of each open (inotify), not a mock.
const MEMORIES = 12;
let root: string;
let memoryDir: string;
let ctx: AppContext;
let api: Dispatcher;
let opens: OpenCounter;

beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-tab-reads-'));
  memoryDir = path.join(root, 'home', 'projects', '-work-tab', 'memory');
  await fs.mkdir(memoryDir, { recursive: true });
  for (let i = 0; i < MEMORIES; i++) {
    const file = path.join(memoryDir, `note_${i}.md`);
    await fs.writeFile(file, `---\nname: Note ${i}\ndescription: the ${i}th thing to remember\ntype: project\n---\nBody ${i}.\n`);
    await fs.utimes(file, 1_767_225_600 + i * 60, 1_767_225_600 + i * 60);
  }
  ctx = await AppContext.create({ homeFlag: path.join(root, 'home'), dataDir: path.join(root, 'data'), env: {} });
  api = createAppDispatcher(ctx);
  opens = await countOpens(memoryDir);
});
afterAll(async () => {
  opens?.close();
  await ctx?.close();
  await fs.rm(root, { recursive: true, force: true });
});

/** One refresh of the tab, as its store makes it: both calls side by side. */
const refresh = () => Promise.all([api.call('index.read', { dir: '-work-tab', scope: 'private' }), api.call('index.loaded', { dir: '-work-tab' })]);
const memoryOpens = (counts: Map<string, number>) => [...counts].filter(([file]) => /note_\d+\.md$/.test(file));

describe('the MEMORY.md tab with no MEMORY.md', () => {
  it('reads each memory at most once on a refresh, and an unchanged folder not at all; the built file comes once, byte for byte', async () => {
    await opens.take();
    const [read, loaded] = await refresh();
    const first = memoryOpens(await opens.take());
    expect(first.filter(([, n]) => n > 1)).toEqual([]);
    expect(first.length).toBeLessThanOrEqual(MEMORIES);

    expect(read).toMatchObject({ ok: true, result: { text: '', exists: false } });
    // One answer carries the built file: index.read no longer predicts it.
    expect(Object.keys((read as { result: object }).result)).not.toContain('built');
    const lines = Array.from({ length: MEMORIES }, (_, k) => MEMORIES - 1 - k).map((i) => `- [note_${i}](note_${i}.md) — the ${i}th thing to remember\n`);
    expect(loaded).toMatchObject({ ok: true, result: { builtFile: lines.join(''), text: lines.join('').trim() } });

    await refresh();
    expect(memoryOpens(await opens.take())).toEqual([]);
  });

  it('reads the memory that changed again, and only it', async () => {
    await refresh();
    await opens.take();
    await fs.writeFile(path.join(memoryDir, 'note_3.md'), '---\nname: Note 3\ndescription: changed\ntype: project\n---\nBody.\n');
    await opens.take();
    const [, loaded] = await refresh();
    expect(memoryOpens(await opens.take())).toEqual([[path.join(memoryDir, 'note_3.md'), 1]]);
    expect((loaded as { result: { builtFile: string } }).result.builtFile).toMatch(/^- \[note_3\]\(note_3\.md\) — changed\n/);
  });
});
