/**
 * Conflicts (R-SYNC, "Memdir adds"): when a pull would overwrite a local edit that was never
 * pushed, the local bytes are kept (in the data dir, and in the history entry the pull's
 * snapshot made) before the server's version is written. The user looks at both sides and
 * resolves: keep the server's, take mine, or a merged text — written (history entry `sync`)
 * and pushed based on the server version this client has seen, so a newer one on the server
 * makes it a conflict again, never a loss. A resolution is the user's own edit: it is written even
 * when the file's folder has since become one Claude Code syncs itself (only sync's own uploads
 * and pulls leave such a folder alone — team-paths.ts `claudeCodeStoreRefusal`), and the sync
 * after it then uploads nothing from there.
 */
import { mergedTextProblem } from '../../../shared/conflict-markers.js';
import type { ConflictDetail, ConflictResolution, TeamConflict } from '../../../shared/contract/team.js';
import { unionWithOverlaps } from '../../../shared/line-union.js';
import { strictUtf8 } from '../../../shared/utf8.js';
import { everyLaterChange, readEntry, transact } from '../../history/index.js';
import { refuseNewSecrets } from '../../secrets/index.js';
import { sha256Hex } from '../hash-cache.js';
import { type TeamFile, checkTeamDir, resolveTeamKey } from '../team-paths.js';
import { mergeLines } from '../../../shared/line-merge.js';
import { type Cycle, type LocalInfo, type PulledEntry, type SyncEngine, TeamSyncError } from './engine.js';
import { shownKey } from './delta.js';

const lenientUtf8 = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/** Keep the local version of `key` as a conflict before the pull writes the server's (`rev`: the snapshot holding it); the conflict's record. */
export async function keepConflict(
  e: SyncEngine,
  cycle: Cycle,
  file: TeamFile,
  local: LocalInfo,
  entry: PulledEntry,
  rev: string | null,
): Promise<TeamConflict> {
  const key = file.key;
  const bytes = local.bytes ?? (await file.read())?.data ?? Buffer.alloc(0);
  // Read now when the hash came from the cache: the record describes exactly the bytes it keeps.
  const localSha = local.bytes ? local.sha : sha256Hex(bytes);
  const id = `${e
    .now()
    .toISOString()
    .replace(/[-:.TZ]/g, '')
    .slice(0, 14)}-${sha256Hex(`${key}\0${localSha}\0${entry.sha256}`).slice(0, 8)}`;
  const known = e.state.conflicts.find((c) => c.id === id);
  if (known) return known;
  await e.stateFile.writeConflictBytes(id, bytes);
  const isText = strictUtf8(bytes) !== null;
  const conflict: TeamConflict = {
    id,
    key,
    createdAt: e.now().toISOString(),
    localSha,
    localBytes: bytes.byteLength,
    localIsText: isText,
    serverSha: entry.sha256,
    baseSha: e.base.get(key) ?? null,
    serverUpdatedBy: entry.updatedBy,
    serverUpdatedAt: entry.updatedAt,
    localRev: rev,
    status: 'open',
    resolution: null,
    resolvedAt: null,
  };
  e.state.conflicts.push(conflict);
  e.dirty = true;
  cycle.report.pull.conflicts.push(await shownKey(key));
  return conflict;
}

/**
 * A pull wrote `written` over `key` (null: the server's version as it is): an open conflict it just
 * kept (`kept`), or whose file held what a pull wrote for it (`before`, that partial merge not pushed
 * yet), records it — the file as the pull left it, which "keep the server's" accepts.
 */
export function pullWroteOver(e: SyncEngine, key: string, before: string | null, kept: TeamConflict | null, written: string | null): void {
  for (const c of e.state.conflicts) {
    if (c.status !== 'open' || c.key !== key || (c !== kept && (!c.writtenSha || c.writtenSha !== before))) continue;
    if (written) c.writtenSha = written;
    else delete c.writtenSha;
    e.dirty = true;
  }
}

/**
 * A conflict as it may be shown (the app, the CLI, a notification): each secret in its key masked,
 * as a waiting file's is (delta.ts `shownKey`). The record keeps the key; it is found again by its id.
 */
export async function shownConflict(conflict: TeamConflict): Promise<TeamConflict> {
  return { ...conflict, key: await shownKey(conflict.key) };
}

