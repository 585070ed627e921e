/**
 * Push (R-SYNC): every local file whose hash differs from the server's checksum, *and* whose
 * server version is the base (a key the server changed since is never overwritten blindly: it
 * waits for the pull, which turns it into a conflict). Each file is read through the confined
 * path, must be UTF-8 text without null bytes within the entry limit, and passes the secret
 * scanner: a finding that is not allowed keeps the file back and raises an alert. Upserts go
 * in batches with If-Match; a 412 refetches the checksums, pulls what moved, recomputes the
 * delta and retries with jittered exponential backoff, a bounded number of times, then tells
 * the user (only answers that got nowhere count: a first push of 10,000 files is not "stale").
 * What goes up, and what waits and why, is computed in delta.ts; here is the upload.
 */
import { randomBytes } from 'node:crypto';
import { type CommitResponse, type ErrorResponse, parseEtag } from '../../../shared/protocol/sync.js';
import { TeamClientError } from '../team-client.js';
import { type Delta, type DeltaItem, computeDelta, shownKey } from './delta.js';
import { type Cycle, type RetryPolicy, type SyncEngine, TeamSyncError, sleep } from './engine.js';
import { pull } from './pull.js';

/** Files the server took: in the report's uploaded list, named as shown (delta.ts), and off the waiting list. */
async function pushed(cycle: Cycle, keys: readonly string[]): Promise<void> {
  for (const key of keys) cycle.report.push.uploaded.push(await shownKey(key));
  const gone = new Set(keys.map((key) => cycle.pending?.get(key)));
  cycle.report.waiting = cycle.report.waiting.filter((w) => !gone.has(w));
}

/** How long to wait before retry `attempt` (1, 2, …): half to all of `baseMs·2^(attempt−1)`, never over `maxMs`. */
export function backoff(policy: Pick<RetryPolicy, 'baseMs' | 'maxMs'>, attempt: number): number {
  const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.max(0, attempt - 1));
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

/** After a 412: refetch the checksums; pull what moved (conflicts, if any); the caller recomputes. */
async function refetch(e: SyncEngine, cycle: Cycle): Promise<void> {
  const answer = await e.client.checksums({ signal: cycle.signal });
  if (answer.status === 304) return;
  const { checksums } = answer.body;
  const old = e.state.etag ? parseEtag(e.state.etag) : null;
  const now = parseEtag(answer.etag);
  const moved = Object.keys(checksums).filter((k) => e.server.get(k) !== checksums[k]);
  const gone = [...e.server.keys()].filter((k) => !Object.hasOwn(checksums, k));
  if (old && now && old.epoch !== now.epoch) {
    await pull(e, cycle, 'full');
  } else if (moved.length === 0 && gone.length === 0) {
    // Only the version moved (a no-op write): our map is exact at the new ETag.
    e.setEtag(answer.etag);
  } else {
    await pull(e, cycle, 'delta');
  }
}

/** One batch of the delta: what fits in one request. */
function nextBatch(e: SyncEngine, delta: Delta): { batch: Map<string, DeltaItem>; bytes: number } {
  const batch = new Map<string, DeltaItem>();
  let bytes = 2;
  for (const [key, item] of delta) {
    const size = item.bytes + key.length + 96;
    if (batch.size > 0 && (batch.size >= e.batchKeys || bytes + size > e.batchBytes)) break;
    batch.set(key, item);
    bytes += size;
  }
  return { batch, bytes };
}

/**
 * A refusal of a whole push that the engine can act on: keys the server refused (kept back
 * with the reason), a batch too large (halved). Throws for anything else.
 */
