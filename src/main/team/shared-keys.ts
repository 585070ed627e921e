/**
 * The one rule for a team memory the sync server already holds (R-SYNC: deletions do not
 * propagate): it cannot leave the team folder under its name — not deleted, not renamed, not
 * moved to private. The next sync would pull it back from the server (beside the new name, for a
 * rename) while the index lines that went with it stay gone, for this machine and, once
 * team/MEMORY.md is pushed, for every teammate. Retiring it (memdir retireMemory) empties its text
 * and removes its pointers, which the next sync shares. A memory never pushed changes freely.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { INDEX_FILE, TEAM_DIR } from '../../shared/limits.js';
import { confineOrNull } from '../core/index.js';
import { processDataDir } from '../core/data-dir.js';
import { memoryDirKey } from '../core/memory-lock.js';
import { checkMemoryPath, inScope, MemoryError, type Where } from '../memdir/index.js';
import { maskedName } from '../secrets/index.js';
import { connectionDir, ConnectionStore } from './connections.js';
import { sha256Hex } from './hash-cache.js';
import { StateFile, type SyncState } from './sync-state.js';

/** What would take a shared key away from the team folder. */
export type SharedKeyChange = 'delete' | 'rename' | 'private';

const HELD = 'is already shared with the team (the sync server holds it)';
const COMES_BACK = 'deletions never propagate, and the next sync would bring it back';
/** The one Retire action (memdir retireMemory: the app's Retire, `memdir team retire`), named by the memory's path. */
const retire = (rel: string) =>
  `retire it (Retire in the app, or \`memdir team retire ${rel}\`): its text is emptied and its index lines removed, and the next sync shares that`;

function sentence(key: string, change: SharedKeyChange): string {
  const rel = inScope('team', key);
  const retiring = retire(rel);
  if (change === 'delete')
    return `${rel} ${HELD}, so it cannot be deleted: ${COMES_BACK}, without its index lines. Instead, ${retiring}; to keep what it says, merge it into another memory first.`;
  if (change === 'rename')
    return `${rel} ${HELD}, so it keeps its name: ${COMES_BACK} under the old name, beside the new one. To give it another name, create a memory with that name and its text, then ${retiring}.`;
  return `${key} ${HELD}, so it stays shared: ${COMES_BACK}. To keep a private version, copy its content into a new private memory; to withdraw it from the team, ${retiring}.`;
}

/** Whether the sync server is known to hold a team key: the last sync's checksums name it, or a version both sides agreed on. */
export async function sharedKeysHeld(memoryDir: string, dataDir: string = processDataDir()): Promise<(key: string) => boolean> {
  const state = await new StateFile(connectionDir(dataDir, await memoryDirKey(memoryDir))).load();
  return (key) => Object.hasOwn(state.server, key) || Object.hasOwn(state.base, key);
}

/** Why a team memory cannot be deleted, renamed or moved to private, per key: those the sync server holds ({@link sharedKeysHeld}); null for the rest. */
export async function sharedKeyRefusals(
  memoryDir: string,
  dataDir: string = processDataDir(),
): Promise<(key: string, change: SharedKeyChange) => string | null> {
  const held = await sharedKeysHeld(memoryDir, dataDir);
  return (key, change) => (held(key) ? sentence(key, change) : null);
}

/**
 * Which memories a change that takes memories away — a merge's merged-away ones, an undo of their
 * creation — retires instead of deleting, by path in the memory directory (`team/x.md`): the team
 * memories the server holds, as a person told by the refusal above would (their text emptied,
 * retireMemoryFile); the rest, private or never pushed, are deleted as before.
 */
export async function retiredInsteadOfDeleted(memoryDir: string, dataDir: string = processDataDir()): Promise<(rel: string) => boolean> {
  const held = await sharedKeysHeld(memoryDir, dataDir);
  const prefix = `${TEAM_DIR}/`;
  return (rel) => rel.startsWith(prefix) && held(rel.slice(prefix.length));
}

/** The hash of an empty file: what a retired team memory holds. */
const EMPTY_SHA = sha256Hex('');

/**
 * The team keys a folder among `others` holds with text while connected to the same team (server
 * and team) as `memoryDir`: its last sync agreed on a non-empty version of them with the server.
 * Those the team had, or gets from there, whatever is done here.
 */
async function keptByTeamElsewhere(memoryDir: string, dataDir: string, others: readonly string[]): Promise<(key: string) => boolean> {
  if (others.length === 0) return () => false;
  const store = new ConnectionStore(dataDir);
  const here = await store.forMemoryDir(memoryDir);
  if (!here) return () => false;
  const states: SyncState[] = [];
  for (const other of others) {
    // A folder gone since (an orphan's, removed by hand) syncs nothing.
    const there = await store.forMemoryDir(other).catch(() => null);
    if (!there || there.id === here.id || there.server !== here.server || there.team !== here.team) continue;
    states.push(await new StateFile(connectionDir(dataDir, there.id)).load());
  }
  return (key) =>
    states.some((state) => {
      const sha = state.base[key] ?? state.server[key];
      return sha !== undefined && sha !== EMPTY_SHA;
    });
}

