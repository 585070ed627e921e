/**
 * The state of one team sync client while it runs (`TeamSync` in ../team-sync.ts is its front
 * door): the sync state as maps, the hash cache, the alerts it raised, and the reads of local
 * team files. Pull, push and conflicts (beside this file) work on it; nothing outside the team
 * folder imports it.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { SyncReport, WaitingItem } from '../../../shared/contract/team.js';
import { TOPIC_MAX_BYTES } from '../../../shared/limits.js';
import type { Finding } from '../../../shared/secret-types.js';
import { parseEtag } from '../../../shared/protocol/sync.js';
import type { FileFacts } from '../../memdir/index.js';
import type { AlertCenter } from '../alert-center.js';
import { type TeamConnection, connectionDir } from '../connections.js';
import { HashCache, sameFacts } from '../hash-cache.js';
import { type SpaceClient, type RequestRecord, TeamClient, type TeamClientErrorCode } from '../team-client.js';
import { type SyncSpace, TEAM_SPACE, spaceRel } from '../sync-space.js';
import { type LocalListing, type TeamDir, type TeamFile, listTeamFiles } from '../team-paths.js';
import { BaseStore, type SyncState, StateFile } from '../sync-state.js';
import { MemdirError } from '../../../shared/errors.js';

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
  /** Most entries one pull answer may carry (default 20,000, what a team may hold on the server by default). */
  maxPullEntries?: number;
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
  /** Speak only this protocol (1: the team-wide If-Match of older clients; default: 2, falling back to 1 for a server that only speaks 1). */
  protocol?: 1 | 2;
  /** What is synced (default: the team folder). */
  space?: SyncSpace;
  /**
   * The server, wrapped (personal sync: the encrypting client) around the HTTP client the engine
   * builds for the space — with this sync's fetch, timeout, read limits (`maxResponseBytes`,
   * `maxPullEntries`) and request observer, so every space's reads are bounded the same way and
   * the report counts its requests; default that HTTP client itself.
   */
  client?: (http: TeamClient) => SpaceClient;
}

/** A sync that could not go on, with a sentence for the user. */
export class TeamSyncError extends MemdirError<TeamSyncErrorCode> {
  override readonly name = 'TeamSyncError';
}

/** Why a sync stopped: a request's failure as the client saw it, or the engine's own refusals. */
export type TeamSyncErrorCode = TeamClientErrorCode | 'busy' | 'conflict' | 'invalid-input' | 'stale' | 'team-full' | 'key-mismatch';

const DEFAULT_RETRY: RetryPolicy = { attempts: 6, baseMs: 100, maxMs: 3_000 };

export function emptyReport(): SyncReport {
  return {
    pull: { status: null, full: false, written: [], merged: [], conflicts: [], refused: [], wentBack: null },
    push: { uploaded: [], confirmed: [], attempts: 0, stale: 0, requests: 0 },
    waiting: [],
    bytesHashed: 0,
    filesHashed: 0,
    version: null,
    etag: null,
    error: null,
    durationMs: 0,
  };
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });
}

export interface LocalInfo {
  sha: string;
  facts: FileFacts;
  /** The file's bytes, when they had to be read (a cache miss) and are small enough to keep. */
  bytes: Buffer | null;
}

export interface PulledEntry {
  content: string;
  sha256: string;
  updatedAt: string;
  updatedBy: string;
}

