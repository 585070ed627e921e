/**
 * Turn ends without hooks (issue 5, part 2): watches the session transcripts of a home
 * (`projects/<dir>/<session>.jsonl`, not sub-agents, not memory) and reports
 *   - `activity`, at most once per `activityMs` while a transcript grows (Session Memory
 *     counts then: a long agentic turn must update its note mid-way);
 *   - `quiet`, when a transcript has not changed for `quietMs` — turns that ended with a final
 *     stop reason, or that a next prompt closed, are complete by then;
 *   - `idle`, after `idleCloseMs` without change — Claude Code often writes `stop_reason: null`
 *     on every line while streaming, so a last answer with no stop reason is only taken as the
 *     end of its turn after a longer silence (and only if it answered every tool call).
 * The app's own MemoryWatcher stays on memory files; this one only sees transcripts.
 *
 * Catching up (issue s45): while it runs, the watcher tells `onWatched` the time up to which every
 * change it saw has been reported to its end (`idle`, whose report notes what it owes on disk) —
 * after its first scan, every minute, and when it closes. Given that time from its last run
 * (`lastWatched`), the first scan reports each transcript written since, as if it had just been
 * written: the turns that ended after that time are new (`seenFrom`, told by the turns' own
 * timestamps for a session extraction has never read; the cursor says it for the others). A
 * transcript untouched since, or with no time recorded (the first start ever), stays history.
 */
import { type Stats, statSync } from 'node:fs';
import path from 'node:path';
import { type FSWatcher, watch } from 'chokidar';
import { readTurns } from '../transcripts/index.js';

export type QuietStage = 'quiet' | 'idle';

export interface TurnEndWatcherOptions {
  home: string;
  quietMs: number;
  idleCloseMs: number;
  activityMs: number;
  onActivity: (transcriptPath: string) => void;
  /**
   * `seenFrom`: the bytes the transcript held when this watcher first saw it — what was written
   * before Memdir watched (for one that appears later, where its last turn starts: 0 for one made
   * since, and only the latest turn new for one written whole at once; none for one written as the
   * watch began with no `lastWatched`, which cannot be told apart).
   */
  onQuiet: (transcriptPath: string, stage: QuietStage, seenFrom: number | undefined) => void | Promise<void>;
  /** When this home's watcher last had every change reported (its last run's `onWatched`); none the first time. */
  lastWatched?: number;
  /** Every change seen until this time has been reported (see the module comment). */
  onWatched?: (time: number) => void | Promise<void>;
  /** How often `onWatched` is told while watching. Default a minute. */
  watchedEveryMs?: number;
  /**
   * The watch failed (told for the first error only): from then on it no longer tells `onWatched`,
   * so the next start catches up from the last time it told.
   */
  onFailed?: (error: Error) => void;
  /** Transcripts never reported (Memdir's own sessions). */
  ignore?: (transcriptPath: string) => boolean;
}

interface Timers {
  activity: NodeJS.Timeout | null;
  quiet: NodeJS.Timeout | null;
  idle: NodeJS.Timeout | null;
}

/**
 * How far before the watcher began a transcript's mtime may be and still count as written since:
 * the kernel stamps files from a coarse clock that can trail `Date.now()` by a tick.
 */
const CLOCK_MARGIN_MS = 1_000;
/**
 * How far before the last run's time a transcript's mtime, or a turn's end, may be and still count
 * as new: a change is stamped a little before the watcher hears of it, a turn's timestamp before
 * its last line is written.
 */
const CATCH_UP_MARGIN_MS = 5_000;

