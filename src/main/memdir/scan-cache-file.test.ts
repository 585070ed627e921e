import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sanitizeDirName } from '../../shared/sanitize.js';
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

/** A scan without the moments identities were read (issue 18): two scans a millisecond apart differ there, and the cache has no part in it. */
const untimed = (scan: HomeScan): HomeScan => ({
  ...scan,
  projects: scan.projects.map((p) => (p.identity ? { ...p, identity: { ...p.identity, readAt: null } } : p)),
});
const cold = async (home = fixture.home) => untimed(await scanHome(home, { cache: new HomeScanCache(), env: {} }));

/**
 * A process that has never scanned: the cache comes from the data dir only. `reused`: the memory
 * directories whose scan came back from the file untouched — nothing in them read or parsed.
 */
async function freshProcess(
  home = fixture.home,
): Promise<{ scan: HomeScan; cache: HomeScanCache; loaded: boolean; save: () => Promise<boolean>; restored: string[]; reused: string[] }> {
  const opened = openScanCache(dataDir, home, { now: later });
  const restored = [...opened.cache.stored.keys()];
  const scan = untimed(await scanHome(home, { cache: opened.cache, env: {} }));
  // A directory still held as the file wrote it was answered from it; a changed one was rebuilt.
  const reused = restored.filter((dir) => opened.cache.stored.has(dir)).map((dir) => path.relative(home, dir));
  return { scan, cache: opened.cache, loaded: opened.loaded.loaded, save: opened.save, restored: restored.map((d) => path.relative(home, d)), reused };
}

/** The cache file as saveScanCache writes it: a line of JSON, then the text block (UTF-16LE). */
async function readCacheFile(file: string): Promise<{ head: Record<string, unknown>; tail: Buffer }> {
  const bytes = await fs.readFile(file);
  const end = bytes.indexOf(0x0a);
  return { head: JSON.parse(bytes.toString('latin1', 0, end)) as Record<string, unknown>, tail: bytes.subarray(end + 1) };
}
const cacheFileOf = (head: unknown, tail: Uint8Array): Buffer => Buffer.concat([Buffer.from(`${JSON.stringify(head)}\n`), tail]);

