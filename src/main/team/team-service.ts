/**
 * Team sync in the running app: one `TeamSync` per connected project, driven by
 *   - the memory watcher (its `projects-changed` events: one source of truth for "a file
 *     changed") → a debounced sync, so an edit reaches the team within seconds — when the
 *     team folder really differs from how the last sync left it (see `teamChanged`);
 *   - a timer → a periodic pull (every connection's `pullIntervalSec`), backing off after
 *     failures (and honouring Retry-After);
 * plus the Team sync view's calls (status, connect, sync now, conflicts, move) and the Alerts
 * view's (redact, allow). Started only with `watch: true` (AppContext), like dreams; the calls
 * work without it (unit tests), and the CLI uses TeamSync directly.
 */
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { AlertRecord, AllowedSecret } from '../../shared/contract/alerts.js';
import type { AppEvent } from '../../shared/contract/events.js';
import type { ConflictDetail, ConflictResolution, SyncReport, SyncStateName, TeamOverviewRow, TeamStatus } from '../../shared/contract/team.js';
import { TEAM_DIR } from '../../shared/limits.js';
import { type Scope, defaultScope, scopeRefusal } from '../../shared/memory-types.js';
import type { ProjectScan } from '../../shared/scan-types.js';
import type { EventBus } from '../app/event-bus.js';
import { transact } from '../history/history.js';
import { resolveInside, writeFileAtomic } from '../memdir/safe-fs.js';
import { redactFinding, scanText } from '../secrets/scanner.js';
import type { CredentialStore } from '../settings/credentials.js';
import { AlertCenter, AlertError } from './alert-center.js';
import { ConnectionStore, type TeamConnection, TeamConfigError, checkServerUrl, checkTeamName, readToken, tokenCredentialName, tokenIdOf } from './connections.js';
import { moveMemoryScope, privateMoveRefusals } from './move-scope.js';
import { TeamClient } from './team-client.js';
import { checkTeamDir, listTeamFiles, resolveTeamKey } from './team-paths.js';
import { type RetryPolicy, TeamSync, TeamSyncError, currentUser } from './team-sync.js';

/** What the app gives (AppContext satisfies it). */
export interface TeamHost {
  readonly dataDir: string;
  readonly env: NodeJS.ProcessEnv;
  readonly events: EventBus;
  readonly credentials: CredentialStore;
  /** A project of the current home by directory name (throws a not-found RpcError). */
  project(dir: string): Promise<ProjectScan>;
  /** Memdir wrote into a project's memory: forget caches, tell the renderer. */
  changed(dir: string, memoryDir: string): void;
}

export interface TeamServiceOptions {
  fetch?: typeof fetch;
  retry?: Partial<RetryPolicy>;
  /** Delay between a file change and its sync (default 1.5 s: edits come in bursts). */
  debounceMs?: number;
  /** How often due syncs are looked for (default 5 s). */
  tickMs?: number;
}

interface Running {
  connection: TeamConnection;
  sync: TeamSync;
  nextAt: number;
  failures: number;
  /** Replaced or closed: it starts nothing more. */
  retired: boolean;
  /** This engine's calls still going (a replaced engine is waited for). */
  work: Set<Promise<unknown>>;
  /** The team folder as this engine's last sync left it (null before the first): see `teamChanged`. */
  seen: Map<string, string> | null;
}

/**
 * A project's engine, put in the map before anything is awaited, so calls that arrive together
 * (the first tick, a debounced sync, the Team sync view, the dashboard) share one `TeamSync`.
 */
interface Engine {
  connection: TeamConnection;
  ready: Promise<Running | null>;
  retired: boolean;
}

/** Same server, team and token: the same engine goes on. */
function sameTarget(a: TeamConnection, b: TeamConnection): boolean {
  return a.server === b.server && a.team === b.team && a.tokenId === b.tokenId;
}

/** A file's stat facts as one string: any write changes it. */
function factsText(st: { size: number; mtimeMs: number; ctimeMs: number; ino: number }): string {
  return `${st.size}:${st.mtimeMs}:${st.ctimeMs}:${st.ino}`;
}

