/**
 * Issue 19, "a lost answer never yields a conflict with oneself": the sync server process is
 * SIGKILLed after it committed a push and before the answer left. The user goes on editing the
 * same file; when the server is back, the next sync learns (by the push id) that its push was
 * saved, takes it as its own write, and pushes the newer edit — no conflict, nothing lost.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTeam, issueToken } from '../../server/admin.js';
import { startServer } from '../../server/server.js';
import { openSqliteStore } from '../../server/sqlite-store.js';
import { makeClient, serverEntries } from './test-support/team-fixture.js';

const KILLER = fileURLToPath(new URL('../../server/test-support/kill-after-commit.ts', import.meta.url));
let root: string;

beforeAll(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-lost-answer-')));
});
afterAll(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

/** The dying server in its own process; resolves with its URL once it listens. */
function startDyingServer(db: string): Promise<{ url: string; child: ChildProcess; exited: Promise<NodeJS.Signals | null> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', KILLER, db, '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (d: string) => {
      err += d;
      const match = /listening on (http:\/\/\S+)/.exec(err);
      if (match) resolve({ url: match[1]!, child, exited });
    });
    child.once('exit', (code) => reject(new Error(`the server exited (${code}) before listening: ${err}`)));
  });
}

it(
  "a push saved by a server killed before it answered comes back as the client's own write: no conflict, the newer edit is pushed",
  { timeout: 60_000 },
  async () => {
    const db = path.join(root, 'team.sqlite');
    const setup = openSqliteStore(db);
    await createTeam(setup, 'platform');
    const { token } = await issueToken(setup, 'platform', 'ann');
    await setup.close();

    const dying = await startDyingServer(db);
    const a = await makeClient(root, 'ann', { url: dying.url, team: 'platform' }, token);
    await a.write('deploys.md', '# Deploys\n- freeze on Fridays\n');
    const lost = await a.sync.sync();
    expect(await dying.exited).toBe('SIGKILL');
    expect(lost.error).toMatchObject({ code: 'network', message: expect.stringContaining('lost after the push was sent') });
    expect(lost.error!.message).toContain('may have saved it');
    expect(lost.push.uploaded).toEqual([]);
    // It was committed before the process died.
    const check = openSqliteStore(db);
    expect((await check.readEntries('platform'))!.entries.map((e) => e.content)).toEqual(['# Deploys\n- freeze on Fridays\n']);
    await check.close();

    // The user goes on editing while the server is down.
    await a.write('deploys.md', '# Deploys\n- freeze on Fridays\n- two approvals\n');

    // The server is back on the same address.
    const store = openSqliteStore(db);
    const back = await startServer({ store, port: Number(new URL(dying.url).port), closeStore: true, limits: { rateLimit: { burst: 1000, perSecond: 1000 } } });
    try {
      const next = await a.sync.sync();
      expect(next.error).toBeNull();
      expect(next.push.confirmed).toEqual(['deploys.md']);
      expect(next.pull.conflicts).toEqual([]);
      expect(next.push.uploaded).toEqual(['deploys.md']);
      expect((await a.sync.inspect()).conflicts).toEqual([]);
      expect(await a.read('deploys.md')).toBe('# Deploys\n- freeze on Fridays\n- two approvals\n');
      expect((await serverEntries(back.url, 'platform', token))['deploys.md']).toBe('# Deploys\n- freeze on Fridays\n- two approvals\n');
    } finally {
      await back.close();
    }
  },
);

it(
  'a push confirmed by the next sync moves "last push" (review x3 F4): the confirmed save is the last push, not the one before',
  { timeout: 60_000 },
  async () => {
    const db = path.join(root, 'confirmed.sqlite');
    const setup = openSqliteStore(db);
    await createTeam(setup, 'platform');
    const { token } = await issueToken(setup, 'platform', 'ann');
    await setup.close();

    const dying = await startDyingServer(db);
    const a = await makeClient(root, 'ann-confirmed', { url: dying.url, team: 'platform' }, token);
    await a.write('deploys.md', '# Deploys\n- freeze on Fridays\n');
    expect((await a.sync.sync()).error).toMatchObject({ code: 'network' });
    expect(await dying.exited).toBe('SIGKILL');
    expect((await a.sync.inspect()).lastPushAt).toBeNull();

    const store = openSqliteStore(db);
    const back = await startServer({ store, port: Number(new URL(dying.url).port), closeStore: true, limits: { rateLimit: { burst: 1000, perSecond: 1000 } } });
    try {
      const next = await a.sync.sync();
      expect(next.push).toMatchObject({ confirmed: ['deploys.md'], uploaded: [] });
      expect((await a.sync.inspect()).lastPushAt).not.toBeNull();
    } finally {
      await back.close();
    }
  },
);
