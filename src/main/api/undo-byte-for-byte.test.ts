/**
 * Every destructive action the app offers, then its Undo (or a History restore), through the calls
 * the renderer sends, on a real folder and a real History: the memory folder is back byte for byte —
 * each file's bytes (CRLF, a BOM, no final newline), its permission bits (a memory made readable by
 * its owner alone stays so), nothing left behind — and an edit Claude Code made in between is kept.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppContext } from '../app/app-context.js';
import { createAppDispatcher } from './index.js';
import type { Dispatcher } from './dispatch.js';

const BOM = '\ufeff';
const topicCrlf = (name: string, d: string, t: string, body: string) => `---\r\nname: ${name}\r\ndescription: ${d}\r\ntype: ${t}\r\n---\r\n\r\n${body}\r\n`;
const topic = (name: string, d: string, t: string, body: string) => `---\nname: ${name}\ndescription: ${d}\ntype: ${t}\n---\n\n${body}`;
const INDEX = `${BOM}# Memory\r\n\r\n- [Alpha](a.md) — alpha hook\r\n- [Beta](b.md) — beta hook\r\n- [Gamma](c.md) — gamma hook`;

let root: string, home: string, ctx: AppContext, api: Dispatcher;
const mem = (dir: string) => path.join(home, 'projects', dir, 'memory');
async function call<T = Record<string, unknown>>(name: string, input: Record<string, unknown>): Promise<T> {
  const a = (await api.call(name, input)) as { ok: boolean; result?: T; error?: { code: string; message: string } };
  if (!a.ok) throw Object.assign(new Error(`${name}: ${a.error!.code}: ${a.error!.message}`), { code: a.error!.code });
  return a.result!;
}
async function snap(dir: string, at = ''): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const base = path.join(mem(dir), at);
  for (const e of await fs.readdir(base, { withFileTypes: true })) {
    const rel = path.posix.join(at, e.name);
    const st = await fs.lstat(path.join(base, e.name));
    if (e.isDirectory()) {
      out[rel + '/'] = (st.mode & 0o7777).toString(8);
      Object.assign(out, await snap(dir, rel));
    } else out[rel] = `${(st.mode & 0o7777).toString(8)} ${JSON.stringify((await fs.readFile(path.join(base, e.name))).toString('latin1'))}`;
  }
  return out;
}
let n = 0;
async function project(): Promise<string> {
  const dir = `-w-p${n++}`;
  await fs.mkdir(mem(dir), { recursive: true });
  await fs.writeFile(path.join(mem(dir), 'MEMORY.md'), INDEX);
  await fs.writeFile(path.join(mem(dir), 'a.md'), topicCrlf('Alpha', 'alpha hook', 'user', 'Alpha body'));
  await fs.chmod(path.join(mem(dir), 'a.md'), 0o600);
  await fs.writeFile(path.join(mem(dir), 'b.md'), BOM + topic('Beta', 'beta hook', 'feedback', 'Beta body'));
  await fs.chmod(path.join(mem(dir), 'b.md'), 0o640);
  await fs.writeFile(path.join(mem(dir), 'c.md'), topic('Gamma', 'gamma hook', 'project', 'Gamma body\n'));
  return dir;
}
async function readDoc(dir: string, file: string) {
  return call<{ text: string; memoryDir: string; body: string }>('memories.read', { dir, scope: 'private', file });
}

beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-undo-bytes-'));
  home = path.join(root, 'home');
  ctx = await AppContext.create({ homeFlag: home, dataDir: path.join(root, 'data'), env: {} });
  api = createAppDispatcher(ctx);
});
afterAll(async () => {
  await ctx.close();
  await fs.rm(root, { recursive: true, force: true });
});

async function roundTrip(label: string, act: (dir: string) => Promise<string | null>) {
  const dir = await project();
  await call('projects.list', {});
  const before = await snap(dir);
  const rev = await act(dir);
  expect(rev, label).toBeTruthy();
  expect(await snap(dir), label + ' changed something').not.toEqual(before);
  await call('history.undo', { dir, rev });
  expect(await snap(dir), label).toEqual(before);
}

/** One bulk action on private memories through the app's call, as the memory list sends it; its History entry. */
async function bulk(dir: string, files: string[], action: Record<string, unknown>): Promise<string> {
  return (await call<{ rev: string }>('memories.bulk', { dir, items: files.map((file) => ({ scope: 'private', file })), action })).rev;
}