/** Watches a home's session transcripts (see the module comment). */
export class TurnEndWatcher {
  private readonly watcher: FSWatcher;
  private readonly timers = new Map<string, Timers>();
  private closed = false;
  /** Until the first scan is done, a transcript it finds counts only if written since the watcher began. */
  private scanning = true;
  private readonly since = Date.now() - CLOCK_MARGIN_MS;
  /** Settles when the first scan is done: from then on, every transcript's `seenFrom` is known. */
  readonly ready: Promise<void>;
  /** Each transcript's size when first seen (see `onQuiet`). */
  private readonly seenFrom = new Map<string, number>();
  /** Transcripts with a change not yet reported to its end, and since when (see the module comment). */
  private readonly unreported = new Map<string, { since: number }>();
  /** The watch failed somewhere: it can no longer say it saw every change. */
  private failed = false;
  private watchedTimer: NodeJS.Timeout | null = null;

  constructor(private readonly options: TurnEndWatcherOptions) {
    const projects = path.join(options.home, 'projects');
    this.watcher = watch(projects, {
      // The first scan reports every transcript, each with its stat: the ones written while it
      // ran (the watch of their folder not yet set) are told from the rest by their mtime.
      ignoreInitial: false,
      // projects/<dir>/<session>.jsonl and nothing deeper.
      depth: 1,
      ignored: (file) => {
        const rel = path.relative(projects, file);
        if (rel === '') return false;
        const parts = rel.split(path.sep);
        if (parts.some((p) => p.startsWith('.')) || parts.length > 2) return true;
        return parts.length === 2 && !parts[1]!.endsWith('.jsonl');
      },
    });
    this.watcher.on('add', (file) => {
      if (!this.scanning) {
        void this.appeared(file);
        return;
      }
      // The file's own stat, taken now: the one chokidar hands the first scan's events can be
      // another's (seen in tests: a time of the scan itself for a transcript untouched for a minute).
      let stats: Stats | null = null;
      try {
        stats = statSync(file);
      } catch {
        // Gone already: nothing to report.
      }
      if (!stats) return;
      // Written since the last run had everything reported — before the watcher began or while it
      // scans (a session still writing as the app starts): its turns' own times tell what is new.
      const last = this.options.lastWatched;
      if (last !== undefined && stats.mtimeMs >= last - CATCH_UP_MARGIN_MS) void this.caughtUp(file, stats.size, last);
      else if (stats.mtimeMs < this.since) this.seenFrom.set(file, stats.size);
      else this.note(file);
    });
    this.watcher.on('change', (file) => this.note(file));
    this.watcher.on('unlink', (file) => this.forget(file));
    // Too many watches or no permission: the hooks (when connected) still report turn ends.
    this.watcher.on('error', (error) => {
      if (this.failed) return;
      this.failed = true;
      this.options.onFailed?.(error instanceof Error ? error : new Error(String(error)));
    });
    this.ready = new Promise((resolve) =>
      this.watcher.once('ready', () => {
        this.scanning = false;
        resolve();
        if (this.closed) return;
        void this.tellWatched();
        this.watchedTimer = setInterval(() => void this.tellWatched(), options.watchedEveryMs ?? 60_000);
        this.watchedTimer.unref();
      }),
    );
  }

  /** Until when every change seen has been reported (see the module comment). */
  private watchedUntil(): number {
    let until = Date.now();
    for (const { since } of this.unreported.values()) until = Math.min(until, since);
    return until;
  }

  private async tellWatched(): Promise<void> {
    if (this.failed || this.scanning || !this.options.onWatched) return;
    await this.options.onWatched(this.watchedUntil());
  }

  /**
   * A transcript the first scan finds written since the last run's watcher had everything
   * reported (`last`): reported as a change. The turns it held that ended before then are history
   * (`seenFrom` where the first that ended after begins); a turn without a time counts as history.
   */
  private async caughtUp(file: string, size: number, last: number): Promise<void> {
    // What it holds counts as history until its turns are read; owed from `last` on meanwhile.
    this.seenFrom.set(file, size);
    if (!this.reported(file)) return;
    this.unreported.set(file, { since: last });
    const cutoff = last - CATCH_UP_MARGIN_MS;
    let before = 0;
    try {
      for await (const turn of readTurns(file)) {
        if (turn.endOffset > size) break;
        // A fork's copy of its source's turns is the source's history, whatever their time.
        const ended = turn.endedAt ? Date.parse(turn.endedAt) : Number.NaN;
        if (turn.copiedFrom === null && Number.isFinite(ended) && ended > cutoff) break;
        before = turn.endOffset;
      }
    } catch {
      // Unreadable now: what it held stays history.
      before = size;
    }
    if (this.closed || this.seenFrom.get(file) !== size) return;
    this.seenFrom.set(file, before);
    this.note(file);
  }

