/**
 * Deleting and restoring memories through the app's API (the calls the renderer sends), beside a
 * Claude Code that writes the same folder (review x1, F7 and F8): a memory that is not UTF-8 text
 * deletes (single or bulk) and its undo brings its bytes back exactly; restoring a deleted memory
 * never overwrites another memory written since under its name without asking.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppContext } from '../app/app-context.js';
import { createAppDispatcher } from './index.js';
import type { Dispatcher } from './dispatch.js';
import { transact } from '../history/index.js';

const topic = (name: string, description: string, type: string, body: string) =>
  `---\nname: ${name}\ndescription: ${description}\ntype: ${type}\n---\n\n${body}\n`;
const LATIN1 = Buffer.from('---\nname: Caf\xe9\ndescription: latin1 file\ntype: project\n---\nR\xe9sum\xe9 of the build\n', 'latin1');

let root: string;
let home: string;
let ctx: AppContext;
let api: Dispatcher;
const mem = (dir: string) => path.join(home, 'projects', dir, 'memory');
const read = (dir: string, file: string) => fs.readFile(path.join(mem(dir), file), 'utf8').catch(() => null);

async function call<T = Record<string, unknown>>(name: string, input: Record<string, unknown>): Promise<T> {
  const answer = (await api.call(name, input)) as { ok: boolean; result?: T; error?: { code: string; message: string } };
  if (!answer.ok) throw Object.assign(new Error(answer.error!.message), { code: answer.error!.code });
  return answer.result!;
}
async function refusal(name: string, input: Record<string, unknown>): Promise<{ code: string; message: string }> {
  const answer = (await api.call(name, input)) as { ok: boolean; error?: { code: string; message: string } };
  expect(answer.ok).toBe(false);
  return answer.error!;
}

async function project(dir: string, files: Record<string, string | Buffer>): Promise<void> {
  await fs.mkdir(mem(dir), { recursive: true });
  for (const [file, text] of Object.entries(files)) await fs.writeFile(path.join(mem(dir), file), text);
}

beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-undo-beside-cc-'));
  home = path.join(root, 'home');
  await project('-w-latin', { 'notes.md': LATIN1, 'MEMORY.md': '- [Café](notes.md) — latin1 file\n' });
  await project('-w-bulk', { 'notes.md': LATIN1, 'MEMORY.md': '- [Café](notes.md) — latin1 file\n' });
  await project('-w-back', { 'lang.md': topic('Lang', 'languages', 'project', 'TypeScript only.'), 'MEMORY.md': '- [Lang](lang.md) — languages\n' });
  await project('-w-back2', { 'lang.md': topic('Lang', 'languages', 'project', 'TypeScript only.'), 'MEMORY.md': '- [Lang](lang.md) — languages\n' });
  await project('-w-taken', { 'a.md': topic('A', 'alpha', 'feedback', 'OLD user fact'), 'MEMORY.md': '- [A](a.md) — alpha\n' });
  for (const dir of ['-w-undone', '-w-extract', '-w-putback', '-w-new'])
    await project(dir, { 'lang.md': topic('Lang', 'languages', 'project', 'TypeScript only.'), 'MEMORY.md': '- [Lang](lang.md) — languages\n' });
  await project('-w-edited', { 'lang.md': topic('Lang', 'languages', 'project', 'TypeScript only.'), 'MEMORY.md': '- [Lang](lang.md) — languages\n' });
  ctx = await AppContext.create({ homeFlag: home, dataDir: path.join(root, 'data'), env: {} });
  api = createAppDispatcher(ctx);
});
afterAll(async () => {
  await ctx.close();
  await fs.rm(root, { recursive: true, force: true });
});

describe('a memory that is not UTF-8 text', () => {
  it('deletes with its pointer, and Undo brings its bytes back exactly, pointer too', async () => {
    const { rev } = await call<{ rev: string }>('memories.delete', { dir: '-w-latin', scope: 'private', file: 'notes.md' });
    expect(await read('-w-latin', 'notes.md')).toBeNull();
    expect(await read('-w-latin', 'MEMORY.md')).not.toContain('notes.md');
    await call('history.undo', { dir: '-w-latin', rev });
    expect(await fs.readFile(path.join(mem('-w-latin'), 'notes.md'))).toEqual(LATIN1);
    expect(await read('-w-latin', 'MEMORY.md')).toBe('- [Café](notes.md) — latin1 file\n');
  });

  it('deletes in a bulk delete too', async () => {
    const { done, refused } = await call<{ done: string[]; refused: unknown[] }>('memories.bulk', {
      dir: '-w-bulk',
      items: [{ scope: 'private', file: 'notes.md' }],
      action: { kind: 'delete' },
    });
    expect([done.length, refused]).toEqual([1, []]);
    expect(await read('-w-bulk', 'notes.md')).toBeNull();
  });
});

describe('undoing a delete whose file came back since, byte for byte (a sync, a hand copy)', () => {
  it('is not "already that way" while its index line is gone: the file written since with the very bytes the undo puts back loses nothing, so the undo goes ahead and puts the line back', async () => {
    const text = (await read('-w-back', 'lang.md'))!;
    const { rev } = await call<{ rev: string }>('memories.delete', { dir: '-w-back', scope: 'private', file: 'lang.md' });
    expect(await read('-w-back', 'MEMORY.md')).toBe('');
    await fs.writeFile(path.join(mem('-w-back'), 'lang.md'), text);
    // Not "Nothing to undo: it is already that way" (its line is gone), and no refusal either: the file written
    // since holds exactly what the undo writes back (the one undo rule, undo-change.ts), so nothing of it is lost.
    const undone = await call<{ entry: { rev: string } | null }>('history.undo', { dir: '-w-back', rev });
    expect(undone.entry).not.toBeNull();
    expect(await read('-w-back', 'MEMORY.md')).toBe('- [Lang](lang.md) — languages\n');
    expect(await read('-w-back', 'lang.md')).toBe(text);
    // Now both the file and its line are back: that is "already that way".
    expect((await call<{ entry: unknown }>('history.undo', { dir: '-w-back', rev })).entry).toBeNull();
  });

  it('still names a file written since with other bytes, and undo anyway puts the line back', async () => {
    const text = (await read('-w-back2', 'lang.md'))!;
    const { rev } = await call<{ rev: string }>('memories.delete', { dir: '-w-back2', scope: 'private', file: 'lang.md' });
    await fs.writeFile(path.join(mem('-w-back2'), 'lang.md'), `${text}One more line Claude Code wrote.\n`);
    expect(await refusal('history.undo', { dir: '-w-back2', rev })).toMatchObject({
      code: 'conflict',
      message: expect.stringContaining('lang.md was written again by "Changes made outside Memdir"'),
    });
    const undone = await call<{ entry: { rev: string } | null }>('history.undo', { dir: '-w-back2', rev, overwriteChanged: true });
    expect(undone.entry).not.toBeNull();
    expect(await read('-w-back2', 'MEMORY.md')).toBe('- [Lang](lang.md) — languages\n');
  });
});

describe('restoring a deleted memory whose name Claude Code has written again since', () => {
  let deletedIn: string;
  const cc = topic('A', 'alpha new', 'feedback', 'NEW CC fact');
  it('lists it as deleted only while nothing is at its name, even asked before the history list', async () => {
    deletedIn = (await call<{ rev: string }>('memories.delete', { dir: '-w-taken', scope: 'private', file: 'a.md' })).rev;
    // Claude Code writes a new a.md and its pointer.
    await fs.writeFile(path.join(mem('-w-taken'), 'a.md'), cc);
    await fs.writeFile(path.join(mem('-w-taken'), 'MEMORY.md'), '- [A](a.md) — alpha new\n');
    const { files } = await call<{ files: { path: string }[] }>('history.deleted', { dir: '-w-taken' });
    expect(files.map((f) => f.path)).toEqual([]);
  });

  it('refuses to overwrite it, naming it, and offers another name or restore anyway', async () => {
    const error = await refusal('history.restore', { dir: '-w-taken', rev: `${deletedIn}~1`, file: 'a.md' });
    expect(error.code).toBe('conflict');
    expect(error.message).toBe(
      'Nothing was restored: a.md holds another memory now ("A", written by "Changes made outside Memdir"), and restoring would overwrite it. Restore it under another name, or restore anyway (what is there now stays in history).',
    );
    expect(await read('-w-taken', 'a.md')).toBe(cc);
  });

  it('restores it under another name, with its pointer, beside the new one', async () => {
    const { entry, notes } = await call<{ entry: { files: { path: string }[] }; notes: string[] }>('history.restore', {
      dir: '-w-taken',
      rev: `${deletedIn}~1`,
      file: 'a.md',
      as: 'a_old.md',
    });
    expect(entry.files.map((f) => f.path).sort()).toEqual(['MEMORY.md', 'a_old.md']);
    expect(await read('-w-taken', 'a_old.md')).toBe(topic('A', 'alpha', 'feedback', 'OLD user fact'));
    expect(await read('-w-taken', 'a.md')).toBe(cc);
    expect(await read('-w-taken', 'MEMORY.md')).toBe('- [A](a.md) — alpha new\n- [A](a_old.md) — alpha\n');
    expect(notes.join(' ')).toContain('a_old.md');
  });

  it('restores anyway when told to: the new one stays in history', async () => {
    const { entry } = await call<{ entry: { rev: string } }>('history.restore', {
      dir: '-w-taken',
      rev: `${deletedIn}~1`,
      file: 'a.md',
      overwriteChanged: true,
    });
    expect(await read('-w-taken', 'a.md')).toBe(topic('A', 'alpha', 'feedback', 'OLD user fact'));
    await call('history.undo', { dir: '-w-taken', rev: entry.rev });
    expect(await read('-w-taken', 'a.md')).toBe(cc);
  });
});

describe('restoring a memory over an edit Claude Code made to it since', () => {
  const cc = topic('Lang', 'languages', 'project', 'TypeScript only. Go for the CLI since March.');
  let edited: string;
  async function editInMemdir(body: string): Promise<string> {
    const doc = await call<{ text: string; memoryDir: string }>('memories.read', { dir: '-w-edited', scope: 'private', file: 'lang.md' });
    const fields = { name: 'Lang', description: 'languages', type: 'project' };
    return (
      await call<{ rev: string }>('memories.update', {
        dir: '-w-edited',
        scope: 'private',
        file: 'lang.md',
        memoryDir: doc.memoryDir,
        baseText: doc.text,
        fields,
        body,
      })
    ).rev;
  }

  it('asks first: nothing written, and the refusal names the edit it would replace', async () => {
    edited = await editInMemdir('TypeScript and Go.');
    expect(await read('-w-edited', 'lang.md')).toContain('TypeScript and Go.');
    // Claude Code edits it afterwards, unseen by the person restoring from History.
    await fs.writeFile(path.join(mem('-w-edited'), 'lang.md'), cc);
    const error = await refusal('history.restore', { dir: '-w-edited', rev: `${edited}~1`, file: 'lang.md' });
    expect(error.code).toBe('conflict');
    expect(error.message).toMatch(
      /^Nothing was restored: lang\.md was changed outside Memdir since \(by Claude Code or another program, \d{4}-\d\d-\d\d \d\d:\d\d UTC\), and restoring would replace that edit\. Restore it under another name, or restore anyway \(the edit stays in history\)\.$/,
    );
    expect(await read('-w-edited', 'lang.md')).toBe(cc);
  });

  it('restores anyway when told to, and its Undo brings the edit back', async () => {
    const { entry } = await call<{ entry: { rev: string } }>('history.restore', {
      dir: '-w-edited',
      rev: `${edited}~1`,
      file: 'lang.md',
      overwriteChanged: true,
    });
    expect(await read('-w-edited', 'lang.md')).toBe(topic('Lang', 'languages', 'project', 'TypeScript only.'));
    await call('history.undo', { dir: '-w-edited', rev: entry.rev });
    expect(await read('-w-edited', 'lang.md')).toBe(cc);
  });

  it("does not ask over the person's own later edit in Memdir (it is what they see)", async () => {
    await editInMemdir('TypeScript, Go and Rust.');
    const { entry } = await call<{ entry: { rev: string } | null }>('history.restore', { dir: '-w-edited', rev: `${edited}~1`, file: 'lang.md' });
    expect(entry).not.toBeNull();
    expect(await read('-w-edited', 'lang.md')).toBe(topic('Lang', 'languages', 'project', 'TypeScript only.'));
  });
});

describe('restoring a memory over an outside edit, whatever came between (review s45-2 #1, #2, #7)', () => {
  const cc = topic('Lang', 'languages', 'project', 'TypeScript only. Go for the CLI since March.');
  const original = topic('Lang', 'languages', 'project', 'TypeScript only.');
  const refusedOver =
    /^Nothing was restored: lang\.md was changed outside Memdir since \(by Claude Code or another program, \d{4}-\d\d-\d\d \d\d:\d\d UTC\), and restoring would replace that edit\. Restore it under another name, or restore anyway \(the edit stays in history\)\.$/;
  async function firstRev(dir: string): Promise<string> {
    const { entries } = await call<{ entries: { rev: string }[] }>('history.list', { dir });
    return entries.at(-1)!.rev;
  }

  it('asks first after the memory was deleted and brought back by Undo, then edited by Claude Code', async () => {
    const before = await firstRev('-w-undone');
    const { rev } = await call<{ rev: string }>('memories.delete', { dir: '-w-undone', scope: 'private', file: 'lang.md' });
    await call('history.undo', { dir: '-w-undone', rev });
    expect(await read('-w-undone', 'lang.md')).toBe(original);
    await fs.writeFile(path.join(mem('-w-undone'), 'lang.md'), cc);
    const error = await refusal('history.restore', { dir: '-w-undone', rev: before, file: 'lang.md' });
    expect(error).toMatchObject({ code: 'conflict', message: expect.stringMatching(refusedOver) });
    expect(await read('-w-undone', 'lang.md')).toBe(cc);
  });

  it('asks first when an automatic Memdir change (an extract) came after the outside edit', async () => {
    const before = await firstRev('-w-extract');
    await fs.writeFile(path.join(mem('-w-extract'), 'lang.md'), cc);
    const withLine = `${cc}Rust for the agent.\n`;
    await transact(mem('-w-extract'), { source: 'extract', summary: 'Saved 1 memory from a session', dataDir: ctx.dataDir }, () =>
      fs.writeFile(path.join(mem('-w-extract'), 'lang.md'), withLine),
    );
    const error = await refusal('history.restore', { dir: '-w-extract', rev: before, file: 'lang.md' });
    expect(error).toMatchObject({ code: 'conflict', message: expect.stringMatching(refusedOver) });
    expect(await read('-w-extract', 'lang.md')).toBe(withLine);
  });

  it('does not ask when the outside edit was put back byte for byte (restoring changes nothing there)', async () => {
    const before = await firstRev('-w-putback');
    await fs.writeFile(path.join(mem('-w-putback'), 'lang.md'), cc);
    await call('history.list', { dir: '-w-putback' }); // the edit is recorded
    await fs.writeFile(path.join(mem('-w-putback'), 'lang.md'), original);
    const { entry } = await call<{ entry: unknown }>('history.restore', { dir: '-w-putback', rev: before, file: 'lang.md' });
    expect(entry).toBeNull();
    expect(await read('-w-putback', 'lang.md')).toBe(original);
  });

  it('says a memory Claude Code created since did not exist then, rather than that restoring would replace it', async () => {
    const before = await firstRev('-w-new');
    await fs.writeFile(path.join(mem('-w-new'), 'go.md'), topic('Go', 'go', 'project', 'Go for the CLI.'));
    const error = await refusal('history.restore', { dir: '-w-new', rev: before, file: 'go.md' });
    expect(error.message).not.toContain('would replace that edit');
    expect(error.message).toContain('did not exist');
    expect(await read('-w-new', 'go.md')).toBe(topic('Go', 'go', 'project', 'Go for the CLI.'));
  });
});
