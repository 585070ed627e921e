/**
 * Team sync in the running app: one `TeamSync` per connected project, run in the background by
 * a SyncScheduler (a debounced sync when the team folder changes, a periodic pull), plus the
 * Team sync view's calls (status, connect, sync now, conflicts, move) and the Alerts view's
 * (redact, allow). Started only with `watch: true` (AppContext), like dreams; the calls work
 * without it (unit tests), and the CLI uses TeamSync directly.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { AlertRecord, AllowedSecret } from '../../shared/contract/alerts.js';
import { shownFileOf } from '../../shared/alert-file.js';
import type { AppEvent } from '../../shared/contract/events.js';
import type { ConflictDetail, ConflictResolution, SyncReport, SyncStateName, TeamOverviewRow, TeamStatus } from '../../shared/contract/team.js';
import { TEAM_DIR } from '../../shared/limits.js';
import { type Scope, defaultScope, scopeRefusal } from '../../shared/memory-types.js';
import type { ProjectScan } from '../../shared/scan-types.js';
import type { EventBus } from '../core/event-bus.js';
import { transact } from '../history/index.js';
import { resolveInside } from '../core/confined-path.js';
import { writeFileAtomic } from '../core/safe-fs.js';
import { renameMemory } from '../memdir/index.js';
import { fingerprintMatches, redactFinding, scanText } from '../secrets/index.js';
import type { CredentialStore } from '../settings/index.js';
import { AlertCenter, AlertError } from './alert-center.js';
import { connectTeam } from './connect-team.js';
import { disconnectTeam } from './disconnect-team.js';
import { actingAs, ConnectionStore, type TeamConnection, readToken, tokenCredentialName } from './connections.js';
import { moveMemoryScope } from './move-scope.js';
import { sharedKeyRefusals } from './shared-keys.js';
import { type Running, type SchedulerOptions, SyncScheduler } from './sync-scheduler.js';
import { TEAM_SPACE } from './sync-space.js';
import { checkTeamDir, resolveTeamKey } from './team-paths.js';
import type { TakenBack } from './sync/conflicts.js';
import { type RetryPolicy, TeamSync, TeamSyncError } from './team-sync.js';

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

export interface TeamServiceOptions extends SchedulerOptions {
  fetch?: typeof fetch;
  retry?: Partial<RetryPolicy>;
}

/** See the file comment. */
export class TeamService {
  readonly alerts: AlertCenter;
  readonly connections: ConnectionStore;
  private readonly scheduler: SyncScheduler;

  constructor(
    private readonly host: TeamHost,
    private readonly options: TeamServiceOptions = {},
  ) {
    this.alerts = new AlertCenter(host.dataDir, (event: AppEvent) => host.events.publish(event));
    this.connections = new ConnectionStore(host.dataDir);
    this.scheduler = new SyncScheduler(
      host,
      {
        space: TEAM_SPACE,
        list: () => this.connections.list(),
        open: async (connection, onWrite) => {
          const token = await readToken(connection, host.credentials, {});
          if (!token) return null;
          return TeamSync.open({
            connection,
            token,
            dataDir: host.dataDir,
            dir: connection.dir,
            alerts: this.alerts,
            ...(options.fetch ? { fetch: options.fetch } : {}),
            ...(options.retry ? { retry: options.retry } : {}),
            onWrite,
          });
        },
        synced: (connection, report) => {
          if (connection.dir) host.events.publish({ type: 'team-changed', dir: connection.dir, newConflicts: report.pull.conflicts });
        },
        gone: (connection) => {
          if (connection.dir) host.events.publish({ type: 'team-changed', dir: connection.dir });
        },
      },
      options,
    );
  }

  /** Start the debounced and periodic syncs (the app, with `watch: true`). */
  start(): Promise<void> {
    return this.scheduler.start();
  }

  /** Stop: syncs in flight are cancelled (their requests too), not waited out. */
  close(): Promise<void> {
    return this.scheduler.close();
  }

