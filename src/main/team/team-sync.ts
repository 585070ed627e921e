/**
 * The team sync client of one project (R-SYNC, R-SYNC-SECURITY, issue 7 parts 2–4): pull,
 * push, conflicts. The app runs it from a watcher and a timer (team-service.ts), the CLI once.
 *
 * Pull — `GET entries` with If-None-Match (304: nothing to do, no body) and `?since=` (only
 * what changed). Server wins per key; for each key, with L the local hash, S the server's and
 * B the base (what both last agreed on, sync-state.ts):
 *   L = S                → in step;
 *   S = B, L ≠ B         → only the local file changed: it waits for the push;
 *   L missing or L = B   → write S (a locally deleted file comes back: deletions never propagate);
 *   otherwise            → a local edit that was never pushed would be lost: its bytes are kept
 *                          as a conflict (conflicts list + the history entry holding them), then
 *                          S is written. Nothing is lost; the user resolves it later.
 * Push — every local file whose hash differs from the server's checksum, *and* whose server
 * version is the base (a key the server changed since is never overwritten blindly: it waits
 * for the pull, which turns it into a conflict). Each file is read through the confined path,
 * must be UTF-8 text without null bytes within the entry limit, and passes the secret scanner:
 * a finding that is not allowed keeps the file back and raises an alert. Upserts go in
 * batches with If-Match; a 412 refetches the checksums, pulls what moved, recomputes the delta
 * and retries with jittered exponential backoff, a bounded number of times, then tells the user
 * (only answers that got nowhere count: a first push of 10,000 files is not "stale").
 * A sync with nothing changed costs one conditional GET (304), one `readdir` and one `lstat`
 * per file: hashes come from the stat-keyed hash cache, so it reads and hashes nothing.
 *
 * A pull decides and writes key by key, and checks the file is still the one it decided on
 * (inode, mtime, ctime, size) right before writing it: a file saved meanwhile is decided again,
 * so an editor's save during a pull becomes a conflict, never a silent overwrite.
 *
 * Every read and write in the team dir goes through `resolveTeamKey` (sanitised key, no link
 * on the way, `realpathDeepestExisting` inside the team dir); writes go through `transact`
 * (lock, outside changes recorded first, history entry `sync`) and safe-fs (atomic, confined).
 * Anything a server sends is refused key by key when wrong (hostile key, checksum that does not
 * match the content, oversized entry, text that is not text) and alerted, never written; an
 * entry refused for its content is remembered with its hash (sync-state.ts `refused`), so it is
 * not fetched again by every later sync.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import { constants as fsConstants } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SyncError, SyncReport, TeamConflict, WaitingItem } from '../../shared/contract/team.js';
import { TOPIC_MAX_BYTES } from '../../shared/limits.js';
import { foldPathKey } from '../../shared/path-key.js';
import type { Finding } from '../../shared/secret-types.js';
import { utf8Length } from '../../shared/utf8.js';
import { parseEtag } from '../../server/protocol.js';
import { listHistory, transact } from '../history/history.js';
import { type FileFacts, factsOf } from '../memdir/read-file.js';
import { MemoryLockError, writeFileAtomic } from '../memdir/safe-fs.js';
import { scanText } from '../secrets/scanner.js';
import { type AlertCenter, secretAlertMessage } from './alert-center.js';
import { type TeamConnection, connectionDir } from './connections.js';
import { HashCache, sameFacts, sha256Hex } from './hash-cache.js';
import { type Conditional, type RequestRecord, TeamClient, TeamClientError } from './team-client.js';
import type { EntriesResponse } from '../../server/protocol.js';
import { type LocalListing, type TeamDir, TeamPathError, checkKey, checkTeamDir, listTeamFiles, resolveTeamKey } from './team-paths.js';
import { type SyncState, StateFile, lockSyncState } from './sync-state.js';

export interface RetryPolicy {
  /** Push answers that got nowhere (412, 428) tolerated in one sync before giving up until the next (default 6). */
  attempts: number;
  /** First backoff; doubled each time, jittered (default 100 ms). */
  baseMs: number;
  maxMs: number;
}

export interface TeamSyncOptions {
  connection: TeamConnection;
  token: string;
  dataDir: string;
  /** The project's directory name, for alerts and events. */
  dir?: string | null;
  alerts?: AlertCenter | null;
  fetch?: typeof fetch;
  timeoutMs?: number;
  /** Largest server answer read (default 256 MiB). */
  maxResponseBytes?: number;
  /** Largest team file pushed or accepted from a pull (default 1 MB, the server's default). */
  maxEntryBytes?: number;
  retry?: Partial<RetryPolicy>;
  /** Keys and bytes per PUT (defaults below the server's 500 keys / 8 MiB). */
  batch?: { maxKeys?: number; maxBytes?: number };
  onRequest?: (record: RequestRecord) => void;
  /** Called before and after a pull writes files (the app: "Memdir's own write", then refresh). */
  onWrite?: (phase: 'before' | 'after', keys: string[]) => void;
  /** Called when a pull has decided to overwrite `key`, just before it checks the file again and writes it (tests save the file there, as an editor would). */
  beforeWriteKey?: (key: string) => void | Promise<void>;
  now?: () => Date;
}

/** A sync that could not go on, with a sentence for the user. */
export class TeamSyncError extends Error {
  override readonly name = 'TeamSyncError';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const DEFAULT_RETRY: RetryPolicy = { attempts: 6, baseMs: 100, maxMs: 3_000 };
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const lenientUtf8 = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
/** Client errors that need the user (alerted); the rest are transient (shown in the status only). */
const ALERTED_ERRORS = new Set(['unauthorized', 'revoked', 'not-found', 'redirect', 'bad-response', 'too-large', 'stale', 'team-full', 'unsafe-team-dir', 'server']);

function emptyReport(): SyncReport {
  return {
    pull: { status: null, full: false, written: [], conflicts: [], refused: [] },
    push: { uploaded: [], attempts: 0, stale: 0, requests: 0 },
    waiting: [],
    bytesHashed: 0,
    filesHashed: 0,
    version: null,
    etag: null,
    error: null,
    durationMs: 0,
  };
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });
}