  /**
   * A transcript that appears once the first scan is done: a new session (empty or nearly, so
   * nothing before), or one written whole at once — `claude --resume`/`--fork-session` writing the
   * session anew, a copied or synced projects folder. Its turns up to the last one are a past
   * session, never mined automatically; the last one (its start is `seenFrom`) is new.
   */
  private async appeared(file: string): Promise<void> {
    let size: number;
    try {
      size = statSync(file).size;
    } catch {
      return; // Gone already: nothing to report.
    }
    // Until its turns are read, everything it holds counts as from before.
    this.seenFrom.set(file, size);
    if (this.reported(file) && !this.unreported.has(file)) this.unreported.set(file, { since: Date.now() });
    let lastStart = 0;
    try {
      for await (const turn of readTurns(file)) {
        if (turn.startOffset >= size) break;
        // A fork's copy of its source's turns is history, the last one too.
        lastStart = turn.copiedFrom === null ? turn.startOffset : turn.endOffset;
      }
    } catch {
      // Unreadable now: what it held stays from before.
      lastStart = size;
    }
    if (this.closed || this.seenFrom.get(file) !== size) return;
    this.seenFrom.set(file, Math.min(lastStart, size));
    this.note(file);
  }

  /** Whether changes of this file are reported (a session transcript, not one of Memdir's own). */
  private reported(file: string): boolean {
    return file.endsWith('.jsonl') && !this.options.ignore?.(file);
  }

  private note(file: string): void {
    if (this.closed || !this.reported(file)) return;
    const timers = this.timers.get(file) ?? { activity: null, quiet: null, idle: null };
    this.timers.set(file, timers);
    const unreported = this.unreported.get(file) ?? { since: Date.now() };
    this.unreported.set(file, unreported);
    timers.activity ??= setTimeout(() => {
      timers.activity = null;
      this.options.onActivity(file);
    }, this.options.activityMs);
    if (timers.quiet) clearTimeout(timers.quiet);
    timers.quiet = setTimeout(() => {
      timers.quiet = null;
      void this.options.onQuiet(file, 'quiet', this.seenFrom.get(file));
    }, this.options.quietMs);
    if (timers.idle) clearTimeout(timers.idle);
    timers.idle = setTimeout(() => {
      timers.idle = null;
      this.timers.delete(file);
      // Reported to its end once the report has noted what it owes (a change since starts anew).
      void Promise.resolve(this.options.onQuiet(file, 'idle', this.seenFrom.get(file)))
        .catch(() => undefined)
        .then(() => {
          if (this.unreported.get(file) === unreported && !this.timers.has(file)) this.unreported.delete(file);
        });
    }, this.options.idleCloseMs);
  }

  private forget(file: string): void {
    this.seenFrom.delete(file);
    this.unreported.delete(file);
    const timers = this.timers.get(file);
    if (!timers) return;
    for (const timer of [timers.activity, timers.quiet, timers.idle]) if (timer) clearTimeout(timer);
    this.timers.delete(file);
  }

  async close(): Promise<void> {
    if (this.watchedTimer) clearInterval(this.watchedTimer);
    // What was seen but not reported to its end is caught up at the next start.
    if (!this.closed) await this.tellWatched().catch(() => undefined);
    this.closed = true;
    for (const file of [...this.timers.keys()]) this.forget(file);
    await this.watcher.close();
  }
}
