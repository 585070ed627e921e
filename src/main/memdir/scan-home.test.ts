import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HomeScan, ProjectScan } from '../../shared/scan-types.js';
import { sanitizeDirName } from '../../shared/sanitize.js';
import { HomeScanCache, scanHome, scanProject } from './scan-home.js';
import { type FixtureHome, buildFixtureHome, canChangePermissions } from './test-support/fixture-home.js';

let root: string;
let fixture: FixtureHome;
let scan: HomeScan;
const project = (dir: string): ProjectScan => scan.projects.find((p) => p.dir === dir)!;
const problemsOf = (p: { problems: { code: string; file: string | null; line: number | null }[] }, code: string) =>
  p.problems.filter((x) => x.code === code).map((x) => [x.file, x.line]);

beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-scan-'));
  fixture = await buildFixtureHome(root);
  scan = await scanHome(fixture.home, { env: {} });
});
afterAll(async () => {
  if (canChangePermissions) await fs.chmod(path.join(fixture.home, 'projects', '-work-shop', 'memory', 'locked.md'), 0o644).catch(() => undefined);
  await fs.rm(root, { recursive: true, force: true });
});

describe('scanHome on a fixture home with every bad case', () => {
  it('finds every project directory and only those', () => {
    expect(scan.exists).toBe(true);
    expect(scan.projects.map((p) => p.dir).sort()).toEqual(['-work-big', '-work-noindex', '-work-nomem', '-work-shop', sanitizeDirName(fixture.zhPath)].sort());
  });

  it('recovers real paths from transcripts, and null where there are none', () => {
    expect(project('-work-shop').path).toBe(fixture.shopPath);
    expect(project(sanitizeDirName(fixture.zhPath)).path).toBe(fixture.zhPath);
    expect(project('-work-big').path).toBeNull();
  });

  it('reads good memories in every layout: flat, nested, BOM + CRLF, Chinese', () => {
    const shop = project('-work-shop');
    const byFile = Object.fromEntries(shop.memories.map((m) => [m.file, m]));
    expect(byFile['user_role.md']).toMatchObject({ name: 'User role', type: 'user', scope: 'private', layout: 'flat' });
    expect(byFile['project_ci.md']).toMatchObject({ name: 'CI', type: 'project', layout: 'nested' });
    expect(byFile['feedback_sql.md']).toMatchObject({ name: 'No ORM', description: 'Write SQL by hand, never an ORM', type: 'feedback' });
    const zh = project(sanitizeDirName(fixture.zhPath));
    expect(zh.memories.map((m) => [m.name, m.type])).toEqual([
      ['代码审查偏好', 'feedback'],
      ['用户角色', 'user'],
    ]);
    expect(zh.problems).toEqual([]);
    expect(zh.index).toMatchObject({ exists: true, lines: 2, loaded: ['user_role.md', 'feedback_review.md'], cut: [] });
  });

  it('reports each index problem with its line', () => {
    const shop = project('-work-shop');
    expect(problemsOf(shop, 'dangling-link')).toEqual([['MEMORY.md', 5]]);
    expect(problemsOf(shop, 'duplicate-pointer')).toEqual([['MEMORY.md', 6]]);
    expect(problemsOf(shop, 'malformed-line')).toEqual([['MEMORY.md', 7]]);
    expect(problemsOf(shop, 'unsafe-link')).toContainEqual(['MEMORY.md', 9]);
    expect(problemsOf(shop, 'orphan').map(([f]) => f)).toEqual(
      expect.arrayContaining(['reference_dash.md', 'no_frontmatter.md', 'invalid_type.md', 'empty.md']),
    );
    expect(shop.problems.find((p) => p.code === 'dangling-link')).toMatchObject({ fix: 'drop-pointer', target: 'feedback_gone.md' });
  });

  it('reports bad frontmatter and types in words', () => {
    const shop = project('-work-shop');
    expect(problemsOf(shop, 'bad-frontmatter').map(([f]) => f)).toEqual(expect.arrayContaining(['bad_yaml.md', 'no_frontmatter.md', 'empty.md']));
    expect(problemsOf(shop, 'invalid-type')).toEqual([['invalid_type.md', null]]);
    expect(shop.problems.find((p) => p.file === 'bad_yaml.md')!.message).toMatch(/not valid YAML/);
    expect(shop.problems.find((p) => p.code === 'invalid-type' && p.file === 'invalid_type.md')!.message).toMatch(/"opinion"/);
  });

  it('never crashes on unreadable files and says why', () => {
    const shop = project('-work-shop');
    const why = (file: string) => shop.problems.find((p) => p.file === file && (p.code === 'unreadable' || p.code === 'unsafe-link'));
    expect(why('latin1.md')).toMatchObject({ code: 'unreadable' });
    expect(why('latin1.md')!.message).toMatch(/not valid UTF-8/);
    expect(why('binary.md')!.message).toMatch(/binary/);
    expect(why('huge.md')!.message).toMatch(/52\.4 MB, too large/);
    expect(why('folder.md')!.message).toMatch(/directory/);
    expect(why('loop_a.md')!.message).toMatch(/loops/);
    expect(why('escape_link.md')).toMatchObject({ code: 'unsafe-link' });
    if (canChangePermissions) expect(why('locked.md')!.message).toMatch(/permission/);
    // None of them shows up as a memory; dotfiles and non-markdown files are ignored.
    const files = shop.memories.map((m) => m.file);
    for (const f of ['latin1.md', 'binary.md', 'huge.md', 'folder.md', 'loop_a.md', 'escape_link.md', '.consolidate-lock', 'notes.txt'])
      expect(files).not.toContain(f);
  });

  it('scans the team directory; what only team/MEMORY.md lists is an orphan, as Claude Code does not load it', () => {
    const team = project('-work-shop').team!;
    expect(team.memories.map((m) => [m.file, m.scope])).toEqual([
      ['project_api.md', 'team'],
      ['reference_oncall.md', 'team'],
    ]);
    // project_api.md is listed in team/MEMORY.md only, reference_oncall.md nowhere: MEMORY.md points at neither.
    expect(problemsOf(team, 'orphan')).toEqual([
      ['project_api.md', null],
      ['reference_oncall.md', null],
    ]);
    expect(team.problems.find((p) => p.file === 'project_api.md')!.message).toContain('listed only in team/MEMORY.md, which Claude Code 2.1.332 does not load');
    expect(project(sanitizeDirName(fixture.zhPath)).team).toBeNull();
  });

  it('shows exactly which entries fall past the 200-line cut', () => {
    const big = project('-work-big');
    expect(big.index.lines).toBe(230);
    expect(big.index.loaded).toHaveLength(200);
    expect(big.index.cut).toEqual(Array.from({ length: 30 }, (_, i) => `project_m${200 + i}.md`));
    expect(problemsOf(big, 'over-limit')).toEqual([['MEMORY.md', 201]]);
    expect(big.problems.find((p) => p.code === 'over-limit')!.message).toMatch(/230 lines \(limit: 200\).*30 memories are never seen at session start\./);
    expect(big.index.cutMemories).toEqual(big.index.cut);
    expect(big.index.cutMissing).toEqual([]);
  });

  it('handles a missing index and a missing memory directory', () => {
    const noindex = project('-work-noindex');
    expect(noindex.index.exists).toBe(false);
    // Claude Code 2.1.332 writes a MEMORY.md listing it at the next session start (index-build.ts): not an orphan.
    expect(noindex.problems.map((p) => p.code)).toEqual(['index-built']);
    expect(noindex.index.loaded).toEqual(['feedback_tabs.md']);
    const nomem = project('-work-nomem');
    expect(nomem).toMatchObject({ exists: false, memories: [], problems: [], path: '/work/nomem', transcripts: 1 });
  });

  it('reports a file it has no permission to read, in words (as an unprivileged user)', async () => {
    // Root ignores permission bits; as root, the scan runs in a child process as `nobody`.
    const asRoot = process.getuid?.() === 0;
    if (!asRoot && !canChangePermissions) return;
    const dir = path.join(root, 'perm', 'memory');
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(path.join(dir, 'open.md'), '---\nname: Open\ndescription: readable\ntype: user\n---\n');
    await fs.writeFile(path.join(dir, 'closed.md'), '---\nname: Closed\ndescription: secret\ntype: user\n---\n');
    await fs.chmod(path.join(dir, 'closed.md'), 0o000);
    for (const d of [root, path.join(root, 'perm'), dir]) await fs.chmod(d, 0o755);
    const worker = path.join(import.meta.dirname, 'test-support', 'scan-worker.ts');
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', worker, dir], {
      cwd: path.resolve(import.meta.dirname, '../../..'),
      ...(asRoot ? { uid: 65534, gid: 65534, env: { ...process.env, HOME: '/tmp' } } : {}),
    });
    const scan = JSON.parse(stdout) as { memories: { file: string }[]; problems: { code: string; file: string; message: string }[] };
    expect(scan.memories.map((m) => m.file)).toEqual(['open.md']);
    expect(scan.problems.find((p) => p.file === 'closed.md')).toMatchObject({ code: 'unreadable', message: expect.stringMatching(/no permission/) });
    await fs.chmod(path.join(dir, 'closed.md'), 0o644);
  });

  it('scans a missing home as empty, without error', async () => {
    expect(await scanHome(path.join(root, 'nowhere'))).toEqual({ home: path.join(root, 'nowhere'), exists: false, projects: [] });
  });

  it('a rescan with a cache sees changes and only re-reads what changed', async () => {
    const cache = new HomeScanCache();
    const first = await scanHome(fixture.home, { cache, env: {} });
    const unchanged = path.join(fixture.home, 'projects', '-work-shop', 'memory', 'user_role.md');
    const cachedBefore = cache.topics.get(unchanged);
    const file = path.join(fixture.home, 'projects', '-work-noindex', 'memory', 'feedback_tabs.md');
    await fs.writeFile(file, '---\nname: Spaces\ndescription: Indent with spaces\ntype: feedback\n---\n');
    const second = await scanHome(fixture.home, { cache, env: {} });
    const name = (s: HomeScan) => s.projects.find((p) => p.dir === '-work-noindex')!.memories[0]!.name;
    expect(name(first)).toBe('Tabs');
    expect(name(second)).toBe('Spaces');
    // Unchanged files come back as the very same parsed objects: no re-read, no re-parse.
    expect(cachedBefore).toBeDefined();
    expect(cache.topics.get(unchanged)).toBe(cachedBefore);
    expect(cache.topics.get(file)!.summary!.meta.name).toBe('Spaces');
  });

  it('a rescan with a cache counts a transcript added or removed since', async () => {
    const cache = new HomeScanCache();
    const projectDir = path.join(fixture.home, 'projects', '-work-noindex');
    const count = (s: HomeScan) => s.projects.find((p) => p.dir === '-work-noindex')!.transcripts;
    const before = count(await scanHome(fixture.home, { cache, env: {} }));
    const added = path.join(projectDir, 'added-session.jsonl');
    await fs.writeFile(added, '');
    expect(count(await scanHome(fixture.home, { cache, env: {} }))).toBe(before + 1);
    await fs.rm(added);
    expect(count(await scanHome(fixture.home, { cache, env: {} }))).toBe(before);
  });

  it('a rescan with a cache says what a scan without one says, after each kind of change', async () => {
    const home = path.join(root, 'changes-home');
    const memoryDir = path.join(home, 'projects', '-work-changes', 'memory');
    await fs.mkdir(path.join(memoryDir, 'team'), { recursive: true });
    const topic = (name: string) => `---\nname: ${name}\ndescription: about ${name}\ntype: project\n---\nBody of ${name}.\n`;
    await fs.writeFile(path.join(memoryDir, 'a.md'), topic('A'));
    await fs.writeFile(path.join(memoryDir, 'b.md'), topic('B'));
    await fs.writeFile(path.join(memoryDir, 'MEMORY.md'), '- [A](a.md) — a\n- [B](b.md) — b\n');
    await fs.writeFile(path.join(memoryDir, 'team', 't.md'), topic('T'));
    const cache = new HomeScanCache();
    const untimed = (s: HomeScan) => JSON.stringify(s, (key, value: unknown) => (key === 'readAt' ? null : value));
    const agree = async (what: string) => {
      const cached = await scanHome(home, { cache, env: {} });
      expect(untimed(cached), what).toBe(untimed(await scanHome(home, { env: {} })));
      return cached;
    };
    const before = await agree('first scan');
    expect(await scanHome(home, { cache, env: {} }), 'nothing changed: the same result').toStrictEqual(before);
    const steps: [string, () => Promise<unknown>][] = [
      ['a file renamed (as many entries as before)', () => fs.rename(path.join(memoryDir, 'b.md'), path.join(memoryDir, 'c.md'))],
      [
        'a file replaced by a link to another',
        async () => {
          await fs.rm(path.join(memoryDir, 'c.md'));
          await fs.symlink('a.md', path.join(memoryDir, 'c.md'));
        },
      ],
      [
        'the link replaced by a file again',
        async () => {
          await fs.rm(path.join(memoryDir, 'c.md'));
          await fs.writeFile(path.join(memoryDir, 'c.md'), topic('C'));
        },
      ],
      ['a team file linked from the index', () => fs.appendFile(path.join(memoryDir, 'MEMORY.md'), '- [T](team/t.md) — t\n')],
      ['the linked team file removed', () => fs.rm(path.join(memoryDir, 'team', 't.md'))],
      ['a folder named like a memory', () => fs.mkdir(path.join(memoryDir, 'odd.md'))],
      ['that folder renamed (nothing else changed)', () => fs.rename(path.join(memoryDir, 'odd.md'), path.join(memoryDir, 'even.md'))],
      [
        'a memory in a subfolder',
        async () => {
          await fs.mkdir(path.join(memoryDir, 'retros'));
          await fs.writeFile(path.join(memoryDir, 'retros', 'r.md'), topic('R'));
        },
      ],
      ['the index removed', () => fs.rm(path.join(memoryDir, 'MEMORY.md'))],
      ['an index again', () => fs.writeFile(path.join(memoryDir, 'MEMORY.md'), '- [A](a.md) — a\n')],
    ];
    for (const [what, change] of steps) {
      await change();
      await agree(what);
    }
  });
});

