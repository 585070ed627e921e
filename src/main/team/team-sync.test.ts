import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { serve } from '@hono/node-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTeam, issueToken } from '../../server/admin.js';
import { createApp } from '../../server/app.js';
import { openSqliteStore } from '../../server/sqlite-store.js';
import type { TeamStore } from '../../server/store.js';
import { listHistory, readAtRevision } from '../history/history.js';
import type { RequestRecord } from './team-client.js';
import { RACY_MS } from './hash-cache.js';
import { TeamSync } from './team-sync.js';
import { makeClient, serverEntries, startTestServer, type TestServer } from './test-support/team-fixture.js';

// A fake AWS pair, the shape the preset recognises (AKIA + 16; 40 base64 characters).
const AWS_KEY = ['AKIA', 'Z7QW', 'PLMN', 'TRXV', 'K4D2'].join('');
const AWS_SECRET = ['wJalrXUt', 'nFEMI/K7', 'MDENG/bP', 'xRfiCYzQ', 'h3s8Lk2N'].join('');

let root: string;
let store: TeamStore;
let server: TestServer;
let n = 0;

beforeAll(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-team-sync-')));
  store = await openSqliteStore(path.join(root, 'team.sqlite'));
  server = await startTestServer(store, 4);
});
afterAll(async () => {
  await server.server.close();
  await store.close();
  await fs.rm(root, { recursive: true, force: true });
});

/** Two fresh machines on the shared server, in their own folders. */
async function pair(): Promise<[Awaited<ReturnType<typeof makeClient>>, Awaited<ReturnType<typeof makeClient>>]> {
  n++;
  return [await makeClient(root, `a${n}`, server, server.tokens[0]!), await makeClient(root, `b${n}`, server, server.tokens[1]!)];
}

/** Push every team file from all clients into a known state: `keys` unique to this test. */
function keyOf(name: string): string {
  return `t${n}-${name}.md`;
}

