/**
 * Move a memory between private (`memory/`) and team (`memory/team/`) — R-TYPES: a `user`
 * memory never goes to the team; the others may, `project` and `reference` being the ones
 * the team usually wants. The file moves byte for byte, its pointers follow it (title and hook
 * kept): MEMORY.md's is retargeted in place (a team memory is loaded only through `team/x.md` there),
 * team/MEMORY.md's line goes or comes. All in one `transact`: one history entry, undoable.
 *
 * A team memory the server already has cannot go back to private (shared-keys.ts, the one rule
 * for deleting, renaming and moving a shared key). One that was never pushed moves freely.
 */
import { addIndexEntry, indexEntries, removeIndexEntries, retargetIndexEntries, type IndexEntry, type ParsedIndex } from '../../shared/index-format.js';
import { loadIndexAsClaudeCode } from '../../shared/index-load.js';
import { indexReachOf, teamReachOf } from '../../shared/index-state.js';
import type { Finding } from '../../shared/secret-types.js';
import { type Scope, scopeRefusal } from '../../shared/memory-types.js';
import { processDataDir } from '../core/data-dir.js';
import { headRevision, readEntry, transact } from '../history/index.js';
import { checkFileName, inScope, MemoryError, parseTopicFile, pointerPlaces, readIndex, readText, refuseTakenName, writeIndex } from '../memdir/index.js';
import { maskedName, refuseNewSecrets } from '../secrets/index.js';
import { realpathDeepestExisting } from '../core/memory-lock.js';
import { removeFileConfined, writeFileAtomic } from '../core/safe-fs.js';
import { actingAs, ConnectionStore } from './connections.js';
import { AlertCenter } from './alert-center.js';
import { refuseChangingSharedKey } from './shared-keys.js';
import { checkTeamDir, resolveTeamKey } from './team-paths.js';

/** A memory dir as team sync keys it, and its allowed records: the connection's real path (one made later is the same real path). */
async function syncKeyOf(memoryDir: string, dataDir: string): Promise<{ key: string; who: string }> {
  const connection = await new ConnectionStore(dataDir).forMemoryDir(memoryDir);
  return { key: connection?.memoryDir ?? (await realpathDeepestExisting(memoryDir)), who: actingAs(connection) };
}

/**
 * Record secrets a person moved to the team on purpose in a memory's name as allowed for that
 * memory dir's sync, in that name and its pointer only, by them (one list: alert-center.ts), with
 * the history entry the move is made on: undoing the move withdraws them (withdrawMoveAllows).
 */
async function allowForSync(memoryDir: string, dataDir: string, findings: Finding[]): Promise<void> {
  const { key, who } = await syncKeyOf(memoryDir, dataDir);
  await new AlertCenter(dataDir).allowOnPurpose(key, findings, who, await headRevision(memoryDir, { dataDir }));
}

/**
 * Undoing history entry `rev` undoes a move to the team anyway it holds: the allows that move
 * recorded (made on the entry's parent, for a name among its files) are withdrawn with it, and
 * no other — not another move's of the same secret, not an alert's Allow. Undoing that undo moves
 * the memory again but does not allow again: the secret has not left this machine, and a person
 * who took the move back is asked once more (team sync holds the file, its alert offers Allow)
 * before it does. Call before the undo (`rev` may name HEAD); `withdraw` after it. Sentences for its notes.
 */
export async function moveAllowsOf(memoryDir: string, dataDir: string, rev: string): Promise<{ withdraw: () => Promise<string[]> }> {
  const none = { withdraw: async () => [] };
  const center = new AlertCenter(dataDir);
  // Most undos: no move anyway recorded anything to withdraw, and nothing more is read.
  const made = (await center.list()).allowed.filter((a) => a.madeOn !== undefined);
  if (made.length === 0) return none;
  const { key } = await syncKeyOf(memoryDir, dataDir);
  if (!made.some((a) => a.memoryDir === key)) return none;
  const entry = await readEntry(memoryDir, rev, { dataDir });
  if (entry.parent === null) return none;
  const names = new Set(
    await Promise.all(entry.files.flatMap((f) => (f.from ? [f.from, f.path] : [f.path])).map(async (rel) => (await maskedName(rel)).masked)),
  );
  return {
    withdraw: async () =>
      (await center.withdraw((a) => a.memoryDir === key && a.madeOn === entry.parent && names.has(a.file))).map(
        (a) => `Team sync asks again before sharing ${a.file}: the allow its move to the team anyway recorded is withdrawn with the move.`,
      ),
  };
}

/** Whether a loaded line of MEMORY.md (`main`, as read) links to the team memory `name` (`team/x.md`): the model has been sent that name. */
function namedByLoadedIndex(main: { parsed: ParsedIndex; text: string | null }, name: string): boolean {
  if (main.text === null) return false;
  return teamReachOf(indexReachOf(main.parsed, loadIndexAsClaudeCode(main.text))).loaded.includes(name);
}

export interface MoveResult {
  file: string;
  scope: Scope;
  rev: string | null;
}

