/**
 * Personal sync in the running app (issue 18, item 5): Settings → Personal sync (connect this
 * machine to the user's personal space, with the passphrase warning before one is set) and each
 * project's Team sync tab (turn personal sync on for its private memory, its state, sync now, its
 * conflicts). Its engines run in the background like team sync's (SyncScheduler: a debounced
 * sync when the private memory changes, a periodic pull), started only with `watch: true`. The
 * work is in personal-account.ts and TeamSync, shared with the CLI.
 */
import type { ConflictDetail, ConflictResolution, SyncReport, SyncStateName } from '../../shared/contract/team.js';
import type { PersonalProjectStatus, PersonalStatus } from '../../shared/contract/personal.js';
import { MIN_PASSPHRASE_CHARS, PASSPHRASE_WARNING } from '../../shared/personal-sync.js';
import type { ProjectScan } from '../../shared/scan-types.js';
import {
  type AlertCenter,
  PERSONAL_SPACE,
  type Running,
  SyncScheduler,
  type TakenBack,
  type TeamConnection,
  type TeamHost,
  type TeamServiceOptions,
  type TeamSync,
  TeamSyncError,
} from '../team/index.js';
import {
  PersonalSyncError,
  connectAccount,
  disableProject,
  disconnectAccount,
  enableProject,
  openPersonalSync,
  personalConnections,
  readAccount,
} from './personal-account.js';
import { type IdentifySync, type SyncIdentity, givenIdentity, identifyByRepository } from './project-key.js';
import { way } from '../core/surface-words.js';

/** What the app gives (AppContext satisfies it): the team service's host, without the environment. */
export type PersonalHost = Omit<TeamHost, 'env'>;

export interface PersonalServiceOptions extends TeamServiceOptions {
  /** How a project's sync identity is found (default: its repository's root commit, else its remote). */
  identify?: IdentifySync;
}

/** See the file comment. */
export class PersonalService {
  private readonly scheduler: SyncScheduler;
  private readonly identify: IdentifySync;

  constructor(
    private readonly host: PersonalHost,
    private readonly alerts: AlertCenter,
    private readonly options: PersonalServiceOptions = {},
  ) {
    this.identify = options.identify ?? identifyByRepository;
    this.scheduler = new SyncScheduler(
      host,
      {
        space: PERSONAL_SPACE,
        list: () => personalConnections(host.dataDir).list(),
        // No account or key here (another process disconnected): no engine, nothing runs.
        open: (connection, onWrite) => this.openSync(connection, onWrite).catch(() => null),
        synced: (connection, report) => host.events.publish({ type: 'personal-changed', dir: connection.dir, newConflicts: report.pull.conflicts }),
        // `memdir personal disable` in another process: the scheduler stopped the engine; the Personal view hears of it.
        gone: (connection) => host.events.publish({ type: 'personal-changed', dir: connection.dir }),
      },
      options,
    );
  }

  private openSync(connection: TeamConnection, onWrite?: Parameters<typeof openPersonalSync>[1]['onWrite']): Promise<TeamSync> {
    const { dataDir, credentials } = this.host;
    return openPersonalSync(connection, {
      dataDir,
      credentials,
      alerts: this.alerts,
      ...(this.options.fetch ? { fetch: this.options.fetch } : {}),
      ...(this.options.retry ? { retry: this.options.retry } : {}),
      ...(onWrite ? { onWrite } : {}),
    });
  }

  start(): Promise<void> {
    return this.scheduler.start();
  }

  close(): Promise<void> {
    return this.scheduler.close();
  }

  private stateName(
    running: Running | null,
    inspected: { waiting: unknown[]; conflicts: unknown[]; lastPullAt: string | null; lastError: { message: string } | null } | null,
  ): SyncStateName {
    if (!running) return 'error';
    if (running.sync.running) return 'syncing';
    if (inspected?.lastError) return 'error';
    if (inspected && inspected.conflicts.length > 0) return 'conflicts';
    if (inspected && inspected.waiting.length > 0) return 'pending';
    if (!inspected?.lastPullAt) return 'never-synced';
    return 'synced';
  }

