import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppContext } from '../app/app-context.js';
import { buildFixtureHome, canChangePermissions, type FixtureHome } from '../memdir/test-support/fixture-home.js';
import { createAppDispatcher } from './index.js';
import type { Dispatcher } from './dispatch.js';
import type { AppEvent } from '../../shared/contract/events.js';

let root: string;
let fixture: FixtureHome;
let ctx: AppContext;
let api: Dispatcher;
const mem = (dir: string) => path.join(fixture.home, 'projects', dir, 'memory');
const shop = () => mem('-work-shop');
type Doc = {
  ok: true;
  result: {
    text: string;
    memoryDir: string;
    type: string | null;
    rawType: string | null;
    frontmatter: string | null;
    frontmatterError: string | null;
    body: string;
  };
};

beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-api-'));
  fixture = await buildFixtureHome(root);
  ctx = await AppContext.create({ homeFlag: fixture.home, dataDir: path.join(root, 'data'), env: {} });
  api = createAppDispatcher(ctx);
});
afterAll(async () => {
  await ctx.close();
  if (canChangePermissions) await fs.chmod(path.join(fixture.home, 'projects', '-work-shop', 'memory', 'locked.md'), 0o644).catch(() => undefined);
  await fs.rm(root, { recursive: true, force: true });
});

