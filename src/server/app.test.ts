import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createApp } from './app.js';
import { createTeam, issueToken, revokeToken } from './admin.js';
import type { ServerLimits } from './limits.js';
import type { LogRecord } from './log.js';
import { checksumsResponseSchema, commitResponseSchema, entriesResponseSchema, errorResponseSchema, putResponseSchema } from '../shared/protocol/sync.js';
import { type StoreHarness, describeStores } from './test-support/stores.js';

async function setup(h: StoreHarness, limits: Partial<ServerLimits> = {}) {
  const store = await h.fresh();
  await createTeam(store, 'platform');
  await createTeam(store, 'other');
  const ann = await issueToken(store, 'platform', 'ann');
  const olga = await issueToken(store, 'other', 'olga');
  const logs: LogRecord[] = [];
  const app = createApp({ store, limits, log: (r) => logs.push(r) });
  const request = (method: string, path: string, options: { token?: string | null; headers?: Record<string, string>; body?: RequestInit['body'] } = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    const token = options.token === undefined ? ann.token : options.token;
    if (token !== null) headers.authorization = `Bearer ${token}`;
    return app.request(path, { method, headers, ...(options.body !== undefined ? { body: options.body, duplex: 'half' } : {}) } as RequestInit);
  };
  const etagOf = async (): Promise<string> => (await request('GET', '/v1/teams/platform/checksums')).headers.get('etag')!;
  const push = async (entries: Record<string, unknown>, ifMatch?: string | null, token?: string) => {
    const match = ifMatch === undefined ? await etagOf() : ifMatch;
    return request('PUT', '/v1/teams/platform/entries', {
      ...(token ? { token } : {}),
      headers: { 'content-type': 'application/json', ...(match !== null ? { 'if-match': match } : {}) },
      body: JSON.stringify({ entries }),
    });
  };
  const entries = async () => entriesResponseSchema.parse(await (await request('GET', '/v1/teams/platform/entries')).json());
  return { store, app, ann, olga, logs, request, push, etagOf, entries };
}

async function errorOf(response: Response) {
  return errorResponseSchema.parse(await response.json());
}

