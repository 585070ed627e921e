/**
 * The engines of one kind of sync in the running app (team sync, personal sync), and when they
 * run: one `TeamSync` per connected project, driven by
 *   - the memory watcher (its `projects-changed` events: one source of truth for "a file
 *     changed") → a debounced sync, so an edit reaches the server within seconds — when the
 *     synced folder really differs from how the last sync left it (see `teamChanged`);
 *   - a timer → a periodic pull (every connection's `pullIntervalSec`), backing off after
 *     failures (and honouring Retry-After).
 * Started only with `watch: true` (AppContext), like dreams; the calls work without it (unit
 * tests). What differs between the kinds — where connections are, how an engine opens, what a
 * finished sync tells the app — comes in as `SchedulerHooks`.
 */
import fsSync from 'node:fs';
import path from 'node:path';
import type { SyncReport } from '../../shared/contract/team.js';
import type { EventBus } from '../core/event-bus.js';
import type { TeamConnection } from './connections.js';
import { type SyncSpace, spaceRel } from './sync-space.js';
import { checkTeamDir, listTeamFiles } from './team-paths.js';
import type { TeamSync, TeamSyncOptions } from './team-sync.js';

/** What the scheduler needs of the app. */
export interface SchedulerHost {
  readonly events: EventBus;
  /** Memdir wrote into a project's memory: forget caches, tell the renderer. */
  changed(dir: string, memoryDir: string): void;
}

/** What differs between the kinds of sync. */
export interface SchedulerHooks {
  space: SyncSpace;
  /** The connections now. */
  list(): Promise<TeamConnection[]>;
  /** Open a connection's engine with this `onWrite` (null: it cannot run here, e.g. no token). */
  open(connection: TeamConnection, onWrite: NonNullable<TeamSyncOptions['onWrite']>): Promise<TeamSync | null>;
  /** A sync finished (events for the renderer). */
  synced(connection: TeamConnection, report: SyncReport): void;
  /** A connection whose engine ran was removed by another process (`memdir team disconnect`); its engine is stopped. */
  gone?(connection: TeamConnection): void;
}

export interface SchedulerOptions {
  /** Delay between a file change and its sync (default 1.5 s: edits come in bursts). */
  debounceMs?: number;
  /** How often due syncs are looked for (default 5 s). */
  tickMs?: number;
  /**
   * Sync only when told (a sync, connect or resolve call): no debounced sync after an alert is
   * handled, no periodic one even when started. For tests that assert what their own sync sent.
   */
  onlyWhenTold?: boolean;
}

/** A connection's running engine. */
export interface Running {
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

/** The synced folder now, key → stat facts (links and other problems included), or null when it cannot be listed. */
async function teamFolderFacts(memoryDir: string, space: SyncSpace): Promise<Map<string, string> | null> {
  try {
    const listing = listTeamFiles(await checkTeamDir(memoryDir, space));
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
export class SyncScheduler {
  private readonly engines = new Map<string, Engine>();
  private readonly debounces = new Map<string, NodeJS.Timeout>();
  private ticker: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private readonly inFlight = new Set<Promise<unknown>>();
  private closed = false;

  constructor(
    private readonly host: SchedulerHost,
    private readonly hooks: SchedulerHooks,
    private readonly options: SchedulerOptions = {},
  ) {}

  /** Whether the background syncs run (then a status can say when the next one is). */
  get started(): boolean {
    return this.ticker !== null;
  }

  /** The engine of a connection (null: no token here, or the connection was replaced or closed). */
  engine(connection: TeamConnection): Promise<Running | null> {
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
    if (this.closed) return null;
    const dir = connection.dir;
    let running: Running | null = null;
    const sync = await this.hooks.open(connection, (phase, keys) => {
      if (dir && keys.length > 0) this.host.changed(dir, connection.memoryDir);
      // Memdir's own writes are part of how the sync left the folder, not a change to sync.
      if (phase === 'after' && running?.seen) {
        for (const key of keys) {
          const st = fsSync.lstatSync(path.join(connection.memoryDir, spaceRel(this.hooks.space, key)), { throwIfNoEntry: false });
          if (st) running.seen.set(key, factsText(st));
        }
      }
    });
    if (!sync || this.closed) return null;
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
  async stop(id: string): Promise<void> {
    clearTimeout(this.debounces.get(id));
    const entry = this.engines.get(id);
    if (entry) await this.retire(entry);
  }

  /** A connect or disconnect failed after `stop`: the connection still on file gets an engine at its next use. */
  reopenLater(connection: TeamConnection | null): void {
    if (connection && this.engines.get(connection.id)?.retired) this.engines.delete(connection.id);
  }

  track<T>(running: Running, work: Promise<T>): Promise<T> {
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

  async runSync(running: Running): Promise<SyncReport> {
    // Taken before the sync lists the folder: an edit made while it runs still counts as a change.
    running.seen = await teamFolderFacts(running.connection.memoryDir, this.hooks.space);
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
    this.hooks.synced(running.connection, report);
    return report;
  }

  /** Start the debounced and periodic syncs (the app, with `watch: true`). */
  async start(): Promise<void> {
    if (this.ticker || this.closed || this.options.onlyWhenTold) return;
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
    const now = await teamFolderFacts(running.connection.memoryDir, this.hooks.space);
    return now === null || !sameFolder(now, running.seen);
  }

  /** Sync a project after the debounce (`ifTeamChanged`: only when its team folder changed). */
  async schedule(dir: string, opts: { ifTeamChanged?: boolean } = {}): Promise<void> {
    const connections = await this.hooks.list().catch(() => []);
    const id = connections.find((c) => c.dir === dir)?.id;
    if (!id || this.closed || this.options.onlyWhenTold) return;
    clearTimeout(this.debounces.get(id));
    const timer = setTimeout(() => {
      this.debounces.delete(id);
      void (async () => {
        // Read again: the project may have been reconnected or disconnected meanwhile.
        const connection = (await this.hooks.list().catch(() => [])).find((c) => c.id === id);
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
      const before = new Map(this.engines);
      const connections = await this.hooks.list().catch(() => null);
      if (connections) await this.retireVanished(before, connections);
      for (const connection of connections ?? []) {
        const running = await this.engine(connection).catch(() => null);
        if (!running || running.retired || running.sync.running || Date.now() < running.nextAt || this.closed) continue;
        await this.runSync(running).catch(() => undefined);
      }
    } finally {
      this.ticking = false;
    }
  }

  /**
   * Engines whose connection was removed by another process (`memdir team disconnect` while the app
   * runs): stopped, as the app's own disconnect stops them, and the app told. Only engines there
   * before the connections were listed are judged: one opened since (a connect) may be newer than the list.
   */
  private async retireVanished(before: Map<string, Engine>, listed: TeamConnection[]): Promise<void> {
    const ids = new Set(listed.map((c) => c.id));
    for (const [id, entry] of before) {
      if (ids.has(id) || entry.retired || this.engines.get(id) !== entry || this.closed) continue;
      await this.stop(id);
      this.hooks.gone?.(entry.connection);
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
}
