/**
 * Pull (R-SYNC): `GET entries` with If-None-Match (304: nothing to do, no body) and `?since=`
 * (only what changed). Server wins per key; for each key, with L the local hash, S the server's
 * and B the base (what both last agreed on, sync-state.ts):
 *   L = S                → in step;
 *   S = B, L ≠ B         → only the local file changed: it waits for the push;
 *   L missing or L = B   → write S (a locally deleted file comes back: deletions never propagate);
 *   otherwise            → both changed since B: merged line by line (merge.ts) when both are
 *                          text and B's content is known — the merge is written (history: a
 *                          merge with both parents) and pushed; where the changes overlap, the
 *                          local bytes are kept as a conflict (conflicts.ts), then S is written.
 *                          Nothing is lost.
 * A pull decides and writes key by key, and checks the file is still the one it decided on
 * (inode, mtime, ctime, size) right before writing it: a file saved meanwhile is decided again,
 * so an editor's save during a pull becomes a conflict, never a silent overwrite.
 * Anything a server sends is refused key by key when wrong (hostile key, checksum that does not
 * match the content, oversized entry, text that is not text) and alerted, never written; an
 * entry refused for its content is remembered with its hash (sync-state.ts `refused`), so it is
 * not fetched again by every later sync.
 */
import type { TeamConflict } from '../../../shared/contract/team.js';
import { foldPathKey } from '../../../shared/path-key.js';
import { parseEtag } from '../../../shared/protocol/sync.js';
import { strictUtf8, utf8Length } from '../../../shared/utf8.js';
import { withReason } from '../../../shared/failure-words.js';
import { isDiskRefusal } from '../../core/fs-errors.js';
import { changeWasTakenBack, listHistory, transact } from '../../history/index.js';
import { takenNameRefusal } from '../../memdir/index.js';
import { maskedForShowing } from '../../secrets/index.js';
import { sameFacts, sha256Hex } from '../hash-cache.js';
import type { Conditional, PulledEntries } from '../team-client.js';
import { type TeamFile, TeamPathError, checkKey, claudeCodeStoreRefusal, resolveTeamKey } from '../team-paths.js';
import { holdsKeptVersion, holdsPulledVersion, keepConflict, keptSideOverwritten, pullWroteOver } from './conflicts.js';
import { shownKey } from './delta.js';
import { type LineMerge, mergeLines } from '../../../shared/line-merge.js';
import { type Cycle, type LocalInfo, type PulledEntry, type SyncEngine, TeamSyncError } from './engine.js';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a pulled entry's content must not be written, or null when it may. */
function contentProblem(e: SyncEngine, key: string, entry: PulledEntry): { reason: string; security: boolean } | null {
  if (typeof entry.content !== 'string' || entry.content.includes('\0') || LONE_SURROGATE.test(entry.content)) {
    return { reason: `Refused ${key}: its content is not text (null byte or broken Unicode).`, security: false };
  }
  if (utf8Length(entry.content) > e.maxEntryBytes) {
    return { reason: `Refused ${key}: ${utf8Length(entry.content)} bytes, more than the ${e.maxEntryBytes} a ${e.space.noun} file may hold.`, security: false };
  }
  if (sha256Hex(entry.content) !== entry.sha256) {
    return { reason: `Refused ${key}: the server's checksum does not match the content it sent (corrupted, or not an honest server).`, security: true };
  }
  return null;
}

/** What the pull should do with one key, given the local hash now. */
function decide(e: SyncEngine, key: string, local: string | null, server: string): 'same' | 'keep-local' | 'write' | 'conflict' {
  const base = e.base.get(key);
  if (local === server) return 'same';
  if (local !== null && server === base) return 'keep-local';
  // A conflict opened again (an Undo, a restore) left the team's earlier bytes, or the local side it
  // keeps (the Undo of "keep the server's"): neither is an edit to merge or push. The newer version
  // goes over them; the local side stays kept in the conflict (and History), still to choose.
  if (local === null || local === base || holdsPulledVersion(e, key, local) || holdsKeptVersion(e, key, local)) return 'write';
  return 'conflict';
}

