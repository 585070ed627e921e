/**
 * The team sync client of one project (R-SYNC, R-SYNC-SECURITY, issue 7 parts 2–4): pull,
 * push, conflicts. The app runs it from a watcher and a timer (team-service.ts), the CLI once.
 * This is its front door: one operation at a time (in this process and across processes), the
 * sync as a whole, status and conflicts. The work is in sync/: engine.ts (state, alerts, local
 * files), pull.ts, push.ts and conflicts.ts, each with the rules it implements.
 *
 * A sync with nothing changed costs one conditional GET (304), one `readdir` and one `lstat`
 * per file: hashes come from the stat-keyed hash cache, so it reads and hashes nothing.
 *
 * Every read and write in the team dir goes through `resolveTeamKey` (sanitised key, no link
 * on the way, `realpathDeepestExisting` inside the team dir); writes go through `transact`
 * (lock, outside changes recorded first, history entry `sync`) and safe-fs (atomic, confined).
 * A folder Claude Code syncs itself is left alone both ways (`claudeCodeStoreRefusal`, asked
 * again right before each upload and each pulled write); the server's keys under it are not
 * missing here, so they cost no full pull.
 */
import fs from 'node:fs/promises';
import type { ConflictDetail, ConflictResolution, SyncError, SyncReport, TeamConflict, WaitingItem } from '../../shared/contract/team.js';
import { claudeCodeStoreOver } from '../../shared/sync-waiting.js';
import { parseEtag } from '../../shared/protocol/sync.js';
import { MemoryLockError } from '../core/lock.js';
import { MemdirError } from '../../shared/errors.js';
import { failureSentence } from '../../shared/failure-words.js';
import { TeamClientError } from './team-client.js';
import { type TeamDir, TeamPathError, checkTeamDir } from './team-paths.js';
import { lockSyncState } from './sync-state.js';
import { type TakenBack, conflictDetail, followTakenBack, keptServerSideLost, resolveConflict, shownConflict } from './sync/conflicts.js';
import { type Cycle, SyncEngine, type TeamSyncOptions, TeamSyncError, emptyReport } from './sync/engine.js';
import { pull, verifyPushed } from './sync/pull.js';
import { computeDelta } from './sync/delta.js';
import { confirmLostPush, push } from './sync/push.js';

export { TeamSyncError } from './sync/engine.js';
export type { RetryPolicy, TeamSyncOptions } from './sync/engine.js';

/** Client errors that need the user (alerted); the rest are transient (shown in the status only). */
const ALERTED_ERRORS = new Set([
  'unauthorized',
  'revoked',
  'not-found',
  'redirect',
  'bad-response',
  'too-large',
  'stale',
  'team-full',
  'unsafe-team-dir',
  'server',
  'key-mismatch',
]);

/** Whether the server holds a key this client leaves alone because its folder is one Claude Code syncs itself. */
function heldByStore(e: SyncEngine, cycle: Cycle): boolean {
  const stores = cycle.listing.problems.filter((p) => p.reason === 'claude-code-store');
  if (stores.length === 0) return false;
  for (const key of e.server.keys()) if (claudeCodeStoreOver(stores, key)) return true;
  return false;
}

/** See the file comment. */
export class TeamSync {
  private readonly e: SyncEngine;
  private queue: Promise<unknown> = Promise.resolve();
  /** The last sync's outcome (status shows it). */
  lastReport: SyncReport | null = null;
  /** Team files seen by the last listing. */
  private lastFiles = 0;
  /** From the server's Retry-After, when the last sync was turned away for a while. */
  retryAfterSeconds: number | null = null;
  running = false;
  /** One per sync started and not finished: `abort` cancels them. */
  private readonly controllers = new Set<AbortController>();
  private dirReady = false;
  /**
   * The failure of a sync whose state could not be saved (its own persist refused: a full disk):
   * shown by this process's status until the state on disk says something newer.
   */
  private unsavedError: SyncError | null = null;

  private constructor(options: TeamSyncOptions) {
    this.e = new SyncEngine(options);
  }

  get connection(): TeamSyncOptions['connection'] {
    return this.e.connection;
  }

  /** Last time the server answered (a 304 counts). */
  get lastCheckAt(): string | null {
    return this.e.lastCheckAt;
  }

  /** Open the client of a connection: its state and hash cache from the data dir. */
  static async open(options: TeamSyncOptions): Promise<TeamSync> {
    const sync = new TeamSync(options);
    await sync.e.reload();
    return sync;
  }