describe('team sync between two machines', () => {
  it('pushes a new file, the other machine pulls it; a second sync is a 304 with no body, no hashing and no push', async () => {
    const [a, b] = await pair();
    const key = keyOf('deploy');
    await a.write(key, '# Deploys\nFreeze on Fridays.\n');
    const pushed = await a.sync.sync();
    expect(pushed.error).toBeNull();
    expect(pushed.push.uploaded).toEqual([key]);
    const pulled = await b.sync.sync();
    expect(pulled.pull.written).toContain(key);
    expect(await b.read(key)).toBe('# Deploys\nFreeze on Fridays.\n');

    // Nothing changed anywhere: back-date the files past the racy window, sync once to settle the cache.
    const old = new Date(Date.now() - 60_000);
    for (const f of await fs.readdir(b.teamDir)) await fs.utimes(path.join(b.teamDir, f), old, old);
    await b.sync.sync();
    b.requests.length = 0;
    const idle = await b.sync.sync();
    expect(idle.error).toBeNull();
    expect(idle.pull.status).toBe(304);
    expect(idle.bytesHashed).toBe(0);
    expect(idle.filesHashed).toBe(0);
    expect(b.requests).toEqual([expect.objectContaining({ method: 'GET', status: 304, bytesIn: 0 })]);
  });

  it('is finished when a sync returns: its lock is gone from the data folder, which can be removed at once', async () => {
    const [a] = await pair();
    await a.write(keyOf('lock'), '# Lock\n');
    const listing = (): string[] => (fsSync.readdirSync(a.dataDir, { recursive: true }) as string[]).sort();
    for (let i = 0; i < 3; i++) {
      expect((await a.sync.sync()).error).toBeNull();
      const atReturn = listing();
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(atReturn).toEqual(listing());
      expect(atReturn.filter((f) => f.includes('.lock'))).toEqual([]);
    }
  });

  it('does not propagate a deletion: the server keeps the file, the next pull brings it back', async () => {
    const [a, b] = await pair();
    const key = keyOf('oncall');
    await a.write(key, 'Rotation: weekly.\n');
    await a.sync.sync();
    await b.sync.sync();
    await fs.rm(path.join(a.teamDir, key));
    const afterDelete = await a.sync.sync();
    expect(afterDelete.error).toBeNull();
    // A full pull restores it at once: the file is back, the server never lost it.
    expect(afterDelete.pull.full).toBe(true);
    expect(await a.read(key)).toBe('Rotation: weekly.\n');
    expect((await serverEntries(server.url, server.team, server.tokens[0]!))[key]).toBe('Rotation: weekly.\n');
    expect(await b.read(key)).toBe('Rotation: weekly.\n');
  });

  it('keeps an unpushed local edit as a conflict (and in history) when the server changed the same file; take mine pushes it', async () => {
    const [a, b] = await pair();
    const key = keyOf('api');
    await a.write(key, 'v1\n');
    await a.sync.sync();
    await b.sync.sync();
    await a.write(key, 'v2 from a\n');
    await b.write(key, 'v2 from b — never pushed\n');
    expect((await a.sync.sync()).push.uploaded).toEqual([key]);

    const pulled = await b.sync.sync();
    expect(pulled.pull.conflicts).toEqual([key]);
    // Server wins on disk…
    expect(await b.read(key)).toBe('v2 from a\n');
    // …and nothing is lost: the conflict holds b's version, and so does history.
    const status = await b.sync.inspect();
    expect(status.conflicts).toHaveLength(1);
    const conflict = status.conflicts[0]!;
    expect(conflict).toMatchObject({ key, status: 'open', serverUpdatedBy: 'member-0' });
    const detail = await b.sync.conflictDetail(conflict.id);
    expect(detail.mine).toBe('v2 from b — never pushed\n');
    expect(detail.theirs).toBe('v2 from a\n');
    expect(conflict.localRev).not.toBeNull();
    expect(await readAtRevision(b.memoryDir, conflict.localRev!, `team/${key}`, { dataDir: b.dataDir })).toBe('v2 from b — never pushed\n');
    const history = await listHistory(b.memoryDir, { dataDir: b.dataDir, limit: 3 });
    expect(history[0]).toMatchObject({ source: 'sync', summary: expect.stringContaining('Pull from team platform') });

    // A merge that was based on an older view of the file is refused, nothing written.
    await expect(b.sync.resolve(conflict.id, 'merge', { text: 'x', theirsSha: '0'.repeat(64) })).rejects.toThrow(/changed since/);
    const resolved = await b.sync.resolve(conflict.id, 'mine', { theirsSha: detail.theirsSha });
    expect(resolved.conflict).toMatchObject({ status: 'resolved', resolution: 'mine' });
    expect(resolved.report?.push.uploaded).toEqual([key]);
    expect((await serverEntries(server.url, server.team, server.tokens[0]!))[key]).toBe('v2 from b — never pushed\n');
    await a.sync.sync();
    expect(await a.read(key)).toBe('v2 from b — never pushed\n');
    expect((await b.sync.inspect()).conflicts).toHaveLength(0);
  });

  it('a merged text is written, recorded and pushed', async () => {
    const [a, b] = await pair();
    const key = keyOf('merge');
    await a.write(key, 'base\n');
    await a.sync.sync();
    await b.sync.sync();
    await a.write(key, 'base\nfrom a\n');
    await b.write(key, 'base\nfrom b\n');
    await a.sync.sync();
    await b.sync.sync();
    const [conflict] = (await b.sync.inspect()).conflicts;
    const detail = await b.sync.conflictDetail(conflict!.id);
    const merged = await b.sync.resolve(conflict!.id, 'merge', { text: 'base\nfrom a\nfrom b\n', theirsSha: detail.theirsSha });
    expect(merged.rev).not.toBeNull();
    expect((await serverEntries(server.url, server.team, server.tokens[0]!))[key]).toBe('base\nfrom a\nfrom b\n');
    const history = await listHistory(b.memoryDir, { dataDir: b.dataDir, limit: 5 });
    expect(history.some((h) => h.summary.includes('merged both versions'))).toBe(true);
  });

  it('a file holding a secret is not uploaded and raises an alert; once allowed it goes up', async () => {
    const [a] = await pair();
    const key = keyOf('aws');
    await a.write(key, `Staging deploy uses\nAWS_ACCESS_KEY_ID=${AWS_KEY}\nAWS_SECRET_ACCESS_KEY=${AWS_SECRET}\n`);
    await a.write(keyOf('clean'), 'No secrets here.\n');
    const report = await a.sync.sync();
    expect(report.push.uploaded).toEqual([keyOf('clean')]);
    expect(report.waiting).toEqual([expect.objectContaining({ key, reason: 'secret' })]);
    expect((await serverEntries(server.url, server.team, server.tokens[0]!))[key]).toBeUndefined();
    const { alerts } = await a.alerts.list();
    const alert = alerts.find((x) => x.kind === 'secret' && x.file === `team/${key}`)!;
    expect(alert.status).toBe('open');
    expect(alert.findings.length).toBeGreaterThan(0);
    for (const f of alert.findings) {
      expect(f.match).not.toContain(AWS_SECRET);
      expect(f.match).not.toContain(AWS_KEY);
    }
    // Syncing again does not announce it again.
    expect((await a.sync.sync()).push.uploaded).toEqual([]);
    expect((await a.alerts.list()).alerts.filter((x) => x.file === `team/${key}`)).toHaveLength(1);

    for (const f of alert.findings) await a.alerts.allow(alert.id, f.fingerprint, 'tester', 'documented example keys');
    const after = await a.sync.sync();
    expect(after.push.uploaded).toEqual([key]);
    expect((await a.alerts.list()).alerts.find((x) => x.id === alert.id)!.status).toBe('resolved');
  });

  it('refuses a symlink to ~/.ssh in the team folder: never followed, never written through, alerted', async () => {
    const [a, b] = await pair();
    const ssh = path.join(root, `fake-home-${n}`, '.ssh');
    await fs.mkdir(ssh, { recursive: true });
    await fs.writeFile(path.join(ssh, 'id_ed25519.md'), 'PRIVATE KEY\n');
    await fs.symlink(ssh, path.join(a.teamDir, 'keys'));
    await fs.symlink(path.join(ssh, 'id_ed25519.md'), path.join(a.teamDir, keyOf('linked')));
    const report = await a.sync.sync();
    expect(report.error).toBeNull();
    expect(report.push.uploaded).toEqual([]);
    expect(report.waiting.map((w) => [w.key, w.reason]).sort()).toEqual(
      [
        [keyOf('linked'), 'symlink'],
        ['keys', 'symlink'],
      ].sort(),
    );
    const entries = await serverEntries(server.url, server.team, server.tokens[0]!);
    expect(Object.keys(entries).some((k) => k.startsWith('keys/') || k === keyOf('linked'))).toBe(false);
    const security = (await a.alerts.list()).alerts.filter((x) => x.kind === 'security' && x.status === 'open');
    expect(security.map((x) => x.file).sort()).toEqual([`team/${keyOf('linked')}`, 'team/keys'].sort());

    // The other machine pushes keys/id_ed25519.md: a's pull must not write through the link.
    await b.write('keys/id_ed25519.md', 'overwritten by the team\n');
    expect((await b.sync.sync()).push.uploaded).toContain('keys/id_ed25519.md');
    const pulled = await a.sync.sync();
    expect(pulled.pull.refused).toEqual([expect.objectContaining({ key: 'keys/id_ed25519.md', reason: expect.stringContaining('symbolic link') })]);
    expect(await fs.readFile(path.join(ssh, 'id_ed25519.md'), 'utf8')).toBe('PRIVATE KEY\n');
    expect(await fs.readdir(ssh)).toEqual(['id_ed25519.md']);
    // Removing the link resolves its alert.
    await fs.rm(path.join(a.teamDir, 'keys'));
    await a.sync.sync();
    expect((await a.alerts.list()).alerts.find((x) => x.file === 'team/keys')!.status).toBe('resolved');
  });

  it('a team folder that is itself a link stops the sync with a security alert', async () => {
    const [a] = await pair();
    const elsewhere = path.join(root, `elsewhere-${n}`);
    await fs.mkdir(elsewhere);
    await fs.rm(a.teamDir, { recursive: true });
    await fs.symlink(elsewhere, a.teamDir);
    const report = await a.sync.sync();
    expect(report.error).toMatchObject({ code: 'unsafe-team-dir', message: expect.stringContaining('symbolic link') });
    expect(await fs.readdir(elsewhere)).toEqual([]);
    expect((await a.alerts.list()).alerts.some((x) => x.kind === 'security' && x.status === 'open')).toBe(true);
  });

  it('leaves out files that are not UTF-8, have hostile names, are binary or too large — and says why', async () => {
    const [a] = await pair();
    await a.write(keyOf('latin1'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    await a.write('CON.md', 'reserved on Windows\n');
    await a.write('draft?.md', 'a question mark\n');
    await a.write('shout.MD', 'upper-case extension\n');
    await a.write(keyOf('binary'), Buffer.from('a\0b\n'));
    await a.write(keyOf('big'), 'x'.repeat(1_000_001));
    await a.write(keyOf('ok'), 'fine\n');
    const report = await a.sync.sync();
    expect(report.push.uploaded).toEqual([keyOf('ok')]);
    const reasons = Object.fromEntries(report.waiting.map((w) => [w.key, w.reason]));
    expect(reasons).toMatchObject({
      [keyOf('latin1')]: 'not-utf8',
      'CON.md': 'invalid-key',
      'draft?.md': 'invalid-key',
      'shout.MD': 'invalid-key',
      [keyOf('binary')]: 'binary',
      [keyOf('big')]: 'too-large',
    });
  });

  it('an older client (protocol 1) recovers from a replayed stale ETag: 412, refetch, recompute, push', async () => {
    n++;
    const a = await makeClient(root, `a${n}`, server, server.tokens[0]!, { protocol: 1 });
    const b = await makeClient(root, `b${n}`, server, server.tokens[1]!, { protocol: 1 });
    await a.write(keyOf('one'), '1\n');
    await a.sync.sync();
    const stale = (await a.sync.sync()).etag!;
    await b.write(keyOf('two'), '2\n');
    await b.sync.sync();
    // a's state goes back to the old ETag, as if a backup were restored.
    const stateFile = path.join(a.dataDir, 'team', a.sync.connection.id, 'state.json');
    const state = JSON.parse(await fs.readFile(stateFile, 'utf8')) as { etag: string };
    expect(state.etag).toBe(stale);
    await a.write(keyOf('three'), '3\n');
    const report = await a.sync.sync({ pull: false });
    expect(report.push.stale).toBe(1);
    expect(report.push.uploaded).toEqual([keyOf('three')]);
    expect(report.error).toBeNull();
    expect(await a.read(keyOf('two'))).toBe('2\n');
  });

  it("an older client (protocol 1) and a new one share a team: each sees the other's files; the new one merges over the old one's edit", async () => {
    n++;
    const old = await makeClient(root, `old${n}`, server, server.tokens[0]!, { protocol: 1 });
    const fresh = await makeClient(root, `new${n}`, server, server.tokens[1]!);
    const key = keyOf('mixed');
    await old.write(key, 'title\n\nold section\n\nnew section\n');
    expect((await old.sync.sync()).push.uploaded).toEqual([key]);
    expect((await fresh.sync.sync()).pull.written).toContain(key);
    await old.write(key, 'title\n\nold section, edited by the old client\n\nnew section\n');
    await fresh.write(key, 'title\n\nold section\n\nnew section, edited by the new client\n');
    expect((await old.sync.sync()).error).toBeNull();
    const merged = await fresh.sync.sync();
    expect(merged).toMatchObject({ error: null, pull: { merged: [key], conflicts: [] }, push: { uploaded: [key] } });
    const both = 'title\n\nold section, edited by the old client\n\nnew section, edited by the new client\n';
    expect((await serverEntries(server.url, server.team, server.tokens[0]!))[key]).toBe(both);
    expect((await old.sync.sync()).error).toBeNull();
    expect(await old.read(key)).toBe(both);
  });

  it('a token for another team gets a clear error and writes nothing', async () => {
    await createTeam(store, `other-${n}`);
    const other = (await issueToken(store, `other-${n}`, 'mallory')).token;
    const intruder = await makeClient(root, `intruder${n}`, server, other);
    await intruder.write(keyOf('x'), 'x\n');
    const report = await intruder.sync.sync();
    expect(report.error).toMatchObject({ code: 'not-found', message: expect.stringContaining('belongs to another team') });
    expect((await serverEntries(server.url, server.team, server.tokens[0]!))[keyOf('x')]).toBeUndefined();
  });
});

describe('team sync while others act', () => {
  /** Two machines on a team of their own (each pull brings only this test's files). */
  async function ownPair(
    options: [Parameters<typeof makeClient>[4], Parameters<typeof makeClient>[4]] = [{}, {}],
  ): Promise<[Awaited<ReturnType<typeof makeClient>>, Awaited<ReturnType<typeof makeClient>>, string[]]> {
    n++;
    const team = `own-${n}`;
    await createTeam(store, team);
    const tokens = [(await issueToken(store, team, 'ann')).token, (await issueToken(store, team, 'bob')).token];
    const at = { url: server.url, team };
    return [await makeClient(root, `a${n}`, at, tokens[0]!, options[0]), await makeClient(root, `b${n}`, at, tokens[1]!, options[1]), tokens];
  }

  it("an editor saving a file between the pull's decision and its write: the save is kept as a conflict, not overwritten", async () => {
    const key = 'race.md';
    let saved = false;
    const [a, b] = await ownPair([
      {},
      {
        beforeWriteKey: async (k) => {
          if (k !== key || saved) return;
          saved = true;
          await fs.writeFile(path.join(b.teamDir, key), 'saved by the editor during the pull\n');
        },
      },
    ]);
    await a.write(key, 'v1\n');
    await a.sync.sync();
    await b.sync.sync();
    await a.write(key, 'v2 from a\n');
    await a.sync.sync();
    saved = false;

    const pulled = await b.sync.sync();
    expect(saved).toBe(true);
    expect(pulled.error).toBeNull();
    expect(pulled.pull.conflicts).toEqual([key]);
    expect(await b.read(key)).toBe('v2 from a\n');
    const [conflict] = (await b.sync.inspect()).conflicts;
    expect((await b.sync.conflictDetail(conflict!.id)).mine).toBe('saved by the editor during the pull\n');
  });

  it('an editor saving a file the pull has not reached yet: kept, as the file or as a conflict', async () => {
    const [a, b] = await ownPair();
    const keys = Array.from({ length: 300 }, (_, i) => `bulk-${String(i).padStart(3, '0')}.md`);
    for (const key of keys) await a.write(key, `team version of ${key}\n`);
    expect((await a.sync.sync()).push.uploaded).toHaveLength(keys.length);

    // As soon as the pull has written its first file, the editor saves one it has not written yet.
    let edited: string | null = null;
    const editor = setInterval(() => {
      const present = new Set(fsSync.readdirSync(b.teamDir));
      if (edited || present.size === 0) return;
      edited = keys.findLast((k) => !present.has(k)) ?? null;
      if (edited) fsSync.writeFileSync(path.join(b.teamDir, edited), 'written here while the pull ran\n');
      clearInterval(editor);
    }, 1);
    const pulled = await b.sync.sync();
    clearInterval(editor);
    expect(pulled.error).toBeNull();
    expect(edited).not.toBeNull();
    const mine = await Promise.all(
      (await b.sync.inspect()).conflicts.filter((c) => c.key === edited).map(async (c) => (await b.sync.conflictDetail(c.id)).mine),
    );
    expect([await b.read(edited!), ...mine]).toContain('written here while the pull ran\n');
  });

  it('files the pull just wrote are hashed once more (a save in the same tick is not taken for theirs), then never again', async () => {
    const [a, b] = await ownPair();
    const keys = Array.from({ length: 25 }, (_, i) => `fresh-${i}.md`);
    for (const key of keys) await a.write(key, `content of ${key}\n`);
    await a.sync.sync();
    const pulled = await b.sync.sync();
    expect(pulled.pull.written.sort()).toEqual([...keys].sort());
    // Past the racy window: the next look hashes each once and trusts it from then on.
    await new Promise((resolve) => setTimeout(resolve, RACY_MS + 100));
    b.requests.length = 0;
    const settle = await b.sync.sync();
    expect(settle.error).toBeNull();
    expect(settle.filesHashed).toBe(keys.length);
    expect(settle.push.uploaded).toEqual([]);
    const idle = await b.sync.sync();
    expect(idle.error).toBeNull();
    expect(idle.bytesHashed).toBe(0);
    expect(idle.filesHashed).toBe(0);
    expect(b.requests.every((r) => r.method === 'GET' && r.status === 304 && r.bytesIn === 0)).toBe(true);
  });

  it("an entry refused for its content is not fetched again: the next sync is one 304, until the server's version changes", async () => {
    const key = 'long.md';
    const [a, b, tokens] = await ownPair([{}, { maxEntryBytes: 100 }]);
    await a.write(key, `${'x'.repeat(200)}\n`);
    await a.sync.sync();
    const first = await b.sync.sync();
    expect(first.pull.refused).toEqual([expect.objectContaining({ key, reason: expect.stringContaining('more than the 100') })]);

    b.requests.length = 0;
    const again = await b.sync.sync();
    expect(again.error).toBeNull();
    expect(b.requests).toEqual([expect.objectContaining({ method: 'GET', status: 304, bytesIn: 0 })]);
    // The refusal is remembered in the sync state: a restarted client does not fetch it again either.
    const restarted: RequestRecord[] = [];
    const reopened = await TeamSync.open({
      connection: b.sync.connection,
      token: tokens[1]!,
      dataDir: b.dataDir,
      maxEntryBytes: 100,
      onRequest: (r) => restarted.push(r),
    });
    expect((await reopened.sync()).error).toBeNull();
    expect(restarted).toEqual([expect.objectContaining({ method: 'GET', status: 304 })]);
    // The alert stays up while the entry is left out.
    expect((await b.alerts.list()).alerts.some((x) => x.status === 'open' && x.message.includes(key))).toBe(true);

    await a.write(key, 'short now\n');
    await a.sync.sync();
    await reopened.sync();
    expect(await b.read(key)).toBe('short now\n');
  });

  it('a first push of many files in many batches is not taken for a stale server', async () => {
    const [a] = await ownPair([{ batch: { maxKeys: 1 } }, {}]);
    const keys = Array.from({ length: 40 }, (_, i) => `batch-${i}.md`);
    for (const key of keys) await a.write(key, `${key}\n`);
    const report = await a.sync.sync();
    expect(report.error).toBeNull();
    expect(report.push.uploaded.sort()).toEqual([...keys].sort());
    expect(report.push.attempts).toBe(40);
  });

  it('abort() during a pull stops it between files: none half-written, and the next sync finishes the pull', async () => {
    const keys = Array.from({ length: 60 }, (_, i) => `stop-${String(i).padStart(2, '0')}.md`);
    let writes = 0;
    const [a, b] = await ownPair([{}, { beforeWriteKey: () => void (++writes === 10 && b.sync.abort()) }]);
    for (const key of keys) await a.write(key, `team version of ${key}\n`);
    await a.sync.sync();
    const stopped = await b.sync.sync();
    expect(stopped.error).toMatchObject({ code: 'cancelled' });
    const names = await fs.readdir(b.teamDir);
    expect(names.length).toBeLessThan(keys.length);
    expect(names.filter((f) => !keys.includes(f))).toEqual([]);
    for (const [key, content] of Object.entries(await b.files())) expect(content).toBe(`team version of ${key}\n`);

    const resumed = await b.sync.sync();
    expect(resumed.error).toBeNull();
    expect(Object.keys(await b.files()).sort()).toEqual(keys);
  });
});

describe('team sync against unreliable servers', () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  /** A proxy in front of the real server that can cut PUTs before or after the server saw them. */
  async function flakyProxy(): Promise<{ url: string; mode: { cut: 'none' | 'before' | 'after' } }> {
    const mode = { cut: 'none' as 'none' | 'before' | 'after' };
    const upstream = new URL(server.url);
    const sockets = new Set<net.Socket>();
    const proxy = net.createServer((socket) => {
      const out = net.connect(Number(upstream.port), upstream.hostname);
      sockets.add(socket).add(out);
      let isPut = false;
      socket.on('data', (d) => {
        // Each request on a kept-alive connection starts a chunk with its request line.
        const text = d.toString('latin1');
        if (/^[A-Z]+ \//.test(text)) isPut = text.startsWith('PUT ');
        if (isPut && mode.cut === 'before') {
          socket.destroy();
          out.destroy();
          return;
        }
        out.write(d);
      });
      out.on('data', (d) => {
        // The server applied the push; its answer never arrives.
        if (isPut && mode.cut === 'after') {
          socket.destroy();
          out.destroy();
          return;
        }
        socket.write(d);
      });
      out.on('error', () => socket.destroy());
      socket.on('error', () => out.destroy());
      out.on('close', () => socket.destroy());
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    closers.push(
      () =>
        new Promise((r) => {
          for (const socket of sockets) socket.destroy();
          proxy.close(() => r());
        }),
    );
    return { url: `http://127.0.0.1:${(proxy.address() as net.AddressInfo).port}`, mode };
  }

  it('a server that goes away mid-push (before applying it): a clear error, nothing lost, the next sync finishes it', async () => {
    const proxy = await flakyProxy();
    n++;
    const a = await makeClient(root, `flaky${n}`, { url: proxy.url, team: server.team }, server.tokens[0]!);
    await a.write(keyOf('important'), 'do not lose me\n');
    proxy.mode.cut = 'before';
    const first = await a.sync.sync();
    // The request left: the client cannot know the server did not save it, and says so.
    expect(first.error).toMatchObject({ code: 'network', message: expect.stringContaining('was lost after the push was sent') });
    expect(first.error!.message).toContain('may have saved it');
    expect(first.error!.message).not.toContain('Cannot reach');
    expect(await a.read(keyOf('important'))).toBe('do not lose me\n');
    expect((await a.sync.inspect()).waiting).toEqual([expect.objectContaining({ key: keyOf('important'), reason: 'pending' })]);
    proxy.mode.cut = 'none';
    const second = await a.sync.sync();
    expect(second.error).toBeNull();
    expect(second.push.uploaded).toEqual([keyOf('important')]);
    expect((await serverEntries(server.url, server.team, server.tokens[0]!))[keyOf('important')]).toBe('do not lose me\n');
  });

  it('a server that goes away after applying a push: the next sync sees it is already there (no conflict, no double push)', async () => {
    const proxy = await flakyProxy();
    n++;
    const a = await makeClient(root, `flaky${n}`, { url: proxy.url, team: server.team }, server.tokens[0]!);
    await a.write(keyOf('applied'), 'landed, answer lost\n');
    proxy.mode.cut = 'after';
    const first = await a.sync.sync();
    expect(first.error?.code).toBe('network');
    proxy.mode.cut = 'none';
    const second = await a.sync.sync();
    expect(second.error).toBeNull();
    expect(second.push.uploaded).toEqual([]);
    expect(second.pull.conflicts).toEqual([]);
    expect((await a.sync.inspect()).waiting).toEqual([]);
    expect((await serverEntries(server.url, server.team, server.tokens[0]!))[keyOf('applied')]).toBe('landed, answer lost\n');
  });

  it('clocks that disagree change nothing: versions and hashes decide, never timestamps', async () => {
    const skewedStore = await openSqliteStore(path.join(root, `skewed-${++n}.sqlite`));
    await createTeam(skewedStore, 'platform');
    const t1 = (await issueToken(skewedStore, 'platform', 'ann')).token;
    const t2 = (await issueToken(skewedStore, 'platform', 'bob')).token;
    // The server lives ten years ahead; one client a year behind, the other in 2100.
    const app = createApp({ store: skewedStore, now: () => new Date('2036-01-01T00:00:00Z'), limits: { rateLimit: { burst: 1000, perSecond: 1000 } } });
    const http = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 });
    await new Promise((r) => http.once('listening', r));
    closers.push(async () => {
      await new Promise((r) => http.close(r));
      await skewedStore.close();
    });
    const url = `http://127.0.0.1:${(http.address() as net.AddressInfo).port}`;
    const past = await makeClient(root, `past${n}`, { url, team: 'platform' }, t1, { now: () => new Date('2025-01-01T00:00:00Z') });
    const future = await makeClient(root, `future${n}`, { url, team: 'platform' }, t2, { now: () => new Date('2100-01-01T00:00:00Z') });
    await past.write('a.md', 'from the past\n');
    await past.sync.sync();
    await future.sync.sync();
    await future.write('a.md', 'from the past\nand the future\n');
    await future.sync.sync();
    await past.sync.sync();
    expect(await past.read('a.md')).toBe('from the past\nand the future\n');
    expect((await past.sync.inspect()).conflicts).toEqual([]);
  });
});