/** Both sides of a conflict, the base and the three-way proposal (call under the sync's lock). */
export async function conflictDetail(e: SyncEngine, id: string): Promise<ConflictDetail> {
  const conflict = e.state.conflicts.find((c) => c.id === id);
  if (!conflict) throw new TeamSyncError('not-found', 'There is no such conflict (it may have been resolved).');
  const kept = await e.stateFile.readConflictBytes(conflict);
  const current = await (await resolveTeamKey(await checkTeamDir(e.memoryDir, e.space), conflict.key)).read();
  const currentSha = current ? sha256Hex(current.data) : null;
  const baseBytes = conflict.baseSha ? await e.bases.read(conflict.baseSha) : null;
  const mine = kept ? lenientUtf8.decode(kept) : '';
  const { theirsFrom, theirsBytes } = await theirSide(e, conflict, current?.data ?? null, currentSha);
  const theirs = theirsBytes ? lenientUtf8.decode(theirsBytes) : '';
  const base = baseBytes ? lenientUtf8.decode(baseBytes) : null;
  // The same merge the pull made, on their side as shown (on disk, or the cached copy): what the app's editor and `team resolve --keep merged` start from.
  const merge =
    base === null
      ? null
      : mergeLines(base, mine, theirs, {
          mine: 'mine (kept here)',
          theirs: `${e.space.kind === 'team' ? 'team' : 'other machine'} (${conflict.serverUpdatedBy ?? 'server'})`,
        });
  // Keeping both: the three-way merge with both sides where they overlap; with no base, every line of both, common lines once.
  const union = merge ? null : unionWithOverlaps(mine, theirs);
  // Where mine is in History, as a person reads it there (the change and when), never a bare revision id.
  const keptIn = conflict.localRev ? await readEntry(e.memoryDir, conflict.localRev, { dataDir: e.options.dataDir }).catch(() => null) : null;
  return {
    conflict: await shownConflict(conflict),
    mine,
    theirs,
    theirsSha: currentSha,
    theirsFrom,
    base,
    proposal: merge?.text ?? null,
    both: merge?.both ?? union!.text,
    bothOverlaps: merge?.bothOverlaps ?? union!.overlaps,
    overlaps: merge?.conflicts ?? null,
    keptIn: keptIn ? { summary: keptIn.summary, time: keptIn.time } : null,
  };
}

/** Resolve a conflict (call under the sync's lock; the caller syncs afterwards unless `server`). */
export async function resolveConflict(
  e: SyncEngine,
  id: string,
  take: ConflictResolution,
  opts: { text?: string; theirsSha?: string | null; allowSecrets?: readonly string[] },
): Promise<{ conflict: TeamConflict; rev: string | null }> {
  const conflict = e.state.conflicts.find((c) => c.id === id);
  if (!conflict) throw new TeamSyncError('not-found', 'There is no such conflict (it may have been resolved).');
  if (conflict.status === 'resolved') throw new TeamSyncError('conflict', `This conflict was already resolved (${conflict.resolution}).`);
  // How every sentence and the history entry name the file: a secret in its name masked.
  const named = e.rel(await shownKey(conflict.key));
  let rev: string | null;
  if (take === 'server') rev = await keepServerSide(e, conflict, named, opts.theirsSha);
  else {
    let bytes: Buffer;
    if (take === 'mine') {
      const kept = await e.stateFile.readConflictBytes(conflict);
      if (!kept) throw new TeamSyncError('not-found', "The kept local version is missing from Memdir's data folder; restore it from history instead.");
      bytes = kept;
    } else if (take === 'both') {
      // The text the merge editor starts from (conflictDetail): one rule for "keep both".
      const detail = await conflictDetail(e, id);
      if (detail.theirsFrom === 'lost') throw theirsLost(e, named, take);
      bytes = Buffer.from(detail.both, 'utf8');
    } else {
      if (opts.text === undefined) throw new TeamSyncError('invalid-input', 'A merge needs the merged text.');
      const problem = mergedTextProblem(named, opts.text);
      if (problem) throw new TeamSyncError('invalid-input', problem);
      // A merged text is written by a person: a secret neither side held is refused unless allowed.
      const detail = await conflictDetail(e, id);
      if (detail.theirsFrom === 'lost') throw theirsLost(e, named, take);
      await refuseNewSecrets({ label: named, text: opts.text, before: [detail.mine, detail.theirs], allow: opts.allowSecrets });
      bytes = Buffer.from(opts.text, 'utf8');
    }
    const file = await resolveTeamKey(await checkTeamDir(e.memoryDir, e.space), conflict.key);
    const current = await file.read();
    const currentSha = current ? sha256Hex(current.data) : null;
    if (opts.theirsSha !== undefined && opts.theirsSha !== currentSha) throw changedSince(named);
    const sha = sha256Hex(bytes);
    const summary = `Resolve the conflict on ${named}: ${take === 'mine' ? 'took my version' : take === 'both' ? 'kept both versions' : 'merged both versions'}`;
    e.options.onWrite?.('before', [conflict.key]);
    const { entry } = await transact(e.memoryDir, { source: 'sync', summary, dataDir: e.options.dataDir }, () => e.write(file, bytes, sha));
    e.options.onWrite?.('after', [conflict.key]);
    rev = entry?.rev ?? null;
    // The server's version is seen and chosen against: what is on disk is an edit on top of it.
    const seen = e.server.get(conflict.key) ?? conflict.serverSha;
    e.setBase(conflict.key, seen);
  }
  Object.assign(conflict, { status: 'resolved', resolution: take, resolvedAt: e.now().toISOString(), resolvedRev: rev, reopened: null });
  e.dirty = true;
  await e.persist();
  return { conflict: await shownConflict(conflict), rev };
}