/**
 * The server went back to an older version than this client has seen (`stale`: a backup
 * restored, a replica behind), and said so twice. What it lost must not be taken back from the
 * files here: for each key whose version on the server is not the one this client knew,
 *   - when this client had taken the team state at that version or later and still holds the
 *     server's content as a base it had, the server's version is older than the one agreed here,
 *     so the local file is built on it: it becomes the base, and a local file that differs is
 *     pushed again (a key the server lost altogether is forgotten by the full answer, so its file
 *     goes up as new);
 *   - otherwise it may be older or newer (others wrote it in between — a restored server numbers
 *     its versions anew, so a number this client passed can name content written since): its
 *     base is forgotten, so a local file that differs is kept as a conflict, never overwritten or
 *     merged over.
 * Then the answer's version is the newest there is; the rest of the pull is as ever.
 */
async function rebase(
  e: SyncEngine,
  cycle: Cycle,
  etag: string,
  stale: { told: number; known: number } | null,
  accepted: Map<string, PulledEntry>,
): Promise<void> {
  const mine = e.state.etag ? parseEtag(e.state.etag) : null;
  const told = parseEtag(etag)!;
  const lostOnly = mine !== null && mine.epoch === told.epoch && mine.version >= told.version;
  let unsure = !lostOnly;
  for (const [key, entry] of accepted) {
    // A key whose content was refused earlier was never taken here: the local file is not built on anything the server held.
    if (e.server.get(key) === entry.sha256 || e.refused.has(key)) continue;
    // Only content this client itself held: a version number it passed may, after the restore,
    // name content someone wrote since (the server numbers anew), which must not be pushed over.
    if (lostOnly && (await e.bases.read(entry.sha256)) !== null) {
      e.setBase(key, entry.sha256);
      e.bases.save(entry.sha256, entry.content);
    } else {
      e.setBase(key, undefined);
      unsure = true;
    }
  }
  e.wentBackTo(etag);
  // Files in step with the old maps are not in step any more: the push lists them again.
  cycle.relist = true;
  // Without a lower number (`stale` null): others' pushes numbered the restored server up to (or past) the version seen here.
  const which = stale
    ? `(version ${stale.told}; this client had seen ${stale.known})`
    : `(it no longer holds what this client uploaded, though its version number, ${told.version}, is not lower)`;
  const sentence = `The sync server went back to an older version of the ${e.space.noun} ${which}, as after a restored backup: what it lost is uploaded again from here${unsure ? ', or kept as a conflict where someone else changed it since' : ''}.`;
  cycle.report.pull.wentBack = sentence;
  await e.raise(e.topic('went-back'), { kind: 'sync', title: `The ${e.space.noun} server went back to an older version`, message: sentence });
}

/**
 * Pull: `conditional` (If-None-Match + since), `full` (everything, to restore deleted files)
 * or `delta` (since, after a 412: we know something moved). Returns whether files were written.
 */
