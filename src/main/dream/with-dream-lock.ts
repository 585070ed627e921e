/**
 * Runs a dream while holding the consolidation lock, and makes sure the lock ends right:
 * released on success; rolled back on a throw, a cancel (AbortSignal) or SIGINT/SIGTERM/SIGHUP
 * of the process — synchronously, in the signal handler, before the process goes — until the dream
 * says it is applying (`applying()`): from there a signal no longer cancels it, apply finishes whole
 * and the lock ends as a completed dream's (a process the signal ends mid-apply is undone whole by
 * the apply journal at the next run, as after kill -9). SIGKILL and
 * power loss cannot be handled here; the rollback record covers them (the next acquire, or
 * `recoverCrashedDreams` at startup, restores the previous mtime).
 *
 * While the dream runs, a heartbeat keeps the lock's mtime fresh, so a dream that takes longer
 * than an hour is not mistaken for a stale lock and taken over. If it is taken over all the
 * same, the dream's signal aborts with {@link DreamLockLostError} and nothing of the lock is
 * touched at the end.
 */
import { type DreamLock, type DreamLockOptions, type DreamLockProblem, LOCK_STALE_MS, acquireDreamLock } from './consolidation-lock.js';
import { MemdirError } from '../../shared/errors.js';

/** How often a held lock's mtime is refreshed: well inside the 1-hour staleness. */
export const DREAM_HEARTBEAT_MS = LOCK_STALE_MS / 6;

/** The dream was cancelled: by its AbortSignal or by a signal to the process. */
export class DreamCancelledError extends MemdirError<'cancelled'> {
  override readonly name = 'DreamCancelledError';
  constructor(message: string) {
    super('cancelled', message);
  }
}

/** Another process took the consolidation lock over while the dream ran. */
export class DreamLockLostError extends MemdirError<'lock-lost'> {
  override readonly name = 'DreamLockLostError';
  constructor(message: string) {
    super('lock-lost', message);
  }
}

/** Options of {@link withDreamLock} and {@link runWithDreamLock}. */
export interface DreamRunOptions extends DreamLockOptions {
  /** Cancels the dream: the lock is rolled back once `fn` settles. */
  signal?: AbortSignal;
  /** Heartbeat period; default {@link DREAM_HEARTBEAT_MS}. */
  heartbeatMs?: number;
}

/** What `fn` gets: the lock (to `verify()` before applying changes) and the signal to obey. */
export interface DreamContext {
  lock: DreamLock;
  /** Aborts on cancel, on SIGINT/SIGTERM/SIGHUP, or when the lock is lost. */
  signal: AbortSignal;
  /** Apply begins: a signal to the process no longer rolls the lock back (the dream will be applied whole). */
  applying(): void;
}

/** How a run ended. A throw from `fn` that is not a cancel is rethrown after the rollback. */
export type DreamRunResult<T> =
  | { outcome: 'completed'; value: T; /** The new `lastConsolidatedAt` (ISO). */ lastConsolidatedAt: string }
  | { outcome: 'not-acquired'; problem: DreamLockProblem }
  | { outcome: 'cancelled'; reason: unknown }
  | { outcome: 'lost' };

interface Running {
  lock: DreamLock;
  controller: AbortController;
  applying: boolean;
}

const running = new Set<Running>();
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
const signalHandlers = new Map<NodeJS.Signals, () => void>(SIGNALS.map((sig) => [sig, () => onSignal(sig)]));

function onSignal(sig: NodeJS.Signals): void {
  for (const run of running) {
    // Apply under way: cutting it would leave files written and a record saying nothing was.
    if (run.applying) continue;
    run.lock.rollbackSync();
    run.controller.abort(new DreamCancelledError(`The dream was stopped by ${sig}.`));
  }
  uninstallHandlers();
  // Listening replaced Node's default (exit), so restore it by re-raising — unless the app has
  // handlers of its own, which then decide whether and when to exit. signal-exit's listeners
  // (proper-lockfile loads it) are not the app's: each re-raises only when
  // it is alone, so one registered before ours stood back for us, and without this the process
  // would never exit. Both of its major versions publish how many listeners are theirs.
  if (process.listenerCount(sig) <= signalExitListeners()) {
    process.kill(process.pid, sig);
    // Signal watchers do not keep Node alive: if the dream was all that was left to do, the loop
    // could end (exit 0) before the re-raised signal is handled. Wait for it.
    setTimeout(() => undefined, 5_000);
  }
}

