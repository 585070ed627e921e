/**
 * When the disk says no (full, read-only), a save through the app's host loses nothing: the call
 * answers a sentence a person reads (no ENOSPC, no git output), the memory and MEMORY.md are as
 * they were (never half a change, never a change History does not hold), no temp file is left,
 * the host keeps answering, and the same save goes through once there is room again.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AppContext } from '../../app/app-context.js';
import { createAppDispatcher } from '../../api/index.js';
import { mountSmallDisk, smallDiskUnavailable, type SmallDisk } from '../../core/test-support/small-disk.js';
import { type RunningHost, startHost } from './host-server.js';

let root: string;
let homeDisk: SmallDisk;
let dataDisk: SmallDisk;
let ctx: AppContext;
let host: RunningHost;
let mem: string;
const topic = (name: string, body: string) => `---\nname: ${name}\ndescription: ${name} memory\ntype: user\n---\n\n${body}\n`;

interface Answer {
  ok: boolean;
  result?: Record<string, unknown>;
  error?: { code: string; message: string };
}

function call(name: string, input: unknown): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ name, input });
    const req = http.request(
      {
        host: '127.0.0.1',
        port: host.port,
        path: '/api/call',
        method: 'POST',
        headers: { host: `127.0.0.1:${host.port}`, authorization: `Bearer ${host.token}`, 'content-type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve(JSON.parse(text) as Answer));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Files a writer leaves when it stops half-way: Memdir's temp files, git's temp objects and locks. */
async function leftovers(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await fs.readdir(dir, { recursive: true, withFileTypes: true })) {
    if (/^(\.memdir-tmp-|tmp_obj_|tmp_idx_)|\.lock$/.test(entry.name) && !entry.parentPath.includes(`${path.sep}locks`))
      found.push(path.join(entry.parentPath, entry.name));
  }
  return found;
}

async function snapshot(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of (await fs.readdir(mem)).sort()) out[name] = await fs.readFile(path.join(mem, name), 'utf8');
  return out;
}

const history = async () => (await call('history.list', { dir: '-work-p', scope: 'private' })).result!.entries as { source: string; summary: string }[];
const open = async (file: string) => (await call('memories.read', { dir: '-work-p', scope: 'private', file })).result as unknown as { text: string };
const save = (file: string, baseText: string, body: string) =>
  call('memories.update', {
    dir: '-work-p',
    scope: 'private',
    file,
    memoryDir: mem,
    baseText,
    fields: { name: 'A', description: 'A memory', type: 'user' },
    body,
  });
const create = (file: string, body: string) =>
  call('memories.create', { dir: '-work-p', scope: 'private', memoryDir: mem, fields: { name: 'C', description: 'C memory', type: 'user' }, body, file });

/** What a person reads: a sentence, never an errno, a git message or a stack. */
function expectHumanRefusal(answer: Answer, words: RegExp): void {
  expect(answer.ok).toBe(false);
  expect(answer.error?.code).toBe('unavailable');
  expect(answer.error?.message).toMatch(words);
  expect(answer.error?.message).not.toMatch(/ENOSPC|EROFS|EACCES|EDQUOT|sha1|git |index\.lock|Out of diskspace|\n\s+at /);
}