export async function pull(e: SyncEngine, cycle: Cycle, mode: 'conditional' | 'full' | 'delta', sent?: Promise<Conditional<PulledEntries>>): Promise<boolean> {
  const etag = e.state.etag;
  const answer = await (sent ??
    e.client.entries({ ifNoneMatch: mode === 'conditional' ? etag : null, since: mode === 'full' ? null : etag, signal: cycle.signal }));
  const at = e.now().toISOString();
  e.lastCheckAt = at;
  if (answer.status === 304) {
    cycle.report.pull.status ??= 304;
    notePulled(e, at);
    return false;
  }
  const body = answer.body;
  // Never backwards on a replay: an answer older than a version this client has already seen is
  // checked on another route (a network replays an answer to the same request). The server there
  // at a version already seen: it was a replay, the pull asks afresh. Older there too: the server
  // itself went back (a backup restored, a replica behind), and a full answer at that very
  // version is taken — what the server lost goes up again (rebase below).
  const stale = e.isStale(answer.etag);
  if (stale && cycle.serverAt === undefined) {
    const sums = await e.client.checksums({ signal: cycle.signal });
    cycle.serverAt = sums.status === 200 && e.isStale(sums.etag) ? sums.etag : null;
    return pull(e, cycle, 'full');
  }
  if (stale && (!body.full || cycle.serverAt !== answer.etag))
    throw new TeamSyncError(
      'network',
      `The sync server's answer was older than a version this client has already seen (version ${stale.told} < ${stale.known}: a replayed or reordered answer), and asking again did not settle it; it was ignored, and the next sync asks again.`,
    );
  cycle.report.pull.status = 200;
  cycle.report.pull.full ||= body.full;

  // Check every entry before anything is written.
  const accepted = new Map<string, PulledEntry>();
  // Entries the client already took out (personal sync: not decryptable with this machine's key).
  const refused: { key: string; reason: string; security: boolean }[] = [...(body.refused ?? [])];
  const folds = new Set<string>();
  for (const [key, entry] of Object.entries(body.entries)) {
    const check = checkKey(key);
    if (!check.ok) {
      refused.push({ key: key.slice(0, 120), reason: check.reason, security: true });
      continue;
    }
    const fold = foldPathKey(key);
    if (folds.has(fold)) {
      refused.push({ key, reason: `Refused ${key}: another key differs from it only in letter case.`, security: true });
      continue;
    }
    folds.add(fold);
    const problem = contentProblem(e, key, entry);
    if (problem) {
      refused.push({ key, ...problem });
      // The server holds a version this client did not take: a local file is not pushed over
      // it (server ≠ base), and it is not fetched again until the server's hash changes.
      e.setServer(key, entry.sha256);
      e.setIn(e.refused, key, entry.sha256);
      continue;
    }
    accepted.set(key, entry);
  }
  // The server lost what this client pushed at a version number it had reached again (verifyPushed).
  const lost = body.full && cycle.lostAt !== undefined;
  if (lost) delete cycle.lostAt;
  if (stale || lost) await rebase(e, cycle, answer.etag, stale, accepted);

  if (body.full) {
    // The server's whole state: keys it no longer has (a re-created database) are forgotten,
    // so the local files are pushed again rather than waiting for a pull that never comes.
    for (const map of [e.server, e.base, e.refused]) for (const key of [...map.keys()]) if (!Object.hasOwn(body.entries, key)) e.setIn(map, key, undefined);
  }
  for (const [key, entry] of accepted) {
    e.setServer(key, entry.sha256);
    e.setIn(e.refused, key, undefined);
  }

  // Decide each key, writing nothing yet. Each key is resolved here once; the write uses the same handle.
  const plan = new Map<string, TeamFile>();
  // A key not here by its name may be here in another Unicode form, which a name that is not a valid key (NFC) is:
  // only then is each new key's folder listed (a first pull of thousands of keys would list it as often).
  const twinsPossible = cycle.listing.problems.some((p) => p.reason === 'invalid-key');
  for (const [key, entry] of accepted) {
    let file: TeamFile;
    let local: LocalInfo | null;
    try {
      file = await resolveTeamKey(cycle.team, key);
      const store = claudeCodeStoreRefusal(cycle.team, key);
      if (store) throw store;
      local = await e.localInfo(file);
    } catch (error) {
      if (!(error instanceof TeamPathError)) throw error;
      refused.push({ key, reason: error.message, security: error.reason === 'symlink' || error.reason === 'outside' || error.reason === 'hardlink' });
      continue;
    }
    const action = decide(e, key, local?.sha ?? null, entry.sha256);
    if (action === 'same') {
      e.setBase(key, entry.sha256);
      e.bases.save(entry.sha256, entry.content);
    } else if (action === 'keep-local' && local && holdsKeptVersion(e, key, local.sha)) {
      // Your side of an open conflict on disk (the Undo of "keep the server's"): the server's bytes are what that choice writes.
      e.bases.save(entry.sha256, entry.content);
    } else if (action === 'write' || action === 'conflict') {
      if (e.failedWrites.get(key) === entry.sha256) continue;
      const taken = local === null && twinsPossible ? await takenNameRefusal(e.memoryDir, file.rel, twinAdvice(e)) : null;
      if (taken !== null) {
        refused.push({ key, reason: taken, security: false });
        continue;
      }
      plan.set(key, file);
    }
  }

  if (refused.length > 0) {
    const said = await Promise.all(refused.map(({ key, reason }) => shownRefusal(key, reason)));
    cycle.report.pull.refused.push(...said);
    const security = refused.filter((r) => r.security);
    const shown = said
      .slice(0, 8)
      .map((r) => r.reason)
      .join(' ');
    await e.raise(e.topic('pull'), {
      kind: security.length > 0 ? 'security' : 'sync',
      title: security.length > 0 ? 'The sync server sent entries Memdir refused' : `Some ${e.space.noun} entries were not written`,
      message: `${refused.length} entr${refused.length === 1 ? 'y was' : 'ies were'} not written (nothing outside the synced folder was touched). ${shown}${refused.length > 8 ? ' …' : ''}`,
    });
  }

  let wrote = false;
  if (plan.size > 0) wrote = await apply(e, cycle, plan, accepted);
  e.setEtag(answer.etag);
  cycle.report.version = body.version;
  notePulled(e, at);
  return wrote;
}

