import http from 'node:http';
import net from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { createTeam, issueToken } from './admin.js';
import { jsonLog } from './log.js';
import { entriesResponseSchema } from '../shared/protocol/sync.js';
import { type RunningServer, type ServerOptions, startServer } from './server.js';
import type { TeamStore } from './store.js';
import { describeStores } from './test-support/stores.js';

const running: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()));
});

async function start(store: TeamStore, options: Partial<ServerOptions> = {}): Promise<RunningServer> {
  const server = await startServer({ store, port: 0, closeStore: false, ...options });
  running.push(server);
  return server;
}

async function seed(store: TeamStore): Promise<string> {
  await createTeam(store, 'platform');
  return (await issueToken(store, 'platform', 'ann')).token;
}

/** Send raw bytes on a fresh socket and return everything the server sends until it closes. */
function rawExchange(port: number, request: string, options: { keepOpenMs?: number } = {}): Promise<{ head: string; body: Buffer; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = net.connect(port, '127.0.0.1', () => socket.write(request));
    const chunks: Buffer[] = [];
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', reject);
    const finish = () => {
      const all = Buffer.concat(chunks);
      const split = all.indexOf('\r\n\r\n');
      resolve({ head: all.subarray(0, split).toString('latin1'), body: all.subarray(split + 4), ms: performance.now() - started });
    };
    socket.on('close', finish);
    if (options.keepOpenMs) setTimeout(() => socket.destroy(), options.keepOpenMs);
  });
}

async function etagOf(url: string, token: string): Promise<string> {
  const r = await fetch(`${url}/v1/teams/platform/checksums`, { headers: { authorization: `Bearer ${token}` } });
  return r.headers.get('etag')!;
}

function put(url: string, token: string, etag: string, entries: Record<string, string>): Promise<Response> {
  return fetch(`${url}/v1/teams/platform/entries`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'if-match': etag },
    body: JSON.stringify({ entries }),
  });
}