/** The team folder now, key → stat facts (links and other problems included), or null when it cannot be listed. */
async function teamFolderFacts(memoryDir: string): Promise<Map<string, string> | null> {
  try {
    const listing = listTeamFiles(await checkTeamDir(memoryDir));
    const facts = new Map([...listing.files.values()].map((f) => [f.key, factsText(f)]));
    for (const p of listing.problems) facts.set(p.key, `${p.reason}:${p.target ?? ''}`);
    return facts;
  } catch {
    return null;
  }
}

function sameFolder(a: Map<string, string>, b: Map<string, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [key, facts] of a) if (b.get(key) !== facts) return false;
  return true;
}

/** See the file comment. */
export class TeamService {
  readonly alerts: AlertCenter;
  readonly connections: ConnectionStore;
  private readonly engines = new Map<string, Engine>();
  private readonly debounces = new Map<string, NodeJS.Timeout>();
  private ticker: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private readonly inFlight = new Set<Promise<unknown>>();
  private closed = false;

  constructor(
    private readonly host: TeamHost,
    private readonly options: TeamServiceOptions = {},
  ) {
    this.alerts = new AlertCenter(host.dataDir, (event: AppEvent) => host.events.publish(event));
    this.connections = new ConnectionStore(host.dataDir);
  }

  // ------------------------------------------------------------------------------------------
  // Engines

  /** The engine of a connection (null: no token here, or the connection was replaced or closed). */
  private engine(connection: TeamConnection): Promise<Running | null> {
    const current = this.engines.get(connection.id);
    if (current) {
      // A connection read before a reconnect or disconnect is stale: it never replaces a newer engine.
      const stale = connection.connectedAt <= current.connection.connectedAt;
      if (stale || (!current.retired && sameTarget(current.connection, connection))) {
        if (!stale) current.connection = connection;
        const latest = current.connection;
        return current.ready.then((running) => {
          if (!running || running.retired) return null;
          running.connection = latest;
          return running;
        });
      }
    }
    const entry: Engine = { connection, ready: this.open(connection, current), retired: false };
    this.engines.set(connection.id, entry);
    // One that could not open (no token yet, unreadable state) is tried again at the next call.
    const forget = (): void => {
      if (this.engines.get(connection.id) === entry) this.engines.delete(connection.id);
    };
    entry.ready.then((running) => running ?? forget(), forget);
    return entry.ready;
  }

  private async open(connection: TeamConnection, previous: Engine | undefined): Promise<Running | null> {
    // The engine replaced stops first: two engines of one project would contend for its state.
    if (previous) await this.retire(previous);
    const token = await readToken(connection, this.host.credentials, {});
    if (!token || this.closed) return null;
    const dir = connection.dir;
    let running: Running | null = null;
    const sync = await TeamSync.open({
      connection,
      token,
      dataDir: this.host.dataDir,
      dir,
      alerts: this.alerts,
      ...(this.options.fetch ? { fetch: this.options.fetch } : {}),
      ...(this.options.retry ? { retry: this.options.retry } : {}),
      onWrite: (phase, keys) => {
        if (dir && keys.length > 0) this.host.changed(dir, connection.memoryDir);
        // Memdir's own writes are part of how the sync left the folder, not a change to sync.
        if (phase === 'after' && running?.seen) {
          for (const key of keys) {
            const st = fsSync.lstatSync(path.join(connection.memoryDir, TEAM_DIR, key), { throwIfNoEntry: false });
            if (st) running.seen.set(key, factsText(st));
          }
        }
      },
    });
    running = { connection, sync, nextAt: Date.now(), failures: 0, retired: false, work: new Set(), seen: null };
    return running;
  }

  /** Stop an engine for good: cancel what it is doing (its requests too) and wait until it has stopped. */
  private async retire(entry: Engine): Promise<void> {
    entry.retired = true;
    const running = await entry.ready.catch(() => null);
    if (!running) return;
    running.retired = true;
    running.sync.abort();
    await Promise.allSettled([...running.work]);
  }

