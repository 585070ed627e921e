/**
 * R-DREAM-LOCK: the consolidation lock Memdir shares with Claude Code's own dream, so the two
 * never consolidate one memory directory at once.
 *
 * On disk it is exactly Claude Code's: the file `.consolidate-lock` in the memory directory.
 *   - Content: the holder's PID in decimal, no newline (`String(process.pid)`, as Claude Code
 *     writes it). Read tolerantly: surrounding whitespace is ignored and, like Claude Code's
 *     `parseInt(raw.trim(), 10)`, leading digits name the holder even if junk follows — so
 *     Memdir never sees "no holder" where Claude Code sees one. Empty content means "not held".
 *   - mtime: `lastConsolidatedAt`; no file = never consolidated.
 *
 * The mtime over a dream's life, and why:
 *   - while held: the acquisition time, refreshed by a heartbeat (see with-dream-lock.ts). It
 *     must be fresh: every reader (Claude Code too) treats a lock older than 1 h as stale and
 *     takes it over. It also makes Claude Code's one-stat time gate read "consolidated just now",
 *     so it does not even try while Memdir dreams.
 *   - after success: the acquisition time — the dream's cut-off. A session that was still
 *     writing its transcript while the dream ran then counts again at the next session gate,
 *     instead of being silently skipped (the completion time would skip it). It is also what
 *     Claude Code leaves ("Success → mtime stays at acquire"). The content becomes empty, so a
 *     live Memdir (the app runs for days) never looks like a holder; Claude Code reads an empty
 *     body as "no holder" and may take the lock as usual.
 *   - after cancel, failure or a signal: the previous `lastConsolidatedAt`, or no file when there
 *     was none, so the gates fire again later. Content empty, as Claude Code's rollback leaves it.
 *   - after a crash (kill -9, power loss): the next Memdir acquire, `recoverDreamLock` or the
 *     startup sweep `recoverCrashedDreams` finds a dead holder with a rollback record and
 *     restores the previous mtime before deciding anything.
 *
 * The rollback record (previous mtime, holder PID, host) lives in Memdir's data dir,
 * `<dataDir>/dream-locks/<key>.json`, never in the lock file: Claude Code tolerates trailing
 * text after the PID, but other readers of this format do not (`int(raw)` in Python ports would
 * read "no holder" and take a live lock), and the memory dir is the user's and synced. It is
 * written (fsynced) *before* the lock, so a lock naming a Memdir PID always has its record.
 *
 * This file reads and judges the lock; lock-store.ts keeps the rollback records and the guard,
 * consolidation-lock.ts takes and ends the lock, lock-recovery.ts repairs a crashed dream's.
 */
import path from 'node:path';
import { MAX_PID, isProcessAlive } from '../core/process.js';
import type { DreamFs } from './dream-fs.js';
import { errCode } from '../core/fs-errors.js';
import { agoInWords } from '../../shared/iso-time.js';

/** The lock file's name inside the memory directory (Claude Code's). */
export const CONSOLIDATION_LOCK_FILE = '.consolidate-lock';
/** A lock older than this is stale even when its PID is alive: the PID may have been reused. */
export const LOCK_STALE_MS = 60 * 60 * 1000;
/**
 * An mtime this far in the future is clock jitter (a network home, a clock stepped back) and
 * counts as "now". Beyond it the time cannot have been written by a holder on this clock: the
 * gates count it as "now" (and report it) and the lock counts as stale, so a bad timestamp can
 * neither block forever nor look like an old consolidation.
 */
export const CLOCK_SKEW_TOLERANCE_MS = 5 * 60 * 1000;

/** Temp files are dotfiles, so scans, watchers, history and team sync never see them. */
export const TEMP_PREFIX = `${CONSOLIDATION_LOCK_FILE}.tmp-`;
/** At most this much of the lock file is read: a PID is short, garbage may not be. */
const MAX_LOCK_BYTES = 256;

/** What the lock file holds. */
export type LockContent =
  | { kind: 'empty' }
  | { kind: 'pid'; pid: number; /** Text after the PID (Claude Code ignores it too). */ trailing: boolean }
  | { kind: 'garbage'; text: string };

/**
 * The lock as found, judged at one moment:
 *   - `absent`: no lock file — never consolidated, free;
 *   - `free`: the file names no holder (empty: released or rolled back);
 *   - `held`: a live holder, fresh — a dream is running (Claude Code's or Memdir's); note that
 *     Claude Code leaves its PID after a finished dream, so its lock counts as held until it is
 *     1 h old or its process exits;
 *   - `stale`: the file names a holder that does not count — dead PID, older than 1 h, a time
 *     beyond the skew tolerance in the future, unreadable content — and may be taken over.
 */
export interface DreamLockStatus {
  lockFile: string;
  state: 'absent' | 'free' | 'held' | 'stale';
  /** The mtime found, ms; null when absent. */
  mtimeMs: number | null;
  /** `lastConsolidatedAt` as the gates use it: the mtime, or now when it is too far in the future. */
  lastConsolidatedAtMs: number | null;
  /** How far beyond now the mtime is, when beyond {@link CLOCK_SKEW_TOLERANCE_MS}; else null. */
  futureByMs: number | null;
  content: LockContent['kind'] | null;
  holderPid: number | null;
  /** Whether the holder PID is alive (EPERM counts as alive); null without a PID. */
  holderAlive: boolean | null;
  /** The holder is a dream running in this very process. */
  heldByThisProcess: boolean;
  /** A Memdir dream that died holding the lock; the next acquire restores `priorMtimeMs`. */
  crashedDream: { pid: number; priorMtimeMs: number | null } | null;
  /** One sentence for a person. */
  detail: string;
}

