/**
 * Session 29, item 1: a sync server that went back to an older version (its database restored
 * from a backup, a replica behind) answers a version older than one a client has already seen.
 * Once may be a replayed answer (replayed-answer.test.ts), so the client asks again; the same
 * again means the server went back. The client says so, takes that version, and uploads again
 * what the server lost — it used to refuse every later sync for good, and the edit the server
 * lost was never uploaded again.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../server/server.js';
import { type SqliteStore, openSqliteStore } from '../../server/sqlite-store.js';
import { startFaultProxy } from './test-support/fault-proxy.js';
import { describeReport } from '../../cli/commands/sync-common.js';
import { ConnectionStore } from './connections.js';
import { makeClient, serverEntries, startTestServer } from './test-support/team-fixture.js';

let root: string;
beforeAll(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-went-back-')));
});
afterAll(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

/** The server's database as a file, stopped and started again on the same port (as an admin restoring a backup would). */
class RestorableServer {
  private constructor(
    readonly db: string,
    readonly port: number,
    private store: SqliteStore,
    private server: RunningServer,
  ) {}

  static async start(db: string): Promise<{ restorable: RestorableServer; url: string; team: string; tokens: string[] }> {
    const store = openSqliteStore(db);
    const started = await startTestServer(store, 2);
    const port = Number(new URL(started.url).port);
    return { restorable: new RestorableServer(db, port, store, started.server), url: started.url, team: started.team, tokens: started.tokens };
  }

  async stop(): Promise<void> {
    await this.server.close();
    await this.store.close();
  }

  /** Stop, run `change` on the stopped database file, start again on the same port. */
  async whileStopped(change: () => Promise<void>): Promise<void> {
    await this.stop();
    await change();
    this.store = openSqliteStore(this.db);
    this.server = await startServer({ store: this.store, port: this.port, closeStore: false, limits: { rateLimit: { burst: 100_000, perSecond: 100_000 } } });
  }

  backup(to: string): Promise<void> {
    return this.whileStopped(() => fs.copyFile(this.db, to));
  }

  restore(from: string): Promise<void> {
    return this.whileStopped(async () => {
      for (const suffix of ['-wal', '-shm']) await fs.rm(`${this.db}${suffix}`, { force: true });
      await fs.copyFile(from, this.db);
    });
  }
}

it('a server restored from a backup is told apart from a replay: the client says so and uploads again what the server lost', { timeout: 60_000 }, async () => {
  const { restorable, url, team, tokens } = await RestorableServer.start(path.join(root, 'team.sqlite'));
  try {
    const bob = await makeClient(root, 'bob', { url, team }, tokens[1]!);
    await bob.write('note.md', '# note\n- from bob\n');
    expect((await bob.sync.sync()).error).toBeNull();
    const alice = await makeClient(root, 'alice', { url, team }, tokens[0]!);
    expect((await alice.sync.sync()).pull.written).toEqual(['note.md']);

    await restorable.backup(path.join(root, 'backup.sqlite'));
    // After the backup: Alice adds a line and a file of her own; the server saves both.
    await alice.write('note.md', '# note\n- from bob\n- alice, after the backup\n');
    await alice.write('alice.md', '# alice\n- mine\n');
    const pushed = await alice.sync.sync();
    expect(pushed.error).toBeNull();
    expect(pushed.push.uploaded.sort()).toEqual(['alice.md', 'note.md']);

    await restorable.restore(path.join(root, 'backup.sqlite'));
    expect(await serverEntries(url, team, tokens[0]!)).toEqual({ 'note.md': '# note\n- from bob\n' });

    const back = await alice.sync.sync();
    expect(back.error).toBeNull();
    expect(back.pull.wentBack).toMatch(/went back to an older version of the team memory \(version \d+; this client had seen \d+\).*uploaded again/);
    expect(back.push.uploaded.sort()).toEqual(['alice.md', 'note.md']);
    expect(back.pull.conflicts).toEqual([]);
    expect(await alice.files()).toEqual({ 'note.md': '# note\n- from bob\n- alice, after the backup\n', 'alice.md': '# alice\n- mine\n' });
    expect(await serverEntries(url, team, tokens[0]!)).toEqual(await alice.files());
    const { alerts } = await alice.alerts.list();
    // Open while the sync that caught up is the last word.
    expect(alerts.filter((a) => a.title === 'The team memory server went back to an older version').map((a) => a.status)).toEqual(['open']);

    // Everyone is in step again: Bob gets Alice's line, Alice's next sync has nothing to say.
    await bob.sync.sync();
    expect(await bob.files()).toEqual(await alice.files());
    const after = await alice.sync.sync();
    expect(after).toMatchObject({ error: null, pull: { wentBack: null, conflicts: [] }, push: { uploaded: [] } });
    expect((await alice.sync.inspect()).conflicts).toEqual([]);
    // The alert goes as other alerts go when their cause is gone: a later sync found the server in step.
    const wentBack = (await alice.alerts.list()).alerts.filter((a) => a.title === 'The team memory server went back to an older version');
    expect(wentBack).toEqual([expect.objectContaining({ status: 'resolved', resolution: 'a later sync found the server in step' })]);
  } finally {
    await restorable.stop();
  }
});

