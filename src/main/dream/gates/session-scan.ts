/**
 * R-DREAM-GATE gate 2: how many sessions touched the project since `lastConsolidatedAt`.
 *
 * Counted as Claude Code counts (R-DREAM-GATE): a session is a transcript `<folder>/<uuid>.jsonl`
 * named by a session UUID (other `*.jsonl` files are not sessions) — whatever `stat` finds under
 * that name: Claude Code 2.1.332 counts a link to a transcript elsewhere and even a folder so
 * named, and not a dangling link — in ONE transcript folder: that of the launch directory of
 * the session that checks (R-LAYOUT: a session started in a subdirectory or worktree lives in
 * that directory's folder, and the client counts only its own; test/fixtures/claude-code-dream/).
 * The current session is excluded when the caller is inside one; a session was touched when its
 * mtime is newer than the last consolidation. Memdir, outside any session, counts each launch
 * folder of the project on its own and reports the one with the most: the client dreams once a
 * session launched there ends a turn. Sub-agent transcripts (`<sessionId>/subagents/*.jsonl`)
 * are parts of their parent session, not sessions: they are not counted and their folders are
 * not walked. Their work reaches the parent transcript (a sub-agent's result is appended to it),
 * so the parent's mtime already says the session was active.
 *
 * The scan is readdir + one stat per transcript, throttled (R-DREAM-LOCK) to once per
 * 10 minutes per project by {@link SessionScanCache}.
 */
import { failureWords } from '../../../shared/failure-words.js';
import path from 'node:path';
import { type DreamFs, nodeDreamFs } from '../dream-fs.js';
import { errCode } from '../../core/fs-errors.js';

/** A project's sessions are recounted at most this often. */
export const SESSION_SCAN_INTERVAL_MS = 10 * 60 * 1000;

/** A session transcript's name: a session UUID, as Claude Code names them. */
export const SESSION_FILE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl$/i;

/** The result of one session scan. */
export interface SessionCount {
  /** Transcripts whose mtime is newer than `sinceMs`, in the launch folder with the most. */
  count: number;
  /** Transcripts looked at in that folder. */
  transcripts: number;
  /** That folder; null when no folder has a session. */
  folder: string | null;
  /** Launch folders counted (each on its own): those that exist. */
  folders: number;
  /** The `lastConsolidatedAt` counted against (ms), null: every transcript counts. */
  sinceMs: number | null;
  /** When the scan ran (ms). */
  countedAtMs: number;
  /**
   * Launch folders that could not be read (permission, not a folder…), with why: their sessions
   * are unknown, so they neither count nor stop the others from counting.
   */
  unreadable: { folder: string; why: string }[];
}

/** Options of a session count. */
export interface SessionCountOptions {
  fs?: DreamFs;
  now?: () => number;
  /** Sessions not to count: the one the caller runs in, as Claude Code excludes its own. */
  excludeSessionIds?: readonly string[];
}

/**
 * Counts the session transcripts directly in each of the folders `dirs` (a project's launch
 * folders) whose mtime is newer than `sinceMs` (null: all), and answers the folder with the most
 * (the first of equals). Never cached. A missing folder has no
 * sessions yet; one that cannot be read is listed in `unreadable` and the others still counted;
 * transcripts that vanish mid-scan are skipped; names that are not a session UUID are not sessions.
 */
export async function countSessionsSince(dirs: string | readonly string[], sinceMs: number | null, opts: SessionCountOptions = {}): Promise<SessionCount> {
  const fs = opts.fs ?? nodeDreamFs;
  const countedAtMs = (opts.now ?? Date.now)();
  const excluded = new Set((opts.excludeSessionIds ?? []).map((id) => `${id.toLowerCase()}.jsonl`));
  const best = { count: 0, transcripts: 0, folder: null as string | null };
  const folders = new Set(typeof dirs === 'string' ? [dirs] : dirs);
  const unreadable: SessionCount['unreadable'] = [];
  let listed = 0;
  for (const dir of folders) {
    let names: string[];
    try {
      names = await fs.readdir(dir);
    } catch (err) {
      const code = errCode(err);
      if (code === 'ENOENT') continue;
      // Cannot tell for this folder only: a session launched in another counts its own folder.
      unreadable.push({ folder: dir, why: unreadableWhy(code, err) });
      continue;
    }
    listed++;
    // One synchronous stat per transcript in a plain loop: a stat is a few microseconds, and
    // a promise or a path.join per file cost about as much again over 10,000 (bench `dream-gates`).
    const prefix = path.join(dir, path.sep);
    let count = 0;
    let transcripts = 0;
    for (const name of names) {
      if (!SESSION_FILE.test(name) || (excluded.size > 0 && excluded.has(name.toLowerCase()))) continue;
      transcripts++;
      try {
        const stat = fs.statSync(prefix + name);
        if (sinceMs === null || stat.mtimeMs > sinceMs) count++;
      } catch {
        // Deleted or renamed since the readdir: it is not a session any more.
      }
    }
    if (count > best.count || (best.folder === null && transcripts > 0)) Object.assign(best, { count, transcripts, folder: dir });
  }
  return { ...best, folders: listed, sinceMs, countedAtMs, unreadable };
}

function unreadableWhy(code: string | undefined, err: unknown): string {
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'ENOTDIR') return 'not a folder';
  return failureWords(err);
}

/**
 * The session gate's throttle: one count per project, reused for {@link SESSION_SCAN_INTERVAL_MS}
 * as long as `lastConsolidatedAt` is unchanged (a dream that just finished makes the old count
 * meaningless, so that one case rescans early). In memory: a restart rescans once.
 */
export class SessionScanCache {
  readonly #counts = new Map<string, SessionCount>();

  /** The count for a project's launch folders against `sinceMs`, scanning only when the cached one is too old. */
  async count(
    dirs: string | readonly string[],
    sinceMs: number | null,
    opts: SessionCountOptions & { intervalMs?: number } = {},
  ): Promise<{ result: SessionCount; cached: boolean }> {
    const key = keyOf(dirs);
    const nowMs = (opts.now ?? Date.now)();
    const interval = opts.intervalMs ?? SESSION_SCAN_INTERVAL_MS;
    const previous = this.#counts.get(key);
    // A clock stepped back (countedAt in the future) also rescans.
    if (previous && previous.sinceMs === sinceMs && nowMs >= previous.countedAtMs && nowMs - previous.countedAtMs < interval) {
      return { result: previous, cached: true };
    }
    const result = await countSessionsSince(dirs, sinceMs, { ...opts, now: () => nowMs });
    this.#counts.set(key, result);
    return { result, cached: false };
  }

  /** When these folders' sessions were last counted (ms), or null if never in this process. */
  lastCheckedAt(dirs: string | readonly string[]): number | null {
    return this.#counts.get(keyOf(dirs))?.countedAtMs ?? null;
  }

  /** Forgets every count that covers `dir`: a session just ended there (the SessionEnd hook), so they are stale. */
  forget(dir: string): void {
    const folder = path.resolve(dir);
    for (const key of [...this.#counts.keys()]) if (key.split('\0').includes(folder)) this.#counts.delete(key);
  }

  /** Forgets every count (the next check of each project rescans). */
  clear(): void {
    this.#counts.clear();
  }
}

function keyOf(dirs: string | readonly string[]): string {
  return [...new Set((typeof dirs === 'string' ? [dirs] : dirs).map((d) => path.resolve(d)))].sort().join('\0');
}

/** The process-wide throttle the scheduler and the app share. */
export const defaultSessionScanCache = new SessionScanCache();