/** Why the lock was not taken. */
export interface DreamLockProblem {
  reason: 'held' | 'lost-race' | 'missing-memory-dir' | 'not-a-directory' | 'permission' | 'busy' | 'data-dir' | 'io';
  message: string;
  /** The lock as found, when it was read. */
  status?: DreamLockStatus;
}

/** `<memoryDir>/.consolidate-lock`. */
export function consolidationLockPath(memoryDir: string): string {
  return path.join(memoryDir, CONSOLIDATION_LOCK_FILE);
}

/**
 * Parses lock content as Claude Code does (`parseInt(raw.trim(), 10)`): leading decimal digits
 * are the PID. PIDs ≤ 1 (0 is "my process group", 1 is init) and out-of-range numbers name no
 * holder, as in Claude Code's `isProcessRunning`.
 */
export function parseLockContent(raw: string): LockContent {
  const text = raw.trim();
  if (text === '') return { kind: 'empty' };
  const digits = /^\d+/.exec(text)?.[0];
  const pid = digits === undefined ? NaN : Number(digits);
  if (!Number.isSafeInteger(pid) || pid <= 1 || pid > MAX_PID) return { kind: 'garbage', text: text.slice(0, 40) };
  return { kind: 'pid', pid, trailing: digits !== text };
}

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** A problem the caller shows as is. */
export class LockFault extends Error {
  constructor(readonly problem: DreamLockProblem) {
    super(problem.message);
  }
}

export interface LockSnapshot {
  mtimeMs: number;
  content: LockContent;
}

/** mtime and content of one and the same inode (writers rename new files into place). */
export async function readLockSnapshot(lockFile: string, fs: DreamFs): Promise<LockSnapshot | null> {
  let handle;
  try {
    handle = await fs.open(lockFile, 'r');
  } catch (err) {
    // No lock file, or no memory dir (or a file in its place): nothing is held.
    if (errCode(err) === 'ENOENT' || errCode(err) === 'ENOTDIR') return null;
    throw err;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) {
      throw new LockFault({ reason: 'io', message: `${lockFile} is not a file; move it away so the dream lock can work` });
    }
    const buffer = Buffer.alloc(MAX_LOCK_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, MAX_LOCK_BYTES, 0);
    return { mtimeMs: stat.mtimeMs, content: parseLockContent(buffer.toString('utf8', 0, bytesRead)) };
  } finally {
    await handle.close().catch(() => undefined);
  }
}

export function judge(lockFile: string, snap: LockSnapshot | null, nowMs: number, heldByThisProcess: boolean): DreamLockStatus {
  const base: DreamLockStatus = {
    lockFile,
    state: 'absent',
    mtimeMs: null,
    lastConsolidatedAtMs: null,
    futureByMs: null,
    content: null,
    holderPid: null,
    holderAlive: null,
    heldByThisProcess: false,
    crashedDream: null,
    detail: 'No consolidation lock: never consolidated; free.',
  };
  if (!snap) return base;
  const future = snap.mtimeMs - nowMs > CLOCK_SKEW_TOLERANCE_MS;
  const status: DreamLockStatus = {
    ...base,
    mtimeMs: snap.mtimeMs,
    lastConsolidatedAtMs: future ? nowMs : snap.mtimeMs,
    futureByMs: future ? snap.mtimeMs - nowMs : null,
    content: snap.content.kind,
  };
  const skew = future ? ` Its time is ${Math.round((snap.mtimeMs - nowMs) / 3_600_000)} h in the future (clock skew) and counts as now.` : '';
  if (snap.content.kind === 'empty') {
    return { ...status, state: 'free', detail: `Not held; last consolidated ${future ? 'in the future' : agoInWords(nowMs - snap.mtimeMs)}.${skew}` };
  }
  if (snap.content.kind === 'garbage') {
    return {
      ...status,
      state: 'stale',
      detail: `The lock holds no PID (${JSON.stringify(snap.content.text)}): it names no holder and may be taken over, as Claude Code does.${skew}`,
    };
  }
  const pid = snap.content.pid;
  const own = pid === process.pid;
  const alive = own || isProcessAlive(pid);
  const holding = own ? heldByThisProcess : alive;
  const withPid = { ...status, holderPid: pid, holderAlive: alive, heldByThisProcess: own && heldByThisProcess };
  if (future) {
    return {
      ...withPid,
      state: 'stale',
      detail: `Names PID ${pid}, but its time is in the future (clock skew): no holder on this clock wrote it, so it is stale and may be taken over; for the gates it counts as now.`,
    };
  }
  if (nowMs - snap.mtimeMs >= LOCK_STALE_MS) {
    return {
      ...withPid,
      state: 'stale',
      detail: `Taken by PID ${pid} ${agoInWords(nowMs - snap.mtimeMs)}, over 1 h ago: stale (the PID may have been reused), may be taken over.`,
    };
  }
  if (!holding) {
    const who = own ? 'this process, which runs no dream now' : `PID ${pid}, which is no longer running`;
    return { ...withPid, state: 'stale', detail: `Taken ${agoInWords(nowMs - snap.mtimeMs)} by ${who}: stale, may be taken over.` };
  }
  const who = own ? 'a dream in this process' : `PID ${pid}`;
  return { ...withPid, state: 'held', detail: `Held by ${who}, taken ${agoInWords(nowMs - snap.mtimeMs)}: another consolidation is running.` };
}