  /** Retire a connection's engine, if any; it stays in the map so stale calls for that connection get nothing. */
  private async stop(id: string): Promise<void> {
    clearTimeout(this.debounces.get(id));
    const entry = this.engines.get(id);
    if (entry) await this.retire(entry);
  }

  /** A connect or disconnect failed after `stop`: the connection still on file gets an engine at its next use. */
  private reopenLater(connection: TeamConnection | null): void {
    if (connection && this.engines.get(connection.id)?.retired) this.engines.delete(connection.id);
  }

  private async connectionOf(dir: string): Promise<{ project: ProjectScan; connection: TeamConnection | null }> {
    const project = await this.host.project(dir);
    const connection = await this.connections.forMemoryDir(project.memoryDir);
    return { project, connection };
  }

  private async requireEngine(dir: string): Promise<{ project: ProjectScan; running: Running }> {
    const { project, connection } = await this.connectionOf(dir);
    if (!connection) throw new TeamSyncError('not-found', `${dir} is not connected to a sync server; connect it first.`);
    const running = await this.engine(connection);
    if (!running) throw new TeamSyncError('unauthorized', 'No team token is stored for this project (or it cannot be decrypted here); connect again with a token.');
    return { project, running };
  }

  private track<T>(running: Running, work: Promise<T>): Promise<T> {
    this.inFlight.add(work);
    running.work.add(work);
    void work
      .finally(() => {
        this.inFlight.delete(work);
        running.work.delete(work);
      })
      .catch(() => undefined);
    return work;
  }

  private async runSync(running: Running): Promise<SyncReport> {
    // Taken before the sync lists the folder: an edit made while it runs still counts as a change.
    running.seen = await teamFolderFacts(running.connection.memoryDir);
    const report = await this.track(running, running.sync.sync());
    const interval = running.connection.pullIntervalSec * 1000;
    if (report.error) {
      running.failures++;
      const backoff = Math.min(interval, 5_000 * 2 ** Math.min(running.failures, 6));
      running.nextAt = Date.now() + Math.max(backoff, (running.sync.retryAfterSeconds ?? 0) * 1000);
    } else {
      running.failures = 0;
      running.nextAt = Date.now() + interval;
    }
    if (running.connection.dir) this.host.events.publish({ type: 'team-changed', dir: running.connection.dir, newConflicts: report.pull.conflicts });
    return report;
  }

  // ------------------------------------------------------------------------------------------
  // Background

  /** Start the debounced and periodic syncs (the app, with `watch: true`). */
  async start(): Promise<void> {
    if (this.ticker || this.closed) return;
    // `projects-changed` says which projects changed, not where, and the watcher reports the
    // echo of Memdir's own writes too: whether the team folder changed is checked when the
    // debounce runs out.
    this.unsubscribe = this.host.events.subscribe((event) => {
      if (event.type === 'projects-changed') for (const dir of event.dirs) void this.schedule(dir, { ifTeamChanged: true });
    });
    this.ticker = setInterval(() => void this.tick(), this.options.tickMs ?? 5_000);
    this.ticker.unref?.();
    void this.tick();
  }

  /**
   * Whether the team folder differs from how the engine's last sync left it (its own pull
   * writes included): a private memory edited, or the echo of Memdir's own writes, is no
   * reason to sync. Waits for the engine's current work, which may be the write echoed.
   */
  private async teamChanged(running: Running): Promise<boolean> {
    await Promise.allSettled([...running.work]);
    if (!running.seen) return true;
    const now = await teamFolderFacts(running.connection.memoryDir);
    return now === null || !sameFolder(now, running.seen);
  }

