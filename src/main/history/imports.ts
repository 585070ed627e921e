/**
 * Where the histories imports brought in are kept in a shadow repository, and what an undone
 * import's history may still do. An import's history is `refs/memdir/imports/<id>`; when the
 * import is undone (`memdir merge undo`) it moves to `refs/memdir/undone-imports/<id>`: still
 * listed and readable (what the import held is not lost), but nothing is restored from it — the
 * person took that import back. Undoing that undo (`memdir undo` of its entry) moves it back.
 */
import { git, HistoryError, type ShadowRepo } from './git.js';
import { openShadowRepo } from './shadow-repo.js';
import { withMemoryLock } from '../core/memory-lock.js';

/** The refs of the imports that stand. */
export const IMPORTS = 'refs/memdir/imports/';
/** The refs of the imports undone since. */
export const UNDONE_IMPORTS = 'refs/memdir/undone-imports/';
/** What may name an imported history (an import's id): one ref name part. */
export const IMPORT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/**
 * Mark the history import `id` brought into `memoryDir` as undone (its import was undone): its
 * ref moves, in one git transaction, from IMPORTS to UNDONE_IMPORTS. Nothing when there is none.
 */
export function retireImportedHistory(memoryDir: string, id: string, opts: { dataDir?: string } = {}): Promise<void> {
  return moveImportRef(memoryDir, id, IMPORTS, UNDONE_IMPORTS, opts);
}

/**
 * Give the history import `id` brought into `memoryDir` back its standing (the undo of its
 * import was undone): its ref moves back from UNDONE_IMPORTS to IMPORTS. Nothing when there is none.
 */
export function reinstateImportedHistory(memoryDir: string, id: string, opts: { dataDir?: string } = {}): Promise<void> {
  return moveImportRef(memoryDir, id, UNDONE_IMPORTS, IMPORTS, opts);
}

async function moveImportRef(memoryDir: string, id: string, from: string, to: string, opts: { dataDir?: string }): Promise<void> {
  const repo = await openShadowRepo(memoryDir, opts.dataDir);
  if (!repo || !IMPORT_NAME.test(id)) return;
  await withMemoryLock(
    memoryDir,
    async () => {
      const found = await git(repo, ['rev-parse', '-q', '--verify', `${from}${id}`], { okCodes: [1, 128] });
      if (found.code !== 0) return;
      const rev = found.stdout.trim();
      await git(repo, ['update-ref', '--stdin'], { input: `update ${to}${id} ${rev}\ndelete ${from}${id} ${rev}\n` });
    },
    { ...(opts.dataDir ? { dataDir: opts.dataDir } : {}) },
  );
}

/**
 * Refuse, in a sentence, a restore from `hash` when only undone imports hold it: neither the
 * memory dir's own history nor an import that stands. One git process.
 */
export async function refuseUndoneImport(repo: ShadowRepo, hash: string): Promise<void> {
  const refs = (await git(repo, ['for-each-ref', `--contains=${hash}`, '--format=%(refname)', 'refs/'])).stdout.split('\n').filter(Boolean);
  const undone = refs.filter((ref) => ref.startsWith(UNDONE_IMPORTS));
  if (undone.length === 0 || undone.length < refs.length) return;
  const id = undone[0]!.slice(UNDONE_IMPORTS.length);
  throw new HistoryError(
    'bad-revision',
    `${hash.slice(0, 10)} is in the history import ${id} brought in, and that import was undone (memdir merge undo): nothing was restored. Import the archive again to restore from its history.`,
  );
}