/**
 * The server's version the conflict was kept against (`serverSha`, moved forward when a newer one is
 * written over your side: keptSideOverwritten), its bytes from the sync's cache (bases/): null when
 * the cache lost them or they no longer match. Not the server's version now: after your own push
 * (take mine, then its Undo) that is yours.
 */
async function seenServerVersion(e: SyncEngine, conflict: TeamConflict): Promise<{ sha: string; bytes: Buffer } | null> {
  const bytes = await e.bases.read(conflict.serverSha);
  return bytes && sha256Hex(bytes) === conflict.serverSha ? { sha: conflict.serverSha, bytes } : null;
}

/**
 * The other side of a conflict as shown and merged, and where it came from: the file (`disk`); or,
 * with yours on disk (the Undo of "keep the server's" put it back), the sync's copy of the version
 * the conflict was kept against (`last-synced`) — `lost` when that copy is gone, the file (yours)
 * standing in for it, and keeping both or a merge refused (theirsLost).
 */
async function theirSide(
  e: SyncEngine,
  conflict: TeamConflict,
  current: Buffer | null,
  currentSha: string | null,
): Promise<{ theirsFrom: 'disk' | 'last-synced' | 'lost'; theirsBytes: Buffer | null }> {
  if (currentSha === null || currentSha !== conflict.localSha || currentSha === conflict.serverSha) return { theirsFrom: 'disk', theirsBytes: current };
  const server = await seenServerVersion(e, conflict);
  return server ? { theirsFrom: 'last-synced', theirsBytes: server.bytes } : { theirsFrom: 'lost', theirsBytes: current };
}

/** The one refusal of a choice that needs the server's side when Memdir lost its copy of it and yours is on disk. */
function theirsLost(e: SyncEngine, named: string, take: ConflictResolution): TeamSyncError {
  const side = e.space.kind === 'team' ? "the team's version" : "the other machine's version";
  const would = take === 'server' ? 'keeping it would leave yours on disk' : `keeping both or a merge would hold yours only`;
  return new TeamSyncError(
    'conflict',
    `Memdir no longer has ${side} of ${named} here (its saved copy is gone), so ${would}: nothing was changed and the conflict stays open. Sync first (it fetches ${side} again), then choose again.`,
  );
}

/** The one refusal of a choice made on a file that changed since the conflict was shown. */
function changedSince(named: string): TeamSyncError {
  return new TeamSyncError('conflict', `${named} changed since the conflict was opened; look at it again before choosing.`);
}

/**
 * Keeping the server's side is one history entry too, as every resolution is: the kept local side
 * is recorded just before it (history `replaces`; the pull wrote the server's over it on disk), so
 * the entry goes from the user's version to the team's and its Undo puts the user's back byte for
 * byte (the conflict open again, followTakenBack). The file on disk is not written. Null (no entry)
 * when the kept side is missing or the file is the user's version already.
 */