/**
 * Whether the server lost what this client pushed, though its version number says nothing of it
 * (review x3 F0): a server restored from a backup and then pushed to by others numbers its
 * versions anew, so the version this client pulled last can name other content, and a pull
 * answers 304 (or a delta) as if all were in step. While keys pushed here have not been seen held
 * by the server, its checksums are asked for after a conditional pull: at the version this client
 * holds, a pushed key that the server lacks or holds at another hash than the one known here means
 * it went back — `cycle.lostAt` is set and true is returned (the caller pulls in full, and the
 * went-back path uploads again what was lost). The same map: the server holds what was pushed (or
 * what a pull since brought in its place), and nothing is asked again until the next push. At
 * another version (someone pushed meanwhile), it is asked again at the next sync.
 * Only the team space (personal sync's client has no checksums; a restored personal space is left
 * as before). A restore after this check passed, followed by pushes of others, still goes unseen.
 */
export async function verifyPushed(e: SyncEngine, cycle: Cycle): Promise<boolean> {
  const pushed = Object.entries(e.state.pushed);
  if (pushed.length === 0) return false;
  if (e.space.kind !== 'team') {
    e.state.pushed = {};
    e.dirty = true;
    return false;
  }
  const held = e.state.etag ? parseEtag(e.state.etag) : null;
  if (!held) return false;
  const sums = await e.client.checksums({ signal: cycle.signal });
  if (sums.status !== 200) return false;
  const at = parseEtag(sums.etag);
  if (!at || at.epoch !== held.epoch || at.version !== held.version) return false;
  if (pushed.some(([key]) => sums.body.checksums[key] !== e.server.get(key))) {
    cycle.lostAt = sums.etag;
    return true;
  }
  e.state.pushed = {};
  e.dirty = true;
  return false;
}

/**
 * A key the pull did not write, as it may be shown (the report, the alert): each secret in the
 * key's name masked wherever the reason names it, as a conflict's key is (delta.ts `shownKey`),
 * and any other secret in the reason too (a server's words, a link's target).
 */
async function shownRefusal(key: string, reason: string): Promise<{ key: string; reason: string }> {
  const shown = await maskedForShowing(key, [reason]);
  return { key: shown.name, reason: shown.texts[0]! };
}

/** The last pull is the last answer the server gave one, new entries or none (304): what `team status` calls "last pull". */
function notePulled(e: SyncEngine, at: string): void {
  if (e.state.lastPullAt === at) return;
  e.state.lastPullAt = at;
  e.dirty = true;
}

/**
 * What a key that is new here, refused because a file here holds its name in another Unicode form
 * (NFD `cafe\u0301.md` for the key `caf\u00e9.md`), tells the person. Written beside it, the two would
 * look the same everywhere a person reads them; written into it, the server's version would replace
 * a file that cannot sync (its name is not a key) with no base to merge on. Left alone, the key
 * stays missing here, so every sync pulls it again until that file is renamed — then its text is
 * the local side of an ordinary conflict, and both versions are kept.
 */
