/**
 * R-SYNC-SECURITY against a server that lies (test-support/malicious-server.ts): whatever it
 * sends, nothing is written outside the team folder, an alert is raised, and the client's
 * work stays bounded (bytes read, requests made, time taken).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type MaliciousServer, type Behaviour, startMaliciousServer } from './test-support/malicious-server.js';
import { makeClient } from './test-support/team-fixture.js';

const TOKEN = `mdt_${'0'.repeat(16)}_${'A'.repeat(43)}`;
let root: string;
let servers: MaliciousServer[] = [];
let n = 0;

beforeAll(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-team-malicious-')));
});
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});
afterAll(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

/** Every file under `dir` (path → size:mtime), for "nothing changed outside" checks. */
async function snapshot(dir: string, skip: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (current: string): Promise<void> => {
    for (const entry of await fs.readdir(current, { withFileTypes: true }).catch(() => [])) {
      const full = path.join(current, entry.name);
      if (skip.some((s) => full === s || full.startsWith(s + path.sep))) continue;
      const st = await fs.lstat(full);
      out.set(full, `${st.size}:${st.mtimeMs}`);
      if (entry.isDirectory()) await walk(full);
    }
  };
  await walk(dir);
  return out;
}

async function victim(behaviour: Behaviour, options: Parameters<typeof makeClient>[4] = {}) {
  const server = await startMaliciousServer(behaviour);
  servers.push(server);
  const client = await makeClient(root, `victim${++n}`, { url: server.url, team: 'platform' }, TOKEN, options);
  // Canaries next to the team folder and around the machine's "home".
  await fs.writeFile(path.join(client.memoryDir, 'MEMORY.md'), '- [Mine](mine.md) — private\n');
  await fs.mkdir(path.join(client.root, 'home', '.ssh'), { recursive: true });
  await fs.writeFile(path.join(client.root, 'home', '.ssh', 'id_ed25519'), 'PRIVATE\n');
  const before = await snapshot(root, [client.teamDir, client.dataDir]);
  const outsideUnchanged = async (): Promise<void> => {
    expect(await snapshot(root, [client.teamDir, client.dataDir])).toEqual(before);
  };
  return { server, client, outsideUnchanged };
}

