/**
 * `--db` as the user types it: a `postgres://` or `postgresql://` URL opens the PostgreSQL
 * store, anything else is the path of a SQLite file (created on first use).
 */
import path from 'node:path';
import { isPostgresUrl } from './db-url.js';
import type { TeamStore } from './store.js';

/** Open and migrate the store `db` names (see the file comment). */
export async function openStore(db: string, cwd = process.cwd()): Promise<TeamStore> {
  // Each driver is loaded only when its store is opened.
  if (isPostgresUrl(db)) return (await import('./postgres-store.js')).openPostgresStore(db);
  return (await import('./sqlite-store.js')).openSqliteStore(path.resolve(cwd, db));
}