function twinAdvice(e: SyncEngine): string {
  return `the version from ${e.space.kind === 'team' ? `team ${e.connection.team}` : 'your personal space'} was not written beside it. Rename it in Memdir (even to the name it shows: Memdir writes names in the form sync uses) and sync again; both versions are then kept.`;
}

/** Write the planned keys, as one history entry (conflicts kept before their key is overwritten). */
async function apply(e: SyncEngine, cycle: Cycle, plan: Map<string, TeamFile>, accepted: Map<string, PulledEntry>): Promise<boolean> {
  const keys = [...plan.keys()];
  const from = e.space.kind === 'team' ? `team ${e.connection.team}` : 'your personal space';
  const summary = `Pull from ${from}: ${keys.length} file${keys.length === 1 ? '' : 's'}`;
  e.options.onWrite?.('before', keys);
  const written: string[] = [];
  const merges: Merge[] = [];
  // A merge makes this entry a merge commit: its second parent holds the server's versions of the merged files.
  const theirs = () => merges.map((m) => ({ path: m.rel, content: m.theirs, from: `Versions on ${from}` }));
  // What was agreed before, for a pull the disk refused: its files are put back, so are these.
  const agreed = new Map(keys.map((key) => [key, e.base.get(key)]));
  try {
    await transact(
      e.memoryDir,
      { source: 'sync', summary, body: `Server: ${e.connection.server}\nKeys: ${keys.join(', ')}`, dataDir: e.options.dataDir, theirs },
      async () => {
        // The snapshot transact just took holds every local version: conflicts point at it.
        let rev: Promise<string | null> | undefined;
        const snapshotRev = (): Promise<string | null> =>
          (rev ??= listHistory(e.memoryDir, { dataDir: e.options.dataDir, limit: 1 }).then(
            ([head]) => head?.rev ?? null,
            () => null,
          ));
        for (const [key, file] of plan) {
          if (cycle.signal?.aborted) throw new TeamSyncError('cancelled', 'The sync was cancelled.');
          if (await applyKey(e, cycle, file, accepted.get(key)!, snapshotRev, merges)) written.push(key);
        }
      },
    );
  } catch (error) {
    // Taken back whole (the disk is full): nothing was written, and the server's versions are not
    // held here — else the old text left on disk would pass for a local edit and be pushed over them.
    if (changeWasTakenBack(error)) for (const key of written.splice(0)) e.setBase(key, agreed.get(key));
    throw error;
  } finally {
    // Named as they may be shown, as conflicts are: a secret in a key masked.
    for (const key of written) cycle.report.pull.written.push(await shownKey(key));
    if (written.length > 0) cycle.relist = true;
    e.options.onWrite?.('after', written);
  }
  return written.length > 0;
}

/**
 * Decide one key on its hash now and write it — unless the file changed between the decision
 * and the write (an editor saved it): then it is decided again, so a save is kept as a
 * conflict, never overwritten unseen. Whether it was written.
 */