async function keepServerSide(e: SyncEngine, conflict: TeamConflict, named: string, theirsSha: string | null | undefined): Promise<string | null> {
  const kept = await e.stateFile.readConflictBytes(conflict);
  const rel = e.rel(conflict.key);
  const side = e.space.kind === 'team' ? "the team's version" : "the other machine's version";
  const file = await resolveTeamKey(await checkTeamDir(e.memoryDir, e.space), conflict.key);
  // The user's side on disk again (an Undo of this choice took it back): the server's version goes back there.
  const seen = e.server.get(conflict.key) ?? conflict.serverSha;
  const current = await file.read();
  const currentSha = current ? sha256Hex(current.data) : null;
  // The pull's partial merge (the server's with your changes that overlap nothing), not pushed yet.
  const holdsMerge = !!conflict.writtenSha && currentSha === conflict.writtenSha && currentSha !== seen;
  // Edited (or deleted) since it was shown: neither side is on disk, and "the team's version stays" would be untrue.
  if (
    (theirsSha !== undefined && theirsSha !== currentSha) ||
    (currentSha !== conflict.localSha && currentSha !== seen && currentSha !== conflict.serverSha && !holdsMerge)
  ) {
    throw changedSince(named);
  }
  const holdsMine = currentSha === conflict.localSha;
  // Yours on disk and its kept copy (conflicts/<id>) gone: resolving would leave yours for the next
  // sync to push over the team's, and writing the team's would leave no copy of yours.
  if (holdsMine && !kept) {
    throw new TeamSyncError(
      'conflict',
      `Memdir's saved copy of your version of ${named} is gone and yours is the file on disk, so keeping ${side} would leave no copy of yours: nothing was changed and the conflict stays open. Merge the two by hand instead.`,
    );
  }
  if (!kept) return null;
  // The server's version goes on disk over either (the partial merge left as it was when its bytes are lost: yours are kept in the entry).
  const serverBytes = holdsMine || holdsMerge ? ((await seenServerVersion(e, conflict))?.bytes ?? null) : null;
  // Never resolved with the user's side on disk (the next sync would push it): the server's bytes
  // are a cache entry (bases/) that can be lost; without them nothing changes.
  if (holdsMine && !serverBytes) throw theirsLost(e, named, 'server');
  if (serverBytes) e.options.onWrite?.('before', [conflict.key]);
  const { entry } = await transact(
    e.memoryDir,
    {
      source: 'sync',
      summary: `Resolve the conflict on ${named}: kept ${side}`,
      dataDir: e.options.dataDir,
      replaces: [
        {
          path: rel,
          content: kept,
          // Not an edit of yours now, and its own Undo is not the way back: the resolution's is.
          summary: `Your version of ${named}, as the sync conflict kept it (recorded when you kept ${side}; undo that entry to get yours back)`,
        },
      ],
    },
    async () => {
      if (serverBytes) await e.write(file, serverBytes, seen);
    },
  );
  if (serverBytes) {
    e.options.onWrite?.('after', [conflict.key]);
    e.setBase(conflict.key, seen);
  }
  return entry?.rev ?? null;
}

/**
 * What took a change back: History's Undo of the entry `undone` (a toast's, `memdir undo`), or a
 * restore to how things were at `restoredTo` (History's "Restore this version", `memdir restore`:
 * the whole folder or one file). Each rev in any form `readEntry` takes (`3cf96d2a1b`, `3cf96d2~1`).
 */
export type TakenBack = { undone: string } | { restoredTo: string };

/**
 * The one rule for a conflict whose resolution was taken back (the app's engines and the CLI run
 * it), with `by` the entry the Undo or restore wrote: a conflict it took the resolution of is open
 * again — the file is back as the pull left it (or as it was then), the kept version is still kept,
 * the person chooses again. An Undo takes back the resolution whose entry it undid; a restore, every
 * resolution written after the point it restored to, on a file it wrote. One whose resolution an
 * earlier Undo or restore took back (`undone` is that one's entry: a Redo) is resolved again, as it
 * was. A sentence for each conflict it changed (none: nothing changed), for the notes of the Undo or restore.
 */
export async function followTakenBack(e: SyncEngine, taken: TakenBack, by: string | null): Promise<string[]> {
  const follows = e.state.conflicts.some((c) => (c.status === 'resolved' && c.resolvedRev) || (c.status === 'open' && c.reopened));
  if (!follows) return [];
  // `undone` as a door names it (`memdir undo <project> 3cf96d2a1b`): the entry's full id, as the records keep it.
  const undone =
    'undone' in taken ? ((await readEntry(e.memoryDir, taken.undone, { dataDir: e.options.dataDir }).catch(() => null))?.rev ?? taken.undone) : null;
  const takesBack = 'restoredTo' in taken ? await restoredResolutions(e, taken.restoredTo, by) : (c: TeamConflict) => c.resolvedRev === undone;
  const notes: string[] = [];
  const sync = e.space.kind === 'team' ? 'team sync' : 'personal sync';
  for (const c of e.state.conflicts) {
    if (c.status === 'resolved' && c.resolvedRev && c.resolution && takesBack(c) && (await e.stateFile.readConflictBytes(c))) {
      Object.assign(c, { status: 'open', reopened: by ? { rev: by, take: c.resolution } : null, resolution: null, resolvedAt: null, resolvedRev: null });
      notes.push(`The ${sync} conflict on ${e.rel(await shownKey(c.key))} is open again: your version is still kept, to choose again.`);
    } else if (undone && c.status === 'open' && c.reopened?.rev === undone) {
      Object.assign(c, { status: 'resolved', resolution: c.reopened.take, resolvedAt: e.now().toISOString(), resolvedRev: by, reopened: null });
      notes.push(`The ${sync} conflict on ${e.rel(await shownKey(c.key))} is resolved again, as you had (${RESOLVED_AS[c.resolution!]}).`);
    }
  }
  if (notes.length > 0) {
    e.dirty = true;
    await e.persist();
  }
  return notes;
}

