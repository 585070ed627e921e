/**
 * The connection store on a real data dir: what a reconnect to another server or team does to
 * the sync state, and two processes (the app and the CLI) recording connections at once.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConnectionStore, checkServerUrl, connectionDir } from './connections.js';
import { runWorkersTogether } from '../memdir/test-support/spawn-worker.js';

const dataFileWorker = fileURLToPath(new URL('./test-support/data-file-worker.ts', import.meta.url));

const SHA_A = 'a'.repeat(64);
const SHA_B = 'b'.repeat(64);

let tmp: string;
let dataDir: string;
let memoryDir: string;

beforeEach(async () => {
  tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-connections-')));
  dataDir = path.join(tmp, 'data');
  memoryDir = path.join(tmp, 'home', 'projects', '-work-app', 'memory');
  await fs.mkdir(path.join(memoryDir, 'team'), { recursive: true });
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

function connection(server: string, team: string, tokenId = '0123456789abcdef') {
  return { memoryDir, dir: '-work-app', server, team, member: 'ana', tokenId, connectedAt: new Date().toISOString(), pullIntervalSec: 60 };
}

describe('ConnectionStore', () => {
  it('starts the sync state over when the server or the team changes (open conflicts kept); a new token for the same team keeps it', async () => {
    const store = new ConnectionStore(dataDir);
    const { id } = await store.save(connection('https://sync.example.com', 'platform'));
    const stateFile = path.join(connectionDir(dataDir, id), 'state.json');
    await fs.mkdir(path.dirname(stateFile), { recursive: true });
    const conflict = {
      id: 'c1',
      key: 'project_x.md',
      createdAt: '2026-01-01T00:00:00Z',
      localSha: SHA_A,
      localBytes: 3,
      localIsText: true,
      serverSha: SHA_B,
      baseSha: null,
      serverUpdatedBy: 'bo',
      serverUpdatedAt: null,
      localRev: null,
      status: 'open',
      resolution: null,
      resolvedAt: null,
    };
    const synced = {
      version: 1,
      etag: '"e1-7"',
      server: { 'project_x.md': SHA_B },
      base: { 'project_x.md': SHA_B },
      lastPullAt: '2026-01-01T00:00:00Z',
      lastPushAt: null,
      conflicts: [conflict],
    };
    await fs.writeFile(stateFile, JSON.stringify(synced));
    const state = async () => JSON.parse(await fs.readFile(stateFile, 'utf8')) as typeof synced;

    await store.save(connection('https://sync.example.com', 'platform', 'fedcba9876543210'));
    expect(await state()).toEqual(synced);

    await store.save(connection('https://sync.example.com', 'design'));
    expect(await state()).toMatchObject({ etag: null, server: {}, base: {}, conflicts: [conflict] });

    // Disconnected, then connected elsewhere: the state still belongs to "design".
    await fs.writeFile(stateFile, JSON.stringify(synced));
    await store.remove(id);
    await store.save(connection('https://other.example.com', 'design'));
    expect(await state()).toMatchObject({ etag: null, server: {}, base: {}, conflicts: [conflict] });
  });

  it('loses no connection when two processes record theirs at the same time', async () => {
    const codes = await runWorkersTogether(dataFileWorker, [
      ['connections', dataDir, 'app', '15'],
      ['connections', dataDir, 'cli', '15'],
    ]);
    expect(codes).toEqual([0, 0]);
    const dirs = (await new ConnectionStore(dataDir).list()).map((c) => c.dir).sort();
    expect(dirs).toHaveLength(30);
    expect(dirs).toEqual([...Array.from({ length: 15 }, (_, i) => `app-${i}`), ...Array.from({ length: 15 }, (_, i) => `cli-${i}`)].sort());
  }, 60_000);
});

describe('checkServerUrl: plain http only to this machine', () => {
  it.each([
    'http://[::ffff:127.0.0.1]:8787',
    'http://[::ffff:127.0.0.9]',
    'http://[::1]:8787',
    'http://127.0.0.2:8787',
    'http://localhost:8787',
    'http://LOCALHOST',
  ])('%s is this machine: accepted without allowHttp', async (server) => {
    await expect(checkServerUrl(server)).resolves.toMatch(/^http:\/\//);
  });

  it.each(['http://[::ffff:10.0.0.1]:8787', 'http://10.0.0.1', 'http://[::2]', 'http://localhost.example.com'])(
    '%s is another machine: refused unless allowHttp',
    async (server) => {
      await expect(checkServerUrl(server)).rejects.toThrow(/would send your token unencrypted; use https/);
      await expect(checkServerUrl(server, true)).resolves.toMatch(/^http:\/\//);
    },
  );
});