async function handleRefusal(
  e: SyncEngine,
  cycle: Cycle,
  outcome: { status: number; error: ErrorResponse },
  batch: Map<string, DeltaItem>,
  bytes: number,
): Promise<void> {
  const { error } = outcome;
  const refuse = (key: string, reason: string): void => {
    const item = batch.get(key);
    if (item) cycle.refusedByServer.set(key, { sha: item.sha, reason });
  };
  if (outcome.status === 400 && error.keys && error.keys.length > 0) {
    const unknown = error.keys.filter((k) => !batch.has(k.key));
    if (unknown.length > 0) {
      // Named as every key is shown: a secret in a name the server made up, or one of the team's, masked.
      const named = await Promise.all(unknown.slice(0, 3).map(async (k) => JSON.stringify(await shownKey(k.key.slice(0, 80)))));
      throw new TeamSyncError('server', `The sync server refused keys this push did not carry (${named.join(', ')}); the push stopped. Your changes are kept.`);
    }
    for (const k of error.keys) refuse(k.key, `The server refused the key: ${k.reason}`);
    return;
  }
  if (
    (outcome.status === 409 || outcome.status === 400 || (outcome.status === 413 && error.error === 'entry-too-large')) &&
    error.key &&
    batch.has(error.key)
  ) {
    refuse(error.key, `The server refused ${e.rel(error.key)}: ${error.message}`);
    return;
  }
  if (outcome.status === 413 && (error.error === 'too-many-keys' || error.error === 'body-too-large') && batch.size > 1) {
    // Always smaller than the batch just refused, so this ends (at one key, refused for good).
    if (error.error === 'too-many-keys') e.batchKeys = Math.max(1, Math.min(Math.floor(batch.size / 2), error.limit ?? batch.size));
    else e.batchBytes = Math.max(1, Math.min(Math.floor(bytes / 2), error.limit ?? bytes));
    return;
  }
  throw new TeamSyncError(error.error === 'team-full' ? 'team-full' : 'server', `The server refused the push: ${error.message}`);
}