  /** Take the cross-process lock of this connection's state folder (waiting for another process, bounded). */
  private async lock(): Promise<() => Promise<void>> {
    try {
      return await lockSyncState(this.e.stateFile.dir);
    } catch (error) {
      if (error instanceof MemoryLockError) throw new TeamSyncError('busy', error.message);
      throw error;
    }
  }

  /** One operation at a time in this process, and one process at a time per connection. */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(async () => {
      if (!this.dirReady) {
        await fs.mkdir(this.e.stateFile.dir, { recursive: true, mode: 0o700 });
        this.dirReady = true;
      }
      const release = await this.lock();
      try {
        if (this.e.stateFile.changedOnDisk()) await this.e.reload();
        return await fn();
      } finally {
        await release();
      }
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  private asSyncError(error: unknown): SyncError {
    const at = this.e.now().toISOString();
    if (error instanceof TeamClientError || error instanceof TeamSyncError) return { code: error.code, message: error.message, at };
    if (error instanceof TeamPathError) return { code: 'unsafe-team-dir', message: error.message, at };
    // A file or History that could not be written (a full disk) says so in its own sentence.
    if (error instanceof MemdirError && error.code === 'unavailable') return { code: 'unavailable', message: `The sync stopped: ${error.message}`, at };
    const message = failureSentence(error);
    return { code: 'internal', message: `The sync failed: ${message}`, at };
  }

  /**
   * One sync: pull (unless `push` only), then push (unless `pull` only). Never throws for
   * what a server or the disk does: the report's `error` says what stopped it. `signal` (or
   * `abort()`) cancels it.
   */
  sync(opts: { pull?: boolean; push?: boolean; signal?: AbortSignal } = {}): Promise<SyncReport> {
    const controller = new AbortController();
    this.controllers.add(controller);
    const signal = opts.signal ? AbortSignal.any([opts.signal, controller.signal]) : controller.signal;
    return this.exclusive(() => this.syncLocked({ ...opts, signal })).finally(() => this.controllers.delete(controller));
  }

  /**
   * Cancel the sync in flight and those waiting for it: their requests are aborted at once (no
   * waiting out a timeout) and each resolves with the error `cancelled`. Writes are atomic, so
   * no file is left half-written; what was pulled but not written comes with the next sync.
   */
  abort(): void {
    for (const controller of this.controllers) controller.abort();
  }

  private async syncLocked(opts: { pull?: boolean; push?: boolean; signal: AbortSignal }): Promise<SyncReport> {
    const e = this.e;
    const started = performance.now();
    this.running = true;
    e.cache.resetCounters();
    e.cycleHashes.clear();
    e.currentRequests = 0;
    const report = emptyReport();
    try {
      if (opts.signal.aborted) throw new TeamSyncError('cancelled', 'The sync was cancelled.');
      // The conditional GET goes out first and travels while the folder is checked and listed
      // (disk and network overlap); whether a full pull is needed is only known from the listing.
      const etag = e.state.etag;
      const conditional = opts.pull !== false && etag ? e.client.entries({ ifNoneMatch: etag, since: etag, signal: opts.signal }) : null;
      conditional?.catch(() => undefined);
      await e.loadTopics();
      let team: TeamDir;
      try {
        team = await checkTeamDir(e.memoryDir, e.space);
      } catch (error) {
        if (error instanceof TeamPathError)
          await e.raise(e.topic('teamdir'), {
            kind: 'security',
            title: `${e.space.title} stopped: the synced folder is unsafe`,
            message: error.message,
            file: e.space.folder || '.',
          });
        throw error;
      }
      await e.resolveTopic(e.topic('teamdir'), 'the synced folder is a real folder again');
      // Let the request reach the socket before the (synchronous) listing holds the thread.
      if (conditional) for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
      const cycle: Cycle = { report, team, listing: e.list(team), relist: false, signal: opts.signal, refusedByServer: new Map() };
      // A push whose answer was lost is settled first: its keys are this client's own writes.
      await confirmLostPush(e, cycle);
      if (opts.pull !== false) {
        // A file deleted here comes back (R-SYNC: deletions do not propagate): only a full answer has it.
        const problems = new Set(cycle.listing.problems.map((p) => p.key));
        // Keys under a folder Claude Code syncs itself are left alone here, not missing.
        const stores = cycle.listing.problems.filter((p) => p.reason === 'claude-code-store');
        // (Every key in the map passed sanitizePathKey when its entry was accepted.) A key whose
        // content was refused or whose write failed is not missing: fetching it again changes nothing.
        let missing = false;
        for (const [key, sha] of e.server) {
          if (
            !cycle.listing.inStep.has(key) &&
            !cycle.listing.files.has(key) &&
            !problems.has(key) &&
            (stores.length === 0 || !claudeCodeStoreOver(stores, key)) &&
            e.failedWrites.get(key) !== sha &&
            e.refused.get(key) !== sha
          ) {
            missing = true;
            break;
          }
        }
        // A file here under a key the server holds at a version this client never took (a pull left it
        // alone: a name in another Unicode form was in its way, since renamed): only a full answer has
        // that version, and the waiting list promises the next pull brings it in.
        if (!missing)
          for (const key of cycle.listing.files.keys()) {
            const sha = e.server.get(key);
            if (sha !== undefined && sha !== e.base.get(key) && e.failedWrites.get(key) !== sha && e.refused.get(key) !== sha) {
              missing = true;
              break;
            }
          }
        // The server's side of an open conflict no longer kept here: only a full answer has it again.
        if (!missing && (await keptServerSideLost(e))) missing = true;
        if (conditional) await pull(e, cycle, 'conditional', conditional);
        // A 304 (or a delta) is not proof the server still holds this client's pushes: a restored one may number other content alike.
        const lost = conditional !== null && report.pull.wentBack === null && (await verifyPushed(e, cycle));
        if (missing || !conditional || lost) await pull(e, cycle, 'full');
      }
      if (opts.push !== false) await push(e, cycle);
      else await computeDelta(e, cycle, { dry: true });
      this.lastFiles = cycle.listing.files.size + cycle.listing.inStep.size;
      if (report.pull.written.length > 0 || report.push.uploaded.length > 0) await e.pruneBases();
      // A server key held back from a folder Claude Code syncs itself stays held back while it is one: the alert stays too.
      if (!report.pull.refused.length && e.refused.size === 0 && !heldByStore(e, cycle)) await e.resolveTopic(e.topic('pull'), 'the next pull was clean');
      await e.resolveTopic(e.topic('sync'), 'the next sync worked');
      // The server that went back was caught up with by the sync that said so (what it lost uploaded
      // again, or kept as a conflict, listed on its own); a later one that finds it in step ends it.
      if (report.pull.wentBack === null) await e.resolveTopic(e.topic('went-back'), 'a later sync found the server in step');
      // The last sync's failure lives in the state on disk only, the one source every process's status reads (inspect).
      if (e.state.lastError) {
        e.state.lastError = null;
        e.dirty = true;
      }
    } catch (error) {
      report.error = this.asSyncError(error);
      // Kept for the status of any process (a cancelled sync failed nothing: the next one runs as usual).
      if (report.error.code !== 'cancelled') {
        e.state.lastError = report.error;
        e.dirty = true;
      }
      // What still waits, from the files: the push may not have got to say it (server down, slow, refused).
      if (report.error.code !== 'unsafe-team-dir' && report.error.code !== 'cancelled')
        report.waiting = (await this.waitingFromFiles().catch(() => null))?.waiting ?? report.waiting;
      this.retryAfterSeconds = error instanceof TeamClientError ? error.retryAfterSeconds : null;
      if (ALERTED_ERRORS.has(report.error.code)) {
        await e.raise(e.topic('sync'), {
          kind: report.error.code === 'unsafe-team-dir' ? 'security' : 'sync',
          title: `${e.space.title} of ${e.options.dir ?? e.connection.dir ?? e.memoryDir} needs you`,
          message: report.error.message,
        });
      }
    } finally {
      this.running = false;
      report.bytesHashed = e.cache.bytesHashed;
      report.filesHashed = e.cache.filesHashed;
      report.etag = e.state.etag;
      report.version ??= e.state.etag ? (parseEtag(e.state.etag)?.version ?? null) : null;
      report.push.requests = e.currentRequests;
      report.durationMs = Math.round((performance.now() - started) * 10) / 10;
      this.lastReport = report;
      try {
        await e.persist();
        this.unsavedError = null;
      } catch (error) {
        report.error ??= this.asSyncError(error);
        if (report.error.code !== 'cancelled') this.unsavedError = e.state.lastError = report.error;
      }
    }
    return report;
  }

  // ------------------------------------------------------------------------------------------
  // Status and conflicts

  /** What the status view needs, from memory (and a local look when no sync ran yet). */
  async inspect(): Promise<{
    files: number;
    waiting: WaitingItem[];
    conflicts: TeamConflict[];
    resolved: TeamConflict[];
    lastPullAt: string | null;
    lastPushAt: string | null;
    version: number | null;
    lastError: SyncError | null;
  }> {
    const e = this.e;
    // Conflicts as they may be shown: a secret in a key masked (shownConflict).
    const snapshot = async (files: number, waiting: WaitingItem[]) => ({
      files,
      waiting,
      conflicts: await Promise.all(e.state.conflicts.filter((c) => c.status === 'open').map(shownConflict)),
      resolved: await Promise.all(
        e.state.conflicts
          .filter((c) => c.status === 'resolved')
          .slice(-10)
          .reverse()
          .map(shownConflict),
      ),
      lastPullAt: e.state.lastPullAt,
      lastPushAt: e.state.lastPushAt,
      version: e.state.etag ? (parseEtag(e.state.etag)?.version ?? null) : null,
      lastError: this.lastError(),
    });
    // A sync is running: answer from memory rather than wait for it (the view shows "syncing").
    if (this.running) return snapshot(this.lastFiles, this.lastReport?.waiting ?? []);
    return this.exclusive(async () => {
      const last = this.lastReport?.waiting;
      const now = await this.waitingFromFiles(last === undefined);
      return snapshot(now.files, last ?? now.waiting);
    });
  }

  /**
   * The last sync's failure: the state on disk's (every process's status reads it), or one this
   * process could not save there while nothing on disk is newer (a sync since, or its failure).
   */
  private lastError(): SyncError | null {
    const { state } = this.e;
    const unsaved = this.unsavedError;
    if (!unsaved) return state.lastError;
    const newer = [state.lastError?.at, state.lastPullAt, state.lastPushAt].some((at) => !!at && at > unsaved.at);
    return newer ? state.lastError : unsaved;
  }

  /**
   * The one answer to "what waits to be pushed": the folder compared with what the server holds
   * (a dry delta), as a sync would push it. Asked by the status before any sync, and by a sync that
   * failed before its push said so — an edit waiting behind a server down is listed, never hidden.
   * `delta` false: count the files only. Call under the lock.
   */
  private async waitingFromFiles(delta = true): Promise<{ files: number; waiting: WaitingItem[] }> {
    const e = this.e;
    e.cycleHashes.clear();
    let files = 0;
    try {
      const team = await checkTeamDir(e.memoryDir, e.space);
      const listing = e.list(team);
      files = listing.files.size + listing.inStep.size;
      this.lastFiles = files;
      if (!delta) return { files, waiting: [] };
      const cycle: Cycle = { report: emptyReport(), team, listing, relist: false, refusedByServer: new Map() };
      await computeDelta(e, cycle, { dry: true });
      await e.persist();
      return { files, waiting: cycle.report.waiting };
    } catch (error) {
      return { files, waiting: [{ key: e.space.folder || '.', reason: 'symlink', detail: (error as Error).message }] };
    }
  }

  /** Both sides of a conflict, the base and the three-way proposal. */
  async conflictDetail(id: string): Promise<ConflictDetail> {
    return this.exclusive(() => conflictDetail(this.e, id));
  }

  /**
   * Resolve a conflict. `server`: keep what the pull wrote. `mine` / `both` / `merge`: write that text
   * over the server's version (history entry `sync`) and push it — based on the server version
   * this client has seen, so a newer one on the server makes it a conflict again, never a loss.
   */
  async resolve(
    id: string,
    take: ConflictResolution,
    opts: { text?: string; theirsSha?: string | null; allowSecrets?: readonly string[] } = {},
  ): Promise<{ conflict: TeamConflict; rev: string | null; report: SyncReport | null }> {
    const done = await this.exclusive(() => resolveConflict(this.e, id, take, opts));
    const report = take === 'server' ? null : await this.sync();
    return { ...done, report };
  }

  /**
   * An Undo or a restore (`taken`) wrote the entry `by`: a resolution it took back has its conflict open
   * again, one a Redo put back is resolved again (sync/conflicts.ts `followTakenBack`, the one rule).
   */
  async followUndo(taken: TakenBack, by: string | null): Promise<string[]> {
    return this.exclusive(() => followTakenBack(this.e, taken, by));
  }
}
