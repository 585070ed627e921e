/**
 * `--db` as the user types it: a `postgres://` or `postgresql://` URL opens the PostgreSQL
 * store, anything else is the path of a SQLite file (created on first use by the server; an admin
 * command opens only a file that is there, so a mistyped path is refused, never a new empty store).
 */
import fs from 'node:fs';
import path from 'node:path';
import { isPostgresUrl } from './db-url.js';
import { StoreError, type TeamStore } from './store.js';

/** Open and migrate the store `db` names (see the file comment). */
export async function openStore(db: string, cwd = process.cwd(), options: { create?: boolean } = {}): Promise<TeamStore> {
  // Each driver is loaded only when its store is opened.
  if (isPostgresUrl(db)) return (await import('./postgres-store.js')).openPostgresStore(db);
  const file = path.resolve(cwd, db);
  const stat = fs.statSync(file, { throwIfNoEntry: false });
  if (stat?.isDirectory())
    throw new StoreError('invalid-input', `${file} is a folder, not a team store: give the path of its SQLite file (--db), or a postgres:// URL.`);
  if (!stat && options.create === false)
    throw new StoreError(
      'not-found',
      `There is no team store at ${file}: check the path (--db or $MEMDIR_SERVER_DB). \`memdir server\` creates one on its first start; admin commands never do.`,
    );
  return (await import('./sqlite-store.js')).openSqliteStore(file, options);
}