/**
 * Move `file` into scope `to` (see the file comment). Its name becomes a pointer in the other
 * index: MEMORY.md, sent to the model in every session, or team/MEMORY.md, shared with the team.
 * One holding a secret new there is refused unless allowed (`allowSecrets`, see refuseNewSecrets). Allowed into the team, it is shared on purpose: the
 * choice is recorded where team sync reads what was allowed (alert-center.ts), so the next sync
 * uploads the file and its pointer rather than holding them back and asking again.
 */
export async function moveMemoryScope(opts: {
  memoryDir: string;
  dataDir?: string;
  file: string;
  to: Scope;
  allowSecrets?: readonly string[];
}): Promise<MoveResult> {
  const name = checkFileName(opts.file);
  const from: Scope = opts.to === 'team' ? 'private' : 'team';
  const fromRel = inScope(from, name);
  const toRel = inScope(opts.to, name);
  const summary = `Move ${name} to ${opts.to === 'team' ? 'the team memory' : 'the private memory'}`;
  const { entry } = await transact(opts.memoryDir, { source: 'manual', summary, ...(opts.dataDir ? { dataDir: opts.dataDir } : {}) }, async () => {
    // The team side is held to the team's rule: a valid key, no link on the way, inside team/.
    const team = await checkTeamDir(opts.memoryDir);
    await resolveTeamKey(team, name);
    const text = await readText(opts.memoryDir, fromRel);
    // MEMORY.md, read once (the secret check of a move to private, then its pointer): nothing below writes it before its pointer changes.
    let mainIndex: ReturnType<typeof readIndex> | undefined;
    const readMain = () => (mainIndex ??= readIndex({ memoryDir: opts.memoryDir, scope: 'private' }));
    if (text === null) throw new MemoryError('not-found', `${fromRel} does not exist.`);
    const parsed = parseTopicFile(text, name);
    const refusal = scopeRefusal(parsed.meta.type, opts.to);
    if (refusal) throw new MemoryError('scope-refused', refusal);
    if (opts.to === 'private')
      await refuseChangingSharedKey({ memoryDir: opts.memoryDir, scope: 'team', ...(opts.dataDir ? { dataDir: opts.dataDir } : {}) }, name, 'private');
    // Only the name is new to the other index: the text moves byte for byte, as it was. To the
    // team, the name is new to the server and teammates. Into MEMORY.md, it is new to the model
    // unless a loaded line of MEMORY.md named it already (`team/x.md`): Claude Code 2.1.332 sends
    // nothing of team/MEMORY.md (shared/index-state.ts).
    const sentAlready = opts.to === 'private' && namedByLoadedIndex(await readMain(), name);
    const allowed = await refuseNewSecrets({
      label: toRel,
      text: '',
      before: null,
      name,
      ...(sentAlready ? { nameBefore: name } : {}),
      allow: opts.allowSecrets,
    });
    await refuseTakenName(opts.memoryDir, toRel, 'rename one of them first.');
    if (allowed.length > 0) await allowForSync(opts.memoryDir, opts.dataDir ?? processDataDir(), allowed);
    await writeFileAtomic(opts.memoryDir, toRel, text);
    await removeFileConfined(opts.memoryDir, fromRel);

    // Its pointers follow it (pointerPlaces): MEMORY.md's is retargeted in place (x.md <-> team/x.md),
    // so it keeps its place before the cut; team/MEMORY.md's line goes with a move out, comes with a move in.
    const [mainFrom, ...ownFrom] = pointerPlaces({ memoryDir: opts.memoryDir, scope: from }, name);
    const [mainTo, ...ownTo] = pointerPlaces({ memoryDir: opts.memoryDir, scope: opts.to }, name);
    const read = (scope: Scope) => readIndex({ memoryDir: opts.memoryDir, scope });
    const write = (scope: Scope, before: string | null, after: ParsedIndex) => writeIndex({ memoryDir: opts.memoryDir, scope }, after, before);
    let pointer: IndexEntry | undefined;
    for (const place of ownFrom) {
      const index = await read(place.index.scope);
      const own = indexEntries(index.parsed).find((e) => e.file === place.file);
      pointer ??= own;
      if (index.text !== null && own) await write(place.index.scope, index.text, removeIndexEntries(index.parsed, place.file));
    }
    const main = await readMain();
    const mainPointer = indexEntries(main.parsed).find((e) => e.file === mainFrom!.file);
    const line = { title: (mainPointer ?? pointer)?.title ?? parsed.meta.name, hook: (mainPointer ?? pointer)?.hook ?? parsed.meta.description };
    if (mainPointer) await write('private', main.text, retargetIndexEntries(main.parsed, mainFrom!.file, mainTo!.file));
    else if (!indexEntries(main.parsed).some((e) => e.file === mainTo!.file))
      await write('private', main.text, addIndexEntry(main.parsed, { ...line, file: mainTo!.file }));
    for (const place of ownTo) {
      const index = await read(place.index.scope);
      if (!indexEntries(index.parsed).some((e) => e.file === place.file))
        await write(place.index.scope, index.text, addIndexEntry(index.parsed, { ...line, file: place.file }));
    }
  });
  return { file: name, scope: opts.to, rev: entry?.rev ?? null };
}
