/**
 * Scheduled dreams (issue 6, part 5): the app checks the gates of every project at start, after
 * a session ends (`noteSessionEnded`, called by the SessionEnd hook) and periodically, and
 * dreams in the background when they are open. Only the app runs it (AppContext with
 * `watch: true`); the CLI and the tests never do unless they ask.
 *
 * Cheap by design: a check is the gates in status mode (dreamGatesOpen) — one `stat` when the time gate is closed
 * (the usual case), a session count reused for 10 minutes otherwise — and a job starts only when
 * all gates are open. Never two dreams per memory dir: the job key, then the lock. Projects with
 * auto memory or `autoDreamEnabled` off are skipped by the gates themselves; a project whose
 * last dream is waiting for the user's confirmation is not dreamt again until it is answered.
 * Each tick also rolls back what crashed dreams left (recover-dreams.ts).
 */
import { dreamGatesOpen, type DreamTarget } from './gates/dream-gates.js';
import type { DreamSettings } from './run-dream.js';
import type { SessionScanCache } from './gates/session-scan.js';

/** A project the scheduler looks after. */
export interface ScheduledProject extends DreamTarget {
  /** Its directory name under `projects/`. */
  dir: string;
}

/** What the scheduler needs from the app. */
export interface SchedulerDeps<P extends ScheduledProject = ScheduledProject> {
  /** The projects of the current home (cached by the caller; called every tick). */
  projects(): Promise<P[]>;
  settings(): Promise<DreamSettings>;
  /** Starts a scheduled dream as a background job (it re-checks the gates and takes the lock). */
  dream(project: P): Promise<void>;
  /** A dream of this memory dir runs in this app. */
  isRunning(memoryDir: string): boolean;
  /** The last dream of this memory dir waits for the user's confirmation. */
  awaitingConfirmation(memoryDir: string): Promise<boolean>;
  /** The crash sweep. */
  recover(): Promise<unknown>;
  dataDir: string;
  sessionCache: SessionScanCache;
}

/** Checks the gates of every project on a timer; see the file comment. */
export class DreamScheduler<P extends ScheduledProject = ScheduledProject> {
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;
  #again = false;
  #stopped = false;
  /** Projects to check at the next opportunity, before the others (a session just ended there). */
  readonly #urgent = new Set<string>();

  constructor(private readonly deps: SchedulerDeps<P>) {}

  /** Checks now, then every `checkEveryMinutes` (read from the settings at each tick). */
  start(): void {
    this.#stopped = false;
    void this.tick();
  }

  /** A session of this project ended (`<home>/projects/<dir>` or the dir name): check it soon. */
  noteSessionEnded(projectDir: string): void {
    this.deps.sessionCache.forget(projectDir);
    this.#urgent.add(projectDir);
    void this.tick();
  }

  /** One round: the crash sweep, then the gates of every project. Overlapping calls coalesce. */
  tick(): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    if (this.#running) {
      this.#again = true;
      return this.#running;
    }
    this.#running = (async () => {
      try {
        do {
          this.#again = false;
          await this.#round();
        } while (this.#again && !this.#stopped);
      } finally {
        this.#running = null;
        await this.#schedule();
      }
    })();
    return this.#running;
  }

  async #schedule(): Promise<void> {
    if (this.#stopped) return;
    if (this.#timer) clearTimeout(this.#timer);
    const minutes = (await this.deps.settings().catch(() => null))?.checkEveryMinutes ?? 5;
    this.#timer = setTimeout(() => void this.tick(), minutes * 60_000);
    // The scheduler never keeps the process alive by itself.
    this.#timer.unref();
  }

  async #round(): Promise<void> {
    await this.deps.recover().catch(() => undefined);
    const settings = await this.deps.settings();
    const projects = await this.deps.projects();
    const urgent = projects.filter((p) => this.#urgent.has(p.projectDir) || this.#urgent.has(p.dir));
    this.#urgent.clear();
    for (const project of [...urgent, ...projects.filter((p) => !urgent.includes(p))]) {
      if (this.#stopped) return;
      if (this.deps.isRunning(project.memoryDir)) continue;
      try {
        const open = await dreamGatesOpen(project, {
          minHours: settings.minHours,
          minSessions: settings.minSessions,
          dataDir: this.deps.dataDir,
          sessionCache: this.deps.sessionCache,
        });
        if (!open) continue;
        if (await this.deps.awaitingConfirmation(project.memoryDir)) continue;
        await this.deps.dream(project);
      } catch {
        // One project's trouble (a vanished folder) never stops the others; the next tick retries.
      }
    }
  }

  /** Stops the timer (a running dream is the job runner's to cancel). */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    await this.#running?.catch(() => undefined);
  }
}
