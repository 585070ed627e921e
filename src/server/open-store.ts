/**
 * `--db` as the user types it: a `postgres://` or `postgresql://` URL opens the PostgreSQL
 * store, anything else is the path of a SQLite file (created on first use).
 */
import path from 'node:path';
import { openPostgresStore } from './postgres-store.js';
import { openSqliteStore } from './sqlite-store.js';
import type { TeamStore } from './store.js';

/** Whether `db` names a PostgreSQL database rather than a SQLite file. */
export function isPostgresUrl(db: string): boolean {
  return /^postgres(?:ql)?:\/\//i.test(db);
}

/** Open and migrate the store `db` names (see the file comment). */
export async function openStore(db: string, cwd = process.cwd()): Promise<TeamStore> {
  if (isPostgresUrl(db)) return openPostgresStore(db);
  return openSqliteStore(path.resolve(cwd, db));
}