/** A push that left but whose answer did not come back: say so, never "cannot reach" or "nothing to upload". */
function lostAnswer(error: unknown): unknown {
  if (error instanceof TeamClientError && (error.code === 'network' || error.code === 'timeout') && error.sent) {
    const what =
      error.code === 'timeout'
        ? error.message.replace(/ did not answer /, ' did not answer the push ').replace(/\.$/, '')
        : error.message.replace(/ was lost \(/, ' was lost after the push was sent (').replace(/\.$/, '');
    return new TeamSyncError(error.code, `${what}; the server may have saved it: the next sync confirms it. Your changes are kept.`);
  }
  return error;
}

/** Record a committed key: on the server and agreed, its content kept as the base for later merges. */
function agreed(e: SyncEngine, key: string, sha: string): void {
  e.setServer(key, sha);
  e.setBase(key, sha);
}

/**
 * What a commit answer says, recorded the same way whether it came back at once or was asked
 * for again by its push id after it was lost: the keys saved (agreed, at the hash `pushed` says
 * went up), the keys someone else had changed (their version, for the pull to merge), and the
 * team version the answer showed. That version is remembered in every case: the state now holds
 * this commit, so an answer older than it (a replay, a reordered duplicate) must never pass for
 * the current state — it would take back the client's own saved writes and turn its next edits
 * into conflicts with itself. Returns the keys saved.
 */
function recordCommit(e: SyncEngine, cycle: Cycle, body: CommitResponse, pushed: (key: string) => string | undefined): string[] {
  const done: string[] = [];
  for (const key of [...body.committed, ...body.unchanged]) {
    const sha = pushed(key);
    if (sha === undefined) continue;
    agreed(e, key, sha);
    e.notePushed(key, sha);
    done.push(key);
  }
  for (const [key, conflict] of Object.entries(body.conflicts)) {
    if (pushed(key) === undefined) continue;
    // Someone else's version is on the server: the pull brings it in and merges (or keeps a conflict).
    e.setServer(key, conflict.sha256);
    cycle.behind = true;
  }
  // This client knows the whole team state at the new version only if nothing else was committed in between.
  const mine = e.state.etag ? parseEtag(e.state.etag) : null;
  const now = parseEtag(body.etag);
  if (mine && now && mine.epoch === now.epoch && mine.version === body.previousVersion) e.setEtag(body.etag);
  else if (!mine || !now || mine.epoch !== now.epoch || mine.version < body.version) cycle.behind = true;
  e.sawEtag(body.etag);
  cycle.report.version = body.version;
  e.dirty = true;
  return done;
}

/**
 * Before the pull: ask the server for the result of a push whose answer was lost (protocol 2,
 * the same push id, no entries). Keys it had saved are this client's own writes — recognised
 * as such, so the pull never turns them into a conflict with oneself.
 */
export async function confirmLostPush(e: SyncEngine, cycle: Cycle): Promise<void> {
  const lost = e.state.lostPush;
  if (!lost) return;
  if (e.protocol === 2) {
    const outcome = await e.client.commit(lost.pushId, {}, { signal: cycle.signal });
    // Not replayed: the push never reached the server, which saved this empty one under its id instead (nothing committed).
    if (outcome.ok) {
      const confirmed = recordCommit(e, cycle, outcome.body, (key) => (Object.hasOwn(lost.entries, key) ? lost.entries[key] : undefined));
      cycle.report.push.confirmed.push(...confirmed);
      // A push confirmed saved is a push: "last push" says when it was known to be on the server.
      if (confirmed.length > 0) e.state.lastPushAt = e.now().toISOString();
    }
  }
  e.state.lostPush = null;
  e.dirty = true;
}

/** Whether the server speaks only protocol 1 (asked after a 404 on the protocol 2 route). */
async function speaksOnlyProtocol1(e: SyncEngine, cycle: Cycle): Promise<boolean> {
  const me = await e.client.me({ signal: cycle.signal });
  if (me.team !== e.connection.team)
    throw new TeamSyncError('not-found', `The sync server has no team "${e.connection.team}" for this token: the token belongs to team "${me.team}".`);
  return !(me.protocols ?? [1]).includes(2);
}

/**
 * Protocol 2: push the delta in batches, each key with the base it was edited from; the server
 * commits what still matches and answers the rest as per-key conflicts, which a pull then
 * merges (or keeps as conflicts) and the next round pushes. Unrelated keys never hold each
 * other back, so there is no "stale" to give up on. False when the server speaks only protocol 1.
 */
async function pushCommits(e: SyncEngine, cycle: Cycle): Promise<boolean> {
  let pulls = 0;
  let delta: Delta | null = null;
  for (;;) {
    if (cycle.signal?.aborted) throw new TeamSyncError('cancelled', 'The sync was cancelled.');
    delta ??= await computeDelta(e, cycle, { dry: false });
    if (delta.size === 0) {
      // Others committed meanwhile (or a key conflicted): catch up before the sync ends, and
      // push what the pull merged. Bounded: what is left waits for the next sync.
      if (cycle.behind && pulls < e.retry.attempts) {
        pulls++;
        cycle.behind = false;
        await pull(e, cycle, e.state.etag ? 'delta' : 'full');
        delta = null;
        continue;
      }
      return true;
    }
    const { batch, bytes } = nextBatch(e, delta);
    const entries: Record<string, { content: string; base: string | null }> = {};
    for (const [key, item] of batch) {
      entries[key] = { content: item.content, base: e.base.get(key) ?? null };
      // Kept before it leaves: a push saved but unanswered is then merged and recognised like any other.
      e.bases.save(item.sha, item.content);
    }
    const pushId = randomBytes(16).toString('base64url');
    // On disk before the request leaves: a process killed while waiting for the answer still knows what it sent.
    e.state.lostPush = { pushId, entries: Object.fromEntries([...batch].map(([key, item]) => [key, item.sha])) };
    e.dirty = true;
    await e.persist();
    cycle.report.push.attempts++;
    let outcome: Awaited<ReturnType<typeof e.client.commit>>;
    try {
      outcome = await e.client.commit(pushId, entries, { signal: cycle.signal });
    } catch (error) {
      throw lostAnswer(error);
    }
    e.state.lostPush = null;
    e.dirty = true;
    if (!outcome.ok) {
      if ((outcome.status === 404 || outcome.status === 405) && (await speaksOnlyProtocol1(e, cycle))) {
        e.protocol = 1;
        return false;
      }
      await handleRefusal(e, cycle, outcome, batch, bytes);
      delta = null;
      continue;
    }
    const done = recordCommit(e, cycle, outcome.body, (key) => batch.get(key)?.sha);
    for (const key of batch.keys()) delta.delete(key);
    await pushed(cycle, done);
    if (done.length > 0) e.state.lastPushAt = e.now().toISOString();
  }
}

/**
 * Push the delta: protocol 2 unless the server speaks only 1. Protocol 1 pushes in batches
 * with If-Match until the delta is empty. Rounds that upload or refuse keys make progress and
 * are not counted; rounds that get nowhere (412, 428) are, with backoff, up to
 * `retry.attempts`; an answer that makes no sense stops the push.
 */
export async function push(e: SyncEngine, cycle: Cycle): Promise<void> {
  if (e.protocol === 2 && (await pushCommits(e, cycle))) return;
  let failures = 0;
  const retryAfterBackoff = async (giveUp: TeamSyncError): Promise<void> => {
    if (++failures >= e.retry.attempts) throw giveUp;
    await sleep(backoff(e.retry, failures), cycle.signal);
  };
  let delta: Delta | null = null;
  for (;;) {
    if (cycle.signal?.aborted) throw new TeamSyncError('cancelled', 'The sync was cancelled.');
    // The delta is computed once, and again only after something moved (a 412, a refusal).
    delta ??= await computeDelta(e, cycle, { dry: false });
    if (delta.size === 0) return;
    if (!e.state.etag) {
      // Never pulled (or the state was reset): the push needs the version it is based on.
      await pull(e, cycle, 'full');
      if (!e.state.etag) throw new TeamSyncError('server', 'The sync server answered a full pull without a version to push against.');
      delta = null;
      continue;
    }
    const { batch: items, bytes } = nextBatch(e, delta);
    const batch: Record<string, string> = {};
    for (const [key, item] of items) batch[key] = item.content;
    cycle.report.push.attempts++;
    let outcome: Awaited<ReturnType<typeof e.client.put>>;
    try {
      outcome = await e.client.put(e.state.etag, batch, { signal: cycle.signal });
    } catch (error) {
      throw lostAnswer(error);
    }
    if (outcome.ok) {
      for (const [key, item] of items) {
        agreed(e, key, item.sha);
        e.notePushed(key, item.sha);
        e.bases.save(item.sha, item.content);
        delta.delete(key);
      }
      e.setEtag(outcome.body.etag);
      cycle.report.version = outcome.body.version;
      await pushed(cycle, [...items.keys()]);
      e.state.lastPushAt = e.now().toISOString();
      e.dirty = true;
      continue;
    }
    delta = null;
    if (outcome.status === 412) {
      cycle.report.push.stale++;
      await retryAfterBackoff(
        new TeamSyncError(
          'stale',
          `The team memory kept changing while pushing (${cycle.report.push.stale} tries answered "412 stale"); your changes are kept and pushed at the next sync.`,
        ),
      );
      await refetch(e, cycle);
      continue;
    }
    if (outcome.status === 428) {
      await retryAfterBackoff(
        new TeamSyncError(
          'server',
          'The sync server kept answering the push with "428 precondition required" although it carried If-Match; your changes are kept and pushed at the next sync.',
        ),
      );
      await pull(e, cycle, 'full');
      continue;
    }
    await handleRefusal(e, cycle, outcome, items, bytes);
  }
}
