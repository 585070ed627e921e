import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HomeScan } from '../../shared/scan-types.js';
import { openScanCache, scanCacheFile, SCAN_CACHE_VERSION } from './scan-cache-file.js';
import { HomeScanCache, scanHome } from './scan-home.js';
import { buildFixtureHome, canChangePermissions, type FixtureHome } from './test-support/fixture-home.js';

let root: string;
let fixture: FixtureHome;
let dataDir: string;
// Files written by this test are seconds old at most: the clock is moved on so they count as settled.
const later = () => Date.now() + 60_000;

beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-scan-cache-'));
  fixture = await buildFixtureHome(root);
  dataDir = path.join(root, 'data');
});
afterAll(async () => {
  if (canChangePermissions) await fs.chmod(path.join(fixture.home, 'projects', '-work-shop', 'memory', 'locked.md'), 0o644).catch(() => undefined);
  await fs.rm(root, { recursive: true, force: true });
});

const cold = () => scanHome(fixture.home, { cache: new HomeScanCache(), env: {} });

/**
 * A process that has never scanned: the cache comes from the data dir only. `reused`: the memory
 * directories whose scan came back from the file untouched — nothing in them read or parsed.
 */
async function freshProcess(): Promise<{ scan: HomeScan; cache: HomeScanCache; loaded: boolean; save: () => Promise<boolean>; restored: string[]; reused: string[] }> {
  const opened = openScanCache(dataDir, fixture.home, { now: later });
  const restored = [...opened.cache.stored.keys()];
  const scan = await scanHome(fixture.home, { cache: opened.cache, env: {} });
  // A directory still held as the file wrote it was answered from it; a changed one was rebuilt.
  const reused = restored.filter((dir) => opened.cache.stored.has(dir)).map((dir) => path.relative(fixture.home, dir));
  return { scan, cache: opened.cache, loaded: opened.loaded.loaded, save: opened.save, restored: restored.map((d) => path.relative(fixture.home, d)), reused };
}

async function saveWarmCache(): Promise<void> {
  const opened = openScanCache(dataDir, fixture.home, { now: later });
  await scanHome(fixture.home, { cache: opened.cache, env: {} });
  await opened.save();
}