async function saveWarmCache(home = fixture.home): Promise<void> {
  const opened = openScanCache(dataDir, home, { now: later });
  await scanHome(home, { cache: opened.cache, env: {} });
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
    expect(second.restored.sort()).toEqual(
      [
        'projects/-work-big/memory',
        'projects/-work-noindex/memory',
        'projects/-work-shop/memory/team',
        `projects/${path.basename(path.dirname(second.scan.projects.find((p) => p.path === fixture.zhPath)!.memoryDir))}/memory`,
      ].sort(),
    );
    expect(second.reused.sort()).toEqual(second.restored.sort());
    // Not one of their files read: no record of them was even made.
    expect(second.cache.topics.has(path.join(fixture.home, 'projects', '-work-big', 'memory', 'project_m1.md'))).toBe(false);
  });

  it('removes the JSON cache file an older Memdir left for the same home once the new one is saved', async () => {
    await fs.rm(dataDir, { recursive: true, force: true });
    const file = scanCacheFile(dataDir, fixture.home);
    const legacy = file.replace(/\.cache$/, '.json');
    expect(legacy).not.toBe(file);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(legacy, JSON.stringify({ format: 'memdir-scan-cache', version: 3, home: fixture.home, dirs: [], folders: [] }));
    const first = await freshProcess();
    expect(first.loaded).toBe(false);
    expect(await first.save()).toBe(true);
    expect((await fs.readdir(path.dirname(file))).sort()).toEqual([path.basename(file)]);
  });

  it('writes once when a save is asked while one is running, and is done writing when the last ask returns', async () => {
    // The app saves a moment after scans settle and again when it closes: a close that came while
    // the timed save was writing returned before it, and that write landed in a data dir being removed.
    await fs.rm(dataDir, { recursive: true, force: true });
    const opened = openScanCache(dataDir, fixture.home, { now: later });
    await scanHome(fixture.home, { cache: opened.cache, env: {} });
    let firstDone = false;
    const first = opened.save().then((written) => ((firstDone = true), written));
    const second = await opened.save();
    expect(firstDone).toBe(true);
    expect([await first, second]).toEqual([true, false]);
    const file = scanCacheFile(dataDir, fixture.home);
    expect(await fs.readdir(path.dirname(file))).toEqual([path.basename(file)]);
  });

  it('keeps reporting bad files exactly as a cold scan does', async () => {
    await saveWarmCache();
    const { scan } = await freshProcess();
    const shop = scan.projects.find((p) => p.dir === '-work-shop')!;
    const coldShop = (await cold()).projects.find((p) => p.dir === '-work-shop')!;
    expect(shop.problems).toEqual(coldShop.problems);
    expect(shop.problems.map((p) => p.code)).toEqual(
      expect.arrayContaining([
        'dangling-link',
        'duplicate-pointer',
        'malformed-line',
        'bad-frontmatter',
        'invalid-type',
        'unreadable',
        'unsafe-link',
        'orphan',
      ]),
    );
  });

  it('sees what changed since it was saved, in a directory it otherwise knows', async () => {
    await saveWarmCache();
    const memoryDir = path.join(fixture.home, 'projects', '-work-big', 'memory');
    const before = await fs.readFile(path.join(memoryDir, 'project_m7.md'));
    await fs.writeFile(
      path.join(memoryDir, 'project_m7.md'),
      '---\nname: Dashboards\ndescription: Grafana boards: checkout #1 and search\ntype: reference\n---\nPR #4\n',
    );
    await fs.writeFile(path.join(memoryDir, 'feedback_new.md'), '---\nname: New\ndescription: a new one, not in the index\ntype: feedback\n---\n');
    try {
      const { scan, reused } = await freshProcess();
      expect(scan).toEqual(await cold());
      const big = scan.projects.find((p) => p.dir === '-work-big')!;
      // `: ` makes the YAML invalid, so Claude Code's quoting retry reads the whole value, # and all.
      expect(big.memories.find((m) => m.file === 'project_m7.md')).toMatchObject({
        name: 'Dashboards',
        description: 'Grafana boards: checkout #1 and search',
        type: 'reference',
      });
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
    const { head: good, tail } = await readCacheFile(file);
    const whole = await fs.readFile(file);
    const bad: [string, string | Buffer][] = [
      ['truncated in the JSON', whole.subarray(0, 500)],
      ['truncated in the text', whole.subarray(0, whole.length - 3)],
      ['not JSON', 'garbage\u0000'],
      ['no text block', JSON.stringify(good)],
      ['not written by Memdir (raw UTF-8)', cacheFileOf({ ...good, note: '部署' }, tail)],
      ['another version', cacheFileOf({ ...good, version: SCAN_CACHE_VERSION + 1 }, tail)],
      ['another format', cacheFileOf({ ...good, format: 'something-else' }, tail)],
      ['another home', cacheFileOf({ ...good, home: path.join(root, 'elsewhere') }, tail)],
      ['a wrong shape', cacheFileOf({ ...good, dirs: [{ dir: 'x', topics: 'no' }] }, tail)],
      ['a cut facts block', cacheFileOf({ ...good, facts: (good.facts as string).slice(0, -4) }, tail)],
      ['a facts block that is not base64', cacheFileOf({ ...good, facts: `${(good.facts as string).slice(0, -4)}!!!!` }, tail)],
      ['a text shorter than its records', cacheFileOf({ ...good, textLength: (good.textLength as number) - 1 }, tail.subarray(0, tail.length - 2))],
      ...(
        [
          ['facts past the end of their block', (d) => ({ ...d, factsAt: (good.facts as string).length })],
          ['a path leaving the folder', (d) => ({ ...d, files: (d.files as string[]).map((f, i) => (i === 0 ? `../${f}` : f)) })],
          ['a note about no file', (d) => ({ ...d, notes: [[(d.files as string[]).length, [], [], null]] })],
        ] as [string, (d: Record<string, unknown>) => unknown][]
      ).map(([what, lie]): [string, Buffer] => [
        what,
        cacheFileOf({ ...good, dirs: (good.dirs as Record<string, unknown>[]).map((d) => ((d.files as string[]).length > 0 ? lie(d) : d)) }, tail),
      ]),
      ...(
        [
          ['a memory more than the files hold', (d) => ({ ...d, lengths: [...(d.lengths as number[]), 0, 0], kinds: `${d.kinds as string}a` })],
          ['a memory of no type the schema knows', (d) => ({ ...d, kinds: 'z'.repeat((d.kinds as string).length) })],
          ['a problem the schema does not know', (d) => ({ ...d, problems: [['no-such-problem', null, null, 'x', 'error', null]] })],
          ['an index line naming no file', (d) => ({ ...d, summary: (d.summary as unknown[]).map((x, i) => (i === 4 ? [(d.files as string[]).length] : x)) })],
        ] as [string, (d: Record<string, unknown>) => unknown][]
      ).map(([what, lie]): [string, Buffer] => [
        `a lying result: ${what}`,
        cacheFileOf({ ...good, dirs: (good.dirs as Record<string, unknown>[]).map((d) => ((d.kinds as string).length > 0 ? lie(d) : d)) }, tail),
      ]),
    ];
    const expected = await cold();
    for (const [what, text] of bad) {
      await fs.writeFile(file, text);
      const { scan, loaded, save } = await freshProcess();
      expect(loaded, what).toBe(false);
      expect(scan, what).toEqual(expected);
      expect(await save(), what).toBe(true);
      expect((await readCacheFile(file)).head.version, what).toBe(SCAN_CACHE_VERSION);
    }
  });

  it('does not write down a file changed moments ago: the next process reads it again', async () => {
    // A window of 300 ms stands in for the real 2 s: the fixture is older than that by now.
    await new Promise((resolve) => setTimeout(resolve, 400));
    const memoryDir = path.join(fixture.home, 'projects', '-work-noindex', 'memory');
    const changed = path.join(memoryDir, 'feedback_tabs.md');
    await fs.writeFile(changed, '---\nname: Tabs\ndescription: Indent with tabs, always\ntype: feedback\n---\n');
    // Saved 100 ms after the write, by the save's clock: a busy machine may take longer between
    // the two, and the file would be older than the window by the time it is written down.
    const written = await fs.stat(changed);
    const opened = openScanCache(dataDir, fixture.home, { racyMs: 300, now: () => Math.max(written.mtimeMs, written.ctimeMs) + 100 });
    await scanHome(fixture.home, { cache: opened.cache, env: {} });
    await opened.save();
    const saved = (await readCacheFile(scanCacheFile(dataDir, fixture.home))).head as { dirs: { dir: string }[] };
    expect(saved.dirs.map((d) => d.dir)).not.toContain(memoryDir);
    expect(saved.dirs.map((d) => d.dir)).toContain(path.join(fixture.home, 'projects', '-work-big', 'memory'));
  });

  it('does not write down the listing of a folder changed moments ago: the next process lists it again', async () => {
    await new Promise((resolve) => setTimeout(resolve, 400));
    const memoryDir = path.join(fixture.home, 'projects', '-work-noindex', 'memory');
    // The folder changes (a file comes and goes); every file in it stays as it was.
    await fs.writeFile(path.join(memoryDir, 'scratch.txt'), 'x');
    await fs.rm(path.join(memoryDir, 'scratch.txt'));
    const changed = await fs.stat(memoryDir);
    const opened = openScanCache(dataDir, fixture.home, { racyMs: 300, now: () => Math.max(changed.mtimeMs, changed.ctimeMs) + 100 });
    await scanHome(fixture.home, { cache: opened.cache, env: {} });
    await opened.save();
    const saved = (await readCacheFile(scanCacheFile(dataDir, fixture.home))).head as { dirs: { dir: string; folders: unknown }[] };
    expect(saved.dirs.find((d) => d.dir === memoryDir)).toMatchObject({ folders: null });
    expect(saved.dirs.find((d) => d.dir === path.join(fixture.home, 'projects', '-work-big', 'memory'))?.folders).toEqual([
      ['', expect.any(Number), expect.any(Number), expect.any(Number)],
    ]);
  });
});