describeStores('sync API (app.request)', (h) => {
  it('answers /healthz without a token, saying only "ok" — nothing of the store behind it', async () => {
    const { request, store } = await setup(h);
    const response = await request('GET', '/healthz', { token: null });
    expect(response.status).toBe(200);
    const body = await response.text();
    expect(JSON.parse(body)).toEqual({ ok: true });
    expect(body).not.toMatch(/sqlite|postgres/i);
    await store.close();
    const down = await request('GET', '/healthz', { token: null });
    expect(down.status).toBe(503);
    expect(await down.json()).toEqual({ ok: false });
  });

  it('refuses an expired token with 401 token-expired and the day it expired, and serves it before', async () => {
    const store = await h.fresh();
    await createTeam(store, 'platform');
    const eve = await issueToken(store, 'platform', 'eve', new Date('2026-03-01T12:00:00.000Z'), 30);
    let now = new Date('2026-03-31T11:59:59.000Z');
    const app = createApp({ store, now: () => now });
    const me = () => app.request('/v1/me', { headers: { authorization: `Bearer ${eve.token}` } });
    expect((await me()).status).toBe(200);
    now = new Date('2026-03-31T12:00:00.000Z');
    const refused = await me();
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual({
      error: 'token-expired',
      message: 'This token expired on 2026-03-31; ask your team admin for a new one.',
      expiredAt: '2026-03-31T12:00:00.000Z',
    });
  });

  it('refuses requests without a token, with a malformed one, with a wrong secret, or revoked', async () => {
    const { request, ann, store } = await setup(h);
    const missing = await request('GET', '/v1/teams/platform/entries', { token: null });
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toContain('Bearer');
    const missingBody = await missing.text();
    expect(JSON.parse(missingBody).error).toBe('unauthorized');
    const malformed = await request('GET', '/v1/teams/platform/entries', { token: 'hunter2' });
    const wrongSecret = await request('GET', '/v1/teams/platform/entries', { token: `${ann.token.slice(0, -4)}AAAA` });
    const basic = await request('GET', '/v1/teams/platform/entries', { token: null, headers: { authorization: `Basic ${btoa('a:b')}` } });
    for (const r of [malformed, wrongSecret, basic]) {
      expect(r.status).toBe(401);
      expect(await r.text()).toBe(missingBody);
    }
    await revokeToken(store, ann.info.id);
    const revoked = await request('GET', '/v1/teams/platform/entries');
    expect(revoked.status).toBe(401);
    expect((await errorOf(revoked)).error).toBe('token-revoked');
  });

  it("answers a request for another team's data exactly as for a team that does not exist", async () => {
    const { request, olga, push } = await setup(h);
    await push({ 'secret-plan.md': 'platform only' });
    const answers = [];
    for (const path of [
      '/v1/teams/platform/entries',
      '/v1/teams/nonexistent/entries',
      '/v1/teams/Not%20A%20Team/entries',
      '/v1/teams/platform/checksums',
      '/v1/teams/nonexistent/checksums',
    ]) {
      const r = await request('GET', path, { token: olga.token });
      answers.push({ status: r.status, headers: [...r.headers.entries()].sort(), body: await r.text() });
    }
    const put = async (team: string) => {
      const r = await request('PUT', `/v1/teams/${team}/entries`, {
        token: olga.token,
        headers: { 'content-type': 'application/json', 'if-match': '"00000000-0"' },
        body: '{"entries":{}}',
      });
      return { status: r.status, headers: [...r.headers.entries()].sort(), body: await r.text() };
    };
    answers.push(await put('platform'), await put('nonexistent'));
    const del = await request('DELETE', '/v1/teams/platform/entries', { token: olga.token });
    answers.push({ status: del.status, headers: [...del.headers.entries()].sort(), body: await del.text() });
    for (const a of answers) expect(a).toEqual(answers[1]);
    expect(answers[0]!.status).toBe(404);
    expect(answers[0]!.body).not.toContain('platform only');
  });

  it('serves entries and checksums with a strong ETag; If-None-Match gives 304 with no body', async () => {
    const { request, push } = await setup(h);
    const empty = await request('GET', '/v1/teams/platform/entries');
    const emptyBody = entriesResponseSchema.parse(await empty.json());
    expect(emptyBody).toMatchObject({ team: 'platform', version: 0, full: true, entries: {} });
    expect(empty.headers.get('etag')).toMatch(/^"[0-9a-f]{8}-0"$/);
    expect(emptyBody.etag).toBe(empty.headers.get('etag'));
    expect((await push({ 'MEMORY.md': '- [API](project_api.md) — hook\n', 'project_api.md': 'body' })).status).toBe(200);
    const full = await request('GET', '/v1/teams/platform/entries');
    const etag = full.headers.get('etag')!;
    const body = entriesResponseSchema.parse(await full.json());
    expect(body.version).toBe(1);
    expect(Object.keys(body.entries)).toEqual(['MEMORY.md', 'project_api.md']);
    expect(body.entries['project_api.md']).toMatchObject({ content: 'body', updatedBy: 'ann' });
    expect(full.headers.get('cache-control')).toBe('private, no-cache');
    for (const header of [etag, `W/${etag}`, `"nope", ${etag}`, '*']) {
      const cached = await request('GET', '/v1/teams/platform/entries', { headers: { 'if-none-match': header } });
      expect(cached.status).toBe(304);
      expect(cached.headers.get('etag')).toBe(etag);
      expect(cached.headers.get('content-type')).toBeNull();
      expect((await cached.arrayBuffer()).byteLength).toBe(0);
    }
    expect((await request('GET', '/v1/teams/platform/entries', { headers: { 'if-none-match': emptyBody.etag } })).status).toBe(200);
    const sums = await request('GET', '/v1/teams/platform/checksums');
    expect(sums.headers.get('etag')).toBe(etag);
    const sumsBody = checksumsResponseSchema.parse(await sums.json());
    expect(sumsBody.checksums).toEqual({ 'MEMORY.md': body.entries['MEMORY.md']!.sha256, 'project_api.md': body.entries['project_api.md']!.sha256 });
    expect((await request('GET', '/v1/teams/platform/checksums', { headers: { 'if-none-match': etag } })).status).toBe(304);
  });

  it('pulls only what changed since an ETag of the same epoch', async () => {
    const { request, push, etagOf } = await setup(h);
    await push({ 'a.md': 'A', 'b.md': 'B' });
    const v1 = await etagOf();
    await push({ 'b.md': 'B2' });
    const delta = entriesResponseSchema.parse(await (await request('GET', `/v1/teams/platform/entries?since=${encodeURIComponent(v1)}`)).json());
    expect(delta).toMatchObject({ full: false, version: 2 });
    expect(Object.keys(delta.entries)).toEqual(['b.md']);
    const foreign = entriesResponseSchema.parse(await (await request('GET', '/v1/teams/platform/entries?since=%2200000000-1%22')).json());
    expect(foreign.full).toBe(true);
    expect(Object.keys(foreign.entries)).toEqual(['a.md', 'b.md']);
  });

  it('requires If-Match on PUT (428) and refuses a stale one with the current ETag (412)', async () => {
    const { push, etagOf, entries } = await setup(h);
    const missing = await push({ 'a.md': 'x' }, null);
    expect(missing.status).toBe(428);
    expect((await errorOf(missing)).error).toBe('precondition-required');
    expect((await push({ 'a.md': 'x' }, '*')).status).toBe(428);
    const v0 = await etagOf();
    expect((await push({ 'a.md': 'first' }, v0)).status).toBe(200);
    const v1 = await etagOf();
    for (const stale of [v0, `W/${v1}`, '"garbage"', '"00000000-1"']) {
      const r = await push({ 'a.md': 'late' }, stale);
      expect(r.status).toBe(412);
      expect(r.headers.get('etag')).toBe(v1);
      expect(await errorOf(r)).toMatchObject({ error: 'stale', etag: v1, version: 1 });
    }
    expect((await entries()).entries['a.md']!.content).toBe('first');
  });

  it('upserts a delta: absent keys kept, unchanged keys reported, version advances only on change', async () => {
    const { push, entries } = await setup(h);
    await push({ 'MEMORY.md': 'index', 'a.md': 'A' });
    const r = await push({ 'a.md': 'A', 'b.md': 'B' });
    expect(r.status).toBe(200);
    const body = putResponseSchema.parse(await r.json());
    expect(body).toMatchObject({ version: 2, changed: ['b.md'], unchanged: ['a.md'] });
    expect(r.headers.get('etag')).toBe(body.etag);
    const noop = putResponseSchema.parse(await (await push({ 'b.md': 'B' })).json());
    expect(noop.version).toBe(2);
    expect(Object.fromEntries(Object.entries((await entries()).entries).map(([k, v]) => [k, v.content]))).toEqual({
      'MEMORY.md': 'index',
      'a.md': 'A',
      'b.md': 'B',
    });
  });

  it('refuses a push with any hostile key, listing every reason, and writes nothing', async () => {
    const { push, entries } = await setup(h);
    await push({ 'ok.md': 'before' });
    const hostile = [
      '../escape.md',
      '%2e%2e%2fx.md',
      '．．／x.md',
      'a\\b.md',
      '/etc/x.md',
      'C:x.md',
      'CON.md',
      'x\0.md',
      '.git/config.md',
      '__proto__',
      'a'.repeat(300),
    ];
    const r = await push({ 'ok.md': 'after', 'new.md': 'new', ...Object.fromEntries(hostile.map((k) => [k, 'pwned'])) });
    expect(r.status).toBe(400);
    const error = await errorOf(r);
    expect(error.error).toBe('invalid-key');
    expect(error.keys!.map((k) => k.code).sort()).toEqual(
      [
        'absent',
        'backslash',
        'drive-letter',
        'dot-segment',
        'encoded-traversal',
        'hidden',
        'not-markdown',
        'null-byte',
        'reserved-name',
        'too-long',
        'unicode-lookalike',
        'absolute',
      ]
        .filter((c) => c !== 'absent')
        .sort(),
    );
    const after = await entries();
    expect(after.version).toBe(1);
    expect(Object.keys(after.entries)).toEqual(['ok.md']);
    expect(after.entries['ok.md']!.content).toBe('before');
  });

  it('refuses bodies that are not UTF-8, not JSON or not the delta shape, and content that is not text', async () => {
    const { request, push, etagOf } = await setup(h);
    const raw = async (body: RequestInit['body'], type = 'application/json') =>
      request('PUT', '/v1/teams/platform/entries', { headers: { 'content-type': type, 'if-match': await etagOf() }, body });
    expect((await errorOf(await raw(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d])))).error).toBe('invalid-utf8');
    expect((await errorOf(await raw('{"entries":'))).error).toBe('invalid-json');
    expect((await errorOf(await raw('[]'))).error).toBe('invalid-body');
    expect((await errorOf(await raw('{"entries":{},"delete":["a.md"]}'))).error).toBe('invalid-body');
    expect((await errorOf(await raw('{"entries":{"a.md":42}}'))).error).toBe('invalid-body');
    expect((await errorOf(await raw('{"entries":{"a.md":"\\ud800"}}'))).error).toBe('invalid-content');
    expect((await errorOf(await push({ 'a.md': 'bin\0ary' }))).error).toBe('invalid-content');
    const form = await raw('entries=1', 'application/x-www-form-urlencoded');
    expect(form.status).toBe(415);
    const gz = await request('PUT', '/v1/teams/platform/entries', {
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', 'if-match': await etagOf() },
      body: '{}',
    });
    expect(gz.status).toBe(415);
  });

  it('refuses keys differing only in case (one file on macOS and Windows)', async () => {
    const { push } = await setup(h);
    await push({ 'MEMORY.md': 'x' });
    const r = await push({ 'memory.md': 'y' });
    expect(r.status).toBe(409);
    expect(await errorOf(r)).toMatchObject({ error: 'case-conflict', key: 'memory.md' });
  });

  it('enforces limits: keys per request, entry size, team size, body size', async () => {
    const { push, request, etagOf } = await setup(h, { maxKeysPerRequest: 3, maxEntryBytes: 100, maxBodyBytes: 2000, maxEntriesPerTeam: 4 });
    expect(await errorOf(await push({ 'a.md': '', 'b.md': '', 'c.md': '', 'd.md': '' }))).toMatchObject({ error: 'too-many-keys', limit: 3 });
    const big = await push({ 'a.md': 'é'.repeat(51) });
    expect(big.status).toBe(413);
    expect(await errorOf(big)).toMatchObject({ error: 'entry-too-large', key: 'a.md', limit: 100 });
    expect((await push({ 'a.md': '1', 'b.md': '2', 'c.md': '3' })).status).toBe(200);
    expect(await errorOf(await push({ 'd.md': '4', 'e.md': '5' }))).toMatchObject({ error: 'team-full', limit: 4 });
    const declared = await request('PUT', '/v1/teams/platform/entries', {
      headers: { 'content-type': 'application/json', 'if-match': await etagOf(), 'content-length': String(1024 ** 3) },
      body: '{"entries":{}}',
    });
    expect(declared.status).toBe(413);
    expect(declared.headers.get('connection')).toBe('close');
    expect((await errorOf(declared)).error).toBe('body-too-large');
  });

  it('caps the bytes a team holds (a full pull is built in memory)', async () => {
    const { push } = await setup(h, { maxTeamBytes: 10 });
    expect((await push({ 'a.md': '12345' })).status).toBe(200);
    const over = await push({ 'b.md': '123456' });
    expect(over.status).toBe(413);
    expect(await errorOf(over)).toMatchObject({ error: 'team-full', limit: 10, message: expect.stringContaining('bytes of content') });
  });

  it('answers HEAD like GET, without the body', async () => {
    const { request, push, etagOf } = await setup(h);
    await push({ 'a.md': 'A' });
    const head = await request('HEAD', '/v1/teams/platform/entries');
    expect(head.status).toBe(200);
    expect(head.headers.get('etag')).toBe(await etagOf());
    expect((await head.arrayBuffer()).byteLength).toBe(0);
  });

  it('stops reading a body as soon as it passes the limit, without buffering the rest', async () => {
    const { request, etagOf } = await setup(h, { maxBodyBytes: 64 * 1024 });
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 16 * 1024;
        controller.enqueue(new Uint8Array(16 * 1024).fill(0x20));
      },
    });
    const r = await request('PUT', '/v1/teams/platform/entries', {
      headers: { 'content-type': 'application/json', 'if-match': await etagOf() },
      body: endless,
    });
    expect(r.status).toBe(413);
    expect(pulled).toBeLessThanOrEqual(64 * 1024 + 3 * 16 * 1024);
  });

  it('rate-limits per token with 429 and Retry-After; other tokens are unaffected', async () => {
    const { request, olga } = await setup(h, { rateLimit: { burst: 3, perSecond: 0.01 } });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await request('GET', '/v1/teams/platform/checksums')).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const limited = await request('GET', '/v1/teams/platform/checksums');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await errorOf(limited)).error).toBe('rate-limited');
    expect((await request('GET', '/v1/teams/other/checksums', { token: olga.token })).status).toBe(200);
  });

  it('slows down repeated failed logins from one address', async () => {
    const { request, ann } = await setup(h, { authFailureLimit: { burst: 2, perSecond: 0.01 } });
    const bad = `${ann.token.slice(0, -4)}AAAA`;
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await request('GET', '/v1/teams/platform/entries', { token: bad })).status);
    expect(statuses).toEqual([401, 401, 429, 429]);
  });

  it('failed logins from one address never lock out a valid token from that address', async () => {
    const { request, ann } = await setup(h, { authFailureLimit: { burst: 2, perSecond: 0.01 } });
    const bad = `${ann.token.slice(0, -4)}AAAA`;
    for (let i = 0; i < 5; i++) await request('GET', '/v1/teams/platform/entries', { token: bad });
    expect((await request('GET', '/v1/teams/platform/entries', { token: bad })).status).toBe(429);
    // Same address (a colleague behind the same NAT, or the same machine): the valid token works.
    expect((await request('GET', '/v1/teams/platform/entries')).status).toBe(200);
    expect((await request('GET', '/v1/teams/platform/entries', { token: bad })).status).toBe(429);
  });

  it('behind a trusted proxy, limits failed logins per client as the proxy saw it; a client cannot dodge the limit by writing its own X-Forwarded-For', async () => {
    const store = await h.fresh();
    await createTeam(store, 'platform');
    const ann = await issueToken(store, 'platform', 'ann');
    const app = createApp({ store, trustProxy: true, limits: { authFailureLimit: { burst: 2, perSecond: 0.01 } } });
    // The proxy appends the address it saw; whatever came before is the client's to write.
    const call = (token: string, claimed: string | null, seen: string) =>
      app.request('/v1/teams/platform/entries', { headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': claimed ? `${claimed}, ${seen}` : seen } });
    const bad = `${ann.token.slice(0, -4)}AAAA`;
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await call(bad, `198.51.100.${i + 10}`, '203.0.113.7')).status);
    expect(statuses).toEqual([401, 401, 429, 429, 429]);
    expect((await call(ann.token, null, '203.0.113.7')).status).toBe(200);
    expect((await call(bad, null, '192.0.2.44')).status).toBe(401);
    // A header that is not an address is no address: the connection's is used.
    expect((await call(bad, null, 'not-an-ip')).status).toBe(401);
  });

  it('counts failed logins from one IPv6 /64 together: a client holding 2^64 addresses cannot guess on with a fresh one each time', async () => {
    const store = await h.fresh();
    await createTeam(store, 'platform');
    const ann = await issueToken(store, 'platform', 'ann');
    const app = createApp({ store, trustProxy: true, limits: { authFailureLimit: { burst: 2, perSecond: 0.01 } } });
    const call = (token: string, seen: string) =>
      app.request('/v1/teams/platform/entries', { headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': seen } });
    const bad = `${ann.token.slice(0, -4)}AAAA`;
    const statuses = [];
    for (const seen of ['2001:db8:0:1::1', '2001:db8:0:1:a:b:c:d', '2001:0db8:0000:0001:ffff::', '2001:db8::1:0:0:0:7'])
      statuses.push((await call(bad, seen)).status);
    expect(statuses).toEqual([401, 401, 429, 429]);
    expect((await call(bad, '2001:db8:0:2::1')).status).toBe(401);
    expect((await call(ann.token, '2001:db8:0:1::99')).status).toBe(200);
  });

  it('has no delete: DELETE answers 405 with Allow for the own team', async () => {
    const { request } = await setup(h);
    const r = await request('DELETE', '/v1/teams/platform/entries');
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('GET, HEAD, PUT');
  });

  it('answers a broken store with 503 on /healthz and a generic 500 elsewhere, logged as an error', async () => {
    const { request, store, logs, ann } = await setup(h);
    await store.close();
    expect((await request('GET', '/healthz', { token: null })).status).toBe(503);
    const broken = await request('GET', '/v1/teams/platform/entries');
    expect([500, 503]).toContain(broken.status);
    const body = await errorOf(broken);
    expect(body.message).not.toMatch(/sqlite|pool|postgres/i);
    expect(logs.some((l) => l.level === 'error')).toBe(true);
    expect(JSON.stringify(logs)).not.toContain(ann.token.slice(22));
  });

  it('tells a client who it is', async () => {
    const { request, ann } = await setup(h);
    expect(await (await request('GET', '/v1/me')).json()).toEqual({ team: 'platform', member: 'ann', tokenId: ann.info.id, protocols: [1, 2], scope: 'team' });
  });

  it('logs one line per request with the route template, never tokens or content', async () => {
    const { push, request, logs, ann, olga } = await setup(h);
    await push({ 'a.md': 'TOP-SECRET-CONTENT' });
    await request('GET', '/v1/teams/platform/entries');
    await request('GET', '/v1/teams/platform/entries', { token: olga.token });
    await request('GET', '/v1/teams/platform/entries', { token: 'mdt_0123456789abcdef_' + 'x'.repeat(43) });
    const text = JSON.stringify(logs);
    expect(text).not.toContain(ann.token);
    expect(text).not.toContain(ann.token.slice(22));
    expect(text).not.toContain(olga.token.slice(22));
    expect(text).not.toContain('x'.repeat(43));
    expect(text).not.toContain('TOP-SECRET-CONTENT');
    const put = logs.find((l) => l.method === 'PUT')!;
    expect(put).toMatchObject({ msg: 'request', route: '/v1/teams/:team/entries', team: 'platform', member: 'ann', status: 200 });
    expect(typeof put.ms).toBe('number');
    expect(logs.filter((l) => l.msg === 'request').map((l) => l.status)).toEqual([200, 200, 200, 404, 401]);
  });

  describe('protocol 2: per-key commits and push ids', () => {
    const sha = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');
    const commit = (
      request: Awaited<ReturnType<typeof setup>>['request'],
      pushId: string,
      entries: Record<string, { content: string; base: string | null }>,
      token?: string,
    ) =>
      request('PUT', '/v2/teams/platform/entries', {
        ...(token ? { token } : {}),
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ pushId, entries }),
      });

    it('commits pushes of unrelated keys based on the same version — no team-wide 412', async () => {
      const { request, entries } = await setup(h);
      const first = await commit(request, 'push-aaaaaaaaaaaaaaaa', { 'a.md': { content: 'a\n', base: null } });
      const second = await commit(request, 'push-bbbbbbbbbbbbbbbb', { 'b.md': { content: 'b\n', base: null } });
      expect(first.status).toBe(200);
      expect(second.status).toBe(200);
      const body = commitResponseSchema.parse(await second.json());
      expect(body).toMatchObject({ committed: ['b.md'], conflicts: {}, version: 2, previousVersion: 1, replayed: false });
      expect(second.headers.get('etag')).toBe(body.etag);
      expect(Object.keys((await entries()).entries).sort()).toEqual(['a.md', 'b.md']);
    });

    it("answers a key whose base moved as a conflict with the server's version, and commits the rest in one version", async () => {
      const { request, entries } = await setup(h);
      await commit(request, 'push-1111111111111111', { 'a.md': { content: 'v1\n', base: null } });
      await commit(request, 'push-2222222222222222', { 'a.md': { content: 'v2 by ann\n', base: sha('v1\n') } });
      const stale = await commit(request, 'push-3333333333333333', {
        'a.md': { content: 'v2 by bob\n', base: sha('v1\n') },
        'c.md': { content: 'c\n', base: null },
      });
      const body = commitResponseSchema.parse(await stale.json());
      expect(body.committed).toEqual(['c.md']);
      expect(body.conflicts).toEqual({ 'a.md': expect.objectContaining({ sha256: sha('v2 by ann\n'), updatedBy: 'ann' }) });
      expect(body.version).toBe(3);
      const now = (await entries()).entries;
      expect(now['a.md']!.content).toBe('v2 by ann\n');
      expect(now['c.md']!.content).toBe('c\n');
      // Pushing exactly what the server holds is "unchanged", whatever its base.
      const same = commitResponseSchema.parse(
        await (await commit(request, 'push-4444444444444444', { 'a.md': { content: 'v2 by ann\n', base: null } })).json(),
      );
      expect(same).toMatchObject({ unchanged: ['a.md'], committed: [], conflicts: {}, version: 3, previousVersion: 3 });
    });

    it('answers a repeated push id with the original result and changes nothing', async () => {
      const { request, entries } = await setup(h);
      const original = commitResponseSchema.parse(await (await commit(request, 'push-repeat-000000001', { 'a.md': { content: 'once\n', base: null } })).json());
      // Someone else moves the key meanwhile; the repeat must not be judged again.
      await commit(request, 'push-other-0000000001', { 'a.md': { content: 'twice\n', base: sha('once\n') } });
      const again = commitResponseSchema.parse(await (await commit(request, 'push-repeat-000000001', { 'a.md': { content: 'once\n', base: null } })).json());
      expect(again).toEqual({ ...original, replayed: true });
      expect((await entries()).entries['a.md']!.content).toBe('twice\n');
      expect((await entries()).version).toBe(2);
    });

    it('remembers at most maxPushIdsPerTeam push ids per team, the newest, so a member cannot fill the disk with them within the rate limit', async () => {
      const store = await h.fresh();
      await createTeam(store, 'platform');
      const ann = await issueToken(store, 'platform', 'ann');
      const bob = await issueToken(store, 'platform', 'bob');
      let clock = Date.parse('2026-12-01T10:00:00.000Z');
      const app = createApp({ store, limits: { maxPushIdsPerTeam: 3 }, now: () => new Date((clock += 1000)) });
      const send = async (token: string, pushId: string, key: string) =>
        commitResponseSchema.parse(
          await (
            await app.request('/v2/teams/platform/entries', {
              method: 'PUT',
              headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
              body: JSON.stringify({ pushId, entries: { [key]: { content: `${key}\n`, base: null } } }),
            })
          ).json(),
        );
      await send(bob.token, 'push-bob-00000000001', 'bob.md');
      for (let i = 1; i <= 5; i++) await send(ann.token, `push-ann-0000000000${i}`, `a${i}.md`);
      // The three newest are remembered and replayed; older ones — whoever sent them — are forgotten:
      // sent again they are judged anew, and their content is already there, so nothing changes.
      expect((await send(ann.token, 'push-ann-00000000005', 'a5.md')).replayed).toBe(true);
      expect((await send(ann.token, 'push-ann-00000000003', 'a3.md')).replayed).toBe(true);
      const forgotten = await send(ann.token, 'push-ann-00000000001', 'a1.md');
      expect(forgotten).toMatchObject({ replayed: false, committed: [], unchanged: ['a1.md'] });
      expect((await send(bob.token, 'push-bob-00000000001', 'bob.md')).replayed).toBe(false);
    });

    it('checks bodies, keys and the token as protocol 1 does', async () => {
      const { request, olga } = await setup(h);
      expect((await commit(request, 'short', { 'a.md': { content: 'x', base: null } })).status).toBe(400);
      expect((await commit(request, 'push-keys-0000000001', { '../x.md': { content: 'x', base: null } })).status).toBe(400);
      expect((await commit(request, 'push-nul-00000000001', { 'a.md': { content: 'a\0b', base: null } })).status).toBe(400);
      expect((await request('PUT', '/v2/teams/platform/entries', { token: null, headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(
        401,
      );
      expect((await commit(request, 'push-olga-0000000001', { 'a.md': { content: 'x', base: null } }, olga.token)).status).toBe(404);
    });
  });
});