interface LocalInfo {
  sha: string;
  facts: FileFacts;
  /** The file's bytes, when they had to be read (a cache miss) and are small enough to keep. */
  bytes: Buffer | null;
}

interface PulledEntry {
  content: string;
  sha256: string;
  updatedAt: string;
  updatedBy: string;
}

/** Mutable context of one sync. */
interface Cycle {
  report: SyncReport;
  team: TeamDir;
  listing: LocalListing;
  /** The listing must be taken again (a pull wrote files). */
  relist: boolean;
  signal?: AbortSignal | undefined;
  /** Keys the server refused in this sync, with the content hash it refused. */
  refusedByServer: Map<string, { sha: string; reason: string }>;
}

/** See the file comment. */
export class TeamSync {
  readonly connection: TeamConnection;
  readonly stateFile: StateFile;
  private state!: SyncState;
  /** `state.server` and `state.base` as maps while in memory (thousands of look-ups per sync). */
  private server = new Map<string, string>();
  private base = new Map<string, string>();
  /** `state.refused`: entries refused for their content, by the server hash refused. */
  private refused = new Map<string, string>();
  private cache!: HashCache;
  private dirty = false;
  private readonly client: TeamClient;
  private readonly retry: RetryPolicy;
  private readonly maxEntryBytes: number;
  private batchKeys: number;
  private batchBytes: number;
  private queue: Promise<unknown> = Promise.resolve();
  /** Findings per key and content hash: a file kept back is not scanned again until it changes. */
  private readonly scans = new Map<string, Finding[]>();
  /** Hashes computed during the current sync: trusted for its duration even when racily clean. */
  private readonly cycleHashes = new Map<string, { facts: FileFacts; sha: string }>();
  /** Keys whose restore failed, by the server hash that failed: not retried in a loop. */
  private readonly failedWrites = new Map<string, string>();
  /** Alert topics this client raised and has not seen resolved. */
  private readonly raised = new Set<string>();
  private topicsLoaded = false;
  /** The last sync's outcome (status shows it). */
  lastReport: SyncReport | null = null;
  lastCheckAt: string | null = null;
  /** Team files seen by the last listing. */
  private lastFiles = 0;
  lastError: SyncError | null = null;
  /** From the server's Retry-After, when the last sync was turned away for a while. */
  retryAfterSeconds: number | null = null;
  running = false;