describe('a topic file over the size limit (1 MB)', () => {
  it('is a memory marked too large, named from its beginning, counted, and still a Health problem; a binary one is not', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-big-'));
    try {
      const head = '---\nname: Big\ndescription: big file\ntype: reference\n---\n';
      const text = head + 'x'.repeat(1_300_000) + '\n';
      await fs.writeFile(path.join(dir, 'big.md'), text);
      await fs.writeFile(path.join(dir, 'small.md'), '---\nname: Small\ndescription: small file\ntype: user\n---\nbody\n');
      const zeros = await fs.open(path.join(dir, 'zeros.md'), 'w');
      await zeros.truncate(2 * 1024 * 1024);
      await zeros.close();
      const { ScanCache, scanMemoryDir } = await import('./scan-dir.js');
      const cache = new ScanCache();
      for (const scanned of [
        scanMemoryDir(dir, { scope: 'private' }),
        scanMemoryDir(dir, { scope: 'private', cache }),
        scanMemoryDir(dir, { scope: 'private', cache }),
      ]) {
        expect(scanned.memories.map((m) => [m.file, m.name, m.description, m.type, m.bytes, m.tooLarge])).toEqual([
          ['big.md', 'Big', 'big file', 'reference', Buffer.byteLength(text), true],
          ['small.md', 'Small', 'small file', 'user', expect.any(Number), false],
        ]);
        const why = (file: string) => scanned.problems.find((p) => p.file === file && p.code === 'unreadable')?.message;
        expect(why('big.md')).toMatch(/1\.3 MB, too large for a memory/);
        expect(why('zeros.md')).toMatch(/too large for a memory/);
      }
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

describe('a pointer that climbs out through a subfolder', () => {
  it('is reported as pointing outside the memory directory, whether or not a file is there (retros/../../x.md)', async () => {
    const tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-climb-')));
    try {
      const home = path.join(tmp, 'home');
      const memoryDir = path.join(home, 'projects', '-work-climb', 'memory');
      await fs.mkdir(path.join(memoryDir, 'retros'), { recursive: true });
      await fs.writeFile(path.join(memoryDir, 'user_me.md'), '---\nname: Me\ndescription: Backend\ntype: user\n---\nGo.\n');
      await fs.writeFile(path.join(memoryDir, 'MEMORY.md'), '- [Me](user_me.md) — Backend\n- [Out](retros/../../outside.md) — beside the memory folder\n');
      const problems = async () => (await scanProject(home, '-work-climb', { env: {} })).problems.filter((p) => p.line === 2).map((p) => [p.code, p.message]);
      const without = await problems();
      await fs.writeFile(path.join(memoryDir, '..', 'outside.md'), 'not a memory\n');
      expect(await problems()).toEqual(without);
      expect(without).toEqual([['unsafe-link', 'Line 2 of MEMORY.md points outside the memory directory (../outside.md); Memdir never follows such links.']]);
    } finally {
      await fs.rm(tmp, { recursive: true, force: true });
    }
  });
});
