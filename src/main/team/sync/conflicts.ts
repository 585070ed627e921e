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
import { readEntry, transact } from '../../history/index.js';
import { refuseNewSecrets } from '../../secrets/index.js';
import { sha256Hex } from '../hash-cache.js';
import { type TeamFile, checkTeamDir, resolveTeamKey } from '../team-paths.js';
import { mergeLines } from '../../../shared/line-merge.js';
import { type Cycle, type LocalInfo, type PulledEntry, type SyncEngine, TeamSyncError } from './engine.js';
import { shownKey } from './delta.js';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const lenientUtf8 = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/** Keep the local version of `key` as a conflict before the pull writes the server's (`rev`: the snapshot holding it). */
export async function keepConflict(e: SyncEngine, cycle: Cycle, file: TeamFile, local: LocalInfo, entry: PulledEntry, rev: string | null): Promise<void> {
  const key = file.key;
  const bytes = local.bytes ?? (await file.read())?.data ?? Buffer.alloc(0);
  // Read now when the hash came from the cache: the record describes exactly the bytes it keeps.
  const localSha = local.bytes ? local.sha : sha256Hex(bytes);
  const id = `${e
    .now()
    .toISOString()
    .replace(/[-:.TZ]/g, '')
    .slice(0, 14)}-${sha256Hex(`${key}\0${localSha}\0${entry.sha256}`).slice(0, 8)}`;
  if (e.state.conflicts.some((c) => c.id === id)) return;
  await e.stateFile.writeConflictBytes(id, bytes);
  let isText = true;
  try {
    strictUtf8.decode(bytes);
  } catch {
    isText = false;
  }
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
  const baseBytes = conflict.baseSha ? await e.bases.read(conflict.baseSha) : null;
  const mine = kept ? lenientUtf8.decode(kept) : '';
  const theirs = current ? lenientUtf8.decode(current.data) : '';
  const base = baseBytes ? lenientUtf8.decode(baseBytes) : null;
  // The same merge the pull made, on what is on disk now: what the app's editor and `team resolve --keep merged` start from.
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
    theirsSha: current ? sha256Hex(current.data) : null,
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
  let rev: string | null = null;
  if (take !== 'server') {
    let bytes: Buffer;
    if (take === 'mine') {
      const kept = await e.stateFile.readConflictBytes(conflict);
      if (!kept) throw new TeamSyncError('not-found', "The kept local version is missing from Memdir's data folder; restore it from history instead.");
      bytes = kept;
    } else if (take === 'both') {
      // The text the merge editor starts from (conflictDetail): one rule for "keep both".
      bytes = Buffer.from((await conflictDetail(e, id)).both, 'utf8');
    } else {
      if (opts.text === undefined) throw new TeamSyncError('invalid-input', 'A merge needs the merged text.');
      const problem = mergedTextProblem(named, opts.text);
      if (problem) throw new TeamSyncError('invalid-input', problem);
      // A merged text is written by a person: a secret neither side held is refused unless allowed.
      const detail = await conflictDetail(e, id);
      await refuseNewSecrets({ label: named, text: opts.text, before: [detail.mine, detail.theirs], allow: opts.allowSecrets });
      bytes = Buffer.from(opts.text, 'utf8');
    }
    const file = await resolveTeamKey(await checkTeamDir(e.memoryDir, e.space), conflict.key);
    const current = await file.read();
    const currentSha = current ? sha256Hex(current.data) : null;
    if (opts.theirsSha !== undefined && opts.theirsSha !== currentSha) {
      throw new TeamSyncError('conflict', `${named} changed since the conflict was opened; look at it again before choosing.`);
    }
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
 * The history entry `undone` was undone by the entry `by` (History's Undo, a toast's, `memdir
 * undo`): a conflict that entry resolved is open again — the file is back as the pull left it, the
 * kept version is still kept, the person chooses again; and one whose resolution an earlier Undo
 * took back (`undone` is that Undo: a Redo) is resolved again, as it was. `undone`: any form of the
 * entry's id `readEntry` takes. Whether any changed.
 */
export async function followUndoneResolution(e: SyncEngine, undone: string, by: string | null): Promise<boolean> {
  const follows = e.state.conflicts.some((c) => (c.status === 'resolved' && c.resolvedRev) || (c.status === 'open' && c.reopened));
  if (!follows) return false;
  // `undone` as a door names it (`memdir undo <project> 3cf96d2a1b`): the entry's full id, as the records keep it.
  undone = (await readEntry(e.memoryDir, undone, { dataDir: e.options.dataDir }).catch(() => null))?.rev ?? undone;
  let changed = false;
  for (const c of e.state.conflicts) {
    if (c.status === 'resolved' && c.resolvedRev === undone && c.resolution && (await e.stateFile.readConflictBytes(c))) {
      Object.assign(c, { status: 'open', reopened: by ? { rev: by, take: c.resolution } : null, resolution: null, resolvedAt: null, resolvedRev: null });
      changed = true;
    } else if (c.status === 'open' && c.reopened?.rev === undone) {
      Object.assign(c, { status: 'resolved', resolution: c.reopened.take, resolvedAt: e.now().toISOString(), resolvedRev: by, reopened: null });
      changed = true;
    }
  }
  if (changed) {
    e.dirty = true;
    await e.persist();
  }
  return changed;
}
