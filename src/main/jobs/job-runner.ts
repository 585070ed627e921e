/**
 * Background work (dreams, extraction, sync): each job runs with an AbortSignal, reports progress
 * as events, and is never run twice at once for the same key (e.g. one dream per memory dir).
 * Finished jobs are kept for a while so the app can show what happened.
 */
import { randomUUID } from 'node:crypto';
import type { Job } from '../../shared/contract/events.js';
import type { EventBus } from '../core/event-bus.js';
import { MemdirError } from '../../shared/errors.js';

export interface JobProgress {
  phase?: string | null;
  step?: string | null;
  /** 0..1 */
  progress?: number | null;
  message?: string | null;
}

export interface JobContext {
  id: string;
  signal: AbortSignal;
  progress(update: JobProgress): void;
}

export interface StartOptions {
  kind: string;
  title: string;
  dir?: string | null;
  /** Jobs with the same key never run at once: a second start is refused while one runs. */
  key?: string;
}

const KEEP_FINISHED = 100;

/** A job whose key is taken by one still running or queued. */
export class JobBusyError extends MemdirError<'busy'> {
  override readonly name = 'JobBusyError';
  constructor(readonly running: Job) {
    super('busy', `${running.title} is already running.`);
  }
}

export class JobRunner {
  private readonly jobs = new Map<string, Job>();
  private readonly controllers = new Map<string, AbortController>();
  private readonly byKey = new Map<string, string>();
  private readonly done = new Map<string, Promise<unknown>>();

  constructor(private readonly events: EventBus) {}

  /** Start `fn` in the background; returns the job at once. Throws JobBusyError if its key is taken. */
  start<T>(options: StartOptions, fn: (ctx: JobContext) => Promise<T>): { job: Job; result: Promise<T> } {
    if (options.key) {
      const runningId = this.byKey.get(options.key);
      const running = runningId ? this.jobs.get(runningId) : undefined;
      if (running && (running.state === 'running' || running.state === 'queued')) throw new JobBusyError(running);
    }
    const id = randomUUID();
    const controller = new AbortController();
    const job: Job = {
      id,
      kind: options.kind,
      dir: options.dir ?? null,
      title: options.title,
      state: 'running',
      phase: null,
      step: null,
      progress: null,
      message: null,
      startedAt: new Date().toISOString(),
      endedAt: null,
    };
    this.jobs.set(id, job);
    this.controllers.set(id, controller);
    if (options.key) this.byKey.set(options.key, id);
    this.publish(job);
    const ctx: JobContext = {
      id,
      signal: controller.signal,
      progress: (update) => {
        const current = this.jobs.get(id);
        if (!current || current.state !== 'running') return;
        this.update(id, {
          ...(update.phase !== undefined ? { phase: update.phase } : {}),
          ...(update.step !== undefined ? { step: update.step } : {}),
          ...(update.progress !== undefined ? { progress: update.progress } : {}),
          ...(update.message !== undefined ? { message: update.message } : {}),
        });
      },
    };
    const result = (async () => {
      try {
        const value = await fn(ctx);
        this.finish(id, controller.signal.aborted ? 'cancelled' : 'done', null);
        return value;
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        this.finish(id, controller.signal.aborted ? 'cancelled' : 'failed', message);
        throw error;
      } finally {
        this.controllers.delete(id);
        if (options.key && this.byKey.get(options.key) === id) this.byKey.delete(options.key);
      }
    })();
    // Callers that do not await still must not produce unhandled rejections.
    result.catch(() => undefined);
    this.done.set(id, result);
    return { job, result };
  }

  cancel(id: string): boolean {
    const controller = this.controllers.get(id);
    if (!controller) return false;
    controller.abort(new Error('Cancelled by the user'));
    return true;
  }

  get(id: string): Job | undefined {
    return this.jobs.get(id);
  }

  list(): Job[] {
    return [...this.jobs.values()].reverse();
  }

  /** Wait for a job to end (tests, shutdown). */
  async settle(id: string): Promise<void> {
    await this.done.get(id)?.catch(() => undefined);
  }

  /** Cancel everything and wait for it to stop. */
  async close(): Promise<void> {
    for (const id of this.controllers.keys()) this.cancel(id);
    await Promise.all([...this.done.values()].map((p) => p.catch(() => undefined)));
  }

  private update(id: string, patch: Partial<Job>): void {
    const current = this.jobs.get(id);
    if (!current) return;
    const next = { ...current, ...patch };
    this.jobs.set(id, next);
    this.publish(next);
  }

  private finish(id: string, state: Job['state'], message: string | null): void {
    this.update(id, { state, endedAt: new Date().toISOString(), ...(message !== null ? { message } : {}), ...(state === 'done' ? { progress: 1 } : {}) });
    this.done.delete(id);
    while (this.jobs.size > KEEP_FINISHED) {
      const oldest = [...this.jobs.values()].find((j) => j.state !== 'running' && j.state !== 'queued');
      if (!oldest) break;
      this.jobs.delete(oldest.id);
    }
  }

  private publish(job: Job): void {
    this.events.publish({ type: 'job', job });
  }
}
