// Team sync while others act: an editor saving during a pull, files written in the same tick, refused entries, many
// batches, an abort mid-pull.
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTeam, issueToken } from '../../server/admin.js';
import type { RequestRecord } from './team-client.js';
import { RACY_MS } from './hash-cache.js';
import { TeamSync } from './team-sync.js';
import { useSharedTeamServer } from './test-support/shared-server.js';
import { makeClient } from './test-support/team-fixture.js';

const h = useSharedTeamServer();

describe('team sync while others act', () => {
  /** Two machines on a team of their own (each pull brings only this test's files). */
  async function ownPair(
    options: [Parameters<typeof makeClient>[4], Parameters<typeof makeClient>[4]] = [{}, {}],
  ): Promise<[Awaited<ReturnType<typeof makeClient>>, Awaited<ReturnType<typeof makeClient>>, string[]]> {
    h.n++;
    const team = `own-${h.n}`;
    await createTeam(h.store, team);
    const tokens = [(await issueToken(h.store, team, 'ann')).token, (await issueToken(h.store, team, 'bob')).token];
    const at = { url: h.server.url, team };
    return [await makeClient(h.root, `a${h.n}`, at, tokens[0]!, options[0]), await makeClient(h.root, `b${h.n}`, at, tokens[1]!, options[1]), tokens];
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