  private async connectionOf(dir: string): Promise<{ project: ProjectScan; connection: TeamConnection | null }> {
    const project = await this.host.project(dir);
    const connection = await this.connections.forMemoryDir(project.memoryDir);
    return { project, connection };
  }

  private async requireEngine(dir: string): Promise<{ project: ProjectScan; running: Running }> {
    const { project, connection } = await this.connectionOf(dir);
    if (!connection) throw new TeamSyncError('not-found', `${dir} is not connected to a sync server; connect it first.`);
    const running = await this.scheduler.engine(connection);
    if (!running)
      throw new TeamSyncError('unauthorized', 'No team token is stored for this project (or it cannot be decrypted here); connect again with a token.');
    return { project, running };
  }

  // ------------------------------------------------------------------------------------------
  // The Team sync view

  private stateName(
    running: Running | null,
    connection: TeamConnection | null,
    inspected: { waiting: unknown[]; conflicts: unknown[]; lastPullAt: string | null; lastError: { message: string } | null } | null,
  ): SyncStateName {
    if (!connection) return 'not-connected';
    if (!running) return 'error';
    if (running.sync.running) return 'syncing';
    if (inspected?.lastError) return 'error';
    if (inspected && inspected.conflicts.length > 0) return 'conflicts';
    if (inspected && inspected.waiting.length > 0) return 'pending';
    if (!inspected?.lastPullAt) return 'never-synced';
    return 'synced';
  }

  /** The Team sync tab of a project. */
  async status(dir: string): Promise<TeamStatus> {
    const { project, connection } = await this.connectionOf(dir);
    const running = connection ? await this.scheduler.engine(connection) : null;
    const inspected = running ? await running.sync.inspect() : null;
    const names = connection ? await this.host.credentials.list().catch(() => []) : [];
    const stayShared = await sharedKeyRefusals(project.memoryDir, this.host.dataDir).catch(() => () => null);
    const movable: TeamStatus['movable'] = [
      ...project.memories.map((m) => ({
        file: m.file,
        name: m.name,
        type: m.type,
        scope: 'private' as Scope,
        suggested: m.type !== null && defaultScope(m.type) === 'team',
        refusal: scopeRefusal(m.type, 'team'),
      })),
      ...(project.team?.memories ?? []).map((m) => {
        const refusal = stayShared(m.file, 'private');
        return {
          file: m.file,
          name: m.name,
          type: m.type,
          scope: 'team' as Scope,
          suggested: refusal === null && m.type !== null && defaultScope(m.type) === 'private',
          refusal,
        };
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
      nextSyncAt: running && this.scheduler.started ? new Date(running.nextAt).toISOString() : null,
      version: inspected?.version ?? null,
      files: inspected?.files ?? project.team?.memories.length ?? 0,
      waiting: inspected?.waiting ?? [],
      conflicts: inspected?.conflicts ?? [],
      resolved: inspected?.resolved ?? [],
      error: noToken
        ? {
            code: 'unauthorized',
            message: 'No team token is stored for this project (or it cannot be decrypted here); connect again with a token.',
            at: new Date().toISOString(),
          }
        : (inspected?.lastError ?? null),
      movable,
    };
  }

  /** The dashboard's Team column and Settings: every connection's state. */
  async overview(): Promise<TeamOverviewRow[]> {
    const rows: TeamOverviewRow[] = [];
    for (const connection of await this.connections.list().catch(() => [])) {
      if (!connection.dir) continue;
      const running = await this.scheduler.engine(connection).catch(() => null);
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
        error: running ? (inspected?.lastError?.message ?? null) : 'No team token is stored; connect again.',
      });
    }
    return rows;
  }

