/**
 * R-DREAM-GATE gate 2: how many sessions touched the project since `lastConsolidatedAt`.
 *
 * A session is a transcript `<projectDir>/<sessionId>.jsonl`; it was touched when its mtime is
 * newer than the last consolidation. Sub-agent transcripts (`<sessionId>/subagents/*.jsonl`)
 * are parts of their parent session, not sessions: they are not counted and their folders are
 * not walked. Their work reaches the parent transcript (a sub-agent's result is appended to it),
 * so the parent's mtime already says the session was active.
 *
 * The scan is readdir + one stat per transcript, throttled (R-DREAM-LOCK) to once per
 * 10 minutes per project by {@link SessionScanCache}.
 */
import path from 'node:path';
import { type DreamFs, errCode, nodeDreamFs } from './dream-fs.js';

/** A project's sessions are recounted at most this often. */
export const SESSION_SCAN_INTERVAL_MS = 10 * 60 * 1000;

/** Stats in flight at once: enough to keep libuv's threads busy, few enough to stay polite. */
const STAT_CONCURRENCY = 32;

/** The result of one session scan. */
export interface SessionCount {
  /** Transcripts whose mtime is newer than `sinceMs`. */
  count: number;
  /** Transcripts looked at. */
  transcripts: number;
  /** The `lastConsolidatedAt` counted against (ms), null: every transcript counts. */
  sinceMs: number | null;
  /** When the scan ran (ms). */
  countedAtMs: number;
  /** Why the project folder could not be read (permission…); the count is then 0. */
  problem: string | null;
}

/**
 * Counts the transcripts directly in `projectDir` whose mtime is newer than `sinceMs` (null:
 * all). Never cached. A missing project folder has no sessions yet; transcripts that vanish
 * mid-scan are skipped; folders named `*.jsonl` are not transcripts.
 */
export async function countSessionsSince(
  projectDir: string,
  sinceMs: number | null,
  opts: { fs?: DreamFs; now?: () => number } = {},
): Promise<SessionCount> {
  const fs = opts.fs ?? nodeDreamFs;
  const countedAtMs = (opts.now ?? Date.now)();
  let names: string[];
  try {
    names = await fs.readdir(projectDir);
  } catch (err) {
    const code = errCode(err);
    const problem =
      code === 'ENOENT' ? null : code === 'EACCES' || code === 'EPERM' ? `Cannot read ${projectDir}: permission denied.` : `Cannot read ${projectDir}: ${code ?? String(err)}.`;
    return { count: 0, transcripts: 0, sinceMs, countedAtMs, problem };
  }
  const transcripts = names.filter((name) => name.endsWith('.jsonl') && !name.startsWith('.'));
  let count = 0;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < transcripts.length) {
      const file = path.join(projectDir, transcripts[next++]!);
      try {
        const stat = await fs.stat(file);
        if (stat.isFile() && (sinceMs === null || stat.mtimeMs > sinceMs)) count++;
      } catch {
        // Deleted or renamed since the readdir: it is not a session any more.
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(STAT_CONCURRENCY, transcripts.length) }, worker));
  return { count, transcripts: transcripts.length, sinceMs, countedAtMs, problem: null };
}

/**
 * The session gate's throttle: one count per project, reused for {@link SESSION_SCAN_INTERVAL_MS}
 * as long as `lastConsolidatedAt` is unchanged (a dream that just finished makes the old count
 * meaningless, so that one case rescans early). In memory: a restart rescans once.
 */
export class SessionScanCache {
  readonly #counts = new Map<string, SessionCount>();

  /** The count for `projectDir` against `sinceMs`, scanning only when the cached one is too old. */
  async count(
    projectDir: string,
    sinceMs: number | null,
    opts: { fs?: DreamFs; now?: () => number; intervalMs?: number } = {},
  ): Promise<{ result: SessionCount; cached: boolean }> {
    const key = path.resolve(projectDir);
    const nowMs = (opts.now ?? Date.now)();
    const interval = opts.intervalMs ?? SESSION_SCAN_INTERVAL_MS;
    const previous = this.#counts.get(key);
    // A clock stepped back (countedAt in the future) also rescans.
    if (previous && previous.sinceMs === sinceMs && nowMs >= previous.countedAtMs && nowMs - previous.countedAtMs < interval) {
      return { result: previous, cached: true };
    }
    const result = await countSessionsSince(projectDir, sinceMs, { fs: opts.fs, now: () => nowMs });
    this.#counts.set(key, result);
    return { result, cached: false };
  }

  /** When `projectDir`'s sessions were last counted (ms), or null if never in this process. */
  lastCheckedAt(projectDir: string): number | null {
    return this.#counts.get(path.resolve(projectDir))?.countedAtMs ?? null;
  }

  /** Forgets one project's count: a session just ended there (the SessionEnd hook), so it is stale. */
  forget(projectDir: string): void {
    this.#counts.delete(path.resolve(projectDir));
  }

  /** Forgets every count (the next check of each project rescans). */
  clear(): void {
    this.#counts.clear();
  }
}

/** The process-wide throttle the scheduler and the app share. */
export const defaultSessionScanCache = new SessionScanCache();
