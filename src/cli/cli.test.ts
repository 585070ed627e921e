import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './main.js';
import { COMMANDS } from './registry.js';
import { deleteMemory, renameMemory, saveIndexText } from '../main/memdir/memory-service.js';
import { buildFixtureHome, canChangePermissions, type FixtureHome } from '../main/memdir/test-support/fixture-home.js';

let root: string;
let fixture: FixtureHome;
let env: NodeJS.ProcessEnv;

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, { out: (t) => (out += t), err: (t) => (err += t), env, cwd: root });
  return { code, out, err };
}

beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-cli-'));
  fixture = await buildFixtureHome(root);
  env = { MEMDIR_DATA_DIR: path.join(root, 'data'), CLAUDE_CONFIG_DIR: fixture.home };
});
afterAll(async () => {
  if (canChangePermissions) await fs.chmod(path.join(fixture.home, 'projects', '-work-shop', 'memory', 'locked.md'), 0o644).catch(() => undefined);
  await fs.rm(root, { recursive: true, force: true });
});

describe('memdir CLI', () => {
  it('lists every command in --help, and each command documents itself', async () => {
    const { code, out } = await run('--help');
    expect(code).toBe(0);
    for (const c of COMMANDS) expect(out).toContain(c.name.join(' '));
    for (const c of COMMANDS) {
      const help = await run(...c.name, '--help');
      expect(help.code, c.name.join(' ')).toBe(0);
      expect(help.out).toContain(`Usage: memdir ${c.name.join(' ')}`);
    }
  });

  it('hooks, secrets and session alone, or with --help, name their subcommands as team does (review x4 F3)', async () => {
    for (const [family, subs] of [
      ['hooks', 'connect, disconnect, status'],
      ['secrets', 'scan'],
      ['session', 'status'],
    ] as const) {
      const alone = await run(family);
      expect(alone, family).toMatchObject({ code: 2, err: `memdir ${family}: name a subcommand (${subs}). Run \`memdir ${family} --help\`.\n` });
      const help = await run(family, '--help');
      expect(help.code, family).toBe(0);
      for (const sub of subs.split(', ')) expect(help.out, family).toContain(`memdir ${family} ${sub}: `);
    }
  });

  it("memdir session --help says Session Memory is Memdir's own, not something Claude Code 2.1.332 keeps (review s37-x6)", async () => {
    const help = await run('session', '--help');
    expect(help.out).not.toMatch(/what Claude Code keeps/);
    expect(help.out).toContain("Session Memory: Memdir's note of each live Claude Code session (Claude Code 2.1.332 keeps none) (status).");
  });

  it('where: canonical key, sanitised name and memory dir as JSON', async () => {
    const repo = path.join(root, 'some project');
    await fs.mkdir(path.join(repo, 'sub'), { recursive: true });
    const { code, out } = await run('where', path.join(repo, 'sub'), '--json');
    expect(code).toBe(0);
    const real = await fs.realpath(path.join(repo, 'sub'));
    expect(JSON.parse(out)).toMatchObject({
      key: real,
      dir: real.replace(/[^a-zA-Z0-9]/g, '-'),
      memoryDir: path.join(fixture.home, 'projects', real.replace(/[^a-zA-Z0-9]/g, '-'), 'memory'),
    });
  });

  it('where explains the key it chose: which .git, and why a worktree link was not followed', async () => {
    const repo = await fs.realpath(await fs.mkdtemp(path.join(root, 'where-repo-')));
    await fs.mkdir(path.join(repo, '.git'));
    await fs.mkdir(path.join(repo, 'pkg'));
    const inRepo = JSON.parse((await run('where', path.join(repo, 'pkg'), '--json')).out);
    expect(inRepo).toMatchObject({
      key: repo,
      via: 'repository',
      gitEntry: { path: path.join(repo, '.git'), kind: 'directory' },
      worktree: null,
      launchDir: path.join(repo, 'pkg'),
    });
    expect(inRepo.transcriptFolder).toBe(path.join(repo, 'pkg').replace(/[^a-zA-Z0-9]/g, '-'));
    // A worktree whose main repository is gone keeps its own memory, and says why.
    const wt = path.join(repo, 'pkg');
    await fs.writeFile(path.join(wt, '.git'), `gitdir: ${path.join(root, 'moved-away', '.git', 'worktrees', 'pkg')}\n`);
    const moved = await run('where', wt, '--json');
    expect(JSON.parse(moved.out)).toMatchObject({ key: wt, via: 'own-root', worktree: { valid: false } });
    const text = await run('where', wt);
    expect(text.out).toContain('was the main repository moved or deleted?');
    expect(text.out).toContain(`transcripts  ${path.join(fixture.home, 'projects', wt.replace(/[^a-zA-Z0-9]/g, '-'))}`);
  });

  it("where: a repository's shared settings move the memory, named with the file, and says whether Claude Code trusts the folder", async () => {
    const repo = await fs.realpath(await fs.mkdtemp(path.join(root, 'where-moved-')));
    const target = path.join(root, 'moved-memory');
    await fs.mkdir(path.join(repo, '.claude'));
    await fs.writeFile(path.join(repo, '.claude', 'settings.json'), JSON.stringify({ autoMemoryDirectory: target }));
    const json = JSON.parse((await run('where', repo, '--json')).out);
    expect(json).toMatchObject({
      memoryDir: target,
      autoMemoryDirectorySource: 'project',
      autoMemoryDirectoryFrom: path.join(repo, '.claude', 'settings.json'),
      autoMemoryDirectoryTrust: { trusted: false },
      ignored: [],
    });
    let text = (await run('where', repo)).out;
    expect(text).toContain(`memory       ${target}`);
    expect(text).toContain(`moved by ${path.join(repo, '.claude', 'settings.json')}`);
    expect(text).toContain('it is not trusted yet');
    const config = path.join(fixture.home, '.claude.json');
    await fs.writeFile(config, JSON.stringify({ projects: { [repo]: { hasTrustDialogAccepted: true } } }));
    try {
      text = (await run('where', repo)).out;
      expect(text).toContain(`it is trusted (${repo} in ${config})`);
    } finally {
      await fs.rm(config);
    }
  });

  it('scan --json follows the documented shape', async () => {
    const { code, out } = await run('scan', '--json');
    expect(code).toBe(0);
    const scan = JSON.parse(out);
    expect(scan.home).toBe(fixture.home);
    const shop = scan.projects.find((p: { dir: string }) => p.dir === '-work-shop');
    expect(Object.keys(shop)).toEqual(expect.arrayContaining(['dir', 'path', 'memoryDir', 'index', 'memories', 'team', 'problems']));
    expect(Object.keys(shop.index)).toEqual(expect.arrayContaining(['exists', 'lines', 'bytes', 'loaded', 'cut']));
    expect(Object.keys(shop.memories[0])).toEqual(expect.arrayContaining(['file', 'name', 'description', 'type']));
    expect(Object.keys(shop.problems[0])).toEqual(expect.arrayContaining(['code', 'file', 'line', 'message']));
    expect(shop.team.memories).toHaveLength(2);
  });

  it('scan keeps its cache in the data dir, and a later scan still sees every change', async () => {
    const first = await run('scan', '--json');
    const cacheDir = path.join(root, 'data', 'scan-cache');
    expect((await fs.readdir(cacheDir)).filter((f) => f.endsWith('.cache'))).toHaveLength(1);
    expect(JSON.parse((await run('scan', '--json')).out)).toEqual(JSON.parse(first.out));
    const file = path.join(fixture.home, 'projects', '-work-big', 'memory', 'project_m3.md');
    const before = await fs.readFile(file);
    await fs.writeFile(file, '---\nname: Renamed\ndescription: use case: changed after the cache was written\ntype: project\n---\n');
    try {
      const big = JSON.parse((await run('scan', '--json')).out).projects.find((p: { dir: string }) => p.dir === '-work-big');
      expect(big.memories.find((m: { file: string }) => m.file === 'project_m3.md')).toMatchObject({
        name: 'Renamed',
        description: 'use case: changed after the cache was written',
      });
    } finally {
      await fs.writeFile(file, before);
    }
  });

  it('a missing home scans as empty, exit 0', async () => {
    const { code, out } = await run('scan', '--json', '--home', path.join(root, 'nope'));
    expect(code).toBe(0);
    expect(JSON.parse(out)).toEqual({ home: path.join(root, 'nope'), exists: false, projects: [] });
  });

  it('lint exits 1 with problems, --fix repairs what is safe and records it in history', async () => {
    // No MEMORY.md: Claude Code 2.1.332 writes one listing the memory at the next session start, so nothing is unlisted.
    const built = await run('lint', '--project', '-work-noindex', '--json');
    expect(built.code).toBe(0);
    expect(JSON.parse(built.out).projects[0].problems.map((p: { code: string }) => p.code)).toEqual(['index-built']);
    // An empty MEMORY.md it keeps as it is, and loads nothing: the memory is unlisted.
    await fs.writeFile(path.join(fixture.home, 'projects', '-work-noindex', 'memory', 'MEMORY.md'), '');
    const before = await run('lint', '--project', '-work-noindex', '--json');
    expect(before.code).toBe(1);
    expect(JSON.parse(before.out).projects[0].problems.map((p: { code: string }) => p.code)).toEqual(['orphan']);
    const fixed = await run('lint', '--project', '-work-noindex', '--fix', '--json');
    expect(fixed.code).toBe(0);
    expect(JSON.parse(fixed.out).projects[0].fixed).toEqual([{ kind: 'add-to-index', file: 'feedback_tabs.md', line: null, scope: 'private' }]);
    const history = await run('history', '-work-noindex', '--json');
    expect(JSON.parse(history.out).entries[0]).toMatchObject({ source: 'fix' });
    const clean = await run('lint', '--project', '-work-noindex');
    expect(clean.code).toBe(0);
    expect(clean.out).toMatch(/No problems/);
  });

  it('lint --fix skips a team orphan when MEMORY.md is one Memdir will not edit, says why, and writes nothing', async () => {
    // A home of its own: the shared fixture home's project count is asserted elsewhere.
    const home = path.join(root, 'teamro-home');
    const memoryDir = path.join(home, 'projects', '-work-teamro', 'memory');
    await fs.mkdir(path.join(memoryDir, 'team'), { recursive: true });
    const latin1 = Buffer.from('- [Env](team/env.md) \u2014 caf\xe9\n', 'latin1');
    await fs.writeFile(path.join(memoryDir, 'MEMORY.md'), latin1);
    await fs.writeFile(path.join(memoryDir, 'team', 'env.md'), '---\nname: Env\ndescription: the environment\ntype: project\n---\nEnv.\n');
    await fs.writeFile(path.join(memoryDir, 'team', 'oncall.md'), '---\nname: Oncall\ndescription: who is on call\ntype: project\n---\nOncall.\n');
    const fixed = await run('lint', '--home', home, '--project', '-work-teamro', '--fix');
    expect(fixed.err).toBe('');
    expect(fixed.code).toBe(1);
    expect(fixed.out).not.toMatch(/fixed add-to-index/);
    expect(fixed.out).toMatch(/team\/oncall\.md[^\n]*Memdir cannot add that pointer: MEMORY\.md /);
    expect(await fs.readFile(path.join(memoryDir, 'MEMORY.md'))).toEqual(latin1);
    const json = JSON.parse((await run('lint', '--home', home, '--project', '-work-teamro', '--fix', '--json')).out);
    expect(json.projects[0].fixed).toEqual([]);
    expect(json.projects[0].problems.find((p: { code: string; scope: string }) => p.code === 'orphan' && p.scope === 'team')).toMatchObject({
      file: 'oncall.md',
      fix: null,
    });
    expect((await run('lint', '--help')).out).toContain('a team orphan has no\nfix ("fix": null) and its message says why');
  });

  it('lint says what Claude Code reads of a description a # comment cuts short, and --fix quotes it before the orphan is indexed', async () => {
    const home = path.join(root, 'cut-home');
    const memory = path.join(home, 'projects', '-work-retros', 'memory');
    await fs.mkdir(memory, { recursive: true });
    // An empty MEMORY.md: Claude Code keeps it (it builds one only when there is none), so the memories are unlisted.
    await fs.writeFile(path.join(memory, 'MEMORY.md'), '');
    await fs.writeFile(path.join(memory, 'retro.md'), '---\nname: Retro AI\ndescription: PRs #45-#61 introduced the AI assistant\ntype: project\n---\nbody\n');
    const before = await run('lint', '--home', home, '--project', '-work-retros');
    expect(before.code).toBe(1);
    expect(before.out).toContain('Claude Code reads "PRs", not "PRs #45-#61 introduced the AI assistant"');
    const fixed = await run('lint', '--home', home, '--project', '-work-retros', '--fix', '--json');
    expect(fixed.code).toBe(0);
    expect(
      JSON.parse(fixed.out)
        .projects[0].fixed.map((f: { kind: string }) => f.kind)
        .sort(),
    ).toEqual(['add-to-index', 'quote-value']);
    expect(await fs.readFile(path.join(memory, 'retro.md'), 'utf8')).toContain('description: "PRs #45-#61 introduced the AI assistant"\n');
    expect(await fs.readFile(path.join(memory, 'MEMORY.md'), 'utf8')).toBe('- [Retro AI](retro.md) — PRs #45-#61 introduced the AI assistant\n');
  });

  it('lint --fix points at a team memory listed only in team/MEMORY.md from MEMORY.md as team/x.md, and leaves team/MEMORY.md as it is', async () => {
    const home = path.join(root, 'team-fix-home');
    const memory = path.join(home, 'projects', '-work-teamfix', 'memory');
    await fs.mkdir(path.join(memory, 'team'), { recursive: true });
    await fs.writeFile(path.join(memory, 'MEMORY.md'), '- [Own](own.md) — mine\n');
    await fs.writeFile(path.join(memory, 'own.md'), '---\nname: Own\ndescription: mine\ntype: user\n---\n');
    await fs.writeFile(path.join(memory, 'team', 'MEMORY.md'), '- [Deploys](deploys.md) — how we ship\n');
    await fs.writeFile(path.join(memory, 'team', 'deploys.md'), '---\nname: Deploys\ndescription: how we ship\ntype: project\n---\n');
    const before = await run('lint', '--home', home, '--project', '-work-teamfix', '--json');
    expect(JSON.parse(before.out).projects[0].problems).toMatchObject([{ code: 'orphan', file: 'deploys.md', fix: 'add-to-index', scope: 'team' }]);
    const fixed = await run('lint', '--home', home, '--project', '-work-teamfix', '--fix', '--json');
    expect(fixed.code).toBe(0);
    expect(JSON.parse(fixed.out).projects[0]).toMatchObject({ problems: [], fixed: [{ kind: 'add-to-index', file: 'deploys.md', line: null, scope: 'team' }] });
    expect(await fs.readFile(path.join(memory, 'MEMORY.md'), 'utf8')).toBe('- [Own](own.md) — mine\n- [Deploys](team/deploys.md) — how we ship\n');
    expect(await fs.readFile(path.join(memory, 'team', 'MEMORY.md'), 'utf8')).toBe('- [Deploys](deploys.md) — how we ship\n');
  });

  it('lint --fix and show keep two names that differ only by Unicode form apart (NFD beside NFC)', async () => {
    const home = path.join(root, 'form-home');
    const memory = path.join(home, 'projects', '-work-cafe', 'memory');
    await fs.mkdir(memory, { recursive: true });
    // An empty MEMORY.md: Claude Code keeps it (it builds one only when there is none), so the memories are unlisted.
    await fs.writeFile(path.join(memory, 'MEMORY.md'), '');
    const topic = (d: string) => `---\nname: Café\ndescription: ${d}\ntype: reference\n---\n${d} body\n`;
    await fs.writeFile(path.join(memory, 'cafe\u0301.md'), topic('nfd cafe'));
    await fs.writeFile(path.join(memory, 'caf\u00e9.md'), topic('nfc cafe'));
    const fixed = await run('lint', '--home', home, '--project', '-work-cafe', '--fix');
    expect(fixed.code).toBe(0);
    const index = await fs.readFile(path.join(memory, 'MEMORY.md'), 'utf8');
    expect(index.split('\n').filter(Boolean).sort()).toEqual(['- [Café](cafe\u0301.md) — nfd cafe', '- [Café](caf\u00e9.md) — nfc cafe'].sort());
    const shown = await run('show', '--home', home, '-work-cafe', 'cafe\u0301.md', '--json');
    expect(JSON.parse(shown.out)).toMatchObject({ file: 'cafe\u0301.md', description: 'nfd cafe' });
  });

  it('lint --fix writes pointers the index rules allow: a long description cut to one short hook, control and bidi characters dropped, both brackets escaped', async () => {
    const home = path.join(root, 'pointer-home');
    const memory = path.join(home, 'projects', '-work-pointers', 'memory');
    await fs.mkdir(memory, { recursive: true });
    // An empty MEMORY.md: Claude Code keeps it (it builds one only when there is none), so the memories are unlisted.
    await fs.writeFile(path.join(memory, 'MEMORY.md'), '');
    const topic = (name: string, description: string) => `---\nname: ${name}\ndescription: ${description}\ntype: project\n---\nbody\n`;
    await fs.writeFile(path.join(memory, 'longdesc.md'), topic('Long', 'word '.repeat(2000).trim()));
    // YAML's own escapes: a TAB, a BEL and a right-to-left override in a quoted description.
    await fs.writeFile(path.join(memory, 'ctrl.md'), topic('Ctrl\u0007', '"tab\\there\\abell \\u202Eevil"'));
    await fs.writeFile(path.join(memory, 'brk.md'), topic('"Br]ack[et"', 'brackets'));
    await fs.writeFile(path.join(memory, 'br[ack]et.md'), topic('"br[ack]et"', 'both'));
    const fixed = await run('lint', '--home', home, '--project', '-work-pointers', '--fix', '--json');
    expect(fixed.code).toBe(0);
    // Claude Code's advice for an index entry is "one line, under ~150 characters" (LONG_HOOK): the hook is cut at a word, with an ellipsis.
    expect(await fs.readFile(path.join(memory, 'MEMORY.md'), 'utf8')).toBe(
      [
        '- [br\\[ack\\]et](br[ack]et.md) — both',
        '- [Br\\]ack\\[et](brk.md) — brackets',
        '- [Ctrl](ctrl.md) — tab herebell evil',
        `- [Long](longdesc.md) — ${Array.from({ length: 29 }, () => 'word').join(' ')}\u2026`,
        '',
      ].join('\n'),
    );
    const clean = await run('lint', '--home', home, '--project', '-work-pointers', '--json');
    expect(JSON.parse(clean.out).projects[0].problems).toEqual([]);
  });

  it('lint --fix stops adding orphans at the cut and says what remains; --past-cut adds them anyway', async () => {
    const home = path.join(root, 'full-home');
    const memory = path.join(home, 'projects', '-work-full', 'memory');
    await fs.mkdir(memory, { recursive: true });
    const topic = (i: number) => `---\nname: Feed ${i}\ndescription: feed ${i} arrives hourly\ntype: project\n---\n`;
    for (let i = 0; i < 202; i++) await fs.writeFile(path.join(memory, `feed_${i}.md`), topic(i));
    await fs.writeFile(
      path.join(memory, 'MEMORY.md'),
      `${Array.from({ length: 199 }, (_, i) => `- [Feed ${i}](feed_${i}.md) — feed ${i} arrives hourly`).join('\n')}\n`,
    );
    const fixed = await run('lint', '--home', home, '--project', '-work-full', '--fix', '--json');
    const report = JSON.parse(fixed.out).projects[0];
    expect(report.fixed.map((f: { file: string }) => f.file)).toEqual(['feed_199.md']);
    expect(report.heldBack).toEqual([
      {
        kind: 'add-to-index',
        file: 'feed_200.md',
        scope: 'private',
        reason: 'its pointer would fall below the cut: MEMORY.md is 200 of 200 lines, 10,069 of 25,000 characters',
      },
      {
        kind: 'add-to-index',
        file: 'feed_201.md',
        scope: 'private',
        reason: 'its pointer would fall below the cut: MEMORY.md is 200 of 200 lines, 10,069 of 25,000 characters',
      },
    ]);
    expect(fixed.code).toBe(1);
    expect((await fs.readFile(path.join(memory, 'MEMORY.md'), 'utf8')).trim().split('\n')).toHaveLength(200);
    const text = await run('lint', '--home', home, '--project', '-work-full', '--fix');
    expect(text.out).toContain('held back 2 orphans (feed_200.md, feed_201.md): its pointer would fall below the cut');
    expect(text.out).toContain('--past-cut');
    const past = await run('lint', '--home', home, '--project', '-work-full', '--fix', '--past-cut', '--json');
    expect(JSON.parse(past.out).projects[0].fixed).toHaveLength(2);
    expect(JSON.parse(past.out).projects[0].problems.map((p: { code: string }) => p.code)).toEqual(['over-limit']);
  });

  it('show prints the index with what is cut, or one file', async () => {
    const index = await run('show', '-work-big');
    expect(index.code).toBe(0);
    expect(index.out).toMatch(/200 pointers reach the agent, 30 are cut/);
    expect(index.out).toContain('CUT     project_m229.md');
    const file = await run('show', '-work-shop', 'user_role.md', '--json');
    expect(JSON.parse(file.out)).toMatchObject({ file: 'user_role.md', name: 'User role', type: 'user' });
    const escape = await run('show', '-work-shop', '../../../etc/passwd');
    expect(escape.code).toBe(2);
    expect(escape.err).toMatch(/outside the memory directory/);
  });

  it('history and restore bring back a deleted memory', async () => {
    const memoryDir = path.join(fixture.home, 'projects', sanitized(fixture.zhPath), 'memory');
    await run('history', sanitized(fixture.zhPath));
    const original = await fs.readFile(path.join(memoryDir, 'user_role.md'), 'utf8');
    await fs.rm(path.join(memoryDir, 'user_role.md'));
    const { out } = await run('history', sanitized(fixture.zhPath), '--json');
    const entries = JSON.parse(out).entries as { rev: string; source: string; files: { path: string; status: string }[] }[];
    expect(entries[0]).toMatchObject({ source: 'external', files: [{ path: 'user_role.md', status: 'deleted' }] });
    const restored = await run('restore', sanitized(fixture.zhPath), entries[1]!.rev, 'user_role.md');
    expect(restored.code).toBe(0);
    expect(await fs.readFile(path.join(memoryDir, 'user_role.md'), 'utf8')).toBe(original);
    // A file no change touched: said so, not "no history yet" of a project that has some.
    const none = await run('history', sanitized(fixture.zhPath), '--file', 'nosuch.md');
    expect(none).toMatchObject({ code: 0, out: `No recorded change touches nosuch.md in ${memoryDir} (${entries.length + 1} changes are recorded).\n` });
  });

  it('restore brings a deleted memory back with its pointer where it was; undo takes the restore back', async () => {
    const memoryDir = path.join(fixture.home, 'projects', sanitized(fixture.zhPath), 'memory');
    const index = await fs.readFile(path.join(memoryDir, 'MEMORY.md'), 'utf8');
    await run('history', sanitized(fixture.zhPath));
    // Deleted the way Claude Code deletes: the file and its line.
    await fs.rm(path.join(memoryDir, 'feedback_review.md'));
    await fs.writeFile(
      path.join(memoryDir, 'MEMORY.md'),
      index
        .split('\n')
        .filter((l) => !l.includes('feedback_review.md'))
        .join('\n'),
    );
    const entries = JSON.parse((await run('history', sanitized(fixture.zhPath), '--json')).out).entries as { rev: string }[];
    const restored = await run('restore', sanitized(fixture.zhPath), entries[1]!.rev, 'feedback_review.md');
    expect(restored).toMatchObject({ code: 0, err: '' });
    expect(restored.out).toContain('The pointer to feedback_review.md is back at line 2 of MEMORY.md, where it was.');
    expect(await fs.readFile(path.join(memoryDir, 'MEMORY.md'), 'utf8')).toBe(index);
    const rev = /memdir undo \S+ (\w+)/.exec(restored.out)![1]!;
    const undone = await run('undo', sanitized(fixture.zhPath), rev, '--json');
    expect(JSON.parse(undone.out).undone).toMatchObject({ source: 'restore', summary: expect.stringMatching(/^Undo: Restored feedback_review\.md/) });
    await expect(fs.access(path.join(memoryDir, 'feedback_review.md'))).rejects.toThrow();
    expect(await fs.readFile(path.join(memoryDir, 'MEMORY.md'), 'utf8')).not.toContain('feedback_review.md');
  });

  it('restore of a deleted memory whose name Claude Code wrote again stops, naming it; --as restores it beside it, --overwrite-changed over it', async () => {
    // A home of its own: the fixture's projects are counted elsewhere.
    const home = path.join(root, 'home-taken');
    const memoryDir = path.join(home, 'projects', '-w-taken', 'memory');
    await fs.mkdir(memoryDir, { recursive: true });
    const restore = async (...argv: string[]) => {
      let out = '';
      let err = '';
      const code = await runCli(['restore', ...argv], { out: (t) => (out += t), err: (t) => (err += t), env: { ...env, CLAUDE_CONFIG_DIR: home }, cwd: root });
      return { code, out, err };
    };
    const old = '---\nname: A\ndescription: alpha\ntype: feedback\n---\n\nOLD user fact\n';
    const cc = '---\nname: A\ndescription: alpha new\ntype: feedback\n---\n\nNEW CC fact\n';
    await fs.writeFile(path.join(memoryDir, 'a.md'), old);
    await fs.writeFile(path.join(memoryDir, 'MEMORY.md'), '- [A](a.md) — alpha\n');
    const { entry } = await deleteMemory({ memoryDir, scope: 'private', dataDir: env.MEMDIR_DATA_DIR! }, 'a.md');
    await fs.writeFile(path.join(memoryDir, 'a.md'), cc);
    await fs.writeFile(path.join(memoryDir, 'MEMORY.md'), '- [A](a.md) — alpha new\n');
    const refused = await restore('-w-taken', `${entry!.rev}~1`, 'a.md');
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('Nothing was restored: a.md holds another memory now ("A", written by "Changes made outside Memdir")');
    expect(refused.err).toContain('--as');
    expect(await fs.readFile(path.join(memoryDir, 'a.md'), 'utf8')).toBe(cc);
    const beside = await restore('-w-taken', `${entry!.rev}~1`, 'a.md', '--as', 'a_old.md');
    expect(beside.code).toBe(0);
    expect(await fs.readFile(path.join(memoryDir, 'a_old.md'), 'utf8')).toBe(old);
    expect(await fs.readFile(path.join(memoryDir, 'MEMORY.md'), 'utf8')).toBe('- [A](a.md) — alpha new\n- [A](a_old.md) — alpha\n');
    const anyway = await restore('-w-taken', `${entry!.rev}~1`, 'a.md', '--overwrite-changed');
    expect(anyway.code).toBe(0);
    expect(await fs.readFile(path.join(memoryDir, 'a.md'), 'utf8')).toBe(old);
  });

  it('restore of a memory over an edit Claude Code made to it since stops, naming that edit; --overwrite-changed restores it', async () => {
    const home = path.join(root, 'home-edited');
    const memoryDir = path.join(home, 'projects', '-w-edited', 'memory');
    await fs.mkdir(memoryDir, { recursive: true });
    const memdir = async (...argv: string[]) => {
      let out = '';
      let err = '';
      const code = await runCli(argv, { out: (t) => (out += t), err: (t) => (err += t), env: { ...env, CLAUDE_CONFIG_DIR: home }, cwd: root });
      return { code, out, err };
    };
    const old = '---\nname: A\ndescription: alpha\ntype: feedback\n---\n\nOLD user fact\n';
    const cc = '---\nname: A\ndescription: alpha\ntype: feedback\n---\n\nOLD user fact, and Claude Code added this.\n';
    await fs.writeFile(path.join(memoryDir, 'a.md'), old);
    await fs.writeFile(path.join(memoryDir, 'MEMORY.md'), '- [A](a.md) — alpha\n');
    // History starts with the memory as it is; then Claude Code edits it.
    const [point] = (JSON.parse((await memdir('history', '-w-edited', '--json')).out) as { entries: { rev: string }[] }).entries;
    await fs.writeFile(path.join(memoryDir, 'a.md'), cc);
    const refused = await memdir('restore', '-w-edited', point!.rev, 'a.md');
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('Nothing was restored: a.md was changed outside Memdir since (by Claude Code or another program');
    expect(refused.err).toContain('--overwrite-changed');
    expect(await fs.readFile(path.join(memoryDir, 'a.md'), 'utf8')).toBe(cc);
    const anyway = await memdir('restore', '-w-edited', point!.rev, 'a.md', '--overwrite-changed');
    expect(anyway.code).toBe(0);
    expect(await fs.readFile(path.join(memoryDir, 'a.md'), 'utf8')).toBe(old);
  });

  it('undo out of order stops with a sentence naming the later change, and says how to undo anyway', async () => {
    // A home of its own: the fixture's projects are counted elsewhere.
    const home = path.join(root, 'undo-home');
    const memoryDir = path.join(home, 'projects', '-work-undo', 'memory');
    await fs.mkdir(memoryDir, { recursive: true });
    await fs.writeFile(path.join(memoryDir, 'a.md'), '---\nname: A\ndescription: about a\ntype: project\n---\nbody\n');
    await fs.writeFile(path.join(memoryDir, 'MEMORY.md'), '- [A](a.md) — about a\n');
    const where = { memoryDir, scope: 'private' as const, dataDir: env.MEMDIR_DATA_DIR! };
    const renamed = await renameMemory(where, 'a.md', 'b.md');
    const deleted = await deleteMemory(where, 'b.md');
    const refused = await run('undo', '--home', home, '-work-undo', renamed.entry!.rev);
    expect(refused).toEqual({
      code: 2,
      out: '',
      err:
        'memdir undo: Nothing was undone: since "Rename a.md to b.md", b.md was deleted by "Delete b.md". Undo that first, or undo anyway (what is there now stays in history).\n' +
        'memdir undo: Run it again with --overwrite-changed to undo anyway.\n',
    });
    expect(await fs.readdir(memoryDir)).toEqual(['MEMORY.md']);
    const anyway = await run('undo', '--home', home, '-work-undo', renamed.entry!.rev, '--overwrite-changed');
    expect(anyway).toMatchObject({ code: 0, out: expect.stringMatching(/^Undo: Rename a\.md to b\.md \(2 files changed\)\./) });
    expect((await fs.readdir(memoryDir)).sort()).toEqual(['MEMORY.md', 'a.md']);
    expect(await run('undo', '--home', home, '-work-undo', renamed.entry!.rev)).toEqual({
      code: 0,
      out: 'Nothing to undo: it is already that way.\n',
      err: '',
    });
    // The delete is undone too: undoing it again would bring the memory back a second time, as b.md.
    expect(await run('undo', '--home', home, '-work-undo', deleted.entry!.rev, '--overwrite-changed')).toEqual({
      code: 0,
      out: 'Nothing to undo: it is already that way.\nb.md is back already, as a.md, since "Undo: Rename a.md to b.md" (undone anyway): it is not brought back twice.\n',
      err: '',
    });
    expect((await fs.readdir(memoryDir)).sort()).toEqual(['MEMORY.md', 'a.md']);
  });

  it('memdir undo of a MEMORY.md save after Claude Code appended a line puts the removed section back and keeps that line; a line changed on both sides is quoted', async () => {
    const home = path.join(root, 'undo-index-home');
    const memoryDir = path.join(home, 'projects', '-work-undoidx', 'memory');
    await fs.mkdir(memoryDir, { recursive: true });
    await fs.writeFile(path.join(memoryDir, 'a.md'), '---\nname: A\ndescription: about a\ntype: project\n---\nbody\n');
    const before = '- [A](a.md) — about a\n## Rules\nNever push to main on Fridays.\n';
    await fs.writeFile(path.join(memoryDir, 'MEMORY.md'), before);
    const where = { memoryDir, scope: 'private' as const, dataDir: env.MEMDIR_DATA_DIR! };
    const saved = await saveIndexText(where, '- [A](a.md) — about a\n', before);
    await fs.writeFile(path.join(memoryDir, 'MEMORY.md'), '- [A](a.md) — about a\n- [B](b.md) — from Claude Code\n');
    expect(await run('undo', '--home', home, '-work-undoidx', saved.entry!.rev)).toMatchObject({
      code: 0,
      out: expect.stringMatching(/^Undo: Edit MEMORY\.md/),
    });
    expect(await fs.readFile(path.join(memoryDir, 'MEMORY.md'), 'utf8')).toBe(`${before}- [B](b.md) — from Claude Code\n`);

    const edited = await saveIndexText(where, (await fs.readFile(path.join(memoryDir, 'MEMORY.md'), 'utf8')).replace('Fridays', 'Fridays or Mondays'));
    const since = (await fs.readFile(path.join(memoryDir, 'MEMORY.md'), 'utf8')).replace('or Mondays', 'or holidays');
    await fs.writeFile(path.join(memoryDir, 'MEMORY.md'), since);
    const refused = await run('undo', '--home', home, '-work-undoidx', edited.entry!.rev);
    expect(refused).toMatchObject({ code: 2, err: expect.stringContaining('"Never push to main on Fridays or holidays."') });
    expect(await fs.readFile(path.join(memoryDir, 'MEMORY.md'), 'utf8')).toBe(since);
    expect(await run('undo', '--home', home, '-work-undoidx', edited.entry!.rev, '--overwrite-changed')).toMatchObject({ code: 0 });
    expect(await fs.readFile(path.join(memoryDir, 'MEMORY.md'), 'utf8')).toBe(since.replace(' or holidays', ''));
  });

  it('says the limits it shares with the app in sentences: the recall query', async () => {
    const r = await run('recall', '--project', '-work-shop', '--query', 'q'.repeat(20_001), '--offline');
    expect(r).toEqual({ code: 2, out: '', err: 'memdir recall: The query is 20,001 characters; a recall query can be at most 20,000 characters.\n' });
  });

  it('an option followed by another option name has no value: "--query needs a value", for every option that takes one', async () => {
    const home = fixture.home;
    const r = await run('recall', '--project', '-work-shop', '--query', '--home', home);
    expect(r).toEqual({ code: 2, out: '', err: 'memdir recall: --query needs a value. Run `memdir recall --help`.\n' });
    expect((await run('show', '-work-shop', '--home', '--json')).err).toBe('memdir show: --home needs a value. Run `memdir show --help`.\n');
    expect((await run('recall', '--project', '-work-shop', '--query=--home', '--home', home, '--offline')).err).not.toContain('needs a value');
    // A value that only looks like an option is still a value: a project directory name starts with a dash.
    expect((await run('recall', '--project', '-work-shop', '--query', '--not-an-option', '--home', home, '--offline')).err).not.toContain('needs a value');
  });

  it('usage and I/O errors exit 2 with one line', async () => {
    for (const argv of [['frobnicate'], ['where'], ['scan', '--bogus'], ['show', 'no-such-project-dir'], ['restore', '-work-shop', '--not-a-rev']]) {
      const { code, err } = await run(...argv);
      expect(code, argv.join(' ')).toBe(2);
      expect(err.trim().split('\n'), argv.join(' ')).toHaveLength(1);
    }
  });

  it('the installed entry point runs as a real process', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'memdir.ts'), 'scan', '--json'], {
      env: { ...process.env, ...env },
    });
    expect(JSON.parse(stdout).projects.length).toBe(5);
  });
});

function sanitized(p: string): string {
  return p.replace(/[^a-zA-Z0-9]/g, '-');
}