  /** Connect a project (connect-team.ts: the checks, the server's word on the token, storing both), then sync once. */
  async connect(dir: string, input: { server: string; team: string; token: string; allowHttp?: boolean; pullIntervalSec?: number }): Promise<TeamStatus> {
    const { project } = await this.connectionOf(dir);
    const { connection } = await connectTeam(
      { ...input, memoryDir: project.memoryDir, dir },
      {
        connections: this.connections,
        credentials: this.host.credentials,
        ...(this.options.fetch ? { fetch: this.options.fetch } : {}),
        beforeSave: async (previous) => {
          if (previous) await this.scheduler.stop(previous.id);
        },
        saveFailed: (previous) => this.scheduler.reopenLater(previous),
      },
    );
    // The retired engine makes way even if the clock stepped back (its `connectedAt` may be later).
    this.scheduler.reopenLater(connection);
    const running = await this.scheduler.engine(connection);
    if (running) await this.scheduler.runSync(running);
    return this.status(dir);
  }

  /** Forget a project's connection and its token (disconnect-team.ts); files, history and conflicts stay. */
  async disconnect(dir: string): Promise<boolean> {
    const project = await this.host.project(dir);
    const { connection } = await disconnectTeam(project.memoryDir, {
      connections: this.connections,
      credentials: this.host.credentials,
      beforeRemove: (previous) => this.scheduler.stop(previous.id),
      removeFailed: (previous) => this.scheduler.reopenLater(previous),
    });
    if (!connection) return false;
    this.host.events.publish({ type: 'team-changed', dir });
    return true;
  }

  async syncNow(dir: string): Promise<SyncReport> {
    const { running } = await this.requireEngine(dir);
    return this.scheduler.runSync(running);
  }

  async conflict(dir: string, id: string): Promise<ConflictDetail> {
    const { running } = await this.requireEngine(dir);
    return running.sync.conflictDetail(id);
  }

  async resolve(
    dir: string,
    id: string,
    take: ConflictResolution,
    opts: { text?: string; theirsSha?: string | null; allowSecrets?: readonly string[] },
  ): Promise<Awaited<ReturnType<TeamSync['resolve']>>> {
    const { running } = await this.requireEngine(dir);
    const result = await this.scheduler.track(running, running.sync.resolve(id, take, opts));
    this.host.events.publish({ type: 'team-changed', dir });
    return result;
  }

  /**
   * After History's Undo or "Restore this version" (`taken`, by the new entry `by`) in project `dir`: a
   * team conflict resolution it took back is open again, one a Redo put back is resolved again
   * (sync/conflicts.ts `followTakenBack`); a sentence for each. A project not connected has no conflicts: nothing to follow.
   */
  async followUndo(dir: string, taken: TakenBack, by: string | null): Promise<string[]> {
    const { connection } = await this.connectionOf(dir);
    const running = connection ? await this.scheduler.engine(connection) : null;
    const notes = running ? await running.sync.followUndo(taken, by) : [];
    if (notes.length > 0) this.host.events.publish({ type: 'team-changed', dir });
    return notes;
  }

