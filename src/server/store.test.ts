import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { foldPathKey } from '../shared/path-key.js';
import { createTeam, issueToken, listMembers, revokeToken } from './admin.js';
import { openStore } from './open-store.js';
import { type EntryWrite, type TeamStore, StoreError } from './store.js';
import { describeStores } from './test-support/stores.js';

function write(key: string, content: string): EntryWrite {
  return { key, fold: foldPathKey(key), content, sha256: createHash('sha256').update(content).digest('hex'), bytes: Buffer.byteLength(content) };
}

function put(store: TeamStore, team: string, baseVersion: number, entries: Record<string, string>, maxEntriesPerTeam = 1000, maxTeamBytes = 1_000_000) {
  return store.putEntries(team, {
    baseVersion,
    entries: Object.entries(entries).map(([k, v]) => write(k, v)),
    member: 'ann',
    at: '2026-03-05T10:00:00.000Z',
    maxEntriesPerTeam,
    maxTeamBytes,
  });
}

describeStores('team store', (h) => {
  it('creates teams once, with a fresh epoch, and refuses a duplicate', async () => {
    const store = await h.fresh();
    const a = await createTeam(store, 'platform');
    expect(a).toMatchObject({ name: 'platform', version: 0, entries: 0 });
    expect(a.epoch).toMatch(/^[0-9a-f]{8}$/);
    await expect(createTeam(store, 'platform')).rejects.toMatchObject({ code: 'exists' });
    await expect(createTeam(store, 'Bad Name')).rejects.toBeInstanceOf(StoreError);
    expect((await store.listTeams()).map((t) => t.name)).toEqual(['platform']);
    expect(await store.getTeam('nope')).toBeNull();
  });

  it('issues tokens stored only as hashes, lists them without secrets, revokes them idempotently', async () => {
    const store = await h.fresh();
    await createTeam(store, 'platform');
    const { token, info } = await issueToken(store, 'platform', 'ann');
    expect(token).toMatch(/^mdt_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    const stored = await store.findToken(info.id);
    expect(stored?.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored?.hash).not.toContain(token.slice(22));
    const listed = await listMembers(store, 'platform');
    expect(JSON.stringify(listed)).not.toContain(token.slice(22));
    expect(listed[0]!.tokens).toEqual([{ id: info.id, team: 'platform', member: 'ann', createdAt: info.createdAt, revokedAt: null, expiresAt: null }]);
    const first = await revokeToken(store, info.id, new Date('2026-03-05T00:00:00Z'));
    expect(first.revokedAt).toBe('2026-03-05T00:00:00.000Z');
    const again = await revokeToken(store, `mdt_${info.id}`, new Date('2026-04-01T00:00:00Z'));
    expect(again.revokedAt).toBe('2026-03-05T00:00:00.000Z');
    await expect(revokeToken(store, '0123456789abcdef')).rejects.toMatchObject({ code: 'not-found' });
    await expect(issueToken(store, 'nope', 'bob')).rejects.toMatchObject({ code: 'not-found' });
    await expect(issueToken(store, 'platform', '\u202Eevil')).rejects.toMatchObject({ code: 'invalid-input' });
  });

  it('upserts: keys absent from a push are kept, unchanged content does not advance the version', async () => {
    const store = await h.fresh();
    await createTeam(store, 'platform');
    expect(await put(store, 'platform', 0, { 'MEMORY.md': '# index\n', 'a.md': 'A' })).toMatchObject({
      ok: true,
      state: { version: 1 },
      changed: ['MEMORY.md', 'a.md'],
    });
    expect(await put(store, 'platform', 1, { 'b.md': 'B' })).toMatchObject({ ok: true, state: { version: 2 }, changed: ['b.md'] });
    expect(await put(store, 'platform', 2, { 'a.md': 'A', 'b.md': 'B2' })).toMatchObject({
      ok: true,
      state: { version: 3 },
      changed: ['b.md'],
      unchanged: ['a.md'],
    });
    expect(await put(store, 'platform', 3, { 'a.md': 'A' })).toMatchObject({ ok: true, state: { version: 3 }, changed: [], unchanged: ['a.md'] });
    const all = await store.readEntries('platform');
    expect(all!.state.version).toBe(3);
    expect(Object.fromEntries(all!.entries.map((e) => [e.key, e.content]))).toEqual({ 'MEMORY.md': '# index\n', 'a.md': 'A', 'b.md': 'B2' });
    const b = all!.entries.find((e) => e.key === 'b.md')!;
    expect(b).toMatchObject({ updatedBy: 'ann', updatedAt: '2026-03-05T10:00:00.000Z', version: 3 });
    expect(b.sha256).toBe(createHash('sha256').update('B2').digest('hex'));
    const since2 = await store.readEntries('platform', 2);
    expect(since2!.entries.map((e) => e.key)).toEqual(['b.md']);
    const sums = await store.readChecksums('platform');
    expect(Object.fromEntries(sums!.checksums)).toEqual(Object.fromEntries(all!.entries.map((e) => [e.key, e.sha256])));
  });

  it('refuses a push based on a stale version, writing nothing', async () => {
    const store = await h.fresh();
    await createTeam(store, 'platform');
    await put(store, 'platform', 0, { 'a.md': 'A' });
    expect(await put(store, 'platform', 0, { 'a.md': 'mine', 'c.md': 'C' })).toMatchObject({ ok: false, reason: 'stale', state: { version: 1 } });
    expect((await store.readEntries('platform'))!.entries.map((e) => [e.key, e.content])).toEqual([['a.md', 'A']]);
  });

  it('refuses keys that differ only in letter case, from the store or within the push', async () => {
    const store = await h.fresh();
    await createTeam(store, 'platform');
    await put(store, 'platform', 0, { 'MEMORY.md': 'x' });
    expect(await put(store, 'platform', 1, { 'memory.md': 'y' })).toMatchObject({
      ok: false,
      reason: 'case-conflict',
      key: 'memory.md',
      existing: 'MEMORY.md',
    });
    expect(await put(store, 'platform', 1, { 'a.md': '1', 'A.md': '2' })).toMatchObject({ ok: false, reason: 'case-conflict' });
    expect((await store.teamState('platform'))!.version).toBe(1);
  });

  it('refuses a push that would take the team over its entry or byte limit', async () => {
    const store = await h.fresh();
    await createTeam(store, 'platform');
    await put(store, 'platform', 0, { 'a.md': '1', 'b.md': '2' }, 3);
    expect(await put(store, 'platform', 1, { 'c.md': '3', 'd.md': '4' }, 3)).toMatchObject({ ok: false, reason: 'team-full', limit: 3, unit: 'entries' });
    expect(await put(store, 'platform', 1, { 'a.md': 'changed', 'c.md': '3' }, 3)).toMatchObject({ ok: true, state: { version: 2 } });
    // Bytes: 'changed' (7) + '2' + '3' = 9 stored; growing a.md by 2 fits 11, by 3 does not.
    expect(await put(store, 'platform', 2, { 'a.md': 'changed!!!' }, 3, 11)).toMatchObject({ ok: false, reason: 'team-full', limit: 11, unit: 'bytes' });
    expect(await put(store, 'platform', 2, { 'a.md': 'changed!!' }, 3, 11)).toMatchObject({ ok: true, state: { version: 3 } });
    // Shrinking is always allowed, even over the limit.
    expect(await put(store, 'platform', 3, { 'a.md': 'c' }, 3, 1)).toMatchObject({ ok: true, state: { version: 4 } });
  });

  it('keeps teams apart', async () => {
    const store = await h.fresh();
    await createTeam(store, 'red');
    await createTeam(store, 'blue');
    await put(store, 'red', 0, { 'a.md': 'red secret' });
    expect((await store.readEntries('blue'))!.entries).toEqual([]);
    expect(await store.readEntries('green')).toBeNull();
    expect(await put(store, 'green', 0, { 'a.md': 'x' })).toEqual({ ok: false, reason: 'no-team' });
  });

  it('migrates idempotently: reopening keeps everything (restart)', async () => {
    const db = await h.freshDb();
    const first = await h.open(db);
    await createTeam(first, 'platform');
    const { info } = await issueToken(first, 'platform', 'ann');
    await put(first, 'platform', 0, { 'a.md': 'kept' });
    await first.close();
    const second = await h.open(db);
    expect((await second.readEntries('platform'))!.entries[0]!.content).toBe('kept');
    expect((await second.findToken(info.id))!.member).toBe('ann');
  });

  it('servers starting at once on a fresh database migrate it once, without tripping over each other', async () => {
    const db = await h.freshDb();
    const stores = await Promise.all([h.open(db), h.open(db), h.open(db)]);
    await createTeam(stores[0]!, 'platform');
    for (const store of stores) expect((await store.listTeams()).map((t) => t.name)).toEqual(['platform']);
  });

  it('two stores on one database: of concurrent pushes based on one version exactly one wins', async () => {
    const db = await h.freshDb();
    const one = await h.open(db);
    const two = await h.open(db);
    await createTeam(one, 'platform');
    for (let round = 0; round < 15; round++) {
      const base = (await one.teamState('platform'))!.version;
      const outcomes = await Promise.all([
        put(one, 'platform', base, { 'shared.md': `one ${round}`, [`one-${round}.md`]: 'x' }),
        put(two, 'platform', base, { 'shared.md': `two ${round}`, [`two-${round}.md`]: 'y' }),
      ]);
      expect(outcomes.filter((o) => o.ok)).toHaveLength(1);
      expect(outcomes.filter((o) => !o.ok && o.reason === 'stale')).toHaveLength(1);
      const state = await two.readEntries('platform');
      expect(state!.state.version).toBe(base + 1);
      // The loser wrote nothing: its private key is absent.
      const winner = outcomes[0]!.ok ? 'one' : 'two';
      const loser = winner === 'one' ? 'two' : 'one';
      expect(state!.entries.some((e) => e.key === `${loser}-${round}.md`)).toBe(false);
      expect(state!.entries.find((e) => e.key === 'shared.md')!.content).toBe(`${winner} ${round}`);
    }
  });
});

describe('SQLite store on disk', () => {
  it("is created readable by its owner only — every team's memories and token hashes are in it (R-SYNC-SECURITY)", async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'memdir-store-mode-'));
    const previous = process.umask(0o022);
    try {
      const file = path.join(root, 'server', 'nested', 'team-sync.sqlite');
      const store = await openStore(file);
      try {
        await createTeam(store, 'platform');
        await issueToken(store, 'platform', 'ann');
        await put(store, 'platform', 0, { 'a.md': 'the team memory' });
        const modes = Object.fromEntries(
          [path.join(root, 'server'), path.join(root, 'server', 'nested'), file, `${file}-wal`, `${file}-shm`].map((f) => [
            path.relative(root, f),
            (fs.statSync(f).mode & 0o777).toString(8),
          ]),
        );
        expect(modes).toEqual({
          server: '700',
          'server/nested': '700',
          'server/nested/team-sync.sqlite': '600',
          'server/nested/team-sync.sqlite-wal': '600',
          'server/nested/team-sync.sqlite-shm': '600',
        });
      } finally {
        await store.close();
      }
    } finally {
      process.umask(previous);
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
