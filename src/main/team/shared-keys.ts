/**
 * The one rule for a team memory the sync server already holds (R-SYNC: deletions do not
 * propagate): it cannot leave the team folder under its name — not deleted, not renamed, not
 * moved to private. The next sync would pull it back from the server (beside the new name, for a
 * rename) while the index lines that went with it stay gone, for this machine and, once
 * team/MEMORY.md is pushed, for every teammate. Retiring it goes through consolidation: emptying
 * its text, which the next sync shares. A memory never pushed changes freely.
 */
import { resolveDataDir } from '../core/data-dir.js';
import { memoryDirKey } from '../core/memory-lock.js';
import { checkMemoryPath, inScope, MemoryError, type Where } from '../memdir/index.js';
import { connectionDir } from './connections.js';
import { StateFile } from './sync-state.js';

/** What would take a shared key away from the team folder. */
export type SharedKeyChange = 'delete' | 'rename' | 'private';

const HELD = 'is already shared with the team (the sync server holds it)';
const COMES_BACK = 'deletions never propagate, and the next sync would bring it back';
const EMPTY = 'empty its text in the team memory (open it, delete its text, save) and the next sync shares that';

function sentence(key: string, change: SharedKeyChange): string {
  const rel = inScope('team', key);
  if (change === 'delete')
    return `${rel} ${HELD}, so it cannot be deleted: ${COMES_BACK}, without its index lines. To retire it, ${EMPTY}; to keep what it says, merge it into another memory first.`;
  if (change === 'rename')
    return `${rel} ${HELD}, so it keeps its name: ${COMES_BACK} under the old name, beside the new one. To give it another name, create a memory with that name and its text, then ${EMPTY}.`;
  return `${key} ${HELD}, so it stays shared: ${COMES_BACK}. To keep a private version, copy its content into a new private memory; to withdraw it from the team, ${EMPTY}.`;
}

/**
 * Why a team memory cannot be deleted, renamed or moved to private, per key: those the sync server
 * is known to hold (the last sync's checksums, or the versions both sides agreed on); null for the rest.
 */
export async function sharedKeyRefusals(
  memoryDir: string,
  dataDir: string = resolveDataDir(),
): Promise<(key: string, change: SharedKeyChange) => string | null> {
  const state = await new StateFile(connectionDir(dataDir, await memoryDirKey(memoryDir))).load();
  return (key, change) => (Object.hasOwn(state.server, key) || Object.hasOwn(state.base, key) ? sentence(key, change) : null);
}

/** Refuse (MemoryError `scope-refused`, nothing written) a `change` of `file` that would take a team key the server holds away; private memories pass. */
export async function refuseChangingSharedKey(where: Where, file: string, change: SharedKeyChange): Promise<void> {
  if (where.scope !== 'team') return;
  const refusal = (await sharedKeyRefusals(where.memoryDir, where.dataDir))(checkMemoryPath(file), change);
  if (refusal) throw new MemoryError('scope-refused', refusal);
}