/** A resolution as the notes say it, in the words of its history entry (`server` too: its entry's Undo reopens it). */
const RESOLVED_AS: Record<ConflictResolution, string> = {
  server: 'kept the synced version',
  mine: 'took your version',
  both: 'kept both versions',
  merge: 'merged both versions',
};

/** Which resolved conflicts a restore to `restoredTo` (its entry `by`) took the resolution of (see followTakenBack). */
async function restoredResolutions(e: SyncEngine, restoredTo: string, by: string | null): Promise<(c: TeamConflict) => boolean> {
  const history = { dataDir: e.options.dataDir };
  // A restore that wrote nothing took nothing back; one that did, only on the files it wrote.
  const wrote = by ? ((await readEntry(e.memoryDir, by, history).catch(() => null))?.files ?? []) : [];
  const after = new Map<string, Set<string>>();
  for (const c of e.state.conflicts) {
    const rel = e.rel(c.key);
    if (c.status !== 'resolved' || !c.resolvedRev || after.has(rel) || !wrote.some((f) => f.path === rel)) continue;
    const later = await everyLaterChange(e.memoryDir, restoredTo, rel, history).catch(() => []);
    after.set(rel, new Set(later.map((l) => l.entry.rev)));
  }
  return (c) => !!c.resolvedRev && (after.get(e.rel(c.key))?.has(c.resolvedRev) ?? false);
}

/**
 * Whether `sha` (a file of `key` now) is exactly the version the team had when an open conflict on
 * it was kept: the file as the pull left it, no edit of this machine's. After an Undo or a restore
 * opened a resolved conflict again, the server holds the resolution and this file the team's
 * earlier bytes: neither a change to push (it would put the team's own text up again over the
 * resolution) nor one a newer pull must keep as a conflict — the person's choice is still to come.
 */
export function holdsPulledVersion(e: SyncEngine, key: string, sha: string): boolean {
  return e.state.conflicts.some((c) => c.status === 'open' && c.key === key && c.serverSha === sha);
}

/**
 * A pull wrote the server's newer version over the local side an open conflict keeps (back on disk
 * after the Undo of "keep the server's"): the conflict is now against that version — "keep the
 * server's" keeps it, the app shows it — and the sync reports the conflict again, as a pull that
 * keeps one does: the newer version on disk, yours kept.
 */
export async function keptSideOverwritten(e: SyncEngine, cycle: Cycle, key: string, localSha: string, entry: PulledEntry): Promise<void> {
  for (const c of e.state.conflicts) {
    if (c.status !== 'open' || c.key !== key || c.localSha !== localSha) continue;
    Object.assign(c, { serverSha: entry.sha256, serverUpdatedBy: entry.updatedBy, serverUpdatedAt: entry.updatedAt });
    e.dirty = true;
  }
  const shown = await shownKey(key);
  if (!cycle.report.pull.conflicts.includes(shown)) cycle.report.pull.conflicts.push(shown);
}

/**
 * Whether `sha` (a file of `key` now) is exactly the local version an open conflict on it keeps:
 * after the Undo of "keep the server's" put the user's side back, the conflict is open again and
 * the choice still to come — not an edit to push over the team's version (choose "mine" for that).
 */
export function holdsKeptVersion(e: SyncEngine, key: string, sha: string): boolean {
  return e.state.conflicts.some((c) => c.status === 'open' && c.key === key && c.localSha === sha);
}

/**
 * Whether Memdir lost its copy (bases/, a cache) of the server's side of an open conflict the
 * server still holds: "keep the server's" needs those bytes when your side is on disk (after its
 * Undo), so the sync asks for a full answer once and the pull keeps them again (pull.ts).
 */
export async function keptServerSideLost(e: SyncEngine): Promise<boolean> {
  for (const c of e.state.conflicts) {
    if (c.status === 'open' && e.server.get(c.key) === c.serverSha && (await e.bases.read(c.serverSha)) === null) return true;
  }
  return false;
}