  /** Sync a project after the debounce (`ifTeamChanged`: only when its team folder changed). */
  private async schedule(dir: string, opts: { ifTeamChanged?: boolean } = {}): Promise<void> {
    const connections = await this.connections.list().catch(() => []);
    const id = connections.find((c) => c.dir === dir)?.id;
    if (!id || this.closed) return;
    clearTimeout(this.debounces.get(id));
    const timer = setTimeout(() => {
      this.debounces.delete(id);
      void (async () => {
        // Read again: the project may have been reconnected or disconnected meanwhile.
        const connection = (await this.connections.list().catch(() => [])).find((c) => c.id === id);
        const running = connection ? await this.engine(connection).catch(() => null) : null;
        if (!running || this.closed) return;
        if (opts.ifTeamChanged && !(await this.teamChanged(running))) return;
        if (!running.retired && !this.closed) await this.runSync(running).catch(() => undefined);
      })();
    }, this.options.debounceMs ?? 1_500);
    timer.unref?.();
    this.debounces.set(id, timer);
  }

  private ticking = false;

  private async tick(): Promise<void> {
    if (this.ticking || this.closed) return;
    this.ticking = true;
    try {
      for (const connection of await this.connections.list().catch(() => [])) {
        const running = await this.engine(connection).catch(() => null);
        if (!running || running.retired || running.sync.running || Date.now() < running.nextAt || this.closed) continue;
        await this.runSync(running).catch(() => undefined);
      }
    } finally {
      this.ticking = false;
    }
  }

  /** Stop: syncs in flight are cancelled (their requests too), not waited out. */
  async close(): Promise<void> {
    this.closed = true;
    this.unsubscribe?.();
    if (this.ticker) clearInterval(this.ticker);
    for (const timer of this.debounces.values()) clearTimeout(timer);
    await Promise.allSettled([...this.engines.values()].map((entry) => this.retire(entry)));
    await Promise.allSettled([...this.inFlight]);
  }

  // ------------------------------------------------------------------------------------------
  // The Team sync view

  private stateName(running: Running | null, connection: TeamConnection | null, inspected: { waiting: unknown[]; conflicts: unknown[]; lastPullAt: string | null } | null): SyncStateName {
    if (!connection) return 'not-connected';
    if (!running) return 'error';
    if (running.sync.running) return 'syncing';
    if (running.sync.lastError) return 'error';
    if (inspected && inspected.conflicts.length > 0) return 'conflicts';
    if (inspected && inspected.waiting.length > 0) return 'pending';
    if (!inspected?.lastPullAt) return 'never-synced';
    return 'synced';
  }

  /** The Team sync tab of a project. */
  async status(dir: string): Promise<TeamStatus> {
    const { project, connection } = await this.connectionOf(dir);
    const running = connection ? await this.engine(connection) : null;
    const inspected = running ? await running.sync.inspect() : null;
    const names = connection ? await this.host.credentials.list().catch(() => []) : [];
    const stayShared = await privateMoveRefusals(project.memoryDir, this.host.dataDir).catch(() => () => null);
    const movable: TeamStatus['movable'] = [
      ...project.memories.map((m) => ({ file: m.file, name: m.name, type: m.type, scope: 'private' as Scope, suggested: m.type !== null && defaultScope(m.type) === 'team', refusal: scopeRefusal(m.type, 'team') })),
      ...(project.team?.memories ?? []).map((m) => {
        const refusal = stayShared(m.file);
        return { file: m.file, name: m.name, type: m.type, scope: 'team' as Scope, suggested: refusal === null && m.type !== null && defaultScope(m.type) === 'private', refusal };
      }),
    ];
    const noToken = connection && !running;
    return {
      dir,
      memoryDir: project.memoryDir,
      teamDir: path.join(project.memoryDir, TEAM_DIR),
      connection: connection
        ? {
            server: connection.server,
            team: connection.team,
            member: connection.member,
            tokenId: connection.tokenId,
            connectedAt: connection.connectedAt,
            pullIntervalSec: connection.pullIntervalSec,
            tokenStored: names.includes(tokenCredentialName(connection.id)),
            tokenEncrypted: this.host.credentials.encrypted,
          }
        : null,
      state: this.stateName(running, connection, inspected),
      syncing: running?.sync.running ?? false,
      lastPullAt: inspected?.lastPullAt ?? null,
      lastPushAt: inspected?.lastPushAt ?? null,
      lastCheckAt: running?.sync.lastCheckAt ?? null,
      nextSyncAt: running && this.ticker ? new Date(running.nextAt).toISOString() : null,
      version: inspected?.version ?? null,
      files: inspected?.files ?? project.team?.memories.length ?? 0,
      waiting: inspected?.waiting ?? [],
      conflicts: inspected?.conflicts ?? [],
      resolved: inspected?.resolved ?? [],
      error: noToken ? { code: 'unauthorized', message: 'No team token is stored for this project (or it cannot be decrypted here); connect again with a token.', at: new Date().toISOString() } : (running?.sync.lastError ?? null),
      movable,
    };
  }