describe('the app API', () => {
  it('answers the dashboard while the background services start, and every other call only once they have', async () => {
    const opened = await AppContext.open({ homeFlag: fixture.home, dataDir: path.join(root, 'data-open'), env: {}, watch: true });
    const early = createAppDispatcher(opened);
    try {
      const [list, hooks] = await Promise.all([early.call('projects.list', {}), early.call('hooks.status', {})]);
      expect(list).toMatchObject({ ok: true, result: { home: fixture.home } });
      // Asked before the hook server was up, the status still says this app takes the events: not a half-started answer.
      expect(hooks).toMatchObject({ ok: true, result: { listening: true } });
    } finally {
      await opened.close();
    }
  });

  it('with the services held for the first list (the headless host), starts them once it is answered, or without it when no window asks', async () => {
    for (const asked of [true, false]) {
      const opened = await AppContext.open({
        homeFlag: fixture.home,
        dataDir: path.join(root, `data-held-${asked}`),
        env: {},
        watch: true,
        servicesAfterFirstList: true,
      });
      const early = createAppDispatcher(opened);
      try {
        const hooks = early.call('hooks.status', {});
        if (asked) expect(await early.call('projects.list', {})).toMatchObject({ ok: true, result: { home: fixture.home } });
        expect(await hooks).toMatchObject({ ok: true, result: { listening: true } });
      } finally {
        await opened.close();
      }
    }
  });

  it('closes while its services still wait for the first list, and still answers what it holds', async () => {
    const opened = await AppContext.open({
      homeFlag: fixture.home,
      dataDir: path.join(root, 'data-held-close'),
      env: {},
      watch: true,
      servicesAfterFirstList: true,
    });
    await opened.close();
    expect(await createAppDispatcher(opened).call('app.info', {})).toMatchObject({ ok: true, result: { home: fixture.home } });
  });

  it('rejects unknown calls and bad payloads with a typed error, never a crash', async () => {
    expect(await api.call('nope', {})).toMatchObject({ ok: false, error: { code: 'invalid-input' } });
    expect(await api.call('projects.get', { dir: 42 })).toMatchObject({
      ok: false,
      error: { code: 'invalid-input', message: 'The project folder name is not the right kind of value (it should be text).' },
    });
    expect(await api.call('memories.create', { dir: '-work-shop', fields: { name: '', description: 'x', type: 'opinion' }, body: '' })).toMatchObject({
      ok: false,
      error: { code: 'invalid-input' },
    });
    expect(await api.call('projects.get', { dir: '../../etc' })).toMatchObject({ ok: false, error: { code: 'invalid-input' } });
    expect(await api.call('projects.get', { dir: '-no-such' })).toMatchObject({ ok: false, error: { code: 'not-found' } });
  });

  it('a refusal an input overrules names that input in the appʼs error, as the CLI names its flag (plain http to another machine)', async () => {
    const r = await api.call('team.connect', {
      dir: '-work-shop',
      server: 'http://sync.example.com',
      team: 'platform',
      token: `mdt_${'0'.repeat(16)}_${'A'.repeat(43)}`,
    });
    expect(r).toMatchObject({
      ok: false,
      error: { code: 'invalid-input', message: expect.stringContaining('would send your token unencrypted'), overruledBy: 'allowHttp' },
    });
  });

  it('lists projects for the dashboard with counts, load and problems', async () => {
    const result = await api.call('projects.list', {});
    expect(result.ok).toBe(true);
    const projects = (result as { result: { projects: { dir: string; private: { total: number }; problems: { error: number }; index: { cut: string[] } }[] } })
      .result.projects;
    const big = projects.find((p) => p.dir === '-work-big')!;
    expect(big.private.total).toBe(230);
    expect(big.index.cut).toHaveLength(30);
    expect(projects.find((p) => p.dir === '-work-shop')!.problems.error).toBeGreaterThan(0);
  });

  it('refuses names with ../ or a slash, and a user memory for the team, in words', async () => {
    const fields = { name: 'x', description: 'y', type: 'feedback' };
    for (const file of ['../escape.md', 'a/b.md']) {
      const r = await api.call('memories.create', { dir: '-work-noindex', scope: 'private', memoryDir: mem('-work-noindex'), fields, body: '', file });
      expect(r).toMatchObject({ ok: false, error: { code: 'invalid-name' } });
    }
    const team = await api.call('memories.create', { dir: '-work-shop', scope: 'team', memoryDir: shop(), fields: { ...fields, type: 'user' }, body: '' });
    expect(team).toMatchObject({ ok: false, error: { code: 'scope-refused', message: expect.stringContaining('always stays private') } });
  });

  it('says a memory past the size limit in a sentence, whether the request or the written file is too big', async () => {
    const fields = { name: 'Huge', description: 'A pasted log', type: 'project' };
    const pasted = await api.call('memories.create', {
      dir: '-work-noindex',
      scope: 'private',
      memoryDir: mem('-work-noindex'),
      fields,
      body: 'x'.repeat(2 * 1024 * 1024),
    });
    expect(pasted).toEqual({
      ok: false,
      error: {
        code: 'invalid-input',
        message: 'This memory is 2.1 MB; a memory can be at most 1 MB.',
        issues: ['This memory is 2.1 MB; a memory can be at most 1 MB.'],
      },
    });
    // 400,000 Chinese characters pass the request's length check but are 1.2 MB as written.
    const chinese = await api.call('memories.create', {
      dir: '-work-noindex',
      scope: 'private',
      memoryDir: mem('-work-noindex'),
      fields,
      body: '记'.repeat(400_000),
    });
    expect(chinese).toEqual({ ok: false, error: { code: 'invalid-input', message: 'This memory is 1.2 MB; a memory can be at most 1 MB.' } });
    expect(await fs.readdir(path.join(fixture.home, 'projects', '-work-noindex', 'memory'))).not.toContain('project_huge.md');
  });

  it('a name that never was a memory is not said to be gone; a file that vanished since Memdir saw it is', async () => {
    const never = await api.call('memories.read', { dir: '-work-shop', scope: 'private', file: 'never-existed.md' });
    expect(never).toMatchObject({
      ok: false,
      error: { code: 'not-found', message: expect.stringMatching(/^There is no memory named "never-existed\.md" in \S/) },
    });
    const team = await api.call('memories.read', { dir: '-work-shop', scope: 'team', file: 'never-existed.md' });
    expect(team).toMatchObject({ ok: false, error: { code: 'not-found', message: expect.stringContaining('in the team memory of ') } });
    const memoryDir = path.join(fixture.home, 'projects', '-work-shop', 'memory');
    const fields = { name: 'Soon gone', description: 'A memory deleted outside Memdir', type: 'project' };
    const created = await api.call('memories.create', { dir: '-work-shop', scope: 'private', memoryDir, fields, body: 'Soon gone.\n', file: 'vanishing.md' });
    expect(created).toMatchObject({ ok: true });
    await fs.rm(path.join(memoryDir, 'vanishing.md'));
    const gone = await api.call('memories.read', { dir: '-work-shop', scope: 'private', file: 'vanishing.md' });
    expect(gone).toMatchObject({
      ok: false,
      error: { code: 'not-found', message: 'vanishing.md no longer exists; it may have been deleted or renamed outside Memdir.' },
    });
  });

  it('an edit on disk while open is a conflict carrying both versions', async () => {
    const opened = (await api.call('memories.read', { dir: '-work-shop', scope: 'private', file: 'user_role.md' })) as { ok: true; result: { text: string } };
    const file = path.join(fixture.home, 'projects', '-work-shop', 'memory', 'user_role.md');
    await fs.appendFile(file, 'Added by Claude Code.\n');
    const r = await api.call('memories.update', {
      dir: '-work-shop',
      scope: 'private',
      file: 'user_role.md',
      memoryDir: shop(),
      fields: { name: 'User role', description: 'mine', type: 'user' },
      body: 'mine',
      baseText: opened.result.text,
    });
    expect(r).toMatchObject({ ok: false, error: { code: 'conflict', current: expect.stringContaining('Added by Claude Code.') } });
    expect(await fs.readFile(file, 'utf8')).toContain('Added by Claude Code.');
  });

  it("binds a save to the file it was opened from: another project's file of the same name, or a moved memory folder, is refused", async () => {
    const zh = (await api.call('projects.list', {})) as { ok: true; result: { projects: { dir: string }[] } };
    const zhDir = zh.result.projects.find((p) => p.dir.includes('----'))!.dir;
    const opened = (await api.call('memories.read', { dir: zhDir, scope: 'private', file: 'user_role.md' })) as Doc;
    const fields = { name: 'x', description: 'y', type: 'user' };
    // The same file name in another project: its text is not the one the edit started from.
    const crossed = await api.call('memories.update', {
      dir: '-work-shop',
      scope: 'private',
      file: 'user_role.md',
      memoryDir: shop(),
      fields,
      body: 'A',
      baseText: opened.result.text,
    });
    expect(crossed).toMatchObject({ ok: false, error: { code: 'conflict' } });
    // The project keeps its memory elsewhere now (another home, a moved folder).
    const moved = await api.call('memories.update', {
      dir: zhDir,
      scope: 'private',
      file: 'user_role.md',
      memoryDir: '/old/home/memory',
      fields,
      body: 'A',
      baseText: opened.result.text,
    });
    expect(moved).toEqual({
      ok: false,
      error: {
        code: 'conflict',
        message: `user_role.md was opened from /old/home/memory, but project ${zhDir} now keeps its memory in ${mem(zhDir)}. Nothing was saved; your edit is kept as a draft.`,
      },
    });
    const create = await api.call('memories.create', {
      dir: zhDir,
      scope: 'private',
      memoryDir: shop(),
      fields: { name: 'New', description: 'd', type: 'feedback' },
      body: '',
    });
    expect(create).toMatchObject({ ok: false, error: { code: 'conflict', message: expect.stringMatching(/^This new memory was opened from .*-work-shop/) } });
    expect(await fs.readFile(path.join(mem(zhDir), 'user_role.md'), 'utf8')).toBe(opened.result.text);
  });

  it('shows a bad file for repair: the invalid type as written, unreadable YAML raw and editable; a repaired save keeps the rest', async () => {
    const invalid = (await api.call('memories.read', { dir: '-work-shop', scope: 'private', file: 'invalid_type.md' })) as Doc;
    expect(invalid.result).toMatchObject({ type: null, rawType: 'opinion', frontmatterError: null });
    const fixed = await api.call('memories.update', {
      dir: '-work-shop',
      scope: 'private',
      file: 'invalid_type.md',
      memoryDir: shop(),
      baseText: invalid.result.text,
      fields: { name: 'Opinion', description: 'An opinion', type: 'feedback' },
      body: invalid.result.body,
    });
    expect(fixed).toMatchObject({ ok: true });
    expect(await fs.readFile(path.join(shop(), 'invalid_type.md'), 'utf8')).toContain('type: feedback');

    const broken = (await api.call('memories.read', { dir: '-work-shop', scope: 'private', file: 'bad_yaml.md' })) as Doc;
    expect(broken.result).toMatchObject({
      frontmatter: 'name: "unterminated\ndescription: x',
      frontmatterError: expect.stringContaining('not valid YAML'),
      body: 'body\n',
    });
    const base = {
      dir: '-work-shop',
      scope: 'private',
      file: 'bad_yaml.md',
      memoryDir: shop(),
      baseText: broken.result.text,
      fields: { name: 'Repaired', description: 'x', type: 'project' },
      body: 'body\n',
    };
    const still = await api.call('memories.update', { ...base, frontmatter: 'name: "still broken\nowner: me' });
    expect(still).toMatchObject({ ok: false, error: { code: 'invalid-input', message: expect.stringMatching(/^The frontmatter is still not valid YAML/) } });
    expect(await api.call('memories.update', { ...base, frontmatter: 'name: "unterminated"\ndescription: x\nowner: me' })).toMatchObject({ ok: true });
    expect(await fs.readFile(path.join(shop(), 'bad_yaml.md'), 'utf8')).toBe('---\nname: "Repaired"\ndescription: x\nowner: me\ntype: project\n---\nbody\n');
  });

  it('announces its own writes to subscribers, and history shows them', async () => {
    const events: AppEvent[] = [];
    const sub = api.subscribe('events.stream', {}, (e) => events.push(e));
    expect(sub.ok).toBe(true);
    const created = await api.call('memories.create', {
      dir: '-work-noindex',
      scope: 'private',
      memoryDir: mem('-work-noindex'),
      fields: { name: 'Spaces', description: 'Indent with spaces', type: 'feedback' },
      body: '',
    });
    expect(created).toMatchObject({ ok: true, result: { file: 'feedback_spaces.md' } });
    expect(events).toContainEqual({ type: 'projects-changed', dirs: ['-work-noindex'], external: false });
    const history = (await api.call('history.list', { dir: '-work-noindex' })) as {
      ok: true;
      result: { entries: { source: string; summary: string }[]; imported: unknown[] };
    };
    // -work-noindex has a memory and no MEMORY.md: the create writes first what Claude Code would have built, and says so.
    expect(history.result.entries[0]).toMatchObject({
      source: 'manual',
      summary: 'Create feedback_spaces.md; MEMORY.md written with the pointer Claude Code would have built',
    });
    // Nothing was imported here: no imported history beside the project's own.
    expect(history.result.imported).toEqual([]);
    if (sub.ok) sub.unsubscribe();
  });

  it('recalls the way Claude Code does: the request it would send, the memories past its 200-newest cap, one session across calls', async () => {
    const first = (await api.call('recall.claudeCode', { dir: '-work-big', query: 'which memory matters here', session: null })) as {
      ok: true;
      result: {
        outcome: string;
        request: { messages: unknown[] } | null;
        neverRecalled: { count: number };
        manifest: { candidates: number; offered: number };
        session: { id: string };
      };
    };
    expect(first).toMatchObject({ ok: true, result: { outcome: 'not-sent', manifest: { candidates: 230, offered: 200 }, neverRecalled: { count: 30 } } });
    expect(first.result.request?.messages).toHaveLength(2);
    const again = (await api.call('recall.claudeCode', { dir: '-work-big', query: 'and another question', session: first.result.session.id })) as typeof first;
    expect(again.result.session.id).toBe(first.result.session.id);
  });
});

