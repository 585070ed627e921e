import { expect, it } from 'vitest';
import { createApp } from './app.js';
import { createPersonal, createTeam, issuePersonalToken, issueToken, listMembers, listPersonalSpaces } from './admin.js';
import type { ServerLimits } from './limits.js';
import { commitResponseSchema, entriesResponseSchema, errorResponseSchema, keyRecordResponseSchema, meResponseSchema } from '../shared/protocol/sync.js';
import { type StoreHarness, describeStores } from './test-support/stores.js';

const PROJECT = '0123456789abcdef0123456789abcdef';
const SHA = /^[0-9a-f]{64}$/;

async function setup(h: StoreHarness, limits: Partial<ServerLimits> = {}) {
  const store = await h.fresh();
  await createTeam(store, 'platform');
  await createPersonal(store, 'alice');
  await createPersonal(store, 'bob');
  const ann = await issueToken(store, 'platform', 'ann');
  const laptop = await issuePersonalToken(store, 'alice', 'laptop');
  const desktop = await issuePersonalToken(store, 'alice', 'desktop');
  const bob = await issuePersonalToken(store, 'bob', 'phone');
  const app = createApp({ store, limits });
  const request = (method: string, path: string, token: string, body?: unknown, headers: Record<string, string> = {}) =>
    app.request(path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  const commit = (token: string, entries: Record<string, { content: string; base: string | null }>, project = PROJECT) =>
    request('PUT', `/v2/personal/projects/${project}/entries`, token, { pushId: `push-${Math.random().toString(36).slice(2)}-0000000000`, entries });
  return { store, app, ann, laptop, desktop, bob, request, commit };
}

describeStores('personal spaces (issue 18)', (h) => {
  it('says who a personal token is: its user, its machine, protocol 2 only', async () => {
    const { request, laptop, ann } = await setup(h);
    const me = meResponseSchema.parse(await (await request('GET', '/v1/me', laptop.token)).json());
    expect(me).toMatchObject({ scope: 'personal', user: 'alice', member: 'laptop', protocols: [2] });
    const team = meResponseSchema.parse(await (await request('GET', '/v1/me', ann.token)).json());
    expect(team).toMatchObject({ scope: 'team', team: 'platform', protocols: [1, 2] });
  });

  it('keeps the first key record and refuses another one with the stored record', async () => {
    const { request, laptop, desktop } = await setup(h);
    expect(keyRecordResponseSchema.parse(await (await request('GET', '/v1/personal/key', laptop.token)).json())).toEqual({ keyRecord: null });
    const first = await request('PUT', '/v1/personal/key', laptop.token, { keyRecord: 'record-A' });
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ keyRecord: 'record-A', created: true });
    const same = await request('PUT', '/v1/personal/key', desktop.token, { keyRecord: 'record-A' });
    expect(await same.json()).toEqual({ keyRecord: 'record-A', created: false });
    const other = await request('PUT', '/v1/personal/key', desktop.token, { keyRecord: 'record-B' });
    expect(other.status).toBe(409);
    expect(errorResponseSchema.parse(await other.json())).toMatchObject({ error: 'key-mismatch', keyRecord: 'record-A' });
    expect(keyRecordResponseSchema.parse(await (await request('GET', '/v1/personal/key', desktop.token)).json())).toEqual({ keyRecord: 'record-A' });
    const bad = await request('PUT', '/v1/personal/key', desktop.token, { keyRecord: '' });
    expect(bad.status).toBe(400);
  });

  it("syncs a project between a user's machines with the team protocol: versions, ETags, per-key conflicts", async () => {
    const { request, commit, laptop, desktop } = await setup(h);
    const empty = await request('GET', `/v1/personal/projects/${PROJECT}/entries`, laptop.token);
    expect(empty.status).toBe(200);
    expect(entriesResponseSchema.parse(await empty.json())).toMatchObject({ team: PROJECT, version: 0, entries: {} });
    const pushed = commitResponseSchema.parse(await (await commit(laptop.token, { 'aa.md': { content: 'cipher-1', base: null } })).json());
    expect(pushed).toMatchObject({ version: 1, committed: ['aa.md'] });
    const pulled = await request('GET', `/v1/personal/projects/${PROJECT}/entries`, desktop.token);
    const body = entriesResponseSchema.parse(await pulled.json());
    expect(body.entries['aa.md']).toMatchObject({ content: 'cipher-1', updatedBy: 'laptop' });
    expect(body.entries['aa.md']!.sha256).toMatch(SHA);
    const notModified = await request('GET', `/v1/personal/projects/${PROJECT}/entries`, desktop.token, undefined, {
      'if-none-match': pulled.headers.get('etag')!,
    });
    expect(notModified.status).toBe(304);
    // The desktop edits from a stale base: a per-key conflict answered with the server's hash.
    const stale = commitResponseSchema.parse(await (await commit(desktop.token, { 'aa.md': { content: 'cipher-2', base: '0'.repeat(64) } })).json());
    expect(stale.committed).toEqual([]);
    expect(stale.conflicts['aa.md']).toMatchObject({ sha256: body.entries['aa.md']!.sha256, updatedBy: 'laptop' });
  });

  it('keeps personal and team data apart: neither kind of token reaches the other, nor another user', async () => {
    const { request, commit, laptop, ann, bob } = await setup(h);
    await commit(laptop.token, { 'aa.md': { content: 'alice only', base: null } });
    const unknown = await request('GET', '/v1/nothing/here', laptop.token);
    const notFound = { status: unknown.status, body: await unknown.text() };
    expect(notFound.status).toBe(404);
    const answers = [
      await request('GET', '/v1/teams/platform/entries', laptop.token),
      await request('GET', '/v1/teams/~alice/entries', laptop.token),
      await request('GET', '/v1/teams/%7Ealice/checksums', laptop.token),
      await request('GET', `/v1/personal/projects/${PROJECT}/entries`, ann.token),
      await request('GET', '/v1/personal/key', ann.token),
      await request('PUT', '/v1/personal/key', ann.token, { keyRecord: 'x' }),
      await request('GET', `/v1/personal/projects/NOT-A-PROJECT/entries`, laptop.token),
      await request('GET', `/v1/personal/projects/${PROJECT}/../../teams/platform/entries`, laptop.token),
    ];
    for (const r of answers) expect({ status: r.status, body: await r.text() }).toEqual(notFound);
    // Bob's project of the same id is his own, empty.
    const bobs = entriesResponseSchema.parse(await (await request('GET', `/v1/personal/projects/${PROJECT}/entries`, bob.token)).json());
    expect(bobs.entries).toEqual({});
    const teamPush = await request('PUT', `/v2/teams/platform/entries`, laptop.token, { pushId: 'p'.repeat(20), entries: {} });
    expect(teamPush.status).toBe(404);
  });

  it('creates projects on first use up to the limit, and lists spaces by counts only', async () => {
    const { request, laptop, store } = await setup(h, { maxProjectsPerSpace: 2 });
    for (const p of ['a'.repeat(32), 'b'.repeat(32)]) expect((await request('GET', `/v1/personal/projects/${p}/entries`, laptop.token)).status).toBe(200);
    expect((await request('GET', `/v1/personal/projects/${'a'.repeat(32)}/checksums`, laptop.token)).status).toBe(200);
    const third = await request('GET', `/v1/personal/projects/${'c'.repeat(32)}/entries`, laptop.token);
    expect(third.status).toBe(409);
    expect(errorResponseSchema.parse(await third.json())).toMatchObject({ error: 'space-full', limit: 2 });
    const spaces = await listPersonalSpaces(store);
    expect(spaces.map((s) => ({ user: s.user, projects: s.projects, tokens: s.tokens.map((t) => t.member).sort() }))).toEqual([
      { user: 'alice', projects: 2, tokens: ['desktop', 'laptop'] },
      { user: 'bob', projects: 0, tokens: ['phone'] },
    ]);
    // Teams stay teams: personal rows never show among them.
    expect((await listMembers(store)).map((t) => t.name)).toEqual(['platform']);
    await expect(issueToken(store, '~alice', 'x')).rejects.toMatchObject({ code: 'not-found' });
    await expect(issuePersonalToken(store, 'carol', 'x')).rejects.toMatchObject({ code: 'not-found' });
    await expect(createPersonal(store, 'alice')).rejects.toMatchObject({ code: 'exists' });
    await expect(createPersonal(store, 'Not Valid')).rejects.toMatchObject({ code: 'invalid-input' });
  });
});