describeStores('sync server over real HTTP', (h) => {
  it('prints its URL on 127.0.0.1 and answers /healthz', async () => {
    const server = await start(await h.fresh());
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await (await fetch(`${server.url}/healthz`)).json()).toEqual({ ok: true });
  });

  it('sends a 304 with no body at all (raw bytes on the wire)', async () => {
    const store = await h.fresh();
    const token = await seed(store);
    const server = await start(store);
    await put(server.url, token, await etagOf(server.url, token), { 'MEMORY.md': 'x'.repeat(5000) });
    const etag = await etagOf(server.url, token);
    const request = (extra: string) =>
      `GET /v1/teams/platform/entries HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n${extra}\r\n`;
    const fresh = await rawExchange(server.port, request(`If-None-Match: ${etag}\r\n`));
    expect(fresh.head).toMatch(/^HTTP\/1\.1 304 /);
    expect(fresh.head.toLowerCase()).toContain(`etag: ${etag}`.toLowerCase());
    expect(fresh.body.length).toBe(0);
    const full = await rawExchange(server.port, request(''));
    expect(full.head).toMatch(/^HTTP\/1\.1 200 /);
    expect(full.body.length).toBeGreaterThan(5000);
  });

  it('refuses a declared 1 GB body at once, without waiting for it', async () => {
    const store = await h.fresh();
    const token = await seed(store);
    const server = await start(store);
    const etag = await etagOf(server.url, token);
    const body = '{"entries":{}}';
    const response = await rawExchange(
      server.port,
      `PUT /v1/teams/platform/entries HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nIf-Match: ${etag}\r\nContent-Length: ${1024 ** 3}\r\n\r\n${body}`,
      { keepOpenMs: 5000 },
    );
    expect(response.head).toMatch(/^HTTP\/1\.1 413 /);
    expect(response.head.toLowerCase()).toContain('connection: close');
    expect(JSON.parse(response.body.toString()).error).toBe('body-too-large');
    // The server closed the connection itself, long before our 5 s give-up.
    expect(response.ms).toBeLessThan(3000);
  });

  it('cuts off a chunked body that grows past the limit while it streams in', async () => {
    const store = await h.fresh();
    const token = await seed(store);
    const server = await start(store, { limits: { maxBodyBytes: 256 * 1024 } });
    const etag = await etagOf(server.url, token);
    let written = 0;
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(`${server.url}/v1/teams/platform/entries`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'if-match': etag, 'transfer-encoding': 'chunked' },
      });
      let answered = false;
      req.on('response', (res) => {
        answered = true;
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', (e) => (answered ? undefined : reject(e)));
      req.write('{"entries":{"a.md":"');
      const chunk = Buffer.alloc(16 * 1024, 'a');
      const pump = () => {
        if (answered || written > 200 * 1024 * 1024) return req.destroy();
        written += chunk.length;
        req.write(chunk, () => setTimeout(pump, 1));
      };
      pump();
    });
    expect(status).toBe(413);
    // Answered after about the limit, not after the 200 MB the client was ready to send.
    expect(written).toBeLessThan(16 * 1024 * 1024);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it('keeps everything across a restart, ETags included', async () => {
    const db = await h.freshDb();
    const store = await h.open(db);
    const token = await seed(store);
    const first = await start(store);
    expect((await put(first.url, token, await etagOf(first.url, token), { 'a.md': 'survives' })).status).toBe(200);
    const etag = await etagOf(first.url, token);
    await first.close();
    await store.close();
    const second = await start(await h.open(db));
    const r = await fetch(`${second.url}/v1/teams/platform/entries`, { headers: { authorization: `Bearer ${token}` } });
    expect(r.headers.get('etag')).toBe(etag);
    expect(entriesResponseSchema.parse(await r.json()).entries['a.md']!.content).toBe('survives');
  });

  it('two server instances on one database: concurrent protocol 2 pushes of one key from one base — one commits, the others get conflicts, nothing lost', async () => {
    const db = await h.freshDb();
    const token = await seed(await h.open(db));
    const a = await start(await h.open(db));
    const b = await start(await h.open(db));
    let base: string | null = null;
    for (let round = 0; round < 5; round++) {
      const responses = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          fetch(`${i % 2 ? b.url : a.url}/v2/teams/platform/entries`, {
            method: 'PUT',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ pushId: `race-${round}-${i}-0000000000`, entries: { 'shared.md': { content: `writer ${i} round ${round}`, base } } }),
          }).then(async (r) => ({ status: r.status, body: (await r.json()) as { committed: string[]; conflicts: Record<string, { sha256: string }> } })),
        ),
      );
      expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
      const winners = responses.flatMap((r, i) => (r.body.committed.includes('shared.md') ? [i] : []));
      expect(winners).toHaveLength(1);
      const pulled = entriesResponseSchema.parse(
        await (await fetch(`${b.url}/v1/teams/platform/entries`, { headers: { authorization: `Bearer ${token}` } })).json(),
      );
      const entry = pulled.entries['shared.md']!;
      expect(entry.content).toBe(`writer ${winners[0]} round ${round}`);
      // Every loser is told the winner's version, so its client keeps its own text as a conflict.
      for (const r of responses.filter((_, i) => i !== winners[0])) expect(r.body.conflicts['shared.md']!.sha256).toBe(entry.sha256);
      base = entry.sha256;
    }
  });

  it('refuses a push too deeply nested or with too many keys before parsing it (each cost the event loop seconds, stalling every team)', async () => {
    const store = await h.fresh();
    const token = await seed(store);
    const server = await start(store);
    const send = (body: string) =>
      fetch(`${server.url}/v2/teams/platform/entries`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body,
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as { error: string; message: string; limit?: number } }));
    const deep = await send(`{"pushId":"deep-0000000000000000","entries":${'['.repeat(200_000)}${']'.repeat(200_000)}}`);
    expect(deep).toMatchObject({
      status: 400,
      body: { error: 'invalid-body', message: 'The request body is nested deeper than a push ever is (more than 8 levels).' },
    });
    const keys = Array.from({ length: 20_000 }, (_, i) => `"k${i}.md":1`).join(',');
    const many = await send(`{"pushId":"many-0000000000000000","entries":{${keys}}}`);
    expect(many).toMatchObject({ status: 413, body: { error: 'too-many-keys', limit: 500 } });
    // A full push of the largest allowed size still goes through.
    const full = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`k${i}.md`, { content: `line, "quoted" [${i}] {x}`, base: null }]));
    expect((await send(JSON.stringify({ pushId: 'full-0000000000000000', entries: full }))).status).toBe(200);
  });

  it('logs the team of protocol 2 requests too (operators read logs per team)', async () => {
    const store = await h.fresh();
    const token = await seed(store);
    const lines: string[] = [];
    const server = await start(store, { log: jsonLog((line) => lines.push(line)) });
    await fetch(`${server.url}/v2/teams/platform/entries`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ pushId: 'log-team-0000000000', entries: { 'a.md': { content: 'SECRET-TEXT', base: null } } }),
    });
    await server.close();
    const request = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((r) => r.msg === 'request');
    expect(request).toMatchObject({ method: 'PUT', route: '/v2/teams/:team/entries', team: 'platform', member: 'ann', status: 200 });
    expect(lines.join('')).not.toContain('SECRET-TEXT');
  });

  it('writes JSON log lines without tokens or content', async () => {
    const store = await h.fresh();
    const token = await seed(store);
    const lines: string[] = [];
    const server = await start(store, { log: jsonLog((line) => lines.push(line)) });
    await put(server.url, token, await etagOf(server.url, token), { 'a.md': 'CONTENT-NEVER-LOGGED' });
    await fetch(`${server.url}/v1/teams/platform/entries`, { headers: { authorization: `Bearer ${token}x` } });
    await server.close();
    const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records[0]).toMatchObject({ msg: 'listening', url: server.url });
    expect(records.at(-1)).toMatchObject({ msg: 'stopped' });
    expect(records.filter((r) => r.msg === 'request').map((r) => [r.method, r.route, r.status])).toEqual([
      ['GET', '/v1/teams/:team/checksums', 200],
      ['PUT', '/v1/teams/:team/entries', 200],
      ['GET', '/v1/teams/:team/entries', 401],
    ]);
    const all = lines.join('');
    expect(all).not.toContain(token.slice(22));
    expect(all).not.toContain('CONTENT-NEVER-LOGGED');
  });

  it('shuts down gracefully: a request in flight completes, new connections are refused', async () => {
    const store = await h.fresh();
    const token = await seed(store);
    const server = await start(store);
    const etag = await etagOf(server.url, token);
    const body = Buffer.from(JSON.stringify({ entries: { 'slow.md': 'arrives after close() was called' } }));
    const req = http.request(`${server.url}/v1/teams/platform/entries`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'if-match': etag, 'content-length': body.length },
    });
    const answer = new Promise<number>((resolve, reject) => {
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', reject);
    });
    req.write(body.subarray(0, 10));
    await new Promise((r) => setTimeout(r, 100));
    let closed = false;
    const closing = server.close().then(() => (closed = true));
    await new Promise((r) => setTimeout(r, 100));
    expect(closed).toBe(false);
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
    req.end(body.subarray(10));
    expect(await answer).toBe(200);
    await closing;
    expect((await store.readEntries('platform'))!.entries.map((e) => e.key)).toEqual(['slow.md']);
  });

  it('two server instances on one database: concurrent pushes with the same If-Match, exactly one 200', async () => {
    const db = await h.freshDb();
    const token = await seed(await h.open(db));
    const a = await start(await h.open(db));
    const b = await start(await h.open(db));
    for (let round = 0; round < 10; round++) {
      const etag = await etagOf(a.url, token);
      const responses = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          put(i % 2 ? b.url : a.url, token, etag, { 'shared.md': `writer ${i} round ${round}`, [`only-${round}-${i}.md`]: 'x' }),
        ),
      );
      const statuses = responses.map((r) => r.status).sort();
      expect(statuses).toEqual([200, 412, 412, 412, 412, 412, 412, 412]);
      const winner = responses.findIndex((r) => r.status === 200);
      const newEtag = responses[winner]!.headers.get('etag')!;
      for (const r of responses.filter((x) => x.status === 412)) expect(r.headers.get('etag')).toBe(newEtag);
      const pulled = entriesResponseSchema.parse(
        await (await fetch(`${b.url}/v1/teams/platform/entries`, { headers: { authorization: `Bearer ${token}` } })).json(),
      );
      expect(pulled.entries['shared.md']!.content).toBe(`writer ${winner} round ${round}`);
      expect(Object.keys(pulled.entries).filter((k) => k.startsWith(`only-${round}-`))).toEqual([`only-${round}-${winner}.md`]);
    }
  });
});