it(
  'when the server went back past what the client had pulled, a file someone changed meanwhile is kept as a conflict, never overwritten',
  { timeout: 60_000 },
  async () => {
    const { restorable, url, team, tokens } = await RestorableServer.start(path.join(root, 'team2.sqlite'));
    // Alice's requests go through a proxy that fails the next GET of entries when told to.
    let failNextPull = false;
    const proxy = await startFaultProxy(url, {
      rate: 0,
      script: ({ method, path: at }) => (method === 'GET' && at.includes('/entries') && failNextPull ? ((failNextPull = false), 'error') : null),
    });
    try {
      const bob = await makeClient(root, 'bob2', { url, team }, tokens[1]!);
      await bob.write('conventions.md', '# conventions\n- tabs\n');
      expect((await bob.sync.sync()).error).toBeNull();
      const alice = await makeClient(root, 'alice2', { url: proxy.url, team }, tokens[0]!);
      expect((await alice.sync.sync()).pull.written).toEqual(['conventions.md']);
      // Bob changes the file; the backup holds his change.
      await bob.write('conventions.md', '# conventions\n- spaces\n');
      expect((await bob.sync.sync()).error).toBeNull();
      await restorable.backup(path.join(root, 'backup2.sqlite'));

      // Alice pushes a file of her own; the pull that would bring Bob's change fails, so she never saw it.
      await alice.write('alice.md', '# alice\n- mine\n');
      failNextPull = true;
      expect((await alice.sync.sync({ pull: false })).error).not.toBeNull();
      expect(await serverEntries(url, team, tokens[0]!)).toHaveProperty('alice.md');

      await restorable.restore(path.join(root, 'backup2.sqlite'));
      const back = await alice.sync.sync();
      expect(back.error).toBeNull();
      expect(back.pull.wentBack).toContain('or kept as a conflict where someone else changed it since');
      // What the server lost goes up again; Bob's change (which the server kept) is on disk; Alice's copy of the file is kept as a conflict.
      expect(back.push.uploaded).toEqual(['alice.md']);
      expect(await alice.files()).toEqual({ 'conventions.md': '# conventions\n- spaces\n', 'alice.md': '# alice\n- mine\n' });
      expect(await serverEntries(url, team, tokens[0]!)).toEqual(await alice.files());
      const { conflicts } = await alice.sync.inspect();
      expect(conflicts.map((c) => c.key)).toEqual(['conventions.md']);
      expect((await alice.sync.conflictDetail(conflicts[0]!.id)).mine).toBe('# conventions\n- tabs\n');
      // Said as it is (review x3 F0): Alice changed nothing, so not "your changes and the team's overlap".
      let said = '';
      const connection = (await new ConnectionStore(alice.dataDir).forMemoryDir(alice.memoryDir))!;
      describeReport({ out: (t) => (said += t), err: (t) => (said += t), env: {}, cwd: root }, back, connection);
      expect(said).not.toContain('overlap');
      expect(said).toContain('Conflict: team/conventions.md — the server went back to an older version, so which text is newer is not known');
    } finally {
      await proxy.close();
      await restorable.stop();
    }
  },
);