describe('the scan cache on disk', () => {
  it('lets a fresh process answer a scan of an unchanged home without reading a memory again', async () => {
    await fs.rm(dataDir, { recursive: true, force: true });
    const first = await freshProcess();
    expect(first.loaded).toBe(false);
    expect(await first.save()).toBe(true);
    const file = scanCacheFile(dataDir, fixture.home);
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);

    const second = await freshProcess();
    expect(second.loaded).toBe(true);
    // The same answer a cold scan gives, bad files and all…
    expect(second.scan).toEqual(await cold());
    // …and every directory the file knew came back as it was: nothing in it read or parsed. (The
    // one holding symbolic links is never written down: a link is judged from its target each time.)
    expect(second.restored.sort()).toEqual(['projects/-work-big/memory', 'projects/-work-noindex/memory', 'projects/-work-shop/memory/team', `projects/${path.basename(path.dirname(second.scan.projects.find((p) => p.path === fixture.zhPath)!.memoryDir))}/memory`].sort());
    expect(second.reused.sort()).toEqual(second.restored.sort());
    // Not one of their files read: no record of them was even made.
    expect(second.cache.topics.has(path.join(fixture.home, 'projects', '-work-big', 'memory', 'project_m1.md'))).toBe(false);
  });

  it('keeps reporting bad files exactly as a cold scan does', async () => {
    await saveWarmCache();
    const { scan } = await freshProcess();
    const shop = scan.projects.find((p) => p.dir === '-work-shop')!;
    const coldShop = (await cold()).projects.find((p) => p.dir === '-work-shop')!;
    expect(shop.problems).toEqual(coldShop.problems);
    expect(shop.problems.map((p) => p.code)).toEqual(expect.arrayContaining(['dangling-link', 'duplicate-pointer', 'malformed-line', 'bad-frontmatter', 'invalid-type', 'unreadable', 'unsafe-link', 'orphan']));
  });

  it('sees what changed since it was saved, in a directory it otherwise knows', async () => {
    await saveWarmCache();
    const memoryDir = path.join(fixture.home, 'projects', '-work-big', 'memory');
    const before = await fs.readFile(path.join(memoryDir, 'project_m7.md'));
    await fs.writeFile(path.join(memoryDir, 'project_m7.md'), '---\nname: Dashboards\ndescription: Grafana boards: checkout #1 and search\ntype: reference\n---\nPR #4\n');
    await fs.writeFile(path.join(memoryDir, 'feedback_new.md'), '---\nname: New\ndescription: a new one, not in the index\ntype: feedback\n---\n');
    try {
      const { scan, reused } = await freshProcess();
      expect(scan).toEqual(await cold());
      const big = scan.projects.find((p) => p.dir === '-work-big')!;
      // `: ` makes the YAML invalid, so Claude Code's quoting retry reads the whole value, # and all.
      expect(big.memories.find((m) => m.file === 'project_m7.md')).toMatchObject({ name: 'Dashboards', description: 'Grafana boards: checkout #1 and search', type: 'reference' });
      expect(big.problems.find((p) => p.file === 'feedback_new.md')).toMatchObject({ code: 'orphan' });
      // The index, known only from the cache file, was read again to rebuild the directory's health.
      expect(big.problems.find((p) => p.code === 'over-limit')).toBeDefined();
      // The other projects still came from the cache.
      expect(reused).toContain('projects/-work-noindex/memory');
      expect(reused).not.toContain('projects/-work-big/memory');
    } finally {
      await fs.rm(path.join(memoryDir, 'feedback_new.md'));
      await fs.writeFile(path.join(memoryDir, 'project_m7.md'), before);
    }
  });

  it('ignores a corrupt, foreign-version, other-home or malformed cache file and rebuilds it', async () => {
    const file = scanCacheFile(dataDir, fixture.home);
    await saveWarmCache();
    const good = JSON.parse(await fs.readFile(file, 'utf8')) as Record<string, unknown>;
    const bad: [string, string][] = [
      ['truncated', JSON.stringify(good).slice(0, 500)],
      ['not JSON', 'garbage\u0000'],
      ['not written by Memdir (raw UTF-8)', JSON.stringify({ ...good, note: '部署' })],
      ['another version', JSON.stringify({ ...good, version: SCAN_CACHE_VERSION + 1 })],
      ['another format', JSON.stringify({ ...good, format: 'something-else' })],
      ['another home', JSON.stringify({ ...good, home: path.join(root, 'elsewhere') })],
      ['a wrong shape', JSON.stringify({ ...good, dirs: [{ dir: 'x', topics: 'no' }] })],
      ['a lying result', JSON.stringify({ ...good, dirs: (good.dirs as { result: { memories: unknown[] } }[]).map((d) => ({ ...d, result: { ...d.result, memories: [{ file: 'x.md' }] } })) })],
    ];
    const expected = await cold();
    for (const [what, text] of bad) {
      await fs.writeFile(file, text);
      const { scan, loaded, save } = await freshProcess();
      expect(loaded, what).toBe(false);
      expect(scan, what).toEqual(expected);
      expect(await save(), what).toBe(true);
      expect(JSON.parse(await fs.readFile(file, 'utf8')).version, what).toBe(SCAN_CACHE_VERSION);
    }
  });

  it('does not write down a file changed moments ago: the next process reads it again', async () => {
    // A window of 300 ms stands in for the real 2 s: the fixture is older than that by now.
    await new Promise((resolve) => setTimeout(resolve, 400));
    const memoryDir = path.join(fixture.home, 'projects', '-work-noindex', 'memory');
    await fs.writeFile(path.join(memoryDir, 'feedback_tabs.md'), '---\nname: Tabs\ndescription: Indent with tabs, always\ntype: feedback\n---\n');
    const opened = openScanCache(dataDir, fixture.home, { racyMs: 300 });
    await scanHome(fixture.home, { cache: opened.cache, env: {} });
    await opened.save();
    const saved = JSON.parse(await fs.readFile(scanCacheFile(dataDir, fixture.home), 'utf8')) as { dirs: { dir: string }[] };
    expect(saved.dirs.map((d) => d.dir)).not.toContain(memoryDir);
    expect(saved.dirs.map((d) => d.dir)).toContain(path.join(fixture.home, 'projects', '-work-big', 'memory'));
  });
});