  /** Move a memory between private and team (a secret in its name only when allowed); a connected project syncs it soon after. */
  async move(dir: string, file: string, to: Scope, allowSecrets?: readonly string[]): Promise<{ file: string; scope: Scope; rev: string | null }> {
    const { project } = await this.connectionOf(dir);
    this.host.changed(dir, project.memoryDir);
    const result = await moveMemoryScope({ memoryDir: project.memoryDir, dataDir: this.host.dataDir, file, to, ...(allowSecrets ? { allowSecrets } : {}) });
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
    if (alert.kind !== 'secret' || !alert.memoryDir || !alert.file)
      throw new AlertError('invalid-input', 'Only a secret found in a memory file can be redacted.');
    const memoryDir = alert.memoryDir;
    const rel = alert.file;
    // A placeholder in the text cannot take a secret out of a name: that takes a rename.
    if (alert.findings.find((f) => f.fingerprint === fingerprint)?.where === 'name')
      throw new AlertError(
        'invalid-input',
        `The secret is in the name of ${shownFileOf(alert)}, not in its text, so redacting cannot remove it: rename the file.`,
      );
    const inTeam = rel.startsWith(`${TEAM_DIR}/`);
    const summary = `Redact a secret in ${rel}`;
    let redacted = false;
    const { entry } = await transact(memoryDir, { source: 'manual', summary, dataDir: this.host.dataDir }, async () => {
      // A team file is read through its checked handle (no link, no hard link, verified after the open).
      const text = inTeam
        ? await (await resolveTeamKey(await checkTeamDir(memoryDir), rel.slice(TEAM_DIR.length + 1))).read().then(
            (r) => r?.data.toString('utf8') ?? null,
            () => null,
          )
        : await fs.readFile(await resolveInside(memoryDir, rel), 'utf8').catch(() => null);
      if (text === null) throw new AlertError('not-found', `${shownFileOf(alert)} no longer exists.`);
      // Scan again: the range in the alert may be stale; the fingerprint says which secret.
      // (An alert raised before fingerprints were keyed holds the plain form: it names its secret still.)
      const fresh = (await scanText(text, { file: rel })).find((f) => fingerprintMatches(fingerprint, f.fingerprint));
      if (!fresh) return;
      const outcome = await redactFinding(text, fresh);
      if (!outcome.ok) throw new AlertError('conflict', outcome.reason);
      await writeFileAtomic(memoryDir, rel, outcome.text);
      redacted = true;
    });
    const updated = await this.alerts.removeFinding(id, fingerprint, redacted ? 'redacted' : 'no longer in the file');
    if (alert.dir) {
      this.host.changed(alert.dir, memoryDir);
      void this.scheduler.schedule(alert.dir);
    }
    return { alert: updated, rev: entry?.rev ?? null };
  }

  /**
   * Rename the file of a secret found in its name, through the one rename service (its index
   * pointers follow, one history entry, undoable). The alert was about the old name, which is gone:
   * it is resolved, and the next sync vets the file under its new name (a secret left in its text
   * raises a new alert).
   */
  async rename(id: string, fingerprint: string, to: string): Promise<{ alert: AlertRecord; file: string; rev: string | null }> {
    const alert = await this.alerts.get(id);
    if (!alert) throw new AlertError('not-found', 'There is no such alert (it may have been cleared).');
    const finding = alert.findings.find((f) => f.fingerprint === fingerprint);
    if (alert.kind !== 'secret' || !alert.memoryDir || !alert.file || finding?.where !== 'name')
      throw new AlertError('invalid-input', 'Only a file with a secret in its name is renamed from an alert.');
    const inTeam = alert.file.startsWith(`${TEAM_DIR}/`);
    const scope: Scope = inTeam ? 'team' : 'private';
    const from = inTeam ? alert.file.slice(TEAM_DIR.length + 1) : alert.file;
    // A new name that still holds a secret (the old one's too: this rename is to clear it) is refused by the rename's guard, masked.
    const { file, entry } = await renameMemory({ memoryDir: alert.memoryDir, scope, dataDir: this.host.dataDir }, from, to, undefined, { clearsName: true });
    const newRel = inTeam ? `${TEAM_DIR}/${file}` : file;
    const updated = (await this.alerts.resolve(alert.topic, `renamed to ${newRel}`)) ?? alert;
    if (alert.dir) {
      this.host.changed(alert.dir, alert.memoryDir);
      void this.scheduler.schedule(alert.dir);
    }
    return { alert: updated, file: newRel, rev: entry?.rev ?? null };
  }

  /** Allow one finding (who and why recorded); the file is offered for upload again. */
  async allow(id: string, fingerprint: string, why: string): Promise<{ alert: AlertRecord; allowed: AllowedSecret }> {
    const alert = await this.alerts.get(id);
    const connection = alert?.memoryDir ? await this.connections.forMemoryDir(alert.memoryDir).catch(() => null) : null;
    const result = await this.alerts.allow(id, fingerprint, actingAs(connection), why);
    if (alert?.dir) void this.scheduler.schedule(alert.dir);
    return result;
  }
}