describe('the racy window is measured from when the scan looked, not from the save (the app saves seconds later)', () => {
  const savedDirs = async () =>
    ((await readCacheFile(scanCacheFile(dataDir, fixture.home))).head as { dirs: { dir: string; folders: unknown; files: string[] }[] }).dirs;

  it('a memory and a folder changed right before the scan are not written down, however late the save', async () => {
    await new Promise((resolve) => setTimeout(resolve, 400));
    const memoryDir = path.join(fixture.home, 'projects', '-work-noindex', 'memory');
    await fs.writeFile(path.join(memoryDir, 'feedback_tabs.md'), '---\nname: Tabs\ndescription: Indent with tabs, still\ntype: feedback\n---\n');
    const opened = openScanCache(dataDir, fixture.home, { racyMs: 300 });
    await scanHome(fixture.home, { cache: opened.cache, env: {} });
    // A second write within the same timestamp tick would leave the facts just taken: the save,
    // past the window by its own clock, must not make them count as settled.
    await new Promise((resolve) => setTimeout(resolve, 400));
    await opened.save();
    expect((await savedDirs()).map((d) => d.dir)).not.toContain(memoryDir);

    const folderDir = path.join(fixture.home, 'projects', '-work-big', 'memory');
    await fs.writeFile(path.join(folderDir, 'scratch.txt'), 'x');
    await fs.rm(path.join(folderDir, 'scratch.txt'));
    const again = openScanCache(dataDir, fixture.home, { racyMs: 300 });
    await scanHome(fixture.home, { cache: again.cache, env: {} });
    await new Promise((resolve) => setTimeout(resolve, 400));
    await again.save();
    expect((await savedDirs()).find((d) => d.dir === folderDir)).toMatchObject({ folders: null });
  });

  it('a directory whose folders were not written down gets them from the next process that finds it unchanged', async () => {
    const folderDir = path.join(fixture.home, 'projects', '-work-big', 'memory');
    await fs.writeFile(path.join(folderDir, 'scratch.txt'), 'x');
    await fs.rm(path.join(folderDir, 'scratch.txt'));
    await new Promise((resolve) => setTimeout(resolve, 400));
    // The folder's facts moved since the file was saved (or were never written): listed, found unchanged, and written down as they are now.
    const opened = openScanCache(dataDir, fixture.home, { racyMs: 300 });
    await scanHome(fixture.home, { cache: opened.cache, env: {} });
    await opened.save();
    const st = await fs.stat(folderDir);
    expect((await savedDirs()).find((d) => d.dir === folderDir)?.folders).toEqual([['', st.mtimeMs, st.ctimeMs, st.ino]]);
  });
});

