/**
 * `memdir server backup --to <file>`: a copy of a SQLite team store taken while servers keep
 * writing to it. Through SQLite's online backup API on the store's own connection — a plain copy
 * of the file misses every push still in its `-wal` file, and one taken mid-checkpoint is torn.
 * The copy is written beside the target under a hidden name, private (0600: it holds every
 * team's memories and its tokens' hashes), and appears under its name only once complete; an
 * existing file is never overwritten. A PostgreSQL store is backed up with pg_dump.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { StoreError, type TeamStore } from './store.js';

/** Why `memdir server backup` does not copy a PostgreSQL store, and what to run instead. */
export const POSTGRES_BACKUP_SENTENCE =
  'A PostgreSQL team store is backed up with PostgreSQL\'s own tool while the servers run: pg_dump --format=custom --file team-sync.dump "$MEMDIR_SERVER_DB" (restore it with pg_restore into an empty database).';

/** Back up `store` into the new file `to`; its absolute path and size. */
export async function backupStore(store: TeamStore, to: string): Promise<{ to: string; bytes: number }> {
  if (store.kind === 'postgres') throw new StoreError('invalid-input', POSTGRES_BACKUP_SENTENCE);
  const target = path.resolve(to);
  const own = [store.location, `${store.location}-wal`, `${store.location}-shm`].map((f) => path.resolve(f));
  if (own.includes(target)) throw new StoreError('invalid-input', `--to ${target} is the team store itself: name a new file for the backup.`);
  const exists = (): StoreError =>
    new StoreError('exists', `${target} already exists, and a backup never overwrites a file: name a new one (with the date in it, for example).`);
  if (fs.lstatSync(target, { throwIfNoEntry: false })) throw exists();
  const dir = path.dirname(target);
  if (!fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) throw new StoreError('not-found', `There is no folder ${dir} to write the backup into.`);
  const partial = path.join(dir, `.${path.basename(target)}.partial-${randomBytes(4).toString('hex')}`);
  fs.closeSync(fs.openSync(partial, fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_WRONLY, 0o600));
  try {
    await store.backupTo(partial);
    // A hard link appears at once and never replaces a file that turned up meanwhile.
    try {
      fs.linkSync(partial, target);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw exists();
      throw error;
    }
  } finally {
    fs.rmSync(partial, { force: true });
  }
  return { to: target, bytes: fs.statSync(target).size };
}