  private constructor(private readonly options: TeamSyncOptions) {
    this.connection = options.connection;
    this.stateFile = new StateFile(connectionDir(options.dataDir, options.connection.id));
    this.client = new TeamClient({
      server: options.connection.server,
      team: options.connection.team,
      token: options.token,
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.maxResponseBytes ? { maxResponseBytes: options.maxResponseBytes } : {}),
      onRequest: (r) => {
        this.currentRequests++;
        options.onRequest?.(r);
      },
    });
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.maxEntryBytes = options.maxEntryBytes ?? TOPIC_MAX_BYTES;
    this.batchKeys = options.batch?.maxKeys ?? 400;
    this.batchBytes = options.batch?.maxBytes ?? 6 * 1024 * 1024;
  }

  private currentRequests = 0;
  /** One per sync started and not finished: `abort` cancels them. */
  private readonly controllers = new Set<AbortController>();

  /** Open the client of a connection: its state and hash cache from the data dir. */
  static async open(options: TeamSyncOptions): Promise<TeamSync> {
    const sync = new TeamSync(options);
    await sync.reload();
    return sync;
  }

  private async reload(): Promise<void> {
    this.state = await this.stateFile.load();
    this.server = new Map(Object.entries(this.state.server));
    this.base = new Map(Object.entries(this.state.base));
    this.refused = new Map(Object.entries(this.state.refused));
    this.cache = await HashCache.load(path.join(this.stateFile.dir, 'hash-cache.json'));
    this.dirty = false;
  }

  private get memoryDir(): string {
    return this.connection.memoryDir;
  }

  private now(): Date {
    return this.options.now?.() ?? new Date();
  }

  private dirReady = false;

  /** Take the cross-process lock of this connection's state folder (waiting for another process, bounded). */
  private async lock(): Promise<() => void> {
    try {
      return await lockSyncState(this.stateFile.dir);
    } catch (error) {
      if (error instanceof MemoryLockError) throw new TeamSyncError('busy', error.message);
      throw error;
    }
  }

  /** One operation at a time in this process, and one process at a time per connection. */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(async () => {
      if (!this.dirReady) {
        await fs.mkdir(this.stateFile.dir, { recursive: true, mode: 0o700 });
        this.dirReady = true;
      }
      const release = await this.lock();
      try {
        if (this.stateFile.changedOnDisk()) await this.reload();
        return await fn();
      } finally {
        release();
      }
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  // ------------------------------------------------------------------------------------------
  // Alerts

  private topic(kind: string, file?: string): string {
    return `${kind}:${this.memoryDir}${file ? `:${file}` : ''}`;
  }

  private async raise(topic: string, input: { kind: 'secret' | 'sync' | 'security' | 'error'; title: string; message: string; file?: string | null; findings?: Finding[] }): Promise<void> {
    this.raised.add(topic);
    await this.options.alerts?.raise({ topic, dir: this.options.dir ?? this.connection.dir, memoryDir: this.memoryDir, ...input }).catch(() => undefined);
  }

  private async resolveTopic(topic: string, resolution: string): Promise<void> {
    if (!this.raised.has(topic)) return;
    this.raised.delete(topic);
    await this.options.alerts?.resolve(topic, resolution).catch(() => undefined);
  }

  /** Learn which alerts of this project are still up (once), so they are resolved when their cause goes. */
  private async loadTopics(): Promise<void> {
    if (this.topicsLoaded || !this.options.alerts) return;
    this.topicsLoaded = true;
    const { alerts } = await this.options.alerts.list().catch(() => ({ alerts: [] }));
    for (const a of alerts) {
      if (a.status === 'resolved' || a.memoryDir !== this.memoryDir) continue;
      const record = await this.options.alerts.get(a.id);
      if (record) this.raised.add(record.topic);
    }
  }

  // ------------------------------------------------------------------------------------------
  // Local files

  /** The team folder now; files known to be unchanged and in step are only counted (see listTeamFiles). */
  private list(team: TeamDir): LocalListing {
    const { server, base } = this;
    return listTeamFiles(team, (key, facts) => {
      const sha = this.knownHash(key, facts);
      return sha !== null && sha === server.get(key) && sha === base.get(key);
    });
  }

  /** The known hash of a file at these facts: this sync's own, else the cache's. */
  private knownHash(key: string, facts: FileFacts): string | null {
    const mine = this.cycleHashes.get(key);
    if (mine && sameFacts(mine.facts, facts)) return mine.sha;
    return this.cache.lookup(key, facts);
  }

  private hashBytes(key: string, facts: FileFacts, bytes: Uint8Array): string {
    // The cache compares file times with the machine's clock, never with the `now` option.
    const sha = this.cache.hash(key, facts, bytes);
    this.cycleHashes.set(key, { facts, sha });
    this.dirty = true;
    return sha;
  }

  /**
   * The hash of a team file now, or null when it does not exist. Confined first (throws
   * TeamPathError for a link, a folder in the way, a path leaving the team dir). Reads only
   * when the stat facts are new; small files' bytes are kept for the push.
   */
  private async localInfo(team: TeamDir, key: string): Promise<LocalInfo | null> {
    const abs = await resolveTeamKey(team, key);
    const st = await fs.lstat(abs).catch((error: unknown) => {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    });
    if (!st) return null;
    const facts = factsOf(st);
    const cached = this.knownHash(key, facts);
    if (cached) return { sha: cached, facts, bytes: null };
    if (facts.size > this.maxEntryBytes) {
      const hashed = await this.hashLarge(team, key);
      return hashed ? { sha: hashed.sha, facts: hashed.facts, bytes: null } : null;
    }
    const bytes = await this.readConfined(team, key);
    if (!bytes) return null;
    return { sha: this.hashBytes(key, bytes.facts, bytes.data), facts: bytes.facts, bytes: bytes.data.byteLength <= this.maxEntryBytes ? bytes.data : null };
  }

  /** Read a team file without following a link (O_NOFOLLOW), after the full path check. */
  private async readConfined(team: TeamDir, key: string): Promise<{ data: Buffer; facts: FileFacts } | null> {
    const abs = await resolveTeamKey(team, key);
    let handle: fs.FileHandle;
    try {
      handle = await fs.open(abs, fsConstants.O_RDONLY | (fsConstants.O_NOFOLLOW ?? 0) | (fsConstants.O_NONBLOCK ?? 0));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return null;
      if (code === 'ELOOP') throw new TeamPathError('symlink', key, `team/${key} became a symbolic link; it is never followed.`);
      throw error;
    }
    try {
      const st = await handle.stat();
      if (!st.isFile()) throw new TeamPathError('not-a-file', key, `team/${key} is not a regular file.`);
      return { data: await handle.readFile(), facts: factsOf(st) };
    } finally {
      await handle.close();
    }
  }

  /** Hash a file too large to push without holding it in memory (conflict detection still needs its hash). */
  private async hashLarge(team: TeamDir, key: string): Promise<{ sha: string; facts: FileFacts } | null> {
    const abs = await resolveTeamKey(team, key);
    let handle: fs.FileHandle;
    try {
      handle = await fs.open(abs, fsConstants.O_RDONLY | (fsConstants.O_NOFOLLOW ?? 0) | (fsConstants.O_NONBLOCK ?? 0));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    try {
      const st = await handle.stat();
      if (!st.isFile()) throw new TeamPathError('not-a-file', key, `team/${key} is not a regular file.`);
      const hash = createHash('sha256');
      const buffer = Buffer.alloc(1024 * 1024);
      let total = 0;
      for (;;) {
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
        if (bytesRead === 0) break;
        hash.update(buffer.subarray(0, bytesRead));
        total += bytesRead;
      }
      const sha = hash.digest('hex');
      const facts = factsOf(st);
      this.cache.hashed(key, facts, sha, total);
      this.cycleHashes.set(key, { facts, sha });
      this.dirty = true;
      return { sha, facts };
    } finally {
      await handle.close();
    }
  }

  private async write(team: TeamDir, key: string, content: string, sha: string): Promise<void> {
    // Checked here and again by safe-fs: a link planted between listing and writing is refused.
    await resolveTeamKey(team, key);
    await writeFileAtomic(this.memoryDir, `team/${key}`, content);
    // The bytes are known exactly: their hash is trusted against the stat after the rename.
    const st = await fs.lstat(path.join(team.teamDir, key));
    this.cache.remember(key, factsOf(st), sha);
    this.cycleHashes.set(key, { facts: factsOf(st), sha });
  }

  /** The stat facts of a team file now (null when it does not exist). */
  private async factsNow(team: TeamDir, key: string): Promise<FileFacts | null> {
    const st = await fs.lstat(await resolveTeamKey(team, key)).catch((error: unknown) => {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    });
    return st ? factsOf(st) : null;
  }

  // ------------------------------------------------------------------------------------------
  // Pull

  private setIn(map: Map<string, string>, key: string, sha: string | undefined): void {
    if (map.get(key) === sha) return;
    if (sha === undefined) map.delete(key);
    else map.set(key, sha);
    this.dirty = true;
  }

  private setServer(key: string, sha: string | undefined): void {
    this.setIn(this.server, key, sha);
  }

  private setBase(key: string, sha: string | undefined): void {
    this.setIn(this.base, key, sha);
  }

  private setEtag(etag: string): void {
    if (this.state.etag === etag) return;
    this.state.etag = etag;
    this.dirty = true;
  }

  /** Why a pulled entry's content must not be written, or null when it may. */
  private contentProblem(key: string, entry: PulledEntry): { reason: string; security: boolean } | null {
    if (typeof entry.content !== 'string' || entry.content.includes('\0') || LONE_SURROGATE.test(entry.content)) {
      return { reason: `Refused ${key}: its content is not text (null byte or broken Unicode).`, security: false };
    }
    if (utf8Length(entry.content) > this.maxEntryBytes) {
      return { reason: `Refused ${key}: ${utf8Length(entry.content)} bytes, more than the ${this.maxEntryBytes} a team memory may hold.`, security: false };
    }
    if (sha256Hex(entry.content) !== entry.sha256) {
      return { reason: `Refused ${key}: the server's checksum does not match the content it sent (corrupted, or not an honest server).`, security: true };
    }
    return null;
  }

  /** What the pull should do with one key, given the local hash now. */
  private decide(key: string, local: string | null, server: string): 'same' | 'keep-local' | 'write' | 'conflict' {
    const base = this.base.get(key);
    if (local === server) return 'same';
    if (local !== null && server === base) return 'keep-local';
    if (local === null || local === base) return 'write';
    return 'conflict';
  }

  /**
   * Pull: `conditional` (If-None-Match + since), `full` (everything, to restore deleted files)
   * or `delta` (since, after a 412: we know something moved). Returns whether files were written.
   */
  private async pull(cycle: Cycle, mode: 'conditional' | 'full' | 'delta', sent?: Promise<Conditional<EntriesResponse>>): Promise<boolean> {
    const etag = this.state.etag;
    const answer = await (sent ?? this.client.entries({ ifNoneMatch: mode === 'conditional' ? etag : null, since: mode === 'full' ? null : etag, signal: cycle.signal }));
    const at = this.now().toISOString();
    this.lastCheckAt = at;
    if (answer.status === 304) {
      cycle.report.pull.status ??= 304;
      return false;
    }
    cycle.report.pull.status = 200;
    const body = answer.body;
    cycle.report.pull.full ||= body.full;

    // Check every entry before anything is written.
    const accepted = new Map<string, PulledEntry>();
    const refused: { key: string; reason: string; security: boolean }[] = [];
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
      const problem = this.contentProblem(key, entry);
      if (problem) {
        refused.push({ key, ...problem });
        // The server holds a version this client did not take: a local file is not pushed over
        // it (server ≠ base), and it is not fetched again until the server's hash changes.
        this.setServer(key, entry.sha256);
        this.setIn(this.refused, key, entry.sha256);
        continue;
      }
      accepted.set(key, entry);
    }

    if (body.full) {
      // The server's whole state: keys it no longer has (a re-created database) are forgotten,
      // so the local files are pushed again rather than waiting for a pull that never comes.
      for (const map of [this.server, this.base, this.refused]) for (const key of [...map.keys()]) if (!Object.hasOwn(body.entries, key)) this.setIn(map, key, undefined);
    }
    for (const [key, entry] of accepted) {
      this.setServer(key, entry.sha256);
      this.setIn(this.refused, key, undefined);
    }

    // Decide each key, writing nothing yet.
    const plan: string[] = [];
    for (const [key, entry] of accepted) {
      let local: LocalInfo | null;
      try {
        local = await this.localInfo(cycle.team, key);
      } catch (error) {
        if (!(error instanceof TeamPathError)) throw error;
        refused.push({ key, reason: error.message, security: error.reason === 'symlink' || error.reason === 'outside' });
        continue;
      }
      const action = this.decide(key, local?.sha ?? null, entry.sha256);
      if (action === 'same') this.setBase(key, entry.sha256);
      else if (action === 'write' || action === 'conflict') {
        if (this.failedWrites.get(key) === entry.sha256) continue;
        plan.push(key);
      }
    }

    if (refused.length > 0) {
      cycle.report.pull.refused.push(...refused.map(({ key, reason }) => ({ key, reason })));
      const security = refused.filter((r) => r.security);
      const shown = refused.slice(0, 8).map((r) => r.reason).join(' ');
      await this.raise(this.topic('pull'), {
        kind: security.length > 0 ? 'security' : 'sync',
        title: security.length > 0 ? 'The sync server sent entries Memdir refused' : 'Some team entries were not written',
        message: `${refused.length} entr${refused.length === 1 ? 'y was' : 'ies were'} not written (nothing outside the team folder was touched). ${shown}${refused.length > 8 ? ' …' : ''}`,
      });
    }

    let wrote = false;
    if (plan.length > 0) wrote = await this.apply(cycle, plan, accepted);
    this.setEtag(answer.etag);
    cycle.report.version = body.version;
    if (this.state.lastPullAt !== at) {
      this.state.lastPullAt = at;
      this.dirty = true;
    }
    return wrote;
  }

  /** Write the planned keys, as one history entry (conflicts kept before their key is overwritten). */
  private async apply(cycle: Cycle, plan: string[], accepted: Map<string, PulledEntry>): Promise<boolean> {
    const summary = `Pull from team ${this.connection.team}: ${plan.length} file${plan.length === 1 ? '' : 's'}`;
    this.options.onWrite?.('before', plan);
    const written: string[] = [];
    try {
      await transact(this.memoryDir, { source: 'sync', summary, body: `Server: ${this.connection.server}\nKeys: ${plan.join(', ')}`, dataDir: this.options.dataDir }, async () => {
        // The snapshot transact just took holds every local version: conflicts point at it.
        let rev: Promise<string | null> | undefined;
        const snapshotRev = (): Promise<string | null> => (rev ??= listHistory(this.memoryDir, { dataDir: this.options.dataDir, limit: 1 }).then(([head]) => head?.rev ?? null, () => null));
        for (const key of plan) {
          if (cycle.signal?.aborted) throw new TeamSyncError('cancelled', 'The sync was cancelled.');
          if (await this.applyKey(cycle, key, accepted.get(key)!, snapshotRev)) written.push(key);
        }
      });
    } finally {
      cycle.report.pull.written.push(...written);
      if (written.length > 0) cycle.relist = true;
      this.options.onWrite?.('after', written);
    }
    return written.length > 0;
  }

  /**
   * Decide one key on its hash now and write it — unless the file changed between the decision
   * and the write (an editor saved it): then it is decided again, so a save is kept as a
   * conflict, never overwritten unseen. Whether it was written.
   */
  private async applyKey(cycle: Cycle, key: string, entry: PulledEntry, snapshotRev: () => Promise<string | null>): Promise<boolean> {
    for (let look = 0; look < 3; look++) {
      let local: LocalInfo | null;
      try {
        local = await this.localInfo(cycle.team, key);
      } catch (error) {
        if (!(error instanceof TeamPathError)) throw error;
        cycle.report.pull.refused.push({ key, reason: error.message });
        return false;
      }
      const action = this.decide(key, local?.sha ?? null, entry.sha256);
      if (action === 'same') this.setBase(key, entry.sha256);
      if (action === 'same' || action === 'keep-local') return false;
      if (action === 'conflict') {
        await this.keepConflict(cycle, key, local!, entry, await snapshotRev());
        // The conflict is on record before anything is overwritten.
        await this.persist();
      }
      await this.options.beforeWriteKey?.(key);
      if (!sameFacts(await this.factsNow(cycle.team, key), local?.facts ?? null)) continue;
      try {
        await this.write(cycle.team, key, entry.content, entry.sha256);
      } catch (error) {
        this.failedWrites.set(key, entry.sha256);
        cycle.report.pull.refused.push({ key, reason: `Could not write team/${key}: ${(error as Error).message}` });
        await this.raise(this.topic('write', `team/${key}`), { kind: error instanceof TeamPathError ? 'security' : 'sync', title: `team/${key} could not be updated`, message: (error as Error).message, file: `team/${key}` });
        return false;
      }
      this.failedWrites.delete(key);
      this.setBase(key, entry.sha256);
      return true;
    }
    // Saved again at every look: left alone (the local file is never overwritten while in use).
    this.failedWrites.set(key, entry.sha256);
    cycle.report.pull.refused.push({ key, reason: `team/${key} kept changing while the pull tried to update it; it was left as it is.` });
    return false;
  }

  private async keepConflict(cycle: Cycle, key: string, local: LocalInfo, entry: PulledEntry, rev: string | null): Promise<void> {
    const bytes = local.bytes ?? (await this.readConfined(cycle.team, key))?.data ?? Buffer.alloc(0);
    // Read now when the hash came from the cache: the record describes exactly the bytes it keeps.
    const localSha = local.bytes ? local.sha : sha256Hex(bytes);
    const id = `${this.now().toISOString().replace(/[-:.TZ]/g, '').slice(0, 14)}-${sha256Hex(`${key}\0${localSha}\0${entry.sha256}`).slice(0, 8)}`;
    if (this.state.conflicts.some((c) => c.id === id)) return;
    await this.stateFile.writeConflictBytes(id, bytes);
    let isText = true;
    try {
      strictUtf8.decode(bytes);
    } catch {
      isText = false;
    }
    const conflict: TeamConflict = {
      id,
      key,
      createdAt: this.now().toISOString(),
      localSha,
      localBytes: bytes.byteLength,
      localIsText: isText,
      serverSha: entry.sha256,
      baseSha: this.base.get(key) ?? null,
      serverUpdatedBy: entry.updatedBy,
      serverUpdatedAt: entry.updatedAt,
      localRev: rev,
      status: 'open',
      resolution: null,
      resolvedAt: null,
    };
    this.state.conflicts.push(conflict);
    this.dirty = true;
    cycle.report.pull.conflicts.push(key);
  }

  // ------------------------------------------------------------------------------------------
  // Push

  private waiting(cycle: Cycle, item: WaitingItem): void {
    cycle.report.waiting.push(item);
  }

  /** The delta to push now: key → content, for every local file that differs and may be pushed. */
  private async computeDelta(cycle: Cycle, opts: { dry: boolean }): Promise<Map<string, { content: string; sha: string; bytes: number }>> {
    if (cycle.relist) {
      cycle.team = await checkTeamDir(this.memoryDir);
      cycle.listing = this.list(cycle.team);
      cycle.relist = false;
    }
    cycle.report.waiting = [];
    const delta = new Map<string, { content: string; sha: string; bytes: number }>();
    const secretTopics = new Set<string>();
    const linkTopics = new Set<string>();
    for (const problem of cycle.listing.problems) {
      this.waiting(cycle, { key: problem.key, reason: problem.reason, detail: problem.detail });
      if (problem.reason === 'symlink' && !opts.dry) {
        const topic = this.topic('link', `team/${problem.key}`);
        linkTopics.add(topic);
        await this.raise(topic, {
          kind: 'security',
          title: 'A link in the team folder was refused',
          message: `team/${problem.key} is a symbolic link (to ${problem.target ?? '?'}). Memdir never follows links in the team folder: nothing was read or written through it, and it is not synced. Remove it or replace it with a real file.`,
          file: `team/${problem.key}`,
        });
      }
    }

    const { server: serverMap, base: baseMap } = this;
    for (const [key, file] of cycle.listing.files) {
      let sha = this.knownHash(key, file);
      // The common case, kept cheap: unchanged since it was last hashed, and in step with the server.
      if (sha !== null && sha === serverMap.get(key) && sha === baseMap.get(key)) continue;
      let bytes: Buffer | null = null;
      if (sha === null && file.size > this.maxEntryBytes) {
        this.waiting(cycle, { key, reason: 'too-large', detail: `team/${key} is ${file.size} bytes; a team memory may hold at most ${this.maxEntryBytes}. Shorten it or split it.` });
        continue;
      }
      if (sha === null) {
        let info: LocalInfo | null;
        try {
          info = await this.localInfo(cycle.team, key);
        } catch (error) {
          if (!(error instanceof TeamPathError)) throw error;
          this.waiting(cycle, { key, reason: error.reason === 'symlink' ? 'symlink' : 'not-a-file', detail: error.message });
          continue;
        }
        if (!info) continue;
        sha = info.sha;
        bytes = info.bytes;
      }
      const server = this.server.get(key);
      const base = this.base.get(key);
      if (sha === server) {
        this.setBase(key, sha);
        continue;
      }
      if (server !== undefined && server !== base) {
        this.waiting(cycle, { key, reason: 'server-moved', detail: `team/${key} changed on the server since this copy; the next pull brings it in (your version is kept as a conflict if it differs).` });
        continue;
      }
      const refusal = cycle.refusedByServer.get(key);
      if (refusal && refusal.sha === sha) {
        this.waiting(cycle, { key, reason: 'refused', detail: refusal.reason });
        continue;
      }
      if (file.size > this.maxEntryBytes) {
        this.waiting(cycle, { key, reason: 'too-large', detail: `team/${key} is ${file.size} bytes; a team memory may hold at most ${this.maxEntryBytes}. Shorten it or split it.` });
        continue;
      }
      if (!bytes) {
        let read: { data: Buffer; facts: FileFacts } | null;
        try {
          read = await this.readConfined(cycle.team, key);
        } catch (error) {
          if (!(error instanceof TeamPathError)) throw error;
          this.waiting(cycle, { key, reason: 'not-a-file', detail: error.message });
          continue;
        }
        if (!read) continue;
        bytes = read.data;
        // The hash must be of exactly the bytes that go up.
        sha = this.hashBytes(key, read.facts, read.data);
        if (sha === server) continue;
      }
      let content: string;
      try {
        content = strictUtf8.decode(bytes);
      } catch {
        this.waiting(cycle, { key, reason: 'not-utf8', detail: `team/${key} is not UTF-8 text, so it is not uploaded. Save it as UTF-8.` });
        continue;
      }
      if (content.includes('\0')) {
        this.waiting(cycle, { key, reason: 'binary', detail: `team/${key} contains null bytes (a binary file); team memory is text.` });
        continue;
      }
      const findings = await this.blockingFindings(key, sha, content);
      const topic = this.topic('secret', `team/${key}`);
      if (findings.length > 0) {
        secretTopics.add(topic);
        this.waiting(cycle, { key, reason: 'secret', detail: secretAlertMessage(`team/${key}`, findings) });
        if (!opts.dry) await this.raise(topic, { kind: 'secret', title: `A secret kept team/${key} from being shared`, message: secretAlertMessage(`team/${key}`, findings), file: `team/${key}`, findings });
        continue;
      }
      this.waiting(cycle, { key, reason: 'pending', detail: `team/${key} changed here and waits to be pushed.` });
      delta.set(key, { content, sha, bytes: bytes.byteLength });
    }
    if (!opts.dry && this.raised.size > 0) {
      for (const topic of [...this.raised]) {
        if (topic.startsWith(this.topic('secret', '')) && !secretTopics.has(topic)) await this.resolveTopic(topic, 'the file no longer holds a blocking secret');
        if (topic.startsWith(this.topic('link', '')) && !linkTopics.has(topic)) await this.resolveTopic(topic, 'the link is gone');
      }
    }
    return delta;
  }

  /** The findings in a file that keep it back: every one not allowed in this memory dir. */
  private async blockingFindings(key: string, sha: string, content: string): Promise<Finding[]> {
    let findings = this.scans.get(`${key}\0${sha}`);
    if (!findings) {
      findings = await scanText(content, { file: `team/${key}`, name: key });
      if (this.scans.size > 2_000) this.scans.clear();
      this.scans.set(`${key}\0${sha}`, findings);
    }
    const blocking: Finding[] = [];
    for (const f of findings) {
      if (!(await this.options.alerts?.isAllowed(this.memoryDir, f))) blocking.push({ ...f, file: `team/${key}` });
    }
    return blocking;
  }

  private backoff(attempt: number): number {
    const ceiling = Math.min(this.retry.maxMs, this.retry.baseMs * 2 ** Math.max(0, attempt - 1));
    return ceiling / 2 + Math.random() * (ceiling / 2);
  }

  /** After a 412: refetch the checksums; pull what moved (conflicts, if any); the caller recomputes. */
  private async refetch(cycle: Cycle): Promise<void> {
    const answer = await this.client.checksums({ signal: cycle.signal });
    if (answer.status === 304) return;
    const { checksums } = answer.body;
    const old = this.state.etag ? parseEtag(this.state.etag) : null;
    const now = parseEtag(answer.etag);
    const moved = Object.keys(checksums).filter((k) => this.server.get(k) !== checksums[k]);
    const gone = [...this.server.keys()].filter((k) => !Object.hasOwn(checksums, k));
    if (old && now && old.epoch !== now.epoch) {
      await this.pull(cycle, 'full');
    } else if (moved.length === 0 && gone.length === 0) {
      // Only the version moved (a no-op write): our map is exact at the new ETag.
      this.setEtag(answer.etag);
    } else {
      await this.pull(cycle, 'delta');
    }
  }

  /**
   * Push the delta in batches until it is empty. Rounds that upload or refuse keys make
   * progress and are not counted; rounds that get nowhere (412, 428) are, with backoff, up to
   * `retry.attempts`; an answer that makes no sense stops the push.
   */
  private async push(cycle: Cycle): Promise<void> {
    let failures = 0;
    const retryAfterBackoff = async (giveUp: TeamSyncError): Promise<void> => {
      if (++failures >= this.retry.attempts) throw giveUp;
      await sleep(this.backoff(failures), cycle.signal);
    };
    let delta: Map<string, { content: string; sha: string; bytes: number }> | null = null;
    for (;;) {
      if (cycle.signal?.aborted) throw new TeamSyncError('cancelled', 'The sync was cancelled.');
      // The delta is computed once, and again only after something moved (a 412, a refusal).
      delta ??= await this.computeDelta(cycle, { dry: false });
      if (delta.size === 0) return;
      if (!this.state.etag) {
        // Never pulled (or the state was reset): the push needs the version it is based on.
        await this.pull(cycle, 'full');
        if (!this.state.etag) throw new TeamSyncError('server', 'The sync server answered a full pull without a version to push against.');
        delta = null;
        continue;
      }
      const batch: Record<string, string> = {};
      const shas = new Map<string, string>();
      let bytes = 2;
      for (const [key, item] of delta) {
        const size = item.bytes + key.length + 16;
        if (shas.size > 0 && (shas.size >= this.batchKeys || bytes + size > this.batchBytes)) break;
        batch[key] = item.content;
        shas.set(key, item.sha);
        bytes += size;
      }
      cycle.report.push.attempts++;
      const outcome = await this.client.put(this.state.etag, batch, { signal: cycle.signal });
      if (outcome.ok) {
        for (const [key, sha] of shas) {
          this.setServer(key, sha);
          this.setBase(key, sha);
          delta.delete(key);
        }
        this.setEtag(outcome.body.etag);
        cycle.report.version = outcome.body.version;
        cycle.report.push.uploaded.push(...shas.keys());
        cycle.report.waiting = cycle.report.waiting.filter((w) => !(w.reason === 'pending' && shas.has(w.key)));
        this.state.lastPushAt = this.now().toISOString();
        this.dirty = true;
        continue;
      }
      delta = null;
      const { error } = outcome;
      if (outcome.status === 412) {
        cycle.report.push.stale++;
        await retryAfterBackoff(new TeamSyncError('stale', `The team memory kept changing while pushing (${cycle.report.push.stale} tries answered "412 stale"); your changes are kept and pushed at the next sync.`));
        await this.refetch(cycle);
        continue;
      }
      if (outcome.status === 428) {
        await retryAfterBackoff(new TeamSyncError('server', 'The sync server kept answering the push with "428 precondition required" although it carried If-Match; your changes are kept and pushed at the next sync.'));
        await this.pull(cycle, 'full');
        continue;
      }
      const refuse = (key: string, reason: string): void => {
        const sha = shas.get(key);
        if (sha) cycle.refusedByServer.set(key, { sha, reason });
      };
      if (outcome.status === 400 && error.keys && error.keys.length > 0) {
        const unknown = error.keys.filter((k) => !shas.has(k.key));
        if (unknown.length > 0) {
          throw new TeamSyncError('server', `The sync server refused keys this push did not carry (${unknown.slice(0, 3).map((k) => JSON.stringify(k.key.slice(0, 80))).join(', ')}); the push stopped. Your changes are kept.`);
        }
        for (const k of error.keys) refuse(k.key, `The server refused the key: ${k.reason}`);
        continue;
      }
      if ((outcome.status === 409 || outcome.status === 400 || (outcome.status === 413 && error.error === 'entry-too-large')) && error.key && shas.has(error.key)) {
        refuse(error.key, `The server refused team/${error.key}: ${error.message}`);
        continue;
      }
      if (outcome.status === 413 && (error.error === 'too-many-keys' || error.error === 'body-too-large') && shas.size > 1) {
        // Always smaller than the batch just refused, so this ends (at one key, refused for good).
        if (error.error === 'too-many-keys') this.batchKeys = Math.max(1, Math.min(Math.floor(shas.size / 2), error.limit ?? shas.size));
        else this.batchBytes = Math.max(1, Math.min(Math.floor(bytes / 2), error.limit ?? bytes));
        continue;
      }
      throw new TeamSyncError(error.error === 'team-full' ? 'team-full' : 'server', `The server refused the push: ${error.message}`);
    }
  }

  // ------------------------------------------------------------------------------------------
  // The sync

  private async persist(): Promise<void> {
    if (this.dirty) {
      this.state.server = Object.fromEntries(this.server);
      this.state.base = Object.fromEntries(this.base);
      this.state.refused = Object.fromEntries(this.refused);
      await this.stateFile.save(this.state);
      this.dirty = false;
    }
    await this.cache.save();
  }

  private asSyncError(error: unknown): SyncError {
    const at = this.now().toISOString();
    if (error instanceof TeamClientError || error instanceof TeamSyncError) return { code: error.code, message: error.message, at };
    if (error instanceof TeamPathError) return { code: 'unsafe-team-dir', message: error.message, at };
    const message = error instanceof Error ? error.message.split('\n')[0]! : String(error);
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
    const started = performance.now();
    this.running = true;
    this.cache.resetCounters();
    this.cycleHashes.clear();
    this.currentRequests = 0;
    const report = emptyReport();
    try {
      if (opts.signal.aborted) throw new TeamSyncError('cancelled', 'The sync was cancelled.');
      // The conditional GET goes out first and travels while the folder is checked and listed
      // (disk and network overlap); whether a full pull is needed is only known from the listing.
      const etag = this.state.etag;
      const conditional = opts.pull !== false && etag ? this.client.entries({ ifNoneMatch: etag, since: etag, signal: opts.signal }) : null;
      conditional?.catch(() => undefined);
      await this.loadTopics();
      let team: TeamDir;
      try {
        team = await checkTeamDir(this.memoryDir);
      } catch (error) {
        if (error instanceof TeamPathError) await this.raise(this.topic('teamdir'), { kind: 'security', title: 'Team sync stopped: the team folder is unsafe', message: error.message, file: 'team' });
        throw error;
      }
      await this.resolveTopic(this.topic('teamdir'), 'the team folder is a real folder again');
      // Let the request reach the socket before the (synchronous) listing holds the thread.
      if (conditional) for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
      const cycle: Cycle = { report, team, listing: this.list(team), relist: false, signal: opts.signal, refusedByServer: new Map() };
      if (opts.pull !== false) {
        // A file deleted here comes back (R-SYNC: deletions do not propagate): only a full answer has it.
        const problems = new Set(cycle.listing.problems.map((p) => p.key));
        // (Every key in the map passed sanitizePathKey when its entry was accepted.) A key whose
        // content was refused or whose write failed is not missing: fetching it again changes nothing.
        let missing = false;
        for (const [key, sha] of this.server) {
          if (!cycle.listing.inStep.has(key) && !cycle.listing.files.has(key) && !problems.has(key) && this.failedWrites.get(key) !== sha && this.refused.get(key) !== sha) {
            missing = true;
            break;
          }
        }
        if (conditional) await this.pull(cycle, 'conditional', conditional);
        if (missing || !conditional) await this.pull(cycle, 'full');
      }
      if (opts.push !== false) await this.push(cycle);
      else await this.computeDelta(cycle, { dry: true });
      this.lastFiles = cycle.listing.files.size + cycle.listing.inStep.size;
      if (!report.pull.refused.length && this.refused.size === 0) await this.resolveTopic(this.topic('pull'), 'the next pull was clean');
      await this.resolveTopic(this.topic('sync'), 'the next sync worked');
      this.lastError = null;
    } catch (error) {
      report.error = this.asSyncError(error);
      this.lastError = report.error;
      this.retryAfterSeconds = error instanceof TeamClientError ? error.retryAfterSeconds : null;
      if (ALERTED_ERRORS.has(report.error.code)) {
        await this.raise(this.topic('sync'), { kind: report.error.code === 'unsafe-team-dir' ? 'security' : 'sync', title: `Team sync of ${this.options.dir ?? this.connection.dir ?? this.memoryDir} needs you`, message: report.error.message });
      }
    } finally {
      this.running = false;
      report.bytesHashed = this.cache.bytesHashed;
      report.filesHashed = this.cache.filesHashed;
      report.etag = this.state.etag;
      report.version ??= this.state.etag ? (parseEtag(this.state.etag)?.version ?? null) : null;
      report.push.requests = this.currentRequests;
      report.durationMs = Math.round((performance.now() - started) * 10) / 10;
      this.lastReport = report;
      try {
        await this.persist();
      } catch (error) {
        report.error ??= this.asSyncError(error);
      }
    }
    return report;
  }

  // ------------------------------------------------------------------------------------------
  // Status and conflicts

  /** What the status view needs, from memory (and a local look when no sync ran yet). */
  async inspect(): Promise<{ files: number; waiting: WaitingItem[]; conflicts: TeamConflict[]; resolved: TeamConflict[]; lastPullAt: string | null; lastPushAt: string | null; version: number | null }> {
    const snapshot = (files: number, waiting: WaitingItem[]) => ({
      files,
      waiting,
      conflicts: this.state.conflicts.filter((c) => c.status === 'open'),
      resolved: this.state.conflicts.filter((c) => c.status === 'resolved').slice(-10).reverse(),
      lastPullAt: this.state.lastPullAt,
      lastPushAt: this.state.lastPushAt,
      version: this.state.etag ? (parseEtag(this.state.etag)?.version ?? null) : null,
    });
    // A sync is running: answer from memory rather than wait for it (the view shows "syncing").
    if (this.running) return snapshot(this.lastFiles, this.lastReport?.waiting ?? []);
    return this.exclusive(async () => {
      this.cycleHashes.clear();
      let files = 0;
      let waiting = this.lastReport?.waiting ?? null;
      try {
        const team = await checkTeamDir(this.memoryDir);
        const listing = this.list(team);
        files = listing.files.size + listing.inStep.size;
        this.lastFiles = files;
        if (!waiting) {
          const cycle: Cycle = { report: emptyReport(), team, listing, relist: false, refusedByServer: new Map() };
          await this.computeDelta(cycle, { dry: true });
          waiting = cycle.report.waiting;
          await this.persist();
        }
      } catch (error) {
        waiting ??= [{ key: 'team', reason: 'symlink', detail: (error as Error).message }];
      }
      return snapshot(files, waiting);
    });
  }

  /** Both sides of a conflict. */
  async conflictDetail(id: string): Promise<{ conflict: TeamConflict; mine: string; theirs: string; theirsSha: string | null }> {
    return this.exclusive(async () => {
      const conflict = this.state.conflicts.find((c) => c.id === id);
      if (!conflict) throw new TeamSyncError('not-found', 'There is no such conflict (it may have been resolved).');
      const mine = await this.stateFile.readConflictBytes(conflict);
      const team = await checkTeamDir(this.memoryDir);
      const current = await this.readConfined(team, conflict.key);
      return {
        conflict,
        mine: mine ? lenientUtf8.decode(mine) : '',
        theirs: current ? lenientUtf8.decode(current.data) : '',
        theirsSha: current ? sha256Hex(current.data) : null,
      };
    });
  }

  /**
   * Resolve a conflict. `server`: keep what the pull wrote. `mine` / `merge`: write that text
   * over the server's version (history entry `sync`) and push it — based on the server version
   * this client has seen, so a newer one on the server makes it a conflict again, never a loss.
   */
  async resolve(id: string, take: 'server' | 'mine' | 'merge', opts: { text?: string; theirsSha?: string | null } = {}): Promise<{ conflict: TeamConflict; rev: string | null; report: SyncReport | null }> {
    const done = await this.exclusive(async () => {
      const conflict = this.state.conflicts.find((c) => c.id === id);
      if (!conflict) throw new TeamSyncError('not-found', 'There is no such conflict (it may have been resolved).');
      if (conflict.status === 'resolved') throw new TeamSyncError('conflict', `This conflict was already resolved (${conflict.resolution}).`);
      let rev: string | null = null;
      if (take !== 'server') {
        let bytes: Buffer;
        if (take === 'mine') {
          const kept = await this.stateFile.readConflictBytes(conflict);
          if (!kept) throw new TeamSyncError('not-found', 'The kept local version is missing from Memdir\'s data folder; restore it from history instead.');
          bytes = kept;
        } else {
          if (opts.text === undefined) throw new TeamSyncError('invalid-input', 'A merge needs the merged text.');
          bytes = Buffer.from(opts.text, 'utf8');
        }
        const team = await checkTeamDir(this.memoryDir);
        const current = await this.readConfined(team, conflict.key);
        const currentSha = current ? sha256Hex(current.data) : null;
        if (opts.theirsSha !== undefined && opts.theirsSha !== currentSha) {
          throw new TeamSyncError('conflict', `team/${conflict.key} changed since the conflict was opened; look at it again before choosing.`);
        }
        const sha = sha256Hex(bytes);
        const summary = `Resolve the conflict on team/${conflict.key}: ${take === 'mine' ? 'took my version' : 'merged both versions'}`;
        this.options.onWrite?.('before', [conflict.key]);
        const { entry } = await transact(this.memoryDir, { source: 'sync', summary, dataDir: this.options.dataDir }, async () => {
          await resolveTeamKey(team, conflict.key);
          await writeFileAtomic(this.memoryDir, `team/${conflict.key}`, bytes);
          const st = await fs.lstat(path.join(team.teamDir, conflict.key));
          this.cache.remember(conflict.key, factsOf(st), sha);
        });
        this.options.onWrite?.('after', [conflict.key]);
        rev = entry?.rev ?? null;
        // The server's version is seen and chosen against: what is on disk is an edit on top of it.
        const seen = this.server.get(conflict.key) ?? conflict.serverSha;
        this.setBase(conflict.key, seen);
      }
      Object.assign(conflict, { status: 'resolved', resolution: take, resolvedAt: this.now().toISOString() });
      this.dirty = true;
      await this.persist();
      return { conflict: { ...conflict }, rev };
    });
    const report = take === 'server' ? null : await this.sync();
    return { ...done, report };
  }
}

/** Who is acting, for "allowed by" records. */
export function currentUser(): string {
  try {
    return os.userInfo().username || 'unknown';
  } catch {
    return 'unknown';
  }
}