describe.skipIf(smallDiskUnavailable !== null)(`saving when the disk says no${smallDiskUnavailable ? ` (skipped: ${smallDiskUnavailable})` : ''}`, () => {
  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(await fs.realpath(os.tmpdir()), 'memdir-disk-'));
    homeDisk = mountSmallDisk(path.join(root, 'home-disk'), 4 * 1024 * 1024);
    dataDisk = mountSmallDisk(path.join(root, 'data-disk'), 4 * 1024 * 1024);
    const home = path.join(homeDisk.dir, 'claude');
    mem = path.join(home, 'projects', '-work-p', 'memory');
    await fs.mkdir(mem, { recursive: true });
    await fs.writeFile(path.join(mem, 'MEMORY.md'), '- [A](a.md) — a\n');
    await fs.writeFile(path.join(mem, 'a.md'), topic('A', 'first words'));
    const staticDir = path.join(root, 'renderer');
    await fs.mkdir(staticDir, { recursive: true });
    await fs.writeFile(path.join(staticDir, 'index.html'), '<!doctype html><title>Memdir</title>');
    ctx = await AppContext.create({ homeFlag: home, dataDir: path.join(dataDisk.dir, 'data'), env: {} });
    host = await startHost({ dispatcher: createAppDispatcher(ctx), staticDir });
    // The first look records the memory as it was found.
    expect((await call('history.list', { dir: '-work-p', scope: 'private' })).ok).toBe(true);
  });
  beforeEach(() => {
    homeDisk.free();
    dataDisk.free();
  });
  afterAll(async () => {
    await host?.close();
    await ctx?.close();
    for (const disk of [homeDisk, dataDisk]) disk?.unmount();
    await fs.rm(root, { recursive: true, force: true });
  });

  it("with Memdir's data folder full, a save changes nothing on disk, says so, and goes through once there is room", async () => {
    const base = await open('a.md');
    const before = await snapshot();
    const entries = await history();
    // Room for the memory, none for what History keeps of it (incompressible text).
    const body = randomBytes(20_000).toString('hex');
    dataDisk.leaveFree(8 * 1024);
    const refused = await save('a.md', base.text, body);
    expectHumanRefusal(refused, /full/);
    expect(await snapshot()).toEqual(before);
    expect(await leftovers(mem)).toEqual([]);
    expect(await leftovers(dataDisk.dir)).toEqual([]);
    expect((await call('app.info', {})).ok).toBe(true);

    dataDisk.free();
    expect(await history()).toEqual(entries);
    // The editor still holds the text and its base: the same save, again.
    const saved = await save('a.md', base.text, body);
    expect(saved.ok).toBe(true);
    expect(await fs.readFile(path.join(mem, 'a.md'), 'utf8')).toContain(body);
    const after = await history();
    expect(after.length).toBe(entries.length + 1);
    expect(after[0]).toMatchObject({ source: 'manual', summary: 'Edit a.md' });
  });

  it('with the memory folder full half-way through a create, neither the memory nor its pointer is left', async () => {
    const before = await snapshot();
    const entries = await history();
    // Room for the new memory's file, none for the MEMORY.md written after it.
    homeDisk.leaveFree(4096);
    const body = 'c'.repeat(3000);
    const refused = await create('c.md', body);
    expectHumanRefusal(refused, /full/);
    expect(await snapshot()).toEqual(before);
    expect(await leftovers(mem)).toEqual([]);
    expect(await history()).toEqual(entries);

    homeDisk.free();
    expect((await create('c.md', body)).ok).toBe(true);
    expect(await fs.readFile(path.join(mem, 'MEMORY.md'), 'utf8')).toContain('(c.md)');
  });

  it("with Memdir's data folder full, keeping the editor's draft says why in words, and works again once there is room", async () => {
    const base = await open('a.md');
    const draft = {
      dir: '-work-p',
      scope: 'private',
      file: 'a.md',
      memoryDir: mem,
      baseText: base.text,
      name: 'A',
      description: 'A memory',
      type: 'user',
      newFile: '',
      frontmatter: null,
    };
    dataDisk.leaveFree(0);
    const refused = await call('drafts.keep', { ...draft, body: 'typed while the disk was full '.repeat(200) });
    expectHumanRefusal(refused, /full/);
    expect(refused.error?.message).not.toMatch(/Something went wrong/);
    expect(await leftovers(dataDisk.dir)).toEqual([]);
    dataDisk.free();
    expect((await call('drafts.keep', { ...draft, body: 'typed once there was room' })).ok).toBe(true);
  });

  it('on a read-only disk, a save says so and goes through once it can be written again', async () => {
    const base = await open('a.md');
    const before = await snapshot();
    homeDisk.readOnly(true);
    try {
      expectHumanRefusal(await save('a.md', base.text, 'read-only words'), /read-only/);
    } finally {
      homeDisk.readOnly(false);
    }
    expect(await snapshot()).toEqual(before);
    expect((await save('a.md', base.text, 'read-only words')).ok).toBe(true);
  });
});