it(
  'after a restore, a file another member wrote at a version number the client had already passed is kept, never pushed over',
  { timeout: 60_000 },
  async () => {
    const { restorable, url, team, tokens } = await RestorableServer.start(path.join(root, 'team3.sqlite'));
    try {
      const bob = await makeClient(root, 'bob3', { url, team }, tokens[1]!);
      await bob.write('note.md', '# note\n- from bob\n');
      expect((await bob.sync.sync()).error).toBeNull();
      const alice = await makeClient(root, 'alice3', { url, team }, tokens[0]!);
      expect((await alice.sync.sync()).pull.written).toEqual(['note.md']);
      await restorable.backup(path.join(root, 'backup3.sqlite'));
      // Alice moves the server on past the backup twice.
      await alice.write('note.md', '# note\n- from bob\n- alice one\n');
      expect((await alice.sync.sync()).error).toBeNull();
      await alice.write('note.md', '# note\n- from bob\n- alice one\n- alice two\n');
      expect((await alice.sync.sync()).error).toBeNull();

      await restorable.restore(path.join(root, 'backup3.sqlite'));
      // Bob, back on the restored server, writes the file anew: the server numbers it as Alice had seen it numbered before.
      await bob.write('note.md', '# note\n- bob rewrote this after the restore\n');
      expect((await bob.sync.sync()).push.uploaded).toEqual(['note.md']);

      const back = await alice.sync.sync();
      expect(back.error).toBeNull();
      expect(back.pull.wentBack).not.toBeNull();
      // Bob's new text stays on the server and reaches Alice's disk; Alice's own is kept as a conflict, nothing lost.
      expect((await serverEntries(url, team, tokens[0]!))['note.md']).toBe('# note\n- bob rewrote this after the restore\n');
      const { conflicts } = await alice.sync.inspect();
      expect(conflicts.map((c) => c.key)).toEqual(['note.md']);
      expect((await alice.sync.conflictDetail(conflicts[0]!.id)).mine).toBe('# note\n- from bob\n- alice one\n- alice two\n');
    } finally {
      await restorable.stop();
    }
  },
);

it(
  'after a restore, a teammate pushing first brings the server back to the same version number: the edit the server lost is still uploaded again (review x3 F0)',
  { timeout: 60_000 },
  async () => {
    const { restorable, url, team, tokens } = await RestorableServer.start(path.join(root, 'team4.sqlite'));
    try {
      const alice = await makeClient(root, 'alice4', { url, team }, tokens[0]!);
      await alice.write('x.md', '# x\n- original\n');
      await alice.write('y.md', '# y\n- original\n');
      expect((await alice.sync.sync()).error).toBeNull();
      const bob = await makeClient(root, 'bob4', { url, team }, tokens[1]!);
      expect((await bob.sync.sync()).pull.written.sort()).toEqual(['x.md', 'y.md']);
      await restorable.backup(path.join(root, 'backup4.sqlite'));

      // Each of Alice's syncs from here runs in a process of its own, as `memdir team sync` does.
      const aliceAgain = () => makeClient(root, 'alice4', { url, team }, tokens[0]!);
      await alice.write('x.md', '# x\n- edited by alice after the backup\n');
      expect((await (await aliceAgain()).sync.sync()).push.uploaded).toEqual(['x.md']);
      await restorable.restore(path.join(root, 'backup4.sqlite'));
      // Bob syncs first: the restored server takes his edit at the version number Alice's push had.
      await bob.write('y.md', '# y\n- edited by bob\n');
      const bobs = await bob.sync.sync();
      expect(bobs.push.uploaded).toEqual(['y.md']);

      const back = await (await aliceAgain()).sync.sync();
      expect(back.error).toBeNull();
      expect(back.pull.wentBack).toMatch(/went back to an older version of the team memory \(it no longer holds what this client uploaded.*uploaded again/);
      expect(back.push.uploaded).toEqual(['x.md']);
      // Bob's y.md may be older or newer than the copy here (the server numbers anew): Alice's copy is kept as a conflict.
      const { conflicts } = await alice.sync.inspect();
      expect(conflicts.map((c) => [c.key, c.status])).toEqual([['y.md', 'open']]);
      // Nothing lost: Alice's edit is on the server again, Bob's is on Alice's disk.
      expect(await serverEntries(url, team, tokens[0]!)).toEqual({ 'x.md': '# x\n- edited by alice after the backup\n', 'y.md': '# y\n- edited by bob\n' });
      expect(await alice.files()).toEqual({ 'x.md': '# x\n- edited by alice after the backup\n', 'y.md': '# y\n- edited by bob\n' });
      await bob.sync.sync();
      expect(await bob.files()).toEqual(await alice.files());
      // In step: the next sync has nothing to say, and asks for no checksums any more.
      const after = await (await aliceAgain()).sync.sync();
      expect(after).toMatchObject({ error: null, pull: { wentBack: null, status: 304 }, push: { uploaded: [] } });
      const quiet = await (await aliceAgain()).sync.sync();
      expect(quiet.push.requests).toBe(1);
    } finally {
      await restorable.stop();
    }
  },
);