/** How many signal listeners per signal belong to signal-exit (v3 and v4 globals). */
function signalExitListeners(): number {
  const v3 = (process as { __signal_exit_emitter__?: { count?: unknown } }).__signal_exit_emitter__?.count;
  const v4 = (globalThis as Record<symbol, { count?: unknown } | undefined>)[Symbol.for('signal-exit emitter')]?.count;
  return (typeof v3 === 'number' ? v3 : 0) + (typeof v4 === 'number' ? v4 : 0);
}

function onExit(): void {
  for (const run of running) run.lock.rollbackSync();
}

let installed = false;

function installHandlers(): void {
  if (installed) return;
  installed = true;
  for (const [sig, handler] of signalHandlers) process.on(sig, handler);
  process.on('exit', onExit);
}

function uninstallHandlers(): void {
  installed = false;
  for (const [sig, handler] of signalHandlers) process.off(sig, handler);
  process.off('exit', onExit);
}

/**
 * Runs `fn` holding `lock` (from `passDreamGates` or `acquireDreamLock`) and ends the lock:
 * `completed` → released (mtime = the dream's start, the new `lastConsolidatedAt`);
 * `cancelled` → rolled back (the signal aborted, before or while `fn` ran; `fn` is awaited, so
 * nothing it does outlives the lock); a throw → rolled back and rethrown; `lost` → untouched.
 * A cancel that comes after `fn` has resolved is too late: the dream's work is done and kept.
 */
export async function runWithDreamLock<T>(lock: DreamLock, fn: (ctx: DreamContext) => Promise<T>, opts: DreamRunOptions = {}): Promise<DreamRunResult<T>> {
  const controller = new AbortController();
  const outer = opts.signal;
  const forward = (): void => controller.abort(outer?.reason ?? new DreamCancelledError('The dream was cancelled.'));
  if (outer?.aborted) {
    await lock.rollback();
    return { outcome: 'cancelled', reason: outer.reason };
  }
  outer?.addEventListener('abort', forward, { once: true });
  const run: Running = { lock, controller, applying: false };
  running.add(run);
  installHandlers();
  const heartbeat = setInterval(() => {
    lock.touch().then(
      (ours) => {
        if (!ours && lock.state === 'lost') controller.abort(new DreamLockLostError(`Another process took the consolidation lock of ${lock.memoryDir} over.`));
      },
      () => undefined,
    );
  }, opts.heartbeatMs ?? DREAM_HEARTBEAT_MS);
  heartbeat.unref();
  try {
    let value: T;
    try {
      value = await fn({ lock, signal: controller.signal, applying: () => void (run.applying = true) });
    } catch (err) {
      if (lock.state === 'lost') return { outcome: 'lost' };
      try {
        await lock.rollback();
      } catch (rollbackError) {
        // Both matter: why the dream stopped, and that the lock still says "consolidating" (the
        // rollback record stays, so the next acquire repairs it).
        throw new AggregateError([err, rollbackError], `The dream stopped and its lock could not be rolled back: ${String(rollbackError)}`, {
          cause: rollbackError,
        });
      }
      if (controller.signal.aborted) return { outcome: 'cancelled', reason: controller.signal.reason };
      throw err;
    }
    const end = await lock.release();
    if (end === 'released') return { outcome: 'completed', value, lastConsolidatedAt: new Date(lock.acquiredAtMs).toISOString() };
    if (end === 'lost') return { outcome: 'lost' };
    // A signal handler rolled the lock back while `fn` was finishing.
    return { outcome: 'cancelled', reason: controller.signal.reason };
  } finally {
    clearInterval(heartbeat);
    outer?.removeEventListener('abort', forward);
    running.delete(run);
    if (running.size === 0) uninstallHandlers();
  }
}

/**
 * Takes the consolidation lock of `memoryDir` and runs `fn` with it (see
 * {@link runWithDreamLock}). When the lock cannot be taken — held by a live process, a
 * missing or read-only directory — `fn` does not run and the outcome is `not-acquired` with the
 * problem to show.
 */
export async function withDreamLock<T>(memoryDir: string, fn: (ctx: DreamContext) => Promise<T>, opts: DreamRunOptions = {}): Promise<DreamRunResult<T>> {
  if (opts.signal?.aborted) return { outcome: 'cancelled', reason: opts.signal.reason };
  const taken = await acquireDreamLock(memoryDir, opts);
  if (!taken.ok) return { outcome: 'not-acquired', problem: taken.problem };
  return runWithDreamLock(taken.lock, fn, opts);
}