describe('undo brings the folder back byte for byte, modes too', () => {
  it('a delete (a memory readable by its owner alone, CRLF)', () =>
    roundTrip('delete', async (dir) => (await call<{ rev: string }>('memories.delete', { dir, scope: 'private', file: 'a.md' })).rev));
  it('a delete (a BOM, no final newline, mode 640)', () =>
    roundTrip('delete b', async (dir) => (await call<{ rev: string }>('memories.delete', { dir, scope: 'private', file: 'b.md' })).rev));
  it('a bulk delete', () => roundTrip('bulk', (dir) => bulk(dir, ['a.md', 'b.md'], { kind: 'delete' })));
  it('a type change', () => roundTrip('type', (dir) => bulk(dir, ['a.md', 'b.md', 'c.md'], { kind: 'set-type', type: 'reference' })));
  it('a move to team memory', () => roundTrip('move', (dir) => bulk(dir, ['b.md', 'c.md'], { kind: 'move', to: 'team' })));
  it('a rename', () =>
    roundTrip('rename', async (dir) => (await call<{ rev: string }>('memories.rename', { dir, scope: 'private', from: 'a.md', to: 'z.md' })).rev));
  it('a rename of the BOM one', () =>
    roundTrip('rename b', async (dir) => (await call<{ rev: string }>('memories.rename', { dir, scope: 'private', from: 'b.md', to: 'z.md' })).rev));
  it('an edit', () =>
    roundTrip('update', async (dir) => {
      const d = await readDoc(dir, 'a.md');
      return (
        await call<{ rev: string }>('memories.update', {
          dir,
          scope: 'private',
          file: 'a.md',
          memoryDir: d.memoryDir,
          baseText: d.text,
          fields: { name: 'Alpha', description: 'alpha hook NEW', type: 'user' },
          body: 'Alpha body edited',
        })
      ).rev;
    }));
  it('an index edit', () =>
    roundTrip('index', async (dir) => {
      const r = await call<{ text: string }>('index.read', { dir, scope: 'private' });
      return (
        await call<{ rev: string }>('index.save', { dir, scope: 'private', text: r.text.replace('- [Beta](b.md) — beta hook\r\n', ''), baseText: r.text })
      ).rev;
    }));
  it('a new memory', () =>
    roundTrip(
      'create',
      async (dir) =>
        (
          await call<{ rev: string }>('memories.create', {
            dir,
            scope: 'private',
            memoryDir: mem(dir),
            fields: { name: 'New', description: 'new hook', type: 'user' },
            body: 'new body',
          })
        ).rev,
    ));
  it('a delete, then History restoring the memory as it was', async () => {
    const dir = await project();
    await call('projects.list', {});
    const before = await snap(dir);
    const { rev } = await call<{ rev: string }>('memories.delete', { dir, scope: 'private', file: 'a.md' });
    const hist = await call<{ entries: { rev: string }[] }>('history.list', { dir });
    const parent = hist.entries.find((e) => e.rev !== rev)!.rev;
    await call('history.restore', { dir, rev: parent, file: 'a.md' });
    expect(await snap(dir)).toEqual(before);
  });
  it('a delete and a rename, then History restoring everything as it was', async () => {
    const dir = await project();
    await call('projects.list', {});
    const before = await snap(dir);
    const { rev } = await call<{ rev: string }>('memories.delete', { dir, scope: 'private', file: 'a.md' });
    await call('memories.rename', { dir, scope: 'private', from: 'b.md', to: 'q.md' });
    const hist = await call<{ entries: { rev: string }[] }>('history.list', { dir });
    const idx = hist.entries.findIndex((e) => e.rev === rev);
    await call('history.restore', { dir, rev: hist.entries[idx + 1]!.rev });
    expect(await snap(dir)).toEqual(before);
  });
  it('an undo undone (a redo) leaves the folder as the delete did', async () => {
    const dir = await project();
    await call('projects.list', {});
    const { rev } = await call<{ rev: string }>('memories.delete', { dir, scope: 'private', file: 'a.md' });
    const after = await snap(dir);
    const u = await call<{ entry: { rev: string } }>('history.undo', { dir, rev });
    await call('history.undo', { dir, rev: u.entry.rev });
    expect(await snap(dir)).toEqual(after);
  });
  it('undoing a delete keeps what Claude Code wrote since: another memory, a new one, its index line', async () => {
    const dir = await project();
    await call('projects.list', {});
    const { rev } = await call<{ rev: string }>('memories.delete', { dir, scope: 'private', file: 'a.md' });
    await fs.writeFile(path.join(mem(dir), 'c.md'), topic('Gamma', 'gamma hook', 'project', 'Gamma body CC\n'));
    await fs.writeFile(path.join(mem(dir), 'd.md'), topic('Delta', 'delta', 'project', 'by CC\n'));
    await fs.appendFile(path.join(mem(dir), 'MEMORY.md'), '\r\n- [Delta](d.md) — delta');
    const mid = await snap(dir);
    await call('history.undo', { dir, rev });
    const now = await snap(dir);
    expect(now['c.md']).toBe(mid['c.md']);
    expect(now['d.md']).toBe(mid['d.md']);
    expect(now['MEMORY.md']).toBe(`644 ${JSON.stringify(Buffer.from(`${INDEX}\r\n- [Delta](d.md) — delta`).toString('latin1'))}`);
  });
  it('undoing an edit Claude Code edited since refuses, naming it, and its text stays', async () => {
    const dir = await project();
    await call('projects.list', {});
    const d = await readDoc(dir, 'c.md');
    const { rev } = await call<{ rev: string }>('memories.update', {
      dir,
      scope: 'private',
      file: 'c.md',
      memoryDir: d.memoryDir,
      baseText: d.text,
      fields: { name: 'Gamma', description: 'gamma hook', type: 'project' },
      body: 'Gamma edited',
    });
    await fs.writeFile(path.join(mem(dir), 'c.md'), topic('Gamma', 'gamma hook', 'project', 'Gamma CC later\n'));
    const a = (await api.call('history.undo', { dir, rev })) as { ok: boolean; error?: { message: string } };
    expect(a.error?.message).toContain('c.md was edited by "Changes made outside Memdir"');
    expect(a.ok).toBe(false);
    expect(await fs.readFile(path.join(mem(dir), 'c.md'), 'utf8')).toContain('CC later');
  });
  it("a merge of one project's memory into another: each memory keeps its mode where it lands, and the merge's undo puts both folders back", async () => {
    const [from, into] = ['-w-merge-from', '-w-merge-into'];
    await fs.mkdir(mem(from), { recursive: true });
    await fs.mkdir(mem(into), { recursive: true });
    await fs.writeFile(path.join(mem(from), 'MEMORY.md'), `${BOM}- [Alpha](a.md) — alpha hook\r\n- [Same](same.md) — same`);
    await fs.writeFile(path.join(mem(from), 'a.md'), topicCrlf('Alpha', 'alpha hook', 'user', 'Alpha body'), { mode: 0o600 });
    await fs.chmod(path.join(mem(from), 'a.md'), 0o600);
    await fs.writeFile(path.join(mem(from), 'same.md'), topic('Same', 'same', 'user', 'from side\n'));
    await fs.writeFile(path.join(mem(into), 'MEMORY.md'), '- [Beta](b.md) — beta\n- [Same](same.md) — same\n');
    await fs.writeFile(path.join(mem(into), 'b.md'), topic('Beta', 'beta', 'user', 'into\n'));
    await fs.writeFile(path.join(mem(into), 'same.md'), topic('Same', 'same', 'user', 'into side\n'));
    await call('projects.list', {});
    const before = [await snap(from), await snap(into)];
    const merge = await call<{ id: string }>('identity.merge', { from, into, force: true });
    expect((await snap(into))['a.md']).toBe(before[0]!['a.md']);
    await call('identity.undo', { id: merge.id });
    expect([await snap(from), await snap(into)]).toEqual(before);
  });
});
