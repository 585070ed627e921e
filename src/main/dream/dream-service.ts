/**
 * The dream service: the one way in to dreams for the app (through src/main/api/dream.ts) and
 * the `memdir dream` commands alike — status of the gates per project, a dream run, confirm of a
 * held-back dream, the history with diffs, revert, and the crash sweep before each of them. The
 * app adds what only it has: "Dream now" and confirms as background jobs (progress as job events,
 * cancel through the job), the dashboard's overview and the scheduler. The CLI makes one with no
 * job runner and runs in the foreground (progress on stderr).
 *
 * The app makes its DreamService as it opens, for the crash sweep that runs before anything is
 * shown (`recover`); a dream's run (run-dream.ts: the phases, the model, the date rules), Claude
 * Code's dream status (its transcripts) and the model provider are loaded with import() when first
 * used, so the sweep does not bring them before the dashboard's first list (issue 16, bench start).
 */
import path from 'node:path';
import { type DreamOverviewRow, type DreamRecord, type DreamStatusView, type DreamTrigger, dreamCouldNotRead } from '../../shared/contract/dream.js';
import type { Job } from '../../shared/contract/events.js';
import { diffRevisions } from '../history/index.js';
import { JobBusyError, type JobRunner } from '../jobs/index.js';
import type { ModelProvider } from '../llm/index.js';
import { groupProjects, locateGroup, locateProject, locateTranscriptProject, type ProjectLocation, ProjectNotFoundError } from '../memdir/index.js';
import { type CredentialStore, FileCredentialStore, loadAppSettings } from '../settings/index.js';
import { confirmDream, heldBackDream } from './apply/confirm-dream.js';
import { inspectDreamLock } from './consolidation-lock.js';
import { DreamError } from './dream-error.js';
import { checkDreamGates } from './gates/dream-gates.js';
import { listDreamRecords, requireDreamRecord } from './records/dream-records.js';
import { type ScheduledProject, DreamScheduler } from './dream-scheduler.js';
import { type DreamRecovery, interruptedNotice, recoverInterruptedDreams } from './apply/recover-dreams.js';
import { followUndo, revertDream } from './apply/revert-dream.js';
import type { DreamProgress, DreamRunResult, DreamSettings } from './run-dream.js';
import { SessionScanCache } from './gates/session-scan.js';
import { way } from '../core/surface-words.js';
import { plural } from '../../shared/size-text.js';
import { sayCouldNotRead } from './records/dream-report.js';

/** What the service needs from its caller (AppContext, or the CLI; read lazily: the app's home can change). */
export interface DreamHost {
  readonly home: string;
  readonly dataDir: string;
  readonly env: NodeJS.ProcessEnv;
  /** Where a stored API key is looked up (SPEC §9); default Memdir's credential file as it can be read here (unencrypted). */
  readonly credentials?: CredentialStore;
  /** Background jobs, for {@link DreamService.start}, {@link DreamService.confirm} and the scheduler; none in the CLI. */
  readonly jobs?: JobRunner;
  /** Memdir changed files of a project: forget caches, tell the renderer. */
  changed?(dir: string, memoryDir: string): void;
}

/**
 * A project: its directory name under `projects/` (the app), or where the caller found it (the
 * CLI's `--project` path; a `ProjectLocation` fits as is).
 */
export type DreamProjectRef = string | ProjectLocation;

/** What a dream run is asked to do, whoever asks. */
export interface DreamRunRequest {
  trigger: DreamTrigger;
  /** "Dream now" / `--force`: skip the time and session gates, never the lock. */
  force: boolean;
  /** The user confirmed removals beyond `maxDeleteShare`. */
  allowDeletes?: boolean;
  /** Compute and report; write nothing, take no lock. */
  dryRun?: boolean;
  /** Ask no model: the offline rules (the CLI's `--offline`). */
  offline?: boolean;
  signal?: AbortSignal;
  onProgress?: (progress: DreamProgress) => void;
}