  /** Settings → Personal sync. */
  async status(): Promise<PersonalStatus> {
    const account = await readAccount(this.host.dataDir).catch(() => null);
    const projects: PersonalStatus['projects'] = [];
    for (const connection of await personalConnections(this.host.dataDir)
      .list()
      .catch(() => [])) {
      const running = account ? await this.scheduler.engine(connection).catch(() => null) : null;
      const inspected = running ? await running.sync.inspect().catch(() => null) : null;
      projects.push({
        dir: connection.dir,
        memoryDir: connection.memoryDir,
        identity: connection.identity ?? null,
        state: this.stateName(running, inspected),
        waiting: inspected?.waiting.length ?? 0,
        conflicts: inspected?.conflicts.length ?? 0,
        lastSyncAt: running?.sync.lastCheckAt ?? inspected?.lastPullAt ?? null,
        error: running ? (inspected?.lastError?.message ?? null) : 'The personal sync key is not available here; connect again.',
      });
    }
    const { user, server, member, tokenId, keyId, connectedAt } = account ?? ({} as Partial<NonNullable<typeof account>>);
    return {
      connected: account !== null,
      account: account ? { user: user!, server: server!, member: member!, tokenId: tokenId!, keyId: keyId!, connectedAt: connectedAt! } : null,
      credentialsEncrypted: this.host.credentials.encrypted,
      warning: PASSPHRASE_WARNING,
      minPassphraseChars: MIN_PASSPHRASE_CHARS,
      projects,
    };
  }

  /** Connect this machine (see personal-account.ts); a new space's passphrase waits for `acknowledged`. */
  async connect(input: {
    server: string;
    token: string;
    passphrase: string;
    allowHttp?: boolean;
    acknowledged?: boolean;
  }): Promise<{ outcome: 'needs-acknowledgement'; warning: string } | { outcome: 'connected'; created: boolean; status: PersonalStatus }> {
    let created: boolean;
    try {
      ({ created } = await connectAccount({
        dataDir: this.host.dataDir,
        credentials: this.host.credentials,
        ...input,
        ...(this.options.fetch ? { fetch: this.options.fetch } : {}),
      }));
    } catch (error) {
      if (error instanceof PersonalSyncError && error.code === 'needs-acknowledgement')
        return { outcome: 'needs-acknowledgement', warning: PASSPHRASE_WARNING };
      throw error;
    }
    // Engines opened with the old key or token make way for new ones.
    for (const c of await personalConnections(this.host.dataDir)
      .list()
      .catch(() => [])) {
      await this.scheduler.stop(c.id);
      this.scheduler.reopenLater(c);
    }
    this.host.events.publish({ type: 'personal-changed', dir: null });
    return { outcome: 'connected', created, status: await this.status() };
  }

  async disconnect(): Promise<{ disconnected: boolean; projects: number }> {
    for (const c of await personalConnections(this.host.dataDir)
      .list()
      .catch(() => []))
      await this.scheduler.stop(c.id);
    const result = await disconnectAccount(this.host.dataDir, this.host.credentials);
    this.host.events.publish({ type: 'personal-changed', dir: null });
    return result;
  }

  private async located(dir: string): Promise<{ project: ProjectScan; connection: TeamConnection | null }> {
    const project = await this.host.project(dir);
    return { project, connection: await personalConnections(this.host.dataDir).forMemoryDir(project.memoryDir) };
  }

  /** The identity enabling would use: the repository identity of the project's key (root commit, else remote). */
  private suggested(project: ProjectScan): Promise<SyncIdentity | null> {
    return this.identify(project.path).catch(() => null);
  }

