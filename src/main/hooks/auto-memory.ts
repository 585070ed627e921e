/**
 * Memory written without anyone remembering to write it, while the app runs: Claude Code's hook
 * events (taken from the spool as they arrive, and at start for those spooled while the app was
 * closed) and the transcript watcher drive extraction (R-EXTRACT) and Session Memory (R-SESSION).
 *
 *   Stop        → extract the finished turn; count Session Memory (update the note when due)
 *   PreCompact  → update the Session Memory note now (it must survive the compaction)
 *   SessionEnd  → extract what is left (the trailing turn is closed); the session stops counting
 *                 (its note stays for a `--resume` until the idle sweep removes it)
 *   watcher     → activity: Session Memory counts; quiet: extract complete turns; idle (only
 *                 without hooks): close a last turn that never got a stop reason
 *
 * Started only by the app (`AppContext` with `watch: true`), never by the CLI or unit tests, and
 * stopped in `AppContext.close()`.
 */
import { failureSentence } from '../../shared/failure-words.js';
import path from 'node:path';
import type { EventBus } from '../core/event-bus.js';
import type { JobRunner } from '../jobs/index.js';
import { LlmError, type ModelProvider, resolveProvider } from '../llm/index.js';
import { type CredentialStore, loadAppSettings } from '../settings/index.js';
import { ExtractionService, isInternalProject, TurnEndWatcher } from '../extract/index.js';
import { SessionMemory } from '../session/index.js';
import { readHooksStatus } from './claude-settings-hooks.js';
import { HookServer } from './hook-channel.js';
import { drainSpool, type HookEvent, logHookProblem, watchSpool } from '../hook-spool/index.js';

/** What the app gives: AppContext satisfies this. */
export interface AutoMemoryHost {
  readonly home: string;
  readonly dataDir: string;
  readonly env: NodeJS.ProcessEnv;
  readonly events: EventBus;
  readonly jobs: JobRunner;
  readonly credentials: CredentialStore;
  /** Memdir wrote into a project's memory: forget cached facts, tell the renderer. */
  changed(dir: string, memoryDir: string): void;
  /** A session of this project (the transcript's folder) ended: the dream gates may open. */
  sessionEnded?(projectDir: string): void;
}

/** The turn ends among hook events, by transcript: how many (Stop events spooled), and how to treat a last turn. */
function turnEnds(events: readonly HookEvent[], stops: Record<string, number>): Map<string, { closeTrailingTurn: 'if-answered' | 'always'; newTurns: number }> {
  const out = new Map<string, { closeTrailingTurn: 'if-answered' | 'always'; newTurns: number }>();
  for (const event of events) {
    if (event.event === 'PreCompact') continue;
    const close = event.event === 'Stop' ? 'if-answered' : 'always';
    const before = out.get(event.transcriptPath);
    out.set(event.transcriptPath, { closeTrailingTurn: before?.closeTrailingTurn === 'always' ? 'always' : close, newTurns: stops[event.transcriptPath] ?? 1 });
  }
  return out;
}

/** How often idle sessions are looked for. */
const SWEEP_MS = 10 * 60_000;
/** Session Memory counts at most this often while a transcript grows. */
const ACTIVITY_MS = 5_000;

/** Extraction, Session Memory and the hook channel of the running app (see the module comment). */
export class AutoMemory {
  private extractionValue: ExtractionService | null = null;
  private sessionsValue: { home: string; memory: SessionMemory } | null = null;
  private server: HookServer | null = null;
  private watcher: TurnEndWatcher | null = null;
  private sweeper: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private hooksConnected = false;
  private started = false;
  private stopSpoolWatch: (() => void) | null = null;
  /** The drain running now, and whether another was asked for meanwhile. */
  private draining: Promise<void> | null = null;
  private drainAgain = false;
  /** The hook-problem line last written because turn ends could not be noted (not written again while the same). */
  private unheldSaid: string | null = null;
  /** The line last written because a turn end only the watcher saw could not be noted (not written again while the same). */
  private unnotedSaid: string | null = null;
  /** Why the hook channel is not listening, when it is not. */
  channelProblem: string | null = null;

  /** The host is only read when first used: AppContext creates this among its own fields. */
  constructor(
    private readonly host: AutoMemoryHost,
    private readonly options: {
      provider?: () => Promise<ModelProvider>;
      /** How often the watcher records how far it watched (a minute; tests make it sooner). */
      watchedEveryMs?: number;
    } = {},
  ) {}

  /** Extraction jobs of the app. */
  get extraction(): ExtractionService {
    const host = this.host;
    this.extractionValue ??= new ExtractionService({
      home: () => host.home,
      dataDir: host.dataDir,
      env: host.env,
      jobs: host.jobs,
      credentials: host.credentials,
      onWrote: (project, memoryDir) => host.changed(project, memoryDir),
      ...(this.options.provider ? { provider: this.options.provider } : {}),
    });
    return this.extractionValue;
  }

  /** Session Memory of the current home. */
  get sessions(): SessionMemory {
    if (this.sessionsValue?.home !== this.host.home) {
      this.sessionsValue = {
        home: this.host.home,
        memory: new SessionMemory({ home: this.host.home, dataDir: this.host.dataDir, provider: () => this.provider() }),
      };
    }
    return this.sessionsValue.memory;
  }

