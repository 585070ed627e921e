/**
 * One real sync server for all the tests of a file (the team-sync*.test.ts files):
 * `useSharedTeamServer()` starts it before the file's first test — on a tmp SQLite store, team
 * `platform`, four member tokens — and stops it after the last. Tests keep out of each other's
 * way by number: a test that makes clients bumps `n`, which names its client folders and keys.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { openSqliteStore } from '../../../server/sqlite-store.js';
import type { TeamStore } from '../../../server/store.js';
import { type TestClient, type TestServer, makeClient, startTestServer } from './team-fixture.js';

export interface SharedTeamServer {
  /** The tmp folder every client machine of the file lives under. */
  readonly root: string;
  readonly store: TeamStore;
  readonly server: TestServer;
  /** The current test's number: bumped by each test that makes clients. */
  n: number;
  /** Two fresh machines on the shared server, in their own folders (bumps `n`). */
  pair(): Promise<[TestClient, TestClient]>;
  /** A team key unique to the current test. */
  keyOf(name: string): string;
}

/** Start the shared server around the calling file's tests (see the file comment). */
export function useSharedTeamServer(): SharedTeamServer {
  let root: string;
  let store: TeamStore;
  let server: TestServer;

  beforeAll(async () => {
    root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-team-sync-')));
    store = await openSqliteStore(path.join(root, 'team.sqlite'));
    server = await startTestServer(store, 4);
  });
  afterAll(async () => {
    await server.server.close();
    await store.close();
    await fs.rm(root, { recursive: true, force: true });
  });

  const h: SharedTeamServer = {
    get root() {
      return root;
    },
    get store() {
      return store;
    },
    get server() {
      return server;
    },
    n: 0,
    async pair() {
      h.n++;
      return [await makeClient(root, `a${h.n}`, server, server.tokens[0]!), await makeClient(root, `b${h.n}`, server, server.tokens[1]!)];
    },
    keyOf: (name) => `t${h.n}-${name}.md`,
  };
  return h;
}