describe('reading and restoring through the app API (the same services `memdir show` and `memdir restore` call)', () => {
  it('opens a linked memory that stays in the memory dir, refuses one leading out, and reads an absent index (no team folder) as empty', async () => {
    await fs.symlink('user_role.md', path.join(mem('-work-noindex'), 'alias.md'));
    await fs.writeFile(path.join(root, 'outside.md'), 'SECRET\n');
    await fs.symlink(path.join(root, 'outside.md'), path.join(mem('-work-noindex'), 'leak.md'));
    await fs.writeFile(path.join(mem('-work-noindex'), 'user_role.md'), '---\nname: Role\ndescription: who\ntype: user\n---\nA maintainer.\n');
    expect(await api.call('memories.read', { dir: '-work-noindex', scope: 'private', file: 'alias.md' })).toMatchObject({
      ok: true,
      result: { file: 'alias.md', name: 'Role', body: 'A maintainer.\n' },
    });
    const leak = await api.call('memories.read', { dir: '-work-noindex', scope: 'private', file: 'leak.md' });
    expect(leak).toMatchObject({ ok: false, error: { code: 'unsafe-path', message: expect.stringContaining('leads outside the memory directory') } });
    expect(JSON.stringify(leak)).not.toContain('SECRET');
    expect(await api.call('index.read', { dir: '-work-noindex', scope: 'team' })).toEqual({
      ok: true,
      result: { text: '', exists: false, readOnly: null },
    });
    expect(await api.call('index.read', { dir: '-work-shop', scope: 'private' })).toMatchObject({ ok: true, result: { exists: true, readOnly: null } });
  });

  it('reads an index Memdir will not edit as Claude Code reads it, read-only and saying why; one it cannot read at all is an error', async () => {
    const index = path.join(mem('-work-noindex'), 'MEMORY.md');
    await fs.writeFile(index, Buffer.concat([Buffer.from('- [Cafe](cafe.md) — caf'), Buffer.from([0xe9]), Buffer.from('\n')]));
    expect(await api.call('index.read', { dir: '-work-noindex', scope: 'private' })).toEqual({
      ok: true,
      result: { text: '- [Cafe](cafe.md) — caf\uFFFD\n', exists: true, readOnly: 'it is not valid UTF-8 text (saved in another encoding?)' },
    });
    await fs.rm(index);
    await fs.writeFile(path.join(root, 'shared-index.md'), '- [Tea](tea.md) — from a shared file\n');
    await fs.symlink(path.join(root, 'shared-index.md'), index);
    expect(await api.call('index.read', { dir: '-work-noindex', scope: 'private' })).toMatchObject({
      ok: true,
      result: { text: '- [Tea](tea.md) — from a shared file\n', readOnly: expect.stringContaining('leads outside the memory directory') },
    });
    await fs.rm(index);
    await fs.mkdir(index);
    expect(await api.call('index.read', { dir: '-work-noindex', scope: 'private' })).toMatchObject({
      ok: false,
      error: { message: expect.stringContaining('MEMORY.md cannot be opened') },
    });
    await fs.rm(index, { recursive: true });
  });

  it('restores one deleted memory with its pointer, or the whole memory dir', async () => {
    const original = await fs.readFile(path.join(shop(), 'user_role.md'), 'utf8');
    await api.call('history.list', { dir: '-work-shop' });
    const deleted = (await api.call('memories.delete', { dir: '-work-shop', scope: 'private', file: 'user_role.md' })) as { ok: true; result: { rev: string } };
    expect(deleted.ok).toBe(true);
    const before = (await api.call('history.list', { dir: '-work-shop' })) as { ok: true; result: { entries: { rev: string }[] } };
    const rev = before.result.entries[1]!.rev;
    const one = await api.call('history.restore', { dir: '-work-shop', rev, file: 'user_role.md' });
    expect(one).toMatchObject({ ok: true, result: { entry: { source: 'restore' }, notes: [expect.any(String)] } });
    expect(await fs.readFile(path.join(shop(), 'user_role.md'), 'utf8')).toBe(original);
    expect(await fs.readFile(path.join(shop(), 'MEMORY.md'), 'utf8')).toContain('(user_role.md)');
    await fs.writeFile(path.join(shop(), 'stray.md'), 'Written after.\n');
    const whole = await api.call('history.restore', { dir: '-work-shop', rev });
    expect(whole).toMatchObject({ ok: true, result: { entry: { source: 'restore' }, notes: [] } });
    await expect(fs.access(path.join(shop(), 'stray.md'))).rejects.toThrow();
  });
});