/** A project's gates as both the Dream tab and `memdir dream status` show them. */
export type DreamGateStatus = Omit<DreamStatusView, 'running' | 'method' | 'scheduled'>;

/** The answer to "Dream now" and "confirm". */
export interface DreamStart {
  started: boolean;
  jobId: string | null;
  reason: string | null;
}

/** How long the list of projects (and where their memory is) is reused by the scheduler and the dashboard. */
const PROJECTS_TTL_MS = 5 * 60_000;

function progressMessage(p: DreamProgress): string {
  return `${p.files} file${p.files === 1 ? '' : 's'} · ${p.tokens.toLocaleString('en')} tokens`;
}

function shortGate(report: Awaited<ReturnType<typeof checkDreamGates>>): string | null {
  if (report.disabled) return report.disabled.reason === 'auto-memory-off' ? 'auto memory off' : 'autoDream off';
  const failed = report.gates.find((g) => g.checked && !g.passed);
  if (!failed) return null;
  if (failed.name === 'time') return `${failed.value ?? '?'} h of ${failed.threshold} h`;
  if (failed.name === 'sessions') return `${failed.value ?? 0} of ${failed.threshold} sessions`;
  return `lock ${String(failed.value)}`;
}

/** See the file comment. */
export class DreamService {
  /** The session gate's throttle: in the app the scheduler and the status view share it; a CLI command's is new (one look). */
  readonly sessionCache = new SessionScanCache();
  #scheduler: DreamScheduler<ProjectLocation> | null = null;
  #projects: { home: string; at: number; list: ProjectLocation[] } | null = null;
  /** Running dream jobs by memory dir. */
  readonly #running = new Map<string, string>();
  #recovering: Promise<DreamRecovery> | null = null;

  constructor(private readonly host: DreamHost) {}

  async settings(): Promise<DreamSettings> {
    return (await loadAppSettings(this.host.dataDir)).settings.dream;
  }

  /** The model a dream would use now (offline when none, or when asked: the rules run). */
  async provider(opts: { offline?: boolean } = {}): Promise<ModelProvider> {
    const [{ settings }, { resolveProvider }] = await Promise.all([loadAppSettings(this.host.dataDir), import('../llm/index.js')]);
    const credentials = this.host.credentials ?? new FileCredentialStore(this.host.dataDir);
    return resolveProvider(settings, this.host.env, { dataDir: this.host.dataDir, credentials, ...(opts.offline ? { offline: true } : {}) });
  }