async function applyKey(
  e: SyncEngine,
  cycle: Cycle,
  file: TeamFile,
  entry: PulledEntry,
  snapshotRev: () => Promise<string | null>,
  merges: Merge[],
): Promise<boolean> {
  const key = file.key;
  for (let look = 0; look < 3; look++) {
    let local: LocalInfo | null;
    try {
      local = await e.localInfo(file);
    } catch (error) {
      if (!(error instanceof TeamPathError)) throw error;
      cycle.report.pull.refused.push(await shownRefusal(key, error.message));
      return false;
    }
    const action = decide(e, key, local?.sha ?? null, entry.sha256);
    if (action === 'same') e.setBase(key, entry.sha256);
    if (action === 'same' || action === 'keep-local') return false;
    let content = entry.content;
    let sha = entry.sha256;
    let merged = false;
    let kept: TeamConflict | null = null;
    if (action === 'conflict') {
      const merge = await mergeWithServer(e, file, local!, entry);
      if (!merge?.clean) {
        kept = await keepConflict(e, cycle, file, local!, entry, await snapshotRev());
        // The conflict is on record before anything is overwritten.
        await e.persist();
      }
      // Clean: the merge. Overlapping somewhere: the server's version with the local changes
      // that overlap nothing (only the overlap waits in the conflict). Pushed by this sync.
      const text = merge ? (merge.clean ? merge.text : merge.serverWins) : null;
      if (text !== null && text !== entry.content) {
        content = text;
        sha = sha256Hex(text);
        merged = true;
      }
    }
    await e.options.beforeWriteKey?.(key);
    // A folder Claude Code began to sync since the plan gets nothing either (checked at the moment of the write).
    const store = claudeCodeStoreRefusal(file.team, key);
    if (store) {
      cycle.report.pull.refused.push(await shownRefusal(key, store.message));
      return false;
    }
    if (!sameFacts(await file.facts(), local?.facts ?? null)) continue;
    try {
      await e.write(file, content, sha);
    } catch (error) {
      // Not fetched again while the server's version is the same — unless the disk refused it
      // (full, read-only): once there is room, the next sync writes it.
      if (!isDiskRefusal(error)) e.failedWrites.set(key, entry.sha256);
      const said = await shownRefusal(key, withReason(`Could not write ${e.rel(key)}`, e.rel(key), error));
      cycle.report.pull.refused.push(said);
      const { texts } = await maskedForShowing(key, [(error as Error).message]);
      await e.raise(e.topic('write', e.rel(key)), {
        kind: error instanceof TeamPathError ? 'security' : 'sync',
        title: `${e.rel(said.key)} could not be updated`,
        message: texts[0]!,
        file: e.rel(said.key),
      });
      return false;
    }
    e.failedWrites.delete(key);
    pullWroteOver(e, key, local?.sha ?? null, kept, merged ? sha : null);
    if (local && holdsKeptVersion(e, key, local.sha)) await keptSideOverwritten(e, cycle, key, local.sha, entry);
    else if (local) {
      // A conflict's team side the pull wrote over (open, yours kept aside; or resolved by keeping it, its Undo able to
      // open it again): the newer version is its side now — not the older one (review s45-7 #1, s45-9 #1). Nothing new to report.
      for (const c of e.state.conflicts) {
        if ((c.status !== 'open' && !c.resolvedRev) || c.key !== key || c.serverSha !== local.sha) continue;
        Object.assign(c, { serverSha: entry.sha256, serverUpdatedBy: entry.updatedBy, serverUpdatedAt: entry.updatedAt });
        e.dirty = true;
      }
    }
    // The server's version is what both now agree on; a merge is a local edit on top of it (pushed next).
    e.setBase(key, entry.sha256);
    e.bases.save(entry.sha256, entry.content);
    if (merged) {
      cycle.report.pull.merged.push(await shownKey(key));
      merges.push({ rel: file.rel, theirs: entry.content });
    }
    return true;
  }
  // Saved again at every look: left alone (the local file is never overwritten while in use).
  e.failedWrites.set(key, entry.sha256);
  cycle.report.pull.refused.push(await shownRefusal(key, `${e.rel(key)} kept changing while the pull tried to update it; it was left as it is.`));
  return false;
}

/** A key merged by this pull: its path in the memory dir and the server's version merged in. */
interface Merge {
  rel: string;
  theirs: string;
}

/**
 * The three-way merge of the local version and the server's on their base, or null when it
 * cannot be made: a side is not text, or the base's content is not known here (then the local
 * version is kept as a conflict, as before merges existed).
 */
async function mergeWithServer(e: SyncEngine, file: TeamFile, local: LocalInfo, entry: PulledEntry): Promise<LineMerge | null> {
  const baseSha = e.base.get(file.key);
  if (!baseSha) return null;
  const base = await e.bases.read(baseSha);
  const bytes = local.bytes ?? (await file.read())?.data ?? null;
  if (!base || !bytes || sha256Hex(bytes) !== local.sha || sha256Hex(base) !== baseSha) return null;
  const [baseText, localText] = [strictUtf8(base), strictUtf8(bytes)];
  return baseText === null || localText === null ? null : mergeLines(baseText, localText, entry.content);
}