describe('the scan cache on disk, with subfolder memories, team files linked from the main index and grouped sessions', () => {
  // A repository whose sessions ran at its root and in a subdirectory (two transcript folders,
  // one project: R-LAYOUT), with memories in subfolders and a team file reached from MEMORY.md.
  let home: string;
  let repo: string;
  let memoryDir: string;
  const folderOf = (cwd: string) => path.join(home, 'projects', sanitizeDirName(cwd));
  const session = async (cwd: string, id: string) => {
    await fs.mkdir(folderOf(cwd), { recursive: true });
    await fs.writeFile(
      path.join(folderOf(cwd), `${id}.jsonl`),
      `${JSON.stringify({ type: 'user', uuid: 'u1', sessionId: id, cwd, message: { role: 'user', content: 'hi' } })}\n`,
    );
  };
  const memo = (name: string, description: string) => `---\nname: ${name}\ndescription: ${description}\ntype: project\n---\n\n${name}.\n`;
  const INDEX = "- [Q1 retro](retros/2026-q1.md) — what went well\n- [Shared CI](team/project_ci.md) — the team's CI note\n";
  const project = (scan: HomeScan) => scan.projects.find((p) => p.dir === sanitizeDirName(repo))!;

  beforeAll(async () => {
    const base = await fs.realpath(root);
    repo = path.join(base, 'repo');
    home = path.join(base, 'grouped-home');
    await fs.mkdir(path.join(repo, '.git'), { recursive: true });
    await fs.mkdir(path.join(repo, 'sub'), { recursive: true });
    await fs.mkdir(path.join(repo, 'other'), { recursive: true });
    await session(repo, '0b6f1c1e-8a0e-4d2b-9b7e-2f4a5c6d7e80');
    await session(path.join(repo, 'sub'), 'a6f1c1e0-8a0e-4d2b-9b7e-2f4a5c6d7e81');
    memoryDir = path.join(folderOf(repo), 'memory');
    const files: Record<string, string> = {
      'MEMORY.md': INDEX,
      'retros/2026-q1.md': memo('Q1 retro', 'What went well: the cutover'),
      'retros/deep/old.md': memo('Old retro', 'Not in the index'),
      'team/MEMORY.md': '- [API](project_api.md) — v2 cutover\n',
      'team/project_api.md': memo('API', 'v2 API cutover'),
      'team/project_ci.md': memo('CI', 'CI has no Python 3.8'),
    };
    for (const [file, text] of Object.entries(files)) {
      await fs.mkdir(path.dirname(path.join(memoryDir, file)), { recursive: true });
      await fs.writeFile(path.join(memoryDir, file), text);
    }
  });

  it('answers a fresh process from the file alone, as a cold scan would', async () => {
    await saveWarmCache(home);
    const opened = openScanCache(dataDir, home, { now: later });
    // The launch folders come back from the file too: which project each belongs to, its sessions.
    expect(opened.cache.groups.has(folderOf(path.join(repo, 'sub')))).toBe(true);
    const { scan, reused, cache } = await freshProcess(home);
    expect(scan).toEqual(await cold(home));
    const p = project(scan);
    expect(p.launchDirs.map((l) => l.cwd).sort()).toEqual([repo, path.join(repo, 'sub')].sort());
    expect(p.memories.map((m) => m.file)).toEqual(['retros/2026-q1.md', 'retros/deep/old.md']);
    expect(p.problems).toContainEqual(expect.objectContaining({ code: 'orphan', file: 'retros/deep/old.md' }));
    // project_ci.md is linked from MEMORY.md; project_api.md only from team/MEMORY.md, which Claude Code does not load.
    expect(p.team!.problems.filter((x) => x.code === 'orphan').map((x) => x.file)).toEqual(['project_api.md']);
    expect(reused.sort()).toEqual([path.relative(home, memoryDir), path.relative(home, path.join(memoryDir, 'team'))].sort());
    expect(cache.topics.has(path.join(memoryDir, 'retros', '2026-q1.md'))).toBe(false);
  });

  it('sees a subfolder memory that changed, and a new one', async () => {
    await saveWarmCache(home);
    const file = path.join(memoryDir, 'retros', '2026-q1.md');
    await fs.writeFile(file, memo('Q1 retro', 'What went well: the cutover, and the on-call rota'));
    await fs.writeFile(path.join(memoryDir, 'retros', 'deep', 'new.md'), memo('New', 'Written after the cache'));
    try {
      const { scan, reused } = await freshProcess(home);
      expect(scan).toEqual(await cold(home));
      const p = project(scan);
      expect(p.memories.find((m) => m.file === 'retros/2026-q1.md')?.description).toBe('What went well: the cutover, and the on-call rota');
      expect(p.problems).toContainEqual(expect.objectContaining({ code: 'orphan', file: 'retros/deep/new.md' }));
      expect(reused).toEqual([path.relative(home, path.join(memoryDir, 'team'))]);
    } finally {
      await fs.writeFile(file, memo('Q1 retro', 'What went well: the cutover'));
      await fs.rm(path.join(memoryDir, 'retros', 'deep', 'new.md'));
    }
  });

  it('sees a memory added where every file it knew is unchanged: in the folder itself, in a subfolder, in a new subfolder', async () => {
    // Only a listing tells these apart from the home it saved: no file it knew changed.
    const added = ['feedback_added.md', 'retros/deep/added.md', 'retros/fresh/added.md'];
    for (const file of added) {
      await saveWarmCache(home);
      await fs.mkdir(path.dirname(path.join(memoryDir, file)), { recursive: true });
      await fs.writeFile(path.join(memoryDir, file), memo('Added', `Written after the cache, as ${file}`));
      try {
        const { scan, reused } = await freshProcess(home);
        expect(scan).toEqual(await cold(home));
        expect(project(scan).memories.map((m) => m.file)).toContain(file);
        expect(project(scan).problems).toContainEqual(expect.objectContaining({ code: 'orphan', file }));
        expect(reused).toEqual([path.relative(home, path.join(memoryDir, 'team'))]);
      } finally {
        await fs.rm(path.join(memoryDir, file));
        await fs.rm(path.join(memoryDir, 'retros', 'fresh'), { recursive: true, force: true });
      }
    }
  });

  it('sees a subfolder memory removed, though the rest of its folder is unchanged', async () => {
    await saveWarmCache(home);
    const file = path.join(memoryDir, 'retros', 'deep', 'old.md');
    await fs.rm(file);
    try {
      const { scan, reused } = await freshProcess(home);
      expect(scan).toEqual(await cold(home));
      const p = project(scan);
      expect(p.memories.map((m) => m.file)).toEqual(['retros/2026-q1.md']);
      expect(p.problems.filter((x) => x.file === 'retros/deep/old.md')).toEqual([]);
      expect(reused).toEqual([path.relative(home, path.join(memoryDir, 'team'))]);
    } finally {
      await fs.writeFile(file, memo('Old retro', 'Not in the index'));
    }
  });

  it('sees a team file no longer linked from the main index, though nothing in the team folder changed', async () => {
    await saveWarmCache(home);
    await fs.writeFile(path.join(memoryDir, 'MEMORY.md'), '- [Q1 retro](retros/2026-q1.md) — what went well\n');
    try {
      const { scan, reused } = await freshProcess(home);
      expect(scan).toEqual(await cold(home));
      expect(project(scan).team!.problems).toContainEqual(expect.objectContaining({ code: 'orphan', file: 'project_ci.md' }));
      expect(reused).toEqual([]);
    } finally {
      await fs.writeFile(path.join(memoryDir, 'MEMORY.md'), INDEX);
    }
  });

  it('sees a session launched in another subdirectory since', async () => {
    await saveWarmCache(home);
    await session(path.join(repo, 'other'), 'c6f1c1e0-8a0e-4d2b-9b7e-2f4a5c6d7e82');
    try {
      const { scan } = await freshProcess(home);
      expect(scan).toEqual(await cold(home));
      expect(project(scan).launchDirs.map((l) => l.cwd)).toContain(path.join(repo, 'other'));
      expect(scan.projects.map((x) => x.dir)).not.toContain(sanitizeDirName(path.join(repo, 'other')));
    } finally {
      await fs.rm(folderOf(path.join(repo, 'other')), { recursive: true });
    }
  });
});
