import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { listHistory } from '../history/index.js';
import { sharedMemoryFixtures } from '../memdir/test-support/shared-fixtures.js';
import { AppContext } from './app-context.js';

const FIXTURES = sharedMemoryFixtures();
// A real memory directory someone wrote; without the fixtures, an empty one does.
const FIXTURE = FIXTURES && path.join(FIXTURES, '065536__Asycn_verl', 'memory');

let root: string;
let ctx: AppContext;
let memoryDir: string;

beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-ctx-'));
  memoryDir = path.join(root, 'home', 'projects', '-work-verl', 'memory');
  if (FIXTURE) await fs.cp(FIXTURE, memoryDir, { recursive: true });
  else await fs.mkdir(memoryDir, { recursive: true });
  ctx = await AppContext.create({ homeFlag: path.join(root, 'home'), dataDir: path.join(root, 'data'), env: {} });
});
afterEach(async () => {
  await ctx.close();
  await fs.rm(root, { recursive: true, force: true });
});

const files = async (scan: ReturnType<AppContext['scanHome']>) => (await scan).projects.find((p) => p.dir === '-work-verl')!.memories.map((m) => m.file);

/** The headless host's start, watching: the app, and the directories its first external change is told for. */
async function openWatching(dataDir: string, home = path.join(root, 'home')): Promise<{ opened: AppContext; told: Promise<string[]> }> {
  const opened = await AppContext.open({ homeFlag: home, dataDir: path.join(root, dataDir), env: {}, watch: true, servicesAfterFirstList: true });
  const told = new Promise<string[]>((resolve) =>
    opened.events.subscribe((event) => {
      if (event.type === 'projects-changed' && event.external) resolve(event.dirs);
    }),
  );
  return { opened, told };
}

/** What another program writes while the host waits for its first list. */
const writeMeanwhile = () =>
  fs.writeFile(path.join(memoryDir, 'written_meanwhile.md'), '---\nname: Meanwhile\ndescription: written before the watcher\ntype: project\n---\nBody\n');

describe('the home scan of the app', () => {
  it('answers callers asking at once with one scan, but never a scan older than a change Memdir made', async () => {
    const first = ctx.scanHome();
    expect(ctx.scanHome()).toBe(first);
    // A memory written while that scan runs: the next list shows it.
    await fs.writeFile(path.join(memoryDir, 'new_note.md'), '---\nname: New note\ndescription: written during a scan\ntype: project\n---\nBody\n');
    ctx.changed('-work-verl', memoryDir);
    const after = ctx.scanHome();
    expect(after).not.toBe(first);
    expect(await files(after)).toContain('new_note.md');
    await first;
  });
});

describe('the start of the headless host', () => {
  it('answers the first list with the start’s own scan only while nothing changed since it began', async () => {
    const opened = await AppContext.open({
      homeFlag: path.join(root, 'home'),
      dataDir: path.join(root, 'data-start'),
      env: {},
      watch: true,
      servicesAfterFirstList: true,
    });
    try {
      // The start's scan done (read where the app keeps it), then a memory Memdir writes: the first list shows it.
      await (opened as unknown as { scanning: { scan: Promise<unknown> } | null }).scanning?.scan;
      await fs.writeFile(path.join(memoryDir, 'after_start.md'), '---\nname: After start\ndescription: written as the app opened\ntype: project\n---\nBody\n');
      opened.changed('-work-verl', memoryDir);
      expect(await files(opened.scanHome())).toContain('after_start.md');
    } finally {
      await opened.close();
    }
  });

  it('tells a change another program made before its watcher was on, once the watcher is', async () => {
    const { opened, told } = await openWatching('data-gap');
    try {
      // The first list is answered by the start's scan; a memory another program writes after it,
      // while the watcher waits for that list, is told once the watcher starts.
      expect(await files(opened.scanHome())).not.toContain('written_meanwhile.md');
      await writeMeanwhile();
      opened.firstListAnswered();
      expect(await told).toEqual(['-work-verl']);
      expect(await files(opened.scanHome())).toContain('written_meanwhile.md');
      // And history records it as a change made outside Memdir, as for any the watcher sees.
      await vi.waitFor(
        async () => expect((await listHistory(memoryDir, { dataDir: path.join(root, 'data-gap') })).map((e) => e.source)).toContain('external'),
        {
          timeout: 20_000,
          interval: 50,
        },
      );
    } finally {
      await opened.close();
    }
  });

  it('is done writing the history of a change it was told of when it closes', async () => {
    const { opened, told } = await openWatching('data-closing');
    expect(await files(opened.scanHome())).not.toContain('written_meanwhile.md');
    await writeMeanwhile();
    opened.firstListAnswered();
    expect(await told).toEqual(['-work-verl']);
    // Told as the recording of it begins: closing now must wait for it.
    await opened.close();
    // Closed means nothing more is written: the external entry is there already, no half-made repo beside it.
    expect((await listHistory(memoryDir, { dataDir: path.join(root, 'data-closing') })).map((e) => e.source)).toContain('external');
    const history = path.join(root, 'data-closing', 'history');
    for (const key of await fs.readdir(history)) expect((await fs.readdir(path.join(history, key))).filter((n) => n.includes('.tmp-'))).toEqual([]);
  });

  it('tells only the projects whose memory changed before its watcher was on, not one that only had a new session', async () => {
    const other = path.join(root, 'home', 'projects', '-work-other', 'memory');
    await fs.mkdir(other, { recursive: true });
    const { opened, told } = await openWatching('data-only-memory');
    try {
      await opened.scanHome();
      // A new session of -work-verl (the watcher does not watch sessions), a memory another program writes in -work-other.
      await fs.writeFile(
        path.join(root, 'home', 'projects', '-work-verl', '9d1c2e3f-1111-4222-8333-944455556666.jsonl'),
        '{"type":"user","cwd":"/work/verl"}\n',
      );
      await fs.writeFile(path.join(other, 'elsewhere.md'), '---\nname: Elsewhere\ndescription: written by another program\ntype: project\n---\nBody\n');
      opened.firstListAnswered();
      expect(await told).toEqual(['-work-other']);
    } finally {
      await opened.close();
    }
  });

  it('tells a change made before its watcher was on even when another list read it first', async () => {
    const { opened, told } = await openWatching('data-gap-read');
    try {
      expect(await files(opened.scanHome())).not.toContain('written_meanwhile.md');
      await writeMeanwhile();
      // A second tab's list reads the change before the watcher starts: the page that showed the first list still hears of it.
      expect(await files(opened.scanHome())).toContain('written_meanwhile.md');
      opened.firstListAnswered();
      expect(await told).toEqual(['-work-verl']);
    } finally {
      await opened.close();
    }
  });

  it('tells the projects of a home created before its watcher was on', async () => {
    const later = path.join(root, 'home-later');
    const { opened, told } = await openWatching('data-later', later);
    try {
      expect((await opened.scanHome()).exists).toBe(false);
      const created = path.join(later, 'projects', '-work-new', 'memory');
      await fs.mkdir(created, { recursive: true });
      await fs.writeFile(path.join(created, 'first.md'), '---\nname: First\ndescription: the first memory\ntype: project\n---\nBody\n');
      opened.firstListAnswered();
      expect(await told).toEqual(['-work-new']);
    } finally {
      await opened.close();
    }
  });
});
