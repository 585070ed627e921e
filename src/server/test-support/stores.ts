/**
 * Run one test suite on both stores: `describeStores('sync API', (h) => { … })` defines the
 * suite once for SQLite and once for PostgreSQL (an ephemeral cluster per file, a fresh
 * database per `h.freshDb()`). Without PostgreSQL binaries the PostgreSQL half is skipped with
 * a one-line reason, or fails under CI=true (see postgres.ts).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { openStore } from '../open-store.js';
import type { TeamStore } from '../store.js';
import { type EphemeralPostgres, postgresAvailability, startEphemeralPostgres } from './postgres.js';

export type StoreKind = 'sqlite' | 'postgres';

export interface StoreHarness {
  readonly kind: StoreKind;
  /** A new store's database, as `memdir server` leaves it on its first start: a SQLite file path or a PostgreSQL URL (what `--db` takes). */
  freshDb: () => Promise<string>;
  /** A database that holds no Memdir store: a SQLite path with no file, or an empty PostgreSQL database. */
  emptyDb: () => Promise<string>;
  /** Open (and migrate) a store on `db`; closed automatically after the suite. */
  open: (db: string) => Promise<TeamStore>;
  /** A store on a fresh database. */
  fresh: () => Promise<TeamStore>;
}

function harness(kind: StoreKind): StoreHarness {
  let tmp = '';
  let cluster: EphemeralPostgres | null = null;
  const opened: TeamStore[] = [];
  let n = 0;
  beforeAll(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), `memdir-server-${kind}-`));
    if (kind === 'postgres') cluster = await startEphemeralPostgres();
  }, 60_000);
  afterAll(async () => {
    await Promise.all(opened.map((s) => s.close().catch(() => undefined)));
    await cluster?.stop();
    await fs.rm(tmp, { recursive: true, force: true });
  }, 60_000);
  const h: StoreHarness = {
    kind,
    async freshDb() {
      if (kind === 'sqlite') {
        // Created as `memdir server` creates it: admin commands only open a store that is there.
        const file = path.join(tmp, `db-${++n}`, 'team-sync.sqlite');
        await (await openStore(file)).close();
        return file;
      }
      // Created as `memdir server` creates it: admin commands only open a store that is there.
      const url = await cluster!.createDatabase();
      await (await openStore(url)).close();
      return url;
    },
    async emptyDb() {
      return kind === 'sqlite' ? path.join(tmp, `empty-${++n}`, 'team-sync.sqlite') : cluster!.createDatabase();
    },
    async open(db) {
      const store = await openStore(db);
      opened.push(store);
      return store;
    },
    async fresh() {
      return h.open(await h.freshDb());
    },
  };
  return h;
}

/** Define `suite` for each store kind (see the file comment). */
export function describeStores(name: string, suite: (h: StoreHarness) => void): void {
  describe(`${name} [sqlite]`, () => suite(harness('sqlite')));
  const pg = postgresAvailability();
  if (pg.available) {
    describe(`${name} [postgres]`, () => suite(harness('postgres')));
  } else if (pg.mustFail) {
    describe(`${name} [postgres]`, () => {
      it('needs PostgreSQL', () => {
        throw new Error(pg.reason);
      });
    });
  } else {
    describe(`${name} [postgres]`, () => {
      it.skip(pg.reason, () => undefined);
    });
  }
}