  /** The model for Session Memory notes, as Memdir's settings choose it now. */
  private async provider(): Promise<ModelProvider> {
    if (this.options.provider) return this.options.provider();
    const { settings } = await loadAppSettings(this.host.dataDir);
    return resolveProvider(settings, this.host.env, { dataDir: this.host.dataDir, credentials: this.host.credentials });
  }

  /** Take the hook spool (unless another app on this data dir does), watch transcripts, sweep idle sessions. */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    let otherApp = false;
    try {
      const started = await HookServer.start(this.host.dataDir);
      this.server = started.server;
      this.channelProblem = started.problem;
      otherApp = started.otherApp;
    } catch (error) {
      this.channelProblem = `This app cannot be seen by \`memdir hooks status\` (${(error as Error).message}); hook events still arrive through the spool.`;
    }
    await this.refreshHooksConnected();
    if (!otherApp) {
      // Watch first, then take what waited: an event spooled in between is seen by one or the
      // other, not left for the next poll (a drain asked for during another runs after it).
      try {
        this.stopSpoolWatch = await watchSpool(this.host.dataDir, () => void this.drainSpool('hook'));
      } catch (error) {
        await logHookProblem(this.host.dataDir, 'app', `the hook spool cannot be watched (${(error as Error).message}); its events are read at the next start`);
      }
      // Turns a run did not finish before the app last quit (a full disk), then those spooled meanwhile.
      try {
        await this.extraction.resume();
      } catch (error) {
        await logHookProblem(this.host.dataDir, 'app', `the turns left from the last run could not be taken up: ${(error as Error).message}`);
      }
      await this.drainSpool('spool');
    }
    try {
      await this.startWatcher();
    } catch (error) {
      // The app still runs: hook events (when connected) and "Extract now" do the work.
      await logHookProblem(this.host.dataDir, 'app', `the transcript watcher could not start: ${(error as Error).message}`);
    }
    await this.sweep();
    this.sweeper = setInterval(() => void this.sweep(), SWEEP_MS);
    this.sweeper.unref();
    this.unsubscribe = this.host.events.subscribe((event) => {
      if (event.type === 'home-changed') void this.restartWatcher();
    });
  }

  /**
   * Handle the spooled hook events: `spool` for those waiting since before the app started,
   * `hook` for those arriving while it runs. Drains run one at a time; one asked for meanwhile
   * runs after.
   */
  async drainSpool(via: 'hook' | 'spool'): Promise<void> {
    if (this.draining) {
      this.drainAgain = true;
      return this.draining;
    }
    this.draining = (async () => {
      let current = via;
      do {
        this.drainAgain = false;
        const trigger = current;
        let unheld: unknown = null;
        try {
          const { bad } = await drainSpool(this.host.dataDir, async (events, stops) => {
            // The turn ends are noted for extraction before their events leave the spool: a run a
            // full disk stops is then taken up at the next start. A transcript whose note the disk
            // refused is not handled now: its events stay in the spool, untouched, for the next drain.
            const unnoted = new Set<string>();
            for (const [transcript, request] of turnEnds(events, stops))
              await this.extraction.hold(transcript, request).catch((error: unknown) => {
                unheld ??= error;
                unnoted.add(transcript);
              });
            for (const event of events) if (!unnoted.has(event.transcriptPath)) this.handle(event, trigger, stops[event.transcriptPath] ?? 1);
            return unnoted;
          });
          for (const b of bad) await logHookProblem(this.host.dataDir, 'spool', `${b.file}: ${b.reason}; removed`);
          // Said once while it lasts: the poll drains again every 30 s while the disk stays full.
          const said = unheld ? `${(unheld as Error).message}; the turns that ended stay in the spool and are taken up again` : null;
          if (said && said !== this.unheldSaid) await logHookProblem(this.host.dataDir, 'spool', said);
          this.unheldSaid = said;
        } catch (error) {
          await logHookProblem(this.host.dataDir, 'spool', `the spool could not be read: ${(error as Error).message}`);
        }
        // What arrived during a drain arrived while the app ran.
        current = 'hook';
      } while (this.drainAgain && this.started);
    })();
    try {
      await this.draining;
    } finally {
      this.draining = null;
    }
  }

  /** Whether the hooks are in the current home's settings (the watcher leans on them then). */
  async refreshHooksConnected(): Promise<void> {
    const status = await readHooksStatus(this.host.home, { dataDir: this.host.dataDir }).catch(() => null);
    this.hooksConnected = status?.events.some((e) => e.event === 'Stop' && e.command !== null) ?? false;
  }

  private isOwn(transcriptPath: string): boolean {
    const dir = path.basename(path.dirname(transcriptPath));
    return isInternalProject(dir, this.host.dataDir);
  }

  /**
   * One hook event (see the module comment). Never throws; work happens in the background.
   * `newTurns`: for a session never extracted from, how many of its last turns are new.
   */
  handle(event: HookEvent, via: 'hook' | 'spool', newTurns = 1): void {
    const transcript = path.resolve(event.transcriptPath);
    if (this.isOwn(transcript)) return;
    void this.settingsThen(async ({ sessionEnabled }) => {
      if (event.event === 'Stop') {
        this.extraction.trigger(transcript, { trigger: via, closeTrailingTurn: 'if-answered', newTurns });
        if (sessionEnabled) await this.sessions.observe(transcript);
      } else if (event.event === 'PreCompact') {
        if (sessionEnabled) await this.sessions.observe(transcript, { force: true });
      } else {
        this.extraction.trigger(transcript, { trigger: via, closeTrailingTurn: 'always', newTurns });
        await this.sessions.end(event.sessionId);
        this.host.sessionEnded?.(path.dirname(transcript));
      }
    });
  }

  private async settingsThen(fn: (s: { sessionEnabled: boolean; idleMinutes: number }) => Promise<void>): Promise<void> {
    try {
      const { settings } = await loadAppSettings(this.host.dataDir);
      await fn({ sessionEnabled: settings.session.enabled, idleMinutes: settings.session.idleMinutes });
    } catch (error) {
      // Work the app's close stopped is no problem to report (and the data folder is no longer written).
      if (!this.started && error instanceof LlmError && error.kind === 'aborted') return;
      await logHookProblem(this.host.dataDir, 'app', (error as Error).message);
    }
  }

  /**
   * Starts watching the transcripts; its first scan runs on in the background (a turn written
   * meanwhile is still reported: the watcher tells it by its mtime), so no call waits for it.
   */
  private async startWatcher(): Promise<void> {
    const { settings } = await loadAppSettings(this.host.dataDir);
    const home = this.host.home;
    // What sessions wrote since the last run's watcher had everything reported is caught up.
    const lastWatched = await this.extraction.lastWatched(home);
    const watcher = new TurnEndWatcher({
      home,
      ...(lastWatched !== undefined ? { lastWatched } : {}),
      onWatched: (time) => this.extraction.watchedUntil(home, time).catch(() => undefined),
      ...(this.options.watchedEveryMs !== undefined ? { watchedEveryMs: this.options.watchedEveryMs } : {}),
      onFailed: (error) =>
        void logHookProblem(
          this.host.dataDir,
          'app',
          `the transcript watcher cannot tell it saw every change (${failureSentence(error)}); it stops recording how far it watched, so the next start reads again every session written since its last record`,
        ),
      quietMs: settings.extraction.quietSeconds * 1000,
      idleCloseMs: settings.extraction.idleCloseSeconds * 1000,
      activityMs: ACTIVITY_MS,
      ignore: (file) => this.isOwn(file),
      onActivity: (file) => void this.settingsThen(async ({ sessionEnabled }) => void (sessionEnabled && (await this.sessions.observe(file)))),
      onQuiet: (file, stage, seenFrom) => {
        void this.settingsThen(async ({ sessionEnabled }) => void (sessionEnabled && (await this.sessions.observe(file))));
        // What a report owes is the extraction service's rule; it says when a note the disk refused leaves the turn owed only in memory.
        return this.extraction.watcherReported(file, { stage, seenFrom, owed: !this.hooksConnected }).then(
          // Noted again: the next refusal is a new episode, said again (review s44 #4).
          () => void (this.unnotedSaid = null),
          (error: unknown) => this.sayUnnoted(error),
        );
      },
    });
    this.watcher = watcher;
  }

  /** A turn end the watcher saw could not be noted on disk: said once while the same. */
  private async sayUnnoted(error: unknown): Promise<void> {
    const said = `${(error as Error).message}; a turn that ended is extracted while the app runs, but forgotten if it quits before there is room`;
    if (said === this.unnotedSaid) return;
    this.unnotedSaid = said;
    await logHookProblem(this.host.dataDir, 'app', said);
  }

  private async restartWatcher(): Promise<void> {
    await this.watcher?.close();
    this.watcher = null;
    if (this.started) {
      await this.refreshHooksConnected();
      await this.startWatcher();
    }
  }

  private async sweep(): Promise<void> {
    await this.settingsThen(async ({ idleMinutes }) => void (await this.sessions.sweepIdle(idleMinutes)));
  }

  /** Settles when the transcript watcher's first scan is done (at once when none runs): what it finds was written before Memdir watched. */
  watching(): Promise<void> {
    return this.watcher?.ready ?? Promise.resolve();
  }

  /** Whether hook events reach this app now. */
  get listening(): boolean {
    return this.server !== null;
  }

  async close(): Promise<void> {
    this.started = false;
    this.stopSpoolWatch?.();
    this.stopSpoolWatch = null;
    // Every source of work stops before the work is awaited: a report, an event or a sweep made
    // after extraction and Session Memory closed would go unawaited (review s44 #6).
    this.unsubscribe?.();
    if (this.sweeper) clearInterval(this.sweeper);
    await this.draining;
    await this.watcher?.close();
    this.watcher = null;
    await Promise.all([this.extractionValue?.close(), this.sessionsValue?.memory.close()]);
    await this.server?.close();
    this.server = null;
  }
}