  /** The dashboard's Team column and Settings: every connection's state. */
  async overview(): Promise<TeamOverviewRow[]> {
    const rows: TeamOverviewRow[] = [];
    for (const connection of await this.connections.list().catch(() => [])) {
      if (!connection.dir) continue;
      const running = await this.engine(connection).catch(() => null);
      const inspected = running ? await running.sync.inspect().catch(() => null) : null;
      rows.push({
        dir: connection.dir,
        connected: true,
        server: connection.server,
        team: connection.team,
        state: this.stateName(running, connection, inspected),
        waiting: inspected?.waiting.length ?? 0,
        conflicts: inspected?.conflicts.length ?? 0,
        lastSyncAt: running?.sync.lastCheckAt ?? inspected?.lastPullAt ?? null,
        error: running ? (running.sync.lastError?.message ?? null) : 'No team token is stored; connect again.',
      });
    }
    return rows;
  }

  /**
   * Connect a project: check the URL, the team name and the token's shape; ask the server who
   * the token belongs to (it must be this team); store the token in the credential store and
   * the connection in the data dir; then sync once.
   */
  async connect(dir: string, input: { server: string; team: string; token: string; allowHttp?: boolean; pullIntervalSec?: number }): Promise<TeamStatus> {
    const { project } = await this.connectionOf(dir);
    const server = checkServerUrl(input.server, input.allowHttp === true);
    const team = checkTeamName(input.team);
    const token = input.token.trim();
    const tokenId = tokenIdOf(token);
    if (!tokenId) throw new TeamConfigError('That is not a Memdir team token (they look like mdt_…, from `memdir server admin issue-token`).');
    const client = new TeamClient({ server, team, token, ...(this.options.fetch ? { fetch: this.options.fetch } : {}), timeoutMs: 15_000 });
    const me = await client.me();
    if (me.team !== team) throw new TeamConfigError(`This token belongs to team "${me.team}", not "${team}". Use a token issued for ${team}, or connect to ${me.team}.`);
    await client.checksums();
    const previous = await this.connections.forMemoryDir(project.memoryDir);
    // The old engine stops before the connection changes: its last writes to the sync state
    // must not land after `save` has started that state over for another server or team.
    if (previous) await this.stop(previous.id);
    let connection: TeamConnection;
    try {
      connection = await this.connections.save({
        memoryDir: project.memoryDir,
        dir,
        server,
        team,
        member: me.member,
        tokenId,
        connectedAt: new Date().toISOString(),
        pullIntervalSec: input.pullIntervalSec ?? previous?.pullIntervalSec ?? 60,
      });
      await this.host.credentials.set(tokenCredentialName(connection.id), token);
    } catch (error) {
      this.reopenLater(previous);
      throw error;
    }
    // The retired engine makes way even if the clock stepped back (its `connectedAt` may be later).
    this.reopenLater(connection);
    const running = await this.engine(connection);
    if (running) await this.runSync(running);
    return this.status(dir);
  }

  /** Forget a project's connection and its token; files, history and conflicts stay. */
  async disconnect(dir: string): Promise<boolean> {
    const { connection } = await this.connectionOf(dir);
    if (!connection) return false;
    await this.stop(connection.id);
    await this.connections.remove(connection.id).catch((error: unknown) => {
      this.reopenLater(connection);
      throw error;
    });
    await this.host.credentials.delete(tokenCredentialName(connection.id)).catch(() => undefined);
    this.host.events.publish({ type: 'team-changed', dir });
    return true;
  }

