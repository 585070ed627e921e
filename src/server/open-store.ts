/**
 * `--db` as the user types it: a `postgres://` or `postgresql://` URL opens the PostgreSQL
 * store, anything else is the path of a SQLite file. Both are created on first use by the server; an
 * admin command (`create: false`) opens only a store that is there — a SQLite file, a PostgreSQL
 * database holding Memdir's tables — so a mistyped `--db` is refused, never a new empty store.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isPostgresUrl } from './db-url.js';
import { StoreError, type TeamStore, noStoreError } from './store.js';

/** Open and migrate the store `db` names (see the file comment). */
export async function openStore(db: string, cwd = process.cwd(), options: { create?: boolean } = {}): Promise<TeamStore> {
  // Each driver is loaded only when its store is opened.
  if (isPostgresUrl(db)) return (await import('./postgres-store.js')).openPostgresStore(db, options);
  const file = path.resolve(cwd, db);
  const stat = fs.statSync(file, { throwIfNoEntry: false });
  if (stat?.isDirectory())
    throw new StoreError('invalid-input', `${file} is a folder, not a team store: give the path of its SQLite file (--db), or a postgres:// URL.`);
  if (!stat && options.create === false) throw noStoreError(`at ${file}`, 'path');
  return (await import('./sqlite-store.js')).openSqliteStore(file, options);
}