/**
 * What an undo or a restore that takes memories away is given to retire (undoChange's and
 * restoreRevision's `retire`): the held team memories of {@link retiredInsteadOfDeleted}, and
 * {@link retiredNote} to say so. One call for every such door.
 * `others`: the other folders of the merge an undo takes back (its old and new project folders).
 * A held key one of them holds with text on the same team is not retired: the team had that
 * memory before the merge moved it here (or has it from there), and retiring it here would empty
 * it for every teammate, that folder too, with the next syncs. It is removed here like any other
 * (the next sync brings the team's text back, as into any folder of the team), and the note says so.
 */
export async function retireInstead(
  memoryDir: string,
  dataDir: string = processDataDir(),
  others: readonly string[] = [],
): Promise<{ instead: (rel: string) => boolean; note: (rels: readonly string[]) => string | null }> {
  const held = await retiredInsteadOfDeleted(memoryDir, dataDir);
  const kept = await keptByTeamElsewhere(memoryDir, dataDir, others);
  const spared = new Set<string>();
  const prefix = `${TEAM_DIR}/`;
  return {
    instead: (rel) => {
      if (!held(rel)) return false;
      if (!kept(rel.slice(prefix.length))) return true;
      spared.add(rel);
      return false;
    },
    note: (rels) => {
      const said = [retiredNote(rels), keptNote([...spared].filter((rel) => path.posix.basename(rel) !== INDEX_FILE))].filter((n) => n !== null);
      return said.length > 0 ? said.join(' ') : null;
    },
  };
}

/** The sentence an undo adds for the team memories it left with the team instead of retiring them (retireInstead's `others`). */
function keptNote(rels: readonly string[]): string | null {
  if (rels.length === 0) return null;
  const one = rels.length === 1;
  return `${rels.join(', ')} ${one ? 'is' : 'are'} the team's: a folder ${one ? 'it was' : 'they were'} merged from or into syncs ${one ? 'it' : 'them'} with the same team, so ${one ? 'it is' : 'they are'} not retired (that would empty ${one ? 'it' : 'them'} for every teammate). Removed here, ${one ? 'it comes' : 'they come'} back with the next team sync, as into any folder of the team.`;
}

/** Whether `file` of `where` is a team memory the sync server holds: it leaves by Retire (the app offers it), not by a delete or a rename. */
export async function heldByServer(where: Where, file: string): Promise<boolean> {
  if (where.scope !== 'team') return false;
  return (await sharedKeysHeld(where.memoryDir, where.dataDir))(checkMemoryPath(file));
}

/** The sentence a merge or an undo adds for the team memories it retired instead of deleting. */
export function retiredNote(rels: readonly string[]): string | null {
  if (rels.length === 0) return null;
  const one = rels.length === 1;
  return `Retired ${rels.join(', ')} instead of deleting ${one ? 'it' : 'them'}: the sync server holds ${one ? 'it' : 'them'}, and a deleted team memory comes back with the next sync. ${one ? 'Its' : 'Their'} text is emptied and ${one ? 'its' : 'their'} index lines are gone; the next sync shares that with the team.`;
}

/** Refuse (MemoryError `scope-refused`, nothing written) a `change` of `file` that would take a team key the server holds away; private memories pass. */
export async function refuseChangingSharedKey(where: Where, file: string, change: SharedKeyChange): Promise<void> {
  if (where.scope !== 'team') return;
  const refusal = (await sharedKeyRefusals(where.memoryDir, where.dataDir))(checkMemoryPath(file), change);
  if (refusal) throw new MemoryError('scope-refused', refusal);
}

/**
 * Refuse (MemoryError `scope-refused`, nothing written) to retire a team memory the sync server
 * never held — the one Retire rule for every door (the app's Retire, bulk Retire, `memdir team
 * retire`; the app offers Retire only where {@link heldByServer}): deleting it is enough, since no
 * sync brings back what the server never had, and retiring it would push an empty file the team
 * could then never be rid of. A missing, odd or already empty file passes: retireMemory names that.
 */
export async function refuseRetiringUnshared(where: Where, file: string): Promise<void> {
  if (where.scope !== 'team') return;
  const key = checkMemoryPath(file);
  if ((await sharedKeysHeld(where.memoryDir, where.dataDir))(key)) return;
  const rel = inScope('team', key);
  const abs = await confineOrNull(where.memoryDir, rel).catch(() => null);
  const found = abs === null ? null : await fs.lstat(abs).catch(() => null);
  if (!found?.isFile() || found.size === 0) return;
  // A secret in its name is likely why it was never pushed: the sentence names it masked.
  const { masked } = await maskedName(rel);
  throw new MemoryError(
    'scope-refused',
    `${masked} was never shared with the team (the sync server does not hold it), so there is nothing to retire: deleting it is enough, and no sync brings it back. Delete it in the app, or remove ${path.join(where.memoryDir, masked)} and its lines in team/MEMORY.md and MEMORY.md. (Retiring it would share an empty file the team could never be rid of.)`,
  );
}