  async syncNow(dir: string): Promise<SyncReport> {
    const { running } = await this.requireEngine(dir);
    return this.runSync(running);
  }

  async conflict(dir: string, id: string): Promise<ConflictDetail> {
    const { running } = await this.requireEngine(dir);
    return running.sync.conflictDetail(id);
  }

  async resolve(dir: string, id: string, take: ConflictResolution, opts: { text?: string; theirsSha?: string | null }): Promise<Awaited<ReturnType<TeamSync['resolve']>>> {
    const { running } = await this.requireEngine(dir);
    const result = await this.track(running, running.sync.resolve(id, take, opts));
    this.host.events.publish({ type: 'team-changed', dir });
    return result;
  }

  /** Move a memory between private and team; a connected project syncs it soon after. */
  async move(dir: string, file: string, to: Scope): Promise<{ file: string; scope: Scope; rev: string | null }> {
    const { project } = await this.connectionOf(dir);
    this.host.changed(dir, project.memoryDir);
    const result = await moveMemoryScope({ memoryDir: project.memoryDir, dataDir: this.host.dataDir, file, to });
    this.host.changed(dir, project.memoryDir);
    this.host.events.publish({ type: 'team-changed', dir });
    return result;
  }

  // ------------------------------------------------------------------------------------------
  // The Alerts view

  /** Replace one finding's secret with a placeholder (history entry), then sync the project. */
  async redact(id: string, fingerprint: string): Promise<{ alert: AlertRecord; rev: string | null }> {
    const alert = await this.alerts.get(id);
    if (!alert) throw new AlertError('not-found', 'There is no such alert (it may have been cleared).');
    if (alert.kind !== 'secret' || !alert.memoryDir || !alert.file) throw new AlertError('invalid-input', 'Only a secret found in a memory file can be redacted.');
    const memoryDir = alert.memoryDir;
    const rel = alert.file;
    const inTeam = rel.startsWith(`${TEAM_DIR}/`);
    const summary = `Redact a secret in ${rel}`;
    let redacted = false;
    const { entry } = await transact(memoryDir, { source: 'manual', summary, dataDir: this.host.dataDir }, async () => {
      // A team file is read through its checked handle (no link, no hard link, verified after the open).
      const text = inTeam
        ? await (await resolveTeamKey(await checkTeamDir(memoryDir), rel.slice(TEAM_DIR.length + 1))).read().then((r) => r?.data.toString('utf8') ?? null, () => null)
        : await fs.readFile(await resolveInside(memoryDir, rel), 'utf8').catch(() => null);
      if (text === null) throw new AlertError('not-found', `${rel} no longer exists.`);
      // Scan again: the range in the alert may be stale; the fingerprint says which secret.
      const fresh = (await scanText(text, { file: rel })).find((f) => f.fingerprint === fingerprint);
      if (!fresh) return;
      const outcome = redactFinding(text, fresh);
      if (!outcome.ok) throw new AlertError('conflict', outcome.reason);
      await writeFileAtomic(memoryDir, rel, outcome.text);
      redacted = true;
    });
    const updated = await this.alerts.removeFinding(id, fingerprint, redacted ? 'redacted' : 'no longer in the file');
    if (alert.dir) {
      this.host.changed(alert.dir, memoryDir);
      void this.schedule(alert.dir);
    }
    return { alert: updated, rev: entry?.rev ?? null };
  }

  /** Allow one finding (who and why recorded); the file is offered for upload again. */
  async allow(id: string, fingerprint: string, why: string): Promise<{ alert: AlertRecord; allowed: AllowedSecret }> {
    const alert = await this.alerts.get(id);
    const connection = alert?.memoryDir ? await this.connections.forMemoryDir(alert.memoryDir).catch(() => null) : null;
    const who = connection ? `${currentUser()} (${connection.member})` : currentUser();
    const result = await this.alerts.allow(id, fingerprint, who, why);
    if (alert?.dir) void this.schedule(alert.dir);
    return result;
  }
}