/** Mutable context of one sync. */
export interface Cycle {
  report: SyncReport;
  team: TeamDir;
  listing: LocalListing;
  /** The listing must be taken again (a pull wrote files). */
  relist: boolean;
  signal?: AbortSignal | undefined;
  /** Keys the server refused in this sync, with the content hash it refused. */
  refusedByServer: Map<string, { sha: string; reason: string }>;
  /** The server moved past this client's ETag during the push (others' commits): pull before the sync ends. */
  behind?: boolean;
  /**
   * After a pull answered with an older version than this client had seen (pull.ts): the version
   * the server's checksums showed when they were older too (it went back), or null (a replay).
   */
  serverAt?: string | null;
  /**
   * The server's ETag when its checksums showed it no longer holds what this client pushed, at the
   * version this client had pulled (a restored backup numbered up again by others, pull.ts
   * `verifyPushed`): the full pull that follows takes the went-back path.
   */
  lostAt?: string;
  /**
   * What keeps a file back in this sync, by key and content hash (delta.ts's blockingFindings):
   * a push computes its delta again after every pull or refusal, and asks the allowed list once.
   */
  blocking?: Map<string, Finding[]>;
  /** The waiting list's item of each file waiting to be pushed, by its key (the item names it masked: delta.ts). */
  pending?: Map<string, WaitingItem>;
}

export type AlertInput = { kind: 'secret' | 'sync' | 'security' | 'error'; title: string; message: string; file?: string | null; findings?: Finding[] };

/** See the file comment. */
export class SyncEngine {
  readonly connection: TeamConnection;
  readonly stateFile: StateFile;
  state!: SyncState;
  /** `state.server` and `state.base` as maps while in memory (thousands of look-ups per sync). */
  server = new Map<string, string>();
  base = new Map<string, string>();
  /** `state.refused`: entries refused for their content, by the server hash refused. */
  refused = new Map<string, string>();
  cache!: HashCache;
  dirty = false;
  readonly client: SpaceClient;
  readonly space: SyncSpace;
  readonly retry: RetryPolicy;
  readonly maxEntryBytes: number;
  batchKeys: number;
  batchBytes: number;
  /** Findings per key and content hash: a file kept back is not scanned again until it changes. */
  readonly scans = new Map<string, Finding[]>();
  /** Hashes computed during the current sync: trusted for its duration even when racily clean. */
  readonly cycleHashes = new Map<string, { facts: FileFacts; sha: string }>();
  /** Keys whose restore failed, by the server hash that failed: not retried in a loop. */
  readonly failedWrites = new Map<string, string>();
  /** Alert topics this client raised and has not seen resolved. */
  readonly raised = new Set<string>();
  topicsLoaded = false;
  lastCheckAt: string | null = null;
  currentRequests = 0;
  /** The protocol in use: 2 unless the options say 1 or the server turned out to speak only 1. */
  protocol: 1 | 2;
  /** The content of base versions, for three-way merges. */
  readonly bases: BaseStore;

