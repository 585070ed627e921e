/**
 * Issue 19, a conflict on an edit that overlapped nobody, under faults (seen once in
 * `npm run bench team-load` through the fault proxy). A scripted fault sequence, no timing luck:
 * a push whose answer was lost is confirmed by its id at the next sync, while the pull of that
 * same sync is answered with an earlier answer replayed by the network (a stale duplicate, from
 * before the push). The client must not take that old team state for the current one: nothing of
 * its own edits may end as a conflict, and every line reaches the server.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openSqliteStore } from '../../server/sqlite-store.js';
import { type Fault, startFaultProxy } from './test-support/fault-proxy.js';
import { makeClient, serverEntries, startTestServer } from './test-support/team-fixture.js';

let root: string;
beforeAll(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-replayed-answer-')));
});
afterAll(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

const NOTES = '# notes\n\n## ann\n\n## bob\n';

it("a pull answered with a replay from before a confirmed lost push does not turn the user's own edits into conflicts", { timeout: 60_000 }, async () => {
  const store = openSqliteStore(path.join(root, 'team.sqlite'));
  const server = await startTestServer(store, 2);
  // Ann's requests meet exactly these faults, in this order: one per matching request.
  const plan: { method: string; path: RegExp; fault: Fault }[] = [];
  const proxy = await startFaultProxy(server.url, {
    rate: 0,
    script: ({ method, path: url }) => {
      const at = plan.findIndex((p) => p.method === method && p.path.test(url));
      return at < 0 ? null : plan.splice(at, 1)[0]!.fault;
    },
  });
  try {
    // Bob starts the file; Ann's first pull (a full one, through the network that will misbehave) brings it in.
    const bob = await makeClient(root, 'bob', { url: server.url, team: server.team }, server.tokens[1]!);
    await bob.write('notes.md', NOTES);
    expect((await bob.sync.sync()).error).toBeNull();
    const ann = await makeClient(root, 'ann', { url: proxy.url, team: server.team }, server.tokens[0]!, { retry: { attempts: 6, baseMs: 1, maxMs: 5 } });
    expect((await ann.sync.sync()).pull.written).toEqual(['notes.md']);

    // Ann adds a line to her section and a file of her own; the server commits the push, its answer is cut.
    await ann.write('notes.md', NOTES.replace('## ann\n', '## ann\n- first\n'));
    await ann.write('ann.md', '# ann\n- first\n');
    plan.push({ method: 'PUT', path: /^\/v2\//, fault: 'cut-after' });
    const lost = await ann.sync.sync();
    expect(lost.error?.message).toContain('may have saved it');
    expect(await serverEntries(server.url, server.team, server.tokens[0]!)).toMatchObject({ 'ann.md': '# ann\n- first\n' });

    // She goes on editing; the next sync's pull is answered with the replay of her first pull's answer.
    await ann.write('notes.md', NOTES.replace('## ann\n', '## ann\n- first\n- second\n'));
    await ann.write('ann.md', '# ann\n- first\n- second\n');
    plan.push({ method: 'GET', path: /\/entries/, fault: 'replay' });
    const replayed = await ann.sync.sync();
    expect(proxy.counts.replay).toBe(1);
    expect(replayed.push.confirmed.sort()).toEqual(['ann.md', 'notes.md']);
    expect(replayed.pull.conflicts).toEqual([]);

    // The network is clean again: everything lands, nothing is a conflict.
    const after = await ann.sync.sync();
    expect(after.error).toBeNull();
    expect((await ann.sync.inspect()).conflicts).toEqual([]);
    const onServer = await serverEntries(server.url, server.team, server.tokens[0]!);
    expect(onServer['notes.md']).toBe(NOTES.replace('## ann\n', '## ann\n- first\n- second\n'));
    expect(onServer['ann.md']).toBe('# ann\n- first\n- second\n');
    expect(await ann.read('notes.md')).toBe(onServer['notes.md']);
  } finally {
    await proxy.close();
    await server.server.close();
    await store.close();
  }
});