  /** The job runner; only the app has one (the CLI runs dreams in the foreground with {@link run}). */
  #jobs(): JobRunner {
    if (!this.host.jobs) throw new Error('Dreams as background jobs need the app’s job runner.');
    return this.host.jobs;
  }

  async #where(project: DreamProjectRef): Promise<ProjectLocation> {
    return typeof project === 'string' ? this.locate(project) : project;
  }

  /** A project of the current home by its directory name; `not-found` when it is not there. */
  async locate(dir: string): Promise<ProjectLocation> {
    if (!dir || /[/\\\0]/.test(dir) || dir === '.' || dir === '..') throw new DreamError('invalid-input', `"${dir}" is not a project directory name.`);
    try {
      const loc = await locateProject(this.host.home, dir, this.host.env);
      if (!loc.existing || loc.keySource === 'path') throw new DreamError('not-found', `There is no project "${dir}" in ${this.host.home}.`);
      return loc;
    } catch (error) {
      if (error instanceof ProjectNotFoundError) throw new DreamError('not-found', error.message);
      throw error;
    }
  }

  /** The projects of the current home, with where their memory is (cached a few minutes). */
  async projects(): Promise<ProjectLocation[]> {
    const home = this.host.home;
    if (this.#projects && this.#projects.home === home && Date.now() - this.#projects.at < PROJECTS_TTL_MS) return this.#projects.list;
    const list: ProjectLocation[] = [];
    // One per memory (R-LAYOUT): transcript folders of subdirectories and worktrees are part of theirs.
    for (const group of await groupProjects(home)) {
      const loc = await locateGroup(home, group, this.host.env).catch(() => null);
      if (loc) list.push(loc);
    }
    this.#projects = { home, at: Date.now(), list };
    return list;
  }

  /** The running dream job of a memory dir, if any. */
  runningJob(memoryDir: string): Job | null {
    const id = this.#running.get(path.resolve(memoryDir));
    const job = id ? this.host.jobs?.get(id) : undefined;
    return job && (job.state === 'running' || job.state === 'queued') ? job : null;
  }

  /**
   * Undo what crashed dreams left (recover-dreams.ts). Runs at start, on every scheduler tick and
   * before every status answer; calls that arrive while one runs share it.
   */
  recover(): Promise<DreamRecovery> {
    this.#recovering ??= recoverInterruptedDreams({ dataDir: this.host.dataDir }).finally(() => {
      this.#recovering = null;
    });
    return this.#recovering;
  }

  /**
   * The gates of a project with their values, the lock, Claude Code's own rule, its last dream —
   * after the crash sweep, so a dream killed half-way is never reported as running. Counts the
   * sessions through this service's throttle (the app's reuses a count 10 minutes; a CLI process
   * has a fresh one: one look).
   */
  async gateStatus(project: DreamProjectRef): Promise<DreamGateStatus> {
    const loc = await this.#where(project);
    await this.recover();
    const settings = await this.settings();
    const gates = await checkDreamGates(loc, {
      minHours: settings.minHours,
      minSessions: settings.minSessions,
      dataDir: this.host.dataDir,
      sessionCache: this.sessionCache,
    });
    const [lastDream] = await listDreamRecords(this.host.dataDir, { memoryDir: loc.memoryDir, limit: 1 });
    return {
      dir: loc.dir,
      memoryDir: loc.memoryDir,
      gates: {
        eligible: gates.eligible,
        forced: gates.forced,
        disabled: gates.disabled,
        gates: gates.gates,
        lastConsolidatedAt: gates.lastConsolidatedAt,
        ...(gates.nextEligibleAt ? { nextEligibleAt: gates.nextEligibleAt } : {}),
        checkedAt: gates.checkedAt,
      },
      thresholds: { minHours: settings.minHours, minSessions: settings.minSessions, maxDeleteShare: settings.maxDeleteShare },
      // checkDreamGates reports the lock as found whatever gate failed (null only when it could not be read).
      lock: gates.lock ? { state: gates.lock.state, detail: gates.lock.detail } : null,
      claudeCode: await (
        await import('./gates/claude-code-dream.js')
      ).claudeCodeDreamStatus({ home: this.host.home, settings: loc.settings, transcriptDirs: loc.transcriptDirs, memoryDir: loc.memoryDir }),
      lastDream: lastDream ?? null,
      recovered: interruptedNotice(lastDream),
    };
  }

  /** The Dream tab of a project: {@link gateStatus}, and the running job, the method a dream would use, the scheduler. */
  async status(dir: string): Promise<DreamStatusView> {
    const gates = await this.gateStatus(await this.locate(dir));
    const provider = await this.provider();
    const providerStatus = await provider.status();
    return {
      ...gates,
      running: this.runningJob(gates.memoryDir),
      method:
        provider.kind === 'offline'
          ? { kind: 'rules', detail: `the offline rules (${(providerStatus.reason ?? 'no model is set up').replace(/\.$/, '')}).` }
          : {
              kind: 'model',
              detail: `${provider.modelFor('dream')} via ${provider.kind === 'anthropic' ? 'the Anthropic API' : 'the Claude Code CLI'}, with the offline rules if it fails.`,
            },
      scheduled: this.#scheduler !== null,
    };
  }

  /** The dashboard's Dream column. */
  async overview(): Promise<DreamOverviewRow[]> {
    const settings = await this.settings();
    const records = await listDreamRecords(this.host.dataDir, { limit: 500 });
    const latest = new Map<string, DreamRecord>();
    for (const r of records) if (!latest.has(path.resolve(r.memoryDir))) latest.set(path.resolve(r.memoryDir), r);
    const rows: DreamOverviewRow[] = [];
    for (const p of await this.projects()) {
      const report = await checkDreamGates(p, {
        minHours: settings.minHours,
        minSessions: settings.minSessions,
        dataDir: this.host.dataDir,
        sessionCache: this.sessionCache,
      }).catch(() => null);
      const last = latest.get(path.resolve(p.memoryDir)) ?? null;
      rows.push({
        dir: p.dir,
        eligible: report?.eligible ?? false,
        running: this.runningJob(p.memoryDir) !== null,
        disabled: report?.disabled?.detail ?? null,
        lastConsolidatedAt: report?.lastConsolidatedAt ?? null,
        lastDreamAt: last?.startedAt ?? null,
        lastDreamStatus: last?.status ?? null,
        nextEligibleAt: report?.nextEligibleAt ?? null,
        waitingFor: report ? shortGate(report) : 'unreadable',
      });
    }
    return rows;
  }

  /**
   * One dream of a project, in the foreground, to its end (see run-dream.ts): after the crash
   * sweep, with Memdir's dream settings and the model resolved as for every caller. Never throws
   * for closed gates, a held lock, a cancel or a failed phase: they come back in the result.
   */
  async run(project: DreamProjectRef, request: DreamRunRequest): Promise<DreamRunResult> {
    const loc = await this.#where(project);
    await this.recover();
    const [settings, provider, { runDream }] = await Promise.all([
      this.settings(),
      this.provider({ offline: request.offline === true }),
      import('./run-dream.js'),
    ]);
    return runDream({
      memoryDir: loc.memoryDir,
      projectDir: loc.projectDir,
      ...(loc.transcriptDirs ? { transcriptDirs: loc.transcriptDirs } : {}),
      dir: loc.dir,
      dataDir: this.host.dataDir,
      trigger: request.trigger,
      settings,
      provider,
      ...(loc.settings ? { targetSettings: loc.settings } : {}),
      force: request.force,
      ...(request.allowDeletes ? { allowDeletes: true } : {}),
      ...(request.dryRun ? { dryRun: true } : {}),
      ...(request.signal ? { signal: request.signal } : {}),
      sessionCache: this.sessionCache,
      ...(request.onProgress ? { onProgress: request.onProgress } : {}),
    });
  }

  /**
   * Starts a dream of project `dir` as a background job. "Dream now" (`force`) skips the time and
   * session gates, never the lock: a held lock answers `started: false` with who holds it.
   */
  async start(dir: string, opts: { trigger: 'manual' | 'scheduled'; force: boolean; allowDeletes?: boolean }): Promise<DreamStart> {
    const loc = await this.locate(dir);
    return this.startFor(loc, opts);
  }

  private async startFor(project: ProjectLocation, opts: { trigger: 'manual' | 'scheduled'; force: boolean; allowDeletes?: boolean }): Promise<DreamStart> {
    const jobs = this.#jobs();
    const lock = await inspectDreamLock(project.memoryDir, { dataDir: this.host.dataDir }).catch(() => null);
    if (lock?.state === 'held' && !lock.heldByThisProcess) return { started: false, jobId: null, reason: `Not started: ${lock.detail}` };
    let started;
    try {
      started = jobs.start(
        { kind: 'dream', title: `Dream: ${project.dir}`, dir: project.dir, key: `dream:${path.resolve(project.memoryDir)}` },
        async (job) => {
          job.progress({ phase: 'orient', step: 'checking the gates', progress: 0 });
          let announced = false;
          const result = await this.run(project, {
            trigger: opts.trigger,
            force: opts.force,
            ...(opts.allowDeletes ? { allowDeletes: true } : {}),
            signal: job.signal,
            onProgress: (p) => {
              // Announced before the writes too, so the file watcher takes them for Memdir's own.
              if (p.phase === 'apply' && !announced) {
                announced = true;
                this.host.changed?.(project.dir, project.memoryDir);
              }
              job.progress({ phase: p.phase, step: p.step, progress: p.progress, message: progressMessage(p) });
            },
          });
          return this.finishJob(project, result.record, result.reason, job);
        },
      );
    } catch (error) {
      if (error instanceof JobBusyError) return { started: false, jobId: error.running.id, reason: 'A dream of this project is already running.' };
      throw error;
    }
    this.#running.set(path.resolve(project.memoryDir), started.job.id);
    return { started: true, jobId: started.job.id, reason: null };
  }

  private finishJob(
    project: ScheduledProject,
    record: DreamRecord | null,
    reason: string | null,
    job: { progress(u: { message?: string | null }): void },
  ): DreamRecord | null {
    if (!record) throw new Error(reason ?? 'The dream did not start.');
    if (record.rev) this.host.changed?.(project.dir, project.memoryDir);
    if (record.status === 'failed' || record.status === 'interrupted') throw new Error(record.error ?? 'The dream failed; nothing was changed.');
    const applied = record.changes.filter((c) => c.status === 'applied').length;
    const unread = dreamCouldNotRead(record);
    // What it could not read, in a plain sentence (a dream that changed nothing says that first, not "done").
    const notRead = unread.length ? `${sayCouldNotRead(unread)}.` : '';
    const message: Record<DreamRecord['status'], string> = {
      running: '',
      completed: `Done: ${plural(applied, 'file')} changed${record.changes.some((c) => c.status === 'skipped') ? ', some left alone' : ''}.${notRead ? ` ${notRead}` : ''}`,
      'no-changes': unread.length ? `Nothing changed: ${notRead}` : 'Done: nothing to change.',
      'needs-confirmation': `Held back: it would remove ${record.deletions.count} of ${record.deletions.total} memories (the limit is ${record.deletions.limit}). ${way('confirmDream')}`,
      'dry-run': '',
      cancelled: 'Cancelled: nothing was changed.',
      failed: '',
      interrupted: '',
    };
    job.progress({ message: message[record.status] });
    return record;
  }

  /**
   * Applies a dream held back for removing more than `maxDeleteShare`, now that the user
   * confirmed it, in the foreground (see confirm-dream.ts), after the crash sweep.
   */
  async confirmNow(id: string, opts: { signal?: AbortSignal } = {}): Promise<DreamRecord> {
    await this.recover();
    const done = await confirmDream(id, { dataDir: this.host.dataDir, ...(opts.signal ? { signal: opts.signal } : {}) });
    if (done.rev && done.dir) this.host.changed?.(done.dir, done.memoryDir);
    return done;
  }

  /** {@link confirmNow} as a job (the app): a dream that cannot be confirmed is refused before the job starts. */
  async confirm(id: string): Promise<DreamStart> {
    const record = await heldBackDream(this.host.dataDir, id);
    try {
      const started = this.#jobs().start(
        {
          kind: 'dream',
          title: `Dream: ${record.dir ?? path.basename(path.dirname(record.memoryDir))} (confirmed)`,
          dir: record.dir,
          key: `dream:${path.resolve(record.memoryDir)}`,
        },
        async (job) => {
          job.progress({ phase: 'apply', step: 'applying the confirmed changes', progress: 0.9 });
          const done = await this.confirmNow(id, { signal: job.signal });
          if (done.status === 'failed') throw new Error(done.error ?? 'The dream failed.');
          job.progress({ message: `Done: ${plural(done.changes.filter((c) => c.status === 'applied').length, 'file')} changed.` });
          return done;
        },
      );
      this.#running.set(path.resolve(record.memoryDir), started.job.id);
      return { started: true, jobId: started.job.id, reason: null };
    } catch (error) {
      if (error instanceof JobBusyError) return { started: false, jobId: error.running.id, reason: 'A dream of this project is already running.' };
      throw error;
    }
  }

  /** Dreams of a project, newest first. */
  async list(project: DreamProjectRef, limit = 100): Promise<DreamRecord[]> {
    const loc = await this.#where(project);
    return listDreamRecords(this.host.dataDir, { memoryDir: loc.memoryDir, limit });
  }

  /** The changes of a dream as a unified diff (all files, or one). */
  async diff(id: string, file?: string): Promise<string> {
    const record = await requireDreamRecord(this.host.dataDir, id);
    if (!record.rev) return '';
    return diffRevisions(record.memoryDir, null, record.rev, { dataDir: this.host.dataDir, ...(file ? { file } : {}) });
  }

  /** Reverts a dream (see revert-dream.ts), after the crash sweep. */
  async revert(id: string, overwriteChanged = false): Promise<Awaited<ReturnType<typeof revertDream>>> {
    await this.recover();
    const result = await revertDream(id, { dataDir: this.host.dataDir, overwriteChanged });
    if (result.revert.rev && result.record.dir) this.host.changed?.(result.record.dir, result.record.memoryDir);
    return result;
  }

  /**
   * History entry `undone` of `memoryDir` was undone by another door (History's Undo, `memdir undo`), or
   * files were put back (`undone` null: a restore, `memdir merge undo`), as the new entry
   * `done.entry`: the dreams it reverted or brought back say so (revert-dream.ts's followUndo, the
   * one place for that rule). Call it after every undo of an entry and every restore.
   */
  async followUndo(memoryDir: string, undone: string | null, done: Parameters<typeof followUndo>[3]): Promise<void> {
    await followUndo(this.host.dataDir, memoryDir, undone, done);
  }

  /** Starts the scheduler (the app, with `watch: true`). */
  startScheduler(): void {
    if (this.#scheduler) return;
    this.#scheduler = new DreamScheduler<ProjectLocation>({
      projects: () => this.projects(),
      settings: () => this.settings(),
      dream: async (project) => {
        await this.startFor(project, { trigger: 'scheduled', force: false });
      },
      isRunning: (memoryDir) => this.runningJob(memoryDir) !== null,
      awaitingConfirmation: async (memoryDir) => (await listDreamRecords(this.host.dataDir, { memoryDir, limit: 1 }))[0]?.status === 'needs-confirmation',
      recover: () => this.recover(),
      dataDir: this.host.dataDir,
      sessionCache: this.sessionCache,
    });
    this.#scheduler.start();
  }

  /**
   * A Claude Code session ended (the SessionEnd hook): the sessions of the project whose memory it
   * read are recounted and its gates checked at once. `folder` is the transcript's folder
   * (`<home>/projects/<launch dir>`) or its name: a session launched in a subdirectory or worktree
   * counts for the repository's project (R-LAYOUT).
   */
  noteSessionEnded(folder: string): void {
    const name = path.basename(folder);
    this.sessionCache.forget(path.isAbsolute(folder) ? folder : name);
    void locateTranscriptProject(this.host.home, name, this.host.env).then(
      (loc) => {
        for (const dir of loc.transcriptDirs) this.sessionCache.forget(dir);
        this.#scheduler?.noteSessionEnded(loc.projectDir);
      },
      () => this.#scheduler?.noteSessionEnded(folder),
    );
  }

  /** Stops the scheduler (running dream jobs are cancelled by the job runner's close). */
  async close(): Promise<void> {
    await this.#scheduler?.stop();
    this.#scheduler = null;
  }
}