  constructor(readonly options: TeamSyncOptions) {
    this.connection = options.connection;
    this.space = options.space ?? TEAM_SPACE;
    this.stateFile = new StateFile(connectionDir(options.dataDir, options.connection.id, this.space.dataFolder));
    const onRequest = (r: RequestRecord): void => {
      this.currentRequests++;
      options.onRequest?.(r);
    };
    const http = new TeamClient({
      server: options.connection.server,
      team: options.connection.team,
      scope: this.space.kind,
      token: options.token,
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.maxResponseBytes ? { maxResponseBytes: options.maxResponseBytes } : {}),
      ...(options.maxPullEntries ? { maxEntries: options.maxPullEntries } : {}),
      onRequest,
    });
    this.client = options.client?.(http) ?? http;
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.maxEntryBytes = options.maxEntryBytes ?? TOPIC_MAX_BYTES;
    this.batchKeys = options.batch?.maxKeys ?? 400;
    this.batchBytes = options.batch?.maxBytes ?? 6 * 1024 * 1024;
    this.protocol = options.protocol ?? 2;
    this.bases = new BaseStore(this.stateFile.dir);
  }

  async reload(): Promise<void> {
    this.state = await this.stateFile.load();
    this.server = new Map(Object.entries(this.state.server));
    this.base = new Map(Object.entries(this.state.base));
    this.refused = new Map(Object.entries(this.state.refused));
    this.cache = await HashCache.load(path.join(this.stateFile.dir, 'hash-cache.json'));
    this.dirty = false;
  }

  get memoryDir(): string {
    return this.connection.memoryDir;
  }

  now(): Date {
    return this.options.now?.() ?? new Date();
  }

  // ------------------------------------------------------------------------------------------
  // Alerts

  /** An alert topic of this engine (a personal engine's never meet a team engine's of the same project). */
  topic(kind: string, file?: string): string {
    return `${this.space.kind === 'team' ? '' : `${this.space.kind}-`}${kind}:${this.memoryDir}${file ? `:${file}` : ''}`;
  }

  /** A key as shown to people and in history: its path relative to the memory dir. */
  rel(key: string): string {
    return spaceRel(this.space, key);
  }

  async raise(topic: string, input: AlertInput): Promise<void> {
    this.raised.add(topic);
    await this.options.alerts?.raise({ topic, dir: this.options.dir ?? this.connection.dir, memoryDir: this.memoryDir, ...input }).catch(() => undefined);
  }

  async resolveTopic(topic: string, resolution: string): Promise<void> {
    if (!this.raised.has(topic)) return;
    this.raised.delete(topic);
    await this.options.alerts?.resolve(topic, resolution).catch(() => undefined);
  }

  /** Learn which alerts of this project are still up (once), so they are resolved when their cause goes. */
  async loadTopics(): Promise<void> {
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
  // State

  setIn(map: Map<string, string>, key: string, sha: string | undefined): void {
    if (map.get(key) === sha) return;
    if (sha === undefined) map.delete(key);
    else map.set(key, sha);
    this.dirty = true;
  }

  setServer(key: string, sha: string | undefined): void {
    this.setIn(this.server, key, sha);
  }

  setBase(key: string, sha: string | undefined): void {
    this.setIn(this.base, key, sha);
  }

  /** A key this client pushed: remembered until a pull sees the server hold it (pull.ts `verifyPushed`). */
  notePushed(key: string, sha: string): void {
    if (this.state.pushed[key] === sha) return;
    this.state.pushed = { ...this.state.pushed, [key]: sha };
    this.dirty = true;
  }

  /** Remember the newest team version seen (see sync-state.ts `seen`). */
  sawEtag(etag: string): void {
    const now = parseEtag(etag);
    const seen = this.state.seen ? parseEtag(this.state.seen) : null;
    if (!now || (seen && seen.epoch === now.epoch && seen.version >= now.version)) return;
    this.state.seen = etag;
    this.dirty = true;
  }

  /**
   * Whether an answer at `etag` is older than a version this client has already seen: a replayed
   * or reordered duplicate, or a server that went back (pull.ts asks the server for its checksums, on another route, to tell them apart).
   */
  isStale(etag: string): { told: number; known: number } | null {
    const told = parseEtag(etag);
    if (!told) return null;
    let known = -1;
    for (const tag of [this.state.etag, this.state.seen]) {
      const t = tag ? parseEtag(tag) : null;
      if (t && t.epoch === told.epoch) known = Math.max(known, t.version);
    }
    return told.version < known ? { told: told.version, known } : null;
  }

  /** Forget the versions seen past `etag`: the server went back to it (pull.ts), so it is the newest there is. */
  wentBackTo(etag: string): void {
    this.state.seen = etag;
    this.state.etag = etag;
    this.dirty = true;
  }

  setEtag(etag: string): void {
    this.sawEtag(etag);
    if (this.state.etag === etag) return;
    this.state.etag = etag;
    this.dirty = true;
  }

  private lastPrune = 0;

  /** Drop base contents no key names any more (after syncs that moved something; at most every 10 minutes). */
  async pruneBases(): Promise<void> {
    // Until the server is seen holding this client's pushes, the versions they replaced are kept:
    // a server restored to them is then known to be older, and what it lost goes up again (pull.ts rebase).
    if (Object.keys(this.state.pushed).length > 0) return;
    if (Date.now() - this.lastPrune < 10 * 60_000) return;
    this.lastPrune = Date.now();
    const keep = new Set([...this.base.values(), ...Object.values(this.state.lostPush?.entries ?? {})]);
    // A conflict's base and the team's side it stands against: shown while it is open, and again when the Undo of its
    // resolution opens it (review s45-7 #3, s45-9 #2).
    for (const c of this.state.conflicts) {
      if (c.status !== 'open' && !c.resolvedRev) continue;
      if (c.baseSha) keep.add(c.baseSha);
      if (c.serverSha) keep.add(c.serverSha);
    }
    await this.bases.prune(keep);
  }

  async persist(): Promise<void> {
    if (this.dirty) {
      this.state.server = Object.fromEntries(this.server);
      this.state.base = Object.fromEntries(this.base);
      this.state.refused = Object.fromEntries(this.refused);
      await this.stateFile.save(this.state);
      this.dirty = false;
    }
    await this.cache.save();
  }

  // ------------------------------------------------------------------------------------------
  // Local files

  /** The team folder now; files known to be unchanged and in step are only counted (see listTeamFiles). */
  list(team: TeamDir): LocalListing {
    const { server, base } = this;
    return listTeamFiles(team, (key, facts) => {
      const sha = this.knownHash(key, facts);
      return sha !== null && sha === server.get(key) && sha === base.get(key);
    });
  }

  /** The known hash of a file at these facts: this sync's own, else the cache's. */
  knownHash(key: string, facts: FileFacts): string | null {
    const mine = this.cycleHashes.get(key);
    if (mine && sameFacts(mine.facts, facts)) return mine.sha;
    return this.cache.lookup(key, facts);
  }

  hashBytes(key: string, facts: FileFacts, bytes: Uint8Array): string {
    // The cache compares file times with the machine's clock, never with the `now` option.
    const sha = this.cache.hash(key, facts, bytes);
    this.cycleHashes.set(key, { facts, sha });
    this.dirty = true;
    return sha;
  }

  /**
   * The hash of a team file now, or null when it does not exist. Reads only when the stat
   * facts are new; small files' bytes are kept for the push. Throws TeamPathError for a link,
   * a swap, a hard link, a folder in the way.
   */
  async localInfo(file: TeamFile): Promise<LocalInfo | null> {
    const facts = await file.facts();
    if (!facts) return null;
    const cached = this.knownHash(file.key, facts);
    if (cached) return { sha: cached, facts, bytes: null };
    if (facts.size > this.maxEntryBytes) {
      const hashed = await this.hashLarge(file);
      return hashed ? { sha: hashed.sha, facts: hashed.facts, bytes: null } : null;
    }
    const bytes = await file.read();
    if (!bytes) return null;
    return {
      sha: this.hashBytes(file.key, bytes.facts, bytes.data),
      facts: bytes.facts,
      bytes: bytes.data.byteLength <= this.maxEntryBytes ? bytes.data : null,
    };
  }

  /** Hash a file too large to push without holding it in memory (conflict detection still needs its hash). */
  async hashLarge(file: TeamFile): Promise<{ sha: string; facts: FileFacts } | null> {
    const opened = await file.open();
    if (!opened) return null;
    const { handle, facts } = opened;
    try {
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
      this.cache.hashed(file.key, facts, sha, total);
      this.cycleHashes.set(file.key, { facts, sha });
      this.dirty = true;
      return { sha, facts };
    } finally {
      await handle.close();
    }
  }

  /** Write `content` (whose hash is `sha`) to a synced file; the cache learns it. */
  async write(file: TeamFile, content: string | Uint8Array, sha: string): Promise<void> {
    const facts = await file.write(content);
    // The bytes are known exactly: their hash is trusted against the stat after the rename.
    this.cache.remember(file.key, facts, sha);
    this.cycleHashes.set(file.key, { facts, sha });
  }
}
