/**
 * Bulk curation (issue 14): change the type of, move between private and team, delete or retire
 * (team memories the sync server holds) several memories at once — as ONE history entry, so one undo takes it all back. Each memory
 * goes through the same service as a single change (the same checks, the same index upkeep);
 * one that cannot (a `user` memory for the team, a file changed or gone) is left as it is and
 * reported with its reason, and the rest still happen. One left for a secret in its name (a move
 * to the team) carries the secrets, masked, to ask about: moved again with their fingerprints
 * allowed, it goes as a single move anyway does.
 */
import type { MemoryType, Scope } from '../../shared/memory-types.js';
import type { SecretOnSave } from '../../shared/secret-types.js';
import { plural } from '../../shared/size-text.js';
import { type HistoryEntry, transact } from '../history/index.js';
import { deleteMemory, inScope, MemoryError, retireMemory, setMemoryType, writingIndexesOnce } from '../memdir/index.js';
import { SecretFoundError } from '../secrets/index.js';
import { heldByServer, moveMemoryScope, refuseChangingSharedKey, refuseRetiringUnshared, TeamPathError } from '../team/index.js';
import { UnsafePathError } from '../core/confined-path.js';

export type BulkAction = { kind: 'delete' } | { kind: 'retire' } | { kind: 'set-type'; type: MemoryType } | { kind: 'move'; to: Scope };

export interface BulkItem {
  scope: Scope;
  file: string;
}

export interface BulkResult {
  entry: HistoryEntry | null;
  done: BulkItem[];
  /** `heldByServer`: refused because the sync server holds it (a delete, a move to private): retiring is how it leaves (memories.retire). */
  refused: (BulkItem & { reason: string; secrets?: SecretOnSave[]; heldByServer?: boolean })[];
}

function summaryOf(action: BulkAction, n: number): string {
  const memories = plural(n, 'memory', 'memories');
  if (action.kind === 'delete') return `Delete ${memories}`;
  if (action.kind === 'retire') return `Retire ${memories}`;
  if (action.kind === 'set-type') return `Change the type of ${memories} to ${action.type}`;
  return `Move ${memories} to ${action.to === 'team' ? 'the team memory' : 'the private memory'}`;
}

async function applyOne(
  memoryDir: string,
  dataDir: string | undefined,
  item: BulkItem,
  action: BulkAction,
  allowSecrets: readonly string[] | undefined,
): Promise<void> {
  const where = { memoryDir, scope: item.scope, ...(dataDir ? { dataDir } : {}) };
  if (action.kind === 'delete') {
    await refuseChangingSharedKey(where, item.file, 'delete');
    await deleteMemory(where, item.file);
    return;
  }
  // How a team memory the sync server holds leaves (the delete's refusal offers it): the one Retire, memdir retireMemory.
  if (action.kind === 'retire') {
    await refuseRetiringUnshared(where, item.file);
    await retireMemory(where, item.file);
    return;
  }
  if (action.kind === 'move') {
    if (action.to === item.scope) throw new MemoryError('invalid-input', `${inScope(item.scope, item.file)} is already in the ${item.scope} memory.`);
    await moveMemoryScope({ memoryDir, ...(dataDir ? { dataDir } : {}), file: item.file, to: action.to, ...(allowSecrets ? { allowSecrets } : {}) });
    return;
  }
  await setMemoryType(where, item.file, action.type);
}

/**
 * How many memories a bulk change works on at once: each waits mostly on the disk (an atomic write
 * is two fsyncs), so a few side by side keep it busy. A move goes one at a time (two folders, two
 * indexes and the team's keys to check). Each memory's writes stay atomic; the one lock and the one
 * history entry are the bulk's.
 */
const SIDE_BY_SIDE = 8;

/** Runs `work(0 … n-1)`, at most `width` at a time; the first failure stops what has not begun and is thrown once the rest have ended. */
async function inTurns(n: number, width: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  let failed: { error: unknown } | null = null;
  const worker = async () => {
    while (next < n && !failed) {
      const i = next++;
      try {
        await work(i);
      } catch (error) {
        failed ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, n) }, worker));
  if (failed) throw (failed as { error: unknown }).error;
}

/** Apply `action` to every item, as one history entry (see the file comment); `allowSecrets`: fingerprints a move takes anyway. */
export async function bulkChange(
  opts: { memoryDir: string; dataDir?: string },
  items: BulkItem[],
  action: BulkAction,
  allowSecrets?: readonly string[],
): Promise<BulkResult> {
  const done: BulkItem[] = [];
  const refused: BulkResult['refused'] = [];
  // A memory named twice is changed once (two side by side would race on the one file).
  const seen = new Set<string>();
  items = items.filter((item) => !seen.has(`${item.scope}\0${item.file}`) && seen.add(`${item.scope}\0${item.file}`));
  const { entry } = await transact(
    opts.memoryDir,
    { source: 'manual', summary: summaryOf(action, items.length), ...(opts.dataDir ? { dataDir: opts.dataDir } : {}) },
    // Each index is read and written once for the whole change, not once per memory; each folder
    // fsynced once, before the indexes are written (a move: after each file, see writingIndexesOnce).
    () =>
      writingIndexesOnce({ foldersOnce: action.kind !== 'move' }, async () => {
        // Each memory's outcome in its place: done (null) or its refusal, said in the order asked.
        const outcomes: (null | BulkResult['refused'][number])[] = new Array(items.length);
        const one = async (i: number) => {
          const item = items[i]!;
          try {
            await applyOne(opts.memoryDir, opts.dataDir, item, action, allowSecrets);
            outcomes[i] = null;
          } catch (error) {
            // A secret in a name is one item's refusal, said masked, with what to ask about before moving it anyway.
            if (!(error instanceof MemoryError || error instanceof UnsafePathError || error instanceof TeamPathError || error instanceof SecretFoundError))
              throw error;
            // Refused because the sync server holds it (a delete, a move to private): the app offers Retire for it.
            const held =
              error instanceof MemoryError &&
              error.code === 'scope-refused' &&
              (await heldByServer({ memoryDir: opts.memoryDir, scope: item.scope, ...(opts.dataDir ? { dataDir: opts.dataDir } : {}) }, item.file));
            outcomes[i] = {
              ...item,
              reason: error.message,
              ...(error instanceof SecretFoundError ? { secrets: error.secrets } : {}),
              ...(held ? { heldByServer: true } : {}),
            };
          }
        };
        await inTurns(items.length, action.kind === 'move' ? 1 : SIDE_BY_SIDE, one);
        items.forEach((item, i) => {
          const refusal = outcomes[i];
          if (refusal === undefined) return;
          if (refusal === null) done.push(item);
          else refused.push(refusal);
        });
      }),
  );
  return { entry, done, refused };
}