describe('a malicious sync server', () => {
  it('sends hostile keys: each is refused with its reason, only the honest key is written, an alert is raised', async () => {
    const hostile = [
      '../../outside.md',
      '../MEMORY.md',
      '/etc/passwd.md',
      '%2e%2e%2fescape.md',
      '%252e%252e%252fescape.md',
      '..%2fescape.md',
      '\uFF0E\uFF0E\uFF0Fescape.md',
      'a\\..\\..\\escape.md',
      'C:escape.md',
      'team/../../escape.md',
      '.git/config.md',
      'CON.md',
      'nul\u0000.md',
      'deep/er/than/allowed.md',
      `${'x'.repeat(300)}.md`,
      'bidi\u202Egnp.md',
      'notes.md/inner.md',
      '..',
    ];
    const entries: Record<string, { content: string }> = { 'ok.md': { content: 'honest\n' } };
    for (const key of hostile) entries[key] = { content: 'owned\n' };
    const { client, outsideUnchanged } = await victim({ kind: 'entries', entries });
    const report = await client.sync.sync();
    expect(report.pull.written).toEqual(['ok.md']);
    expect(report.pull.refused.map((r) => r.key).sort()).toEqual(hostile.map((k) => k.slice(0, 120)).sort());
    for (const r of report.pull.refused) expect(r.reason).toMatch(/^Refused/);
    expect(await client.files()).toEqual({ 'ok.md': 'honest\n' });
    await outsideUnchanged();
    const { alerts } = await client.alerts.list();
    expect(alerts).toContainEqual(
      expect.objectContaining({
        kind: 'security',
        status: 'open',
        title: 'The sync server sent entries Memdir refused',
        message: expect.stringContaining(`${hostile.length} entries were not written`),
      }),
    );
  });

  it('sends checksums that do not match the content: nothing written, alerted, never taken as the base', async () => {
    const { client, outsideUnchanged } = await victim({
      kind: 'entries',
      entries: { 'a.md': { content: 'tampered\n', sha256: 'a'.repeat(64) }, 'b.md': { content: 'fine\n' } },
    });
    await client.write('a.md', 'my local a\n');
    const report = await client.sync.sync();
    expect(report.pull.refused).toEqual([expect.objectContaining({ key: 'a.md', reason: expect.stringContaining('checksum does not match') })]);
    expect(await client.read('a.md')).toBe('my local a\n');
    expect(await client.read('b.md')).toBe('fine\n');
    // The server claims a version of a.md this client never saw: a.md is not pushed over it.
    expect(report.push.uploaded).toEqual([]);
    expect(report.waiting).toEqual([expect.objectContaining({ key: 'a.md', reason: 'server-moved' })]);
    await outsideUnchanged();
    expect((await client.alerts.list()).alerts.some((a) => a.kind === 'security' && a.message.includes('checksum'))).toBe(true);
  });

  it('answers a push with an ETag holding CR/LF: never stored, the sync says so and alerts, later syncs still reach the server', async () => {
    const { server, client } = await victim({ kind: 'entries', entries: {}, putEtag: '"deadbeef-2"\r\nX-Injected: 1' });
    await client.write('mine.md', 'keep me\n');
    const report = await client.sync.sync();
    expect(report.error).toMatchObject({ code: 'bad-response', message: expect.stringContaining('invalid ETag') });
    expect(report.error!.message).not.toMatch(/[\r\n]/);
    const state = await fs.readFile(path.join(client.dataDir, 'team', client.sync.connection.id, 'state.json'), 'utf8');
    expect(state).not.toContain('X-Injected');
    expect((await client.alerts.list()).alerts).toContainEqual(
      expect.objectContaining({ kind: 'sync', status: 'open', message: expect.stringContaining('invalid ETag') }),
    );
    // The state was not poisoned: the next sync reaches the server again (and is told the same).
    const requests = server.counts.requests;
    const again = await client.sync.sync();
    expect(server.counts.requests).toBeGreaterThan(requests);
    expect(again.error?.code).toBe('bad-response');
    expect(await client.read('mine.md')).toBe('keep me\n');
  });

  it("sends an ETag that is not in the protocol's form: refused before anything is written", async () => {
    const { client, outsideUnchanged } = await victim({ kind: 'entries', entries: { 'a.md': { content: 'a\n' } }, etag: '"a", W/"b"' });
    const report = await client.sync.sync();
    expect(report.error).toMatchObject({ code: 'bad-response', message: expect.stringContaining('invalid ETag') });
    expect(await client.files()).toEqual({});
    await outsideUnchanged();
  });

  it('sends more entries than a team may hold: the pull is refused whole, nothing written or stored, alerted', async () => {
    const entries: Record<string, { content: string }> = {};
    for (let i = 0; i <= 20_000; i++) entries[`n${i}.md`] = { content: `${i}\n` };
    const { client, outsideUnchanged } = await victim({ kind: 'entries', entries });
    const report = await client.sync.sync();
    expect(report.error).toMatchObject({ code: 'too-large', message: expect.stringContaining('20,001 entries') });
    expect(report.pull.written).toEqual([]);
    expect(await client.files()).toEqual({});
    expect(report.etag).toBeNull();
    await outsideUnchanged();
    expect((await client.alerts.list()).alerts).toContainEqual(
      expect.objectContaining({ status: 'open', message: expect.stringContaining('more than the 20,000') }),
    );
  });

  it('a smaller bound chosen for a client holds the same way', async () => {
    const entries: Record<string, { content: string }> = {};
    for (let i = 0; i < 60; i++) entries[`n${i}.md`] = { content: `${i}\n` };
    const { client } = await victim({ kind: 'entries', entries }, { maxPullEntries: 50 });
    const report = await client.sync.sync();
    expect(report.error).toMatchObject({ code: 'too-large', message: expect.stringContaining('60 entries') });
    expect(await client.files()).toEqual({});
  });

  it('sends a 1 GB body: the client stops at its ceiling, writes nothing and says why', async () => {
    const { server, client, outsideUnchanged } = await victim({ kind: 'huge-body' }, { maxResponseBytes: 2 * 1024 * 1024 });
    const started = performance.now();
    const report = await client.sync.sync();
    expect(report.error).toMatchObject({ code: 'too-large', message: expect.stringContaining('more than 2 MB') });
    expect(performance.now() - started).toBeLessThan(10_000);
    // Bounded: the server got to send the ceiling plus what socket buffers hold, not a gigabyte.
    await new Promise((r) => setTimeout(r, 200));
    expect(server.counts.bytesSent).toBeLessThan(64 * 1024 * 1024);
    expect(await client.files()).toEqual({});
    await outsideUnchanged();
    expect((await client.alerts.list()).alerts.some((a) => a.status === 'open' && a.message.includes('more than 2 MB'))).toBe(true);
  });

  it('announces a 1 GB Content-Length: refused before reading a byte of it', async () => {
    const { client } = await victim({ kind: 'huge-body', declareLength: true });
    const report = await client.sync.sync();
    expect(report.error).toMatchObject({ code: 'too-large', message: expect.stringContaining('announced a 1024 MB answer') });
    expect(client.requests.at(-1)).toMatchObject({ bytesIn: 0 });
  });

  it('answers every push with 412: bounded retries with backoff, then the user is told; the local file stays', async () => {
    const { server, client, outsideUnchanged } = await victim({ kind: 'endless-412' }, { retry: { attempts: 5, baseMs: 10, maxMs: 100 } });
    await client.write('mine.md', 'keep me\n');
    const started = performance.now();
    const report = await client.sync.sync();
    expect(report.error).toMatchObject({ code: 'stale', message: expect.stringContaining('kept changing') });
    expect(server.counts.puts).toBe(5);
    expect(report.push.stale).toBe(5);
    expect(server.counts.requests).toBeLessThan(20);
    // Bounded in time too (each wait is the policy's: push.test.ts); the bound is loose because every
    // push also runs git — 5.7 s was seen on a loaded 2-core machine.
    expect(performance.now() - started).toBeLessThan(15_000);
    expect(await client.read('mine.md')).toBe('keep me\n');
    await outsideUnchanged();
    expect((await client.alerts.list()).alerts).toContainEqual(
      expect.objectContaining({ kind: 'sync', status: 'open', message: expect.stringContaining('412') }),
    );
    // The next sync tries again (still bounded) rather than giving up forever.
    await client.sync.sync();
    expect(server.counts.puts).toBe(10);
  });

  it('answers every push with 428: bounded retries with backoff, then the user is told; the local file stays', async () => {
    const { server, client } = await victim(
      { kind: 'refuse-push', status: 428, body: { error: 'precondition-required', message: 'Send If-Match.' } },
      { retry: { attempts: 5, baseMs: 20, maxMs: 100 } },
    );
    await client.write('mine.md', 'keep me\n');
    const started = performance.now();
    const report = await client.sync.sync();
    expect(report.error).toMatchObject({ code: 'server', message: expect.stringContaining('428') });
    expect(server.counts.puts).toBe(5);
    // Four waits of at least 10, 20, 40 and 50 ms (half of each doubled, capped step).
    expect(performance.now() - started).toBeGreaterThanOrEqual(115);
    expect(await client.read('mine.md')).toBe('keep me\n');
    expect((await client.alerts.list()).alerts).toContainEqual(
      expect.objectContaining({ kind: 'sync', status: 'open', message: expect.stringContaining('428') }),
    );
  });

  it('refuses keys the push did not carry (400): the push stops at once and says so', async () => {
    const { server, client } = await victim({
      kind: 'refuse-push',
      status: 400,
      body: { error: 'invalid-key', message: '1 key(s) refused.', keys: [{ key: 'not-sent.md', code: 'invalid', reason: 'made up' }] },
    });
    await client.write('mine.md', 'keep me\n');
    const report = await client.sync.sync();
    expect(report.error).toMatchObject({ code: 'server', message: expect.stringContaining('"not-sent.md"') });
    expect(server.counts.puts).toBe(1);
    expect(await client.read('mine.md')).toBe('keep me\n');
  });

  it('refuses keys the push did not carry and names one whose name holds a secret masked, in the report and the alert', async () => {
    const token = ['ghp_', 'Zk2Nd7Ws', 'Tq4Lb9Xe', 'Vr8Mc3Zr', 'Ey6Ug1Jt', 'p5Ho'].join('');
    const { server, client } = await victim({
      kind: 'refuse-push',
      status: 400,
      body: { error: 'invalid-key', message: '1 key(s) refused.', keys: [{ key: `reference_${token}.md`, code: 'invalid', reason: 'made up' }] },
    });
    await client.write('mine.md', 'keep me\n');
    const report = await client.sync.sync();
    expect(report.error).toMatchObject({ code: 'server', message: expect.stringMatching(/"reference_ghp_\*+\.md"/) });
    expect(server.counts.puts).toBe(1);
    const alerts = (await client.alerts.list()).alerts;
    expect(JSON.stringify({ report, alerts })).not.toContain(token.slice(4));
  });

  it('never answers: abort() ends the sync at once with "cancelled" instead of waiting out the timeout, nothing written', async () => {
    const { client, outsideUnchanged } = await victim({ kind: 'hang' });
    await client.write('mine.md', 'keep me\n');
    const started = performance.now();
    const running = client.sync.sync();
    await new Promise((r) => setTimeout(r, 200));
    client.sync.abort();
    const report = await running;
    expect(report.error).toMatchObject({ code: 'cancelled' });
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(await fs.readdir(client.teamDir)).toEqual(['mine.md']);
    await outsideUnchanged();
    // Cancelling is not an alert, and the next sync is not cancelled in advance.
    expect((await client.alerts.list()).alerts).toEqual([]);
    const next = client.sync.sync();
    await new Promise((r) => setTimeout(r, 100));
    expect(client.sync.running).toBe(true);
    client.sync.abort();
    expect((await next).error).toMatchObject({ code: 'cancelled' });
  });

  it('redirects elsewhere: not followed, so the token never travels to the other host', async () => {
    const elsewhere = await startMaliciousServer({ kind: 'garbage' });
    servers.push(elsewhere);
    const { client } = await victim({ kind: 'redirect', to: elsewhere.url });
    const report = await client.sync.sync();
    expect(report.error).toMatchObject({ code: 'redirect', message: expect.stringContaining('does not follow redirects') });
    expect(elsewhere.counts.requests).toBe(0);
  });

  it('sends junk instead of JSON: a clear error, nothing written', async () => {
    const { client, outsideUnchanged } = await victim({ kind: 'garbage' });
    const report = await client.sync.sync();
    expect(report.error).toMatchObject({ code: 'bad-response', message: expect.stringContaining('not valid UTF-8 JSON') });
    expect(await client.files()).toEqual({});
    await outsideUnchanged();
  });
});