  /** A project's personal sync, for its Team sync tab. */
  async project(dir: string): Promise<PersonalProjectStatus> {
    const { project, connection } = await this.located(dir);
    const account = await readAccount(this.host.dataDir).catch(() => null);
    const running = connection && account ? await this.scheduler.engine(connection).catch(() => null) : null;
    const inspected = running ? await running.sync.inspect() : null;
    return {
      dir,
      memoryDir: project.memoryDir,
      account: account !== null,
      enabled: connection !== null,
      identity: connection?.identity ?? null,
      suggested: await this.suggested(project),
      state: connection ? this.stateName(running, inspected) : 'not-connected',
      syncing: running?.sync.running ?? false,
      lastPullAt: inspected?.lastPullAt ?? null,
      lastPushAt: inspected?.lastPushAt ?? null,
      files: inspected?.files ?? 0,
      waiting: inspected?.waiting ?? [],
      conflicts: inspected?.conflicts ?? [],
      error:
        connection && !running
          ? {
              code: 'no-key',
              message: `The personal sync key is not available on this machine; ${way('personalConnect')}`,
              at: new Date().toISOString(),
            }
          : (inspected?.lastError ?? null),
    };
  }

  /** Turn personal sync on for a project (under `name`, else its repository's identity), then sync once. */
  async enable(dir: string, name?: string): Promise<PersonalProjectStatus> {
    const { project, connection: previous } = await this.located(dir);
    let identity: SyncIdentity | null;
    try {
      identity = name !== undefined ? givenIdentity(name) : await this.suggested(project);
    } catch (error) {
      throw new PersonalSyncError('no-identity', (error as Error).message);
    }
    if (!identity)
      throw new PersonalSyncError(
        'no-identity',
        `${dir} has no git repository with a commit or a remote to recognise it by on your other machines: give it a name (the same on each machine). A path is never used: it differs between machines.`,
      );
    if (previous) await this.scheduler.stop(previous.id);
    let connection: TeamConnection;
    try {
      connection = await enableProject(this.host.dataDir, this.host.credentials, { memoryDir: project.memoryDir, dir, identity });
    } catch (error) {
      this.scheduler.reopenLater(previous);
      throw error;
    }
    this.scheduler.reopenLater(connection);
    const running = await this.scheduler.engine(connection);
    if (running) await this.scheduler.runSync(running);
    return this.project(dir);
  }

  async disable(dir: string): Promise<{ disabled: boolean }> {
    const { project, connection } = await this.located(dir);
    if (connection) await this.scheduler.stop(connection.id);
    const disabled = await disableProject(this.host.dataDir, project.memoryDir);
    this.host.events.publish({ type: 'personal-changed', dir });
    return { disabled };
  }

  private async requireEngine(dir: string): Promise<Running> {
    const { connection } = await this.located(dir);
    if (!connection) throw new TeamSyncError('not-found', `${dir} is not synced with your personal space; turn it on first.`);
    const running = await this.scheduler.engine(connection);
    if (!running) throw new TeamSyncError('unauthorized', `The personal sync key is not available on this machine; ${way('personalConnect')}`);
    return running;
  }

  async syncNow(dir: string): Promise<SyncReport> {
    return this.scheduler.runSync(await this.requireEngine(dir));
  }

  async conflict(dir: string, id: string): Promise<ConflictDetail> {
    return (await this.requireEngine(dir)).sync.conflictDetail(id);
  }

  async resolve(
    dir: string,
    id: string,
    take: ConflictResolution,
    opts: { text?: string; theirsSha?: string | null; allowSecrets?: readonly string[] },
  ): Promise<Awaited<ReturnType<TeamSync['resolve']>>> {
    const running = await this.requireEngine(dir);
    const result = await this.scheduler.track(running, running.sync.resolve(id, take, opts));
    this.host.events.publish({ type: 'personal-changed', dir });
    return result;
  }

  /**
   * After History's Undo or "Restore this version" (`taken`, by the new entry `by`) in project `dir`: a personal sync
   * conflict resolution it took back is open again, one a Redo put back is resolved again — the
   * team's rule (TeamSync `followUndo`); a sentence for each. A project not synced (or no key here) has nothing to follow.
   */
  async followUndo(dir: string, taken: TakenBack, by: string | null): Promise<string[]> {
    const { connection } = await this.located(dir);
    const running = connection ? await this.scheduler.engine(connection).catch(() => null) : null;
    const notes = running ? await running.sync.followUndo(taken, by) : [];
    if (notes.length > 0) this.host.events.publish({ type: 'personal-changed', dir });
    return notes;
  }
}
