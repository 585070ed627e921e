/**
 * R-DREAM-GATE: a dream is expensive, so it runs only when ≥ 24 h have passed since the last
 * consolidation, ≥ 5 sessions touched the project since then, and nobody else is consolidating.
 * Cheapest first, stopping at the first gate that fails:
 *   1. time — one `stat` of `.consolidate-lock` (its mtime is `lastConsolidatedAt`);
 *   2. sessions — session transcripts (UUID-named, in every launch folder of the project) newer
 *      than that (readdir + stat), throttled to once per 10 min;
 *   3. lock — take the consolidation lock (or, in status mode, only look at it).
 *
 * Two entries: {@link passDreamGates} for whoever wants to dream (the scheduler, "Dream now"),
 * which ends holding the lock when the dream may run; {@link checkDreamGates} for
 * `memdir dream status` and the app's status view, which never takes the lock.
 *
 * `force` is "Dream now": it skips the time and session gates, never the lock. The settings
 * `autoDreamEnabled: false` and auto memory off stop scheduled dreams (reported as the reason),
 * not a dream the user asks for: forcing is allowed with them off.
 */
import { failureWords } from '../../../shared/failure-words.js';
import path from 'node:path';
import { agoInWords, isoTime } from '../../../shared/iso-time.js';
import type { EffectiveSettings } from '../../memdir/index.js';
import {
  CLOCK_SKEW_TOLERANCE_MS,
  CONSOLIDATION_LOCK_FILE,
  type DreamLock,
  type DreamLockOptions,
  type DreamLockRecovery,
  type DreamLockStatus,
  acquireDreamLock,
  inspectDreamLock,
} from '../consolidation-lock.js';
import { nodeDreamFs } from '../dream-fs.js';
import { errCode } from '../../core/fs-errors.js';
import { SESSION_SCAN_INTERVAL_MS, type SessionCount, type SessionScanCache, countSessionsSince, defaultSessionScanCache } from './session-scan.js';

/** Default time gate: hours since the last consolidation. */
export const DEFAULT_MIN_HOURS = 24;
/** Default session gate: sessions touched since the last consolidation. */
export const DEFAULT_MIN_SESSIONS = 5;

const HOUR_MS = 60 * 60 * 1000;

/** The project a dream would consolidate. A `ProjectLocation` (projects.ts) fits as is. */
export interface DreamTarget {
  /** The memory directory (holds `.consolidate-lock`). */
  memoryDir: string;
  /** `<home>/projects/<dir>`: the memory folder's parent. */
  projectDir: string;
  /**
   * The transcript folders of the project's launch directories (R-LAYOUT), where its sessions
   * are, each counted on its own as Claude Code counts; default `[projectDir]`. An empty list has no sessions.
   */
  transcriptDirs?: readonly string[];
  /** The effective settings; when given, their off switches stop scheduled dreams. */
  settings?: Pick<EffectiveSettings, 'autoDreamEnabled' | 'autoMemoryEnabled'> &
    Partial<Pick<EffectiveSettings, 'autoDreamEnabledFrom' | 'autoMemoryEnabledFrom'>>;
}

/** One gate's verdict. */
export interface DreamGate {
  name: 'time' | 'sessions' | 'lock';
  /**
   * Whether the gate was evaluated. False ("not checked") for the gates after the first that
   * failed, for all gates when scheduled dreams are off, and for the gates `force` skips.
   */
  checked: boolean;
  /** Whether it lets the dream through: a gate skipped by `force` passes, one not reached does not. */
  passed: boolean;
  /** time: hours since `lastConsolidatedAt` (null: never); sessions: the count; lock: its state. */
  value: number | string | null;
  /** time: minimum hours; sessions: minimum sessions; lock: null. */
  threshold: number | null;
  /** One sentence for a person. */
  detail: string;
  /** When the value was measured (ISO). For sessions it may be a throttled, earlier count. */
  checkedAt?: string;
}

/** What the gates said, for the scheduler, the status view and `memdir dream status --json`. */
export interface DreamGateReport {
  /** Whether a dream may run now (in `passDreamGates`: and the lock is held). */
  eligible: boolean;
  /** Whether the time and session gates were skipped ("Dream now"). */
  forced: boolean;
  /** Why scheduled dreams are off for this project, or null. A forced dream ignores it. */
  disabled: { reason: 'auto-memory-off' | 'auto-dream-off'; detail: string } | null;
  /** Always time, sessions, lock, in that order. */
  gates: DreamGate[];
  /** The lock's mtime as found (ISO), null when never consolidated or not read. */
  lastConsolidatedAt: string | null;
  /** When the time gate opens, when that is what stands in the way (ISO). */
  nextEligibleAt?: string;
  /** Status mode: the lock as found, whatever gate failed (the UI shows a running dream). */
  lock?: DreamLockStatus;
  /** A crashed Memdir dream whose lock was rolled back before the lock gate decided. */
  recovered?: DreamLockRecovery;
  /** When the gates were checked (ISO). */
  checkedAt: string;
}

/** Thresholds, throttle and injectables. */
export interface DreamGateOptions extends DreamLockOptions {
  /** "Dream now": skip the time and session gates (never the lock) and ignore the off switches. */
  force?: boolean;
  /** Hours required since the last consolidation; default {@link DEFAULT_MIN_HOURS}. */
  minHours?: number;
  /** Sessions required since the last consolidation; default {@link DEFAULT_MIN_SESSIONS}. */
  minSessions?: number;
  /** The session throttle; default the process-wide one. */
  sessionCache?: SessionScanCache;
  /** How long a session count is reused; default 10 min. 0 always rescans (benchmarks). */
  sessionScanIntervalMs?: number;
  /** Sessions not to count (the caller's own, as Claude Code excludes its current session). */
  excludeSessionIds?: readonly string[];
}

// The closed time gate formats the check's time on every check (the lock's times are memoised per
// target below); isoTime is the same text without a Date.
const iso = isoTime;

function threshold(value: number | undefined, fallback: number, name: string): number {
  const v = value ?? fallback;
  if (!Number.isFinite(v) || v < 0) throw new RangeError(`${name} must be a number ≥ 0, got ${String(value)}`);
  return v;
}

function disabledBy(settings: DreamTarget['settings']): DreamGateReport['disabled'] {
  if (!settings) return null;
  // Claude Code checks auto memory before auto dream; the first that is off is the reason.
  if (!settings.autoMemoryEnabled) {
    const from = settings.autoMemoryEnabledFrom ? ` (${settings.autoMemoryEnabledFrom})` : '';
    return { reason: 'auto-memory-off', detail: `Auto memory is off for this project${from}, so it is never dreamt on a schedule; Dream now still works.` };
  }
  if (!settings.autoDreamEnabled) {
    // R-DREAM-GATE: Memdir's scheduler follows autoDreamEnabled, off unless the user turns it on.
    const detail = settings.autoDreamEnabledFrom
      ? `Auto-dream (autoDreamEnabled in ${settings.autoDreamEnabledFrom}) is off, so Memdir never dreams this project on a schedule; Dream now still works.`
      : "Auto-dream is not set, and Memdir dreams on a schedule only when you turn it on (Dream on a schedule in Settings, or autoDreamEnabled: true in Claude Code's settings.json); Dream now still works.";
    return { reason: 'auto-dream-off', detail };
  }
  return null;
}

function notChecked(name: DreamGate['name'], thresholdValue: number | null, why: string): DreamGate {
  return { name, checked: false, passed: false, value: null, threshold: thresholdValue, detail: `Not checked: ${why}` };
}

function roundHours(ms: number): number {
  return Math.round((ms / HOUR_MS) * 100) / 100;
}

interface Evaluation {
  report: DreamGateReport;
  lock: DreamLock | null;
}

const GATE_NAMES = ['time', 'sessions', 'lock'] as const;

// Module-level, not closures made per check: the closed time gate should cost about one stat
// (R-DREAM-GATE, bench `dream-gates`), and a closure per call is an allocation (and, under tsx's
// keepNames, a defineProperty) on every check.
function finish(report: DreamGateReport, mode: 'status' | 'acquire', lock: DreamLock | null = null): Evaluation {
  report.eligible = report.disabled === null && report.gates.length === 3 && report.gates.every((g) => g.passed) && (mode === 'status' || lock !== null);
  return { report, lock };
}

/** Reports the gates after the one that failed as not checked, saying why. */
function stopAfter(report: DreamGateReport, mode: 'status' | 'acquire', thresholds: readonly [number, number], why: string): Evaluation {
  for (let i = report.gates.length; i < 3; i++) report.gates.push(notChecked(GATE_NAMES[i]!, i < 2 ? thresholds[i]! : null, why));
  return finish(report, mode);
}

/**
 * What is kept per target between checks: the lock file's path, joined once per memory
 * directory, and the texts of the lock's last mtime, formatted once per change of it — the
 * closed time gate is checked often and the lock's time rarely moves (R-DREAM-GATE).
 */
interface TargetMemo {
  memoryDir: string;
  file: string;
  mtimeMs: number;
  mtimeIso: string;
  nextMs: number;
  nextIso: string;
}

const targetMemos = new WeakMap<DreamTarget, TargetMemo>();

function memoOf(target: DreamTarget): TargetMemo {
  const known = targetMemos.get(target);
  if (known && known.memoryDir === target.memoryDir) return known;
  const memo = {
    memoryDir: target.memoryDir,
    file: path.join(target.memoryDir, CONSOLIDATION_LOCK_FILE),
    mtimeMs: NaN,
    mtimeIso: '',
    nextMs: NaN,
    nextIso: '',
  };
  targetMemos.set(target, memo);
  return memo;
}

/** Where a project with several launch folders was counted: Claude Code counts each on its own. */
function inFolder(result: SessionCount): string {
  if (result.folders < 2 || result.folder === null) return '';
  return ` in ${path.basename(result.folder)}, the most of its ${result.folders} launch folders (Claude Code counts only the folder of the directory a session was launched in)`;
}

function lockTimeIso(memo: TargetMemo, ms: number): string {
  if (memo.mtimeMs !== ms) {
    memo.mtimeIso = iso(ms);
    memo.mtimeMs = ms;
  }
  return memo.mtimeIso;
}

function nextEligibleIso(memo: TargetMemo, ms: number): string {
  if (memo.nextMs !== ms) {
    memo.nextIso = iso(ms);
    memo.nextMs = ms;
  }
  return memo.nextIso;
}

async function evaluate(target: DreamTarget, opts: DreamGateOptions, mode: 'status' | 'acquire'): Promise<Evaluation> {
  const fs = opts.fs ?? nodeDreamFs;
  const now = opts.now ?? Date.now;
  const nowMs = now();
  const nowIso = iso(nowMs);
  const minHours = threshold(opts.minHours, DEFAULT_MIN_HOURS, 'minHours');
  const minSessions = threshold(opts.minSessions, DEFAULT_MIN_SESSIONS, 'minSessions');
  const thresholds = [minHours, minSessions] as const;
  const forced = opts.force === true;
  const disabled = forced ? null : disabledBy(target.settings);
  const report: DreamGateReport = { eligible: false, forced, disabled, gates: [], lastConsolidatedAt: null, checkedAt: nowIso };

  // The scheduler asks often: with dreams off it learns so without touching the disk.
  if (disabled && mode === 'acquire') return stopAfter(report, mode, thresholds, disabled.detail);

  // Gate 1, time: exactly one stat.
  let sinceMs: number | null = null;
  if (forced) {
    report.gates.push({
      name: 'time',
      checked: false,
      passed: true,
      value: null,
      threshold: minHours,
      detail: 'Skipped: Dream now ignores the time since the last consolidation.',
    });
  } else {
    const memo = memoOf(target);
    let mtimeMs: number | null = null;
    try {
      mtimeMs = (await fs.stat(memo.file)).mtimeMs;
    } catch (err) {
      const code = errCode(err);
      if (code !== 'ENOENT' && code !== 'ENOTDIR') {
        const why = failureWords(err);
        report.gates.push({
          name: 'time',
          checked: true,
          passed: false,
          value: null,
          threshold: minHours,
          detail: `Cannot read the consolidation lock in ${target.memoryDir} (${why}).`,
          checkedAt: nowIso,
        });
        return stopAfter(report, mode, thresholds, 'the time gate failed.');
      }
    }
    if (mtimeMs === null) {
      report.gates.push({ name: 'time', checked: true, passed: true, value: null, threshold: minHours, detail: 'Never consolidated.', checkedAt: nowIso });
    } else {
      const mtimeIso = lockTimeIso(memo, mtimeMs);
      report.lastConsolidatedAt = mtimeIso;
      const skewed = mtimeMs - nowMs > CLOCK_SKEW_TOLERANCE_MS;
      // A future time counts as now (clock skew): it can neither pass the gate nor block forever,
      // since the first dream (Dream now) writes a sane time.
      sinceMs = skewed ? nowMs : mtimeMs;
      const ageMs = Math.max(0, nowMs - sinceMs);
      const passed = ageMs >= minHours * HOUR_MS;
      const hours = roundHours(ageMs);
      const skew = skewed ? ` The lock's time is ${roundHours(mtimeMs - nowMs)} h in the future (clock skew); it counts as now.` : '';
      report.gates.push({
        name: 'time',
        checked: true,
        passed,
        value: hours,
        threshold: minHours,
        // Within the hour in minutes ("just now", "7 min ago"), not "0.01 h ago".
        detail: `Last consolidated ${ageMs < HOUR_MS ? agoInWords(ageMs) : `${hours} h ago`}; ${passed ? 'at least' : 'needs'} ${minHours} h.${skew}`,
        checkedAt: nowIso,
      });
      if (!passed) {
        report.nextEligibleAt = nextEligibleIso(memo, sinceMs + minHours * HOUR_MS);
        return stopAfter(report, mode, thresholds, 'the time gate is closed.');
      }
    }
  }

  // Gate 2, sessions: readdir + stat, throttled.
  if (forced) {
    report.gates.push({
      name: 'sessions',
      checked: false,
      passed: true,
      value: null,
      threshold: minSessions,
      detail: 'Skipped: Dream now ignores how many sessions touched the project.',
    });
  } else {
    const interval = opts.sessionScanIntervalMs ?? SESSION_SCAN_INTERVAL_MS;
    // The located project's launch folders, even none (a memory whose folder's sessions read another one): the
    // same folders extraction reads and the version line looks at (ProjectLocation.transcriptDirs).
    const dirs = target.transcriptDirs ?? [target.projectDir];
    const countOpts = { fs, now: () => nowMs, ...(opts.excludeSessionIds ? { excludeSessionIds: opts.excludeSessionIds } : {}) };
    let counted: { result: SessionCount; cached: boolean };
    if (interval <= 0) {
      counted = { result: await countSessionsSince(dirs, sinceMs, countOpts), cached: false };
    } else {
      counted = await (opts.sessionCache ?? defaultSessionScanCache).count(dirs, sinceMs, { ...countOpts, intervalMs: interval });
    }
    const { result, cached } = counted;
    // A launch folder it cannot read is "cannot tell" for that folder only; with none read, nothing was counted.
    const nothingRead = result.folders === 0 && result.unreadable.length > 0;
    const passed = !nothingRead && result.count >= minSessions;
    const when = cached ? ` (counted ${agoInWords(nowMs - result.countedAtMs)}; recounted at most every ${Math.round(interval / 60_000)} min)` : '';
    const cannotTell = result.unreadable.map((u) => `Cannot read ${u.folder} (${u.why}): its sessions are not counted.`).join(' ');
    // Never dreamt, every session counts: "0 of 0 sessions touched ever" said it the hard way.
    const tallied =
      sinceMs === null
        ? `${result.count === 0 ? 'No session' : result.count === 1 ? '1 session' : `${result.count} sessions`} so far${inFolder(result)} — never dreamt, so every session counts`
        : `${result.count} of ${result.transcripts} sessions touched since the last dream${inFolder(result)}`;
    const tally = `${tallied}${when}; ${passed ? 'at least' : 'needs'} ${minSessions}.`;
    report.gates.push({
      name: 'sessions',
      checked: true,
      passed,
      value: result.count,
      threshold: minSessions,
      detail: nothingRead ? cannotTell : cannotTell ? `${tally} ${cannotTell}` : tally,
      checkedAt: iso(result.countedAtMs),
    });
    if (!passed) return stopAfter(report, mode, thresholds, 'the session gate is closed.');
  }

  // Gate 3, lock.
  if (mode === 'status') {
    let status: DreamLockStatus;
    try {
      status = await inspectDreamLock(target.memoryDir, opts);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      report.gates.push({
        name: 'lock',
        checked: true,
        passed: false,
        value: 'unreadable',
        threshold: null,
        detail: `Cannot read the consolidation lock: ${why}`,
        checkedAt: nowIso,
      });
      return finish(report, mode);
    }
    report.lock = status;
    if (forced && status.mtimeMs !== null) report.lastConsolidatedAt = iso(status.mtimeMs);
    report.gates.push({
      name: 'lock',
      checked: true,
      passed: status.state !== 'held',
      value: status.state,
      threshold: null,
      detail: status.detail,
      checkedAt: nowIso,
    });
    return finish(report, mode);
  }
  const taken = await acquireDreamLock(target.memoryDir, opts);
  if (taken.recovered) report.recovered = taken.recovered;
  if (!taken.ok) {
    if (forced && taken.problem.status?.mtimeMs != null) report.lastConsolidatedAt = iso(taken.problem.status.mtimeMs);
    report.gates.push({
      name: 'lock',
      checked: true,
      passed: false,
      value: taken.problem.reason,
      threshold: null,
      detail: taken.problem.message,
      checkedAt: iso(now()),
    });
    return finish(report, mode);
  }
  const { lock } = taken;
  if (forced || taken.recovered) report.lastConsolidatedAt = lock.priorMtimeMs === null ? null : iso(lock.priorMtimeMs);
  report.gates.push({
    name: 'lock',
    checked: true,
    passed: true,
    value: 'acquired',
    threshold: null,
    detail: `Taken ${agoInWords(now() - lock.acquiredAtMs)} by this process (PID ${process.pid}).`,
    checkedAt: iso(lock.acquiredAtMs),
  });
  return finish(report, mode, lock);
}

/**
 * Checks the gates in order and, when time and sessions pass (or `force`), takes the
 * consolidation lock. `lock` is non-null exactly when `report.eligible`: the caller then owns
 * it and must end it (`runWithDreamLock` does: release on success, roll back otherwise).
 * With the target's settings turning scheduled dreams off (and no `force`), nothing is read.
 */
export function passDreamGates(target: DreamTarget, opts: DreamGateOptions = {}): Promise<{ report: DreamGateReport; lock: DreamLock | null }> {
  // Not async itself: one promise fewer on a path that should cost about one stat (R-DREAM-GATE).
  return evaluate(target, opts, 'acquire');
}

/**
 * Whether every gate is open, as the scheduler asks on each tick: the gates in status mode
 * (the lock only looked at), without the lock report {@link checkDreamGates} adds for display —
 * so a closed time gate, the usual case, costs one `stat` (R-DREAM-GATE).
 */
export async function dreamGatesOpen(target: DreamTarget, opts: DreamGateOptions = {}): Promise<boolean> {
  return (await evaluate(target, opts, 'status')).report.eligible;
}

/**
 * The gates as `memdir dream status` shows them: evaluated in order like
 * {@link passDreamGates}, but the lock gate only looks (free, held by whom since when, stale,
 * a crashed dream to roll back) and never takes or repairs it. Also reports the lock as found
 * in `lock` even when an earlier gate failed, and evaluates the gates even when scheduled
 * dreams are off (`disabled` says so, and `eligible` is false).
 */
export async function checkDreamGates(target: DreamTarget, opts: DreamGateOptions = {}): Promise<DreamGateReport> {
  const { report } = await evaluate(target, opts, 'status');
  if (!report.lock) {
    const status = await inspectDreamLock(target.memoryDir, opts).catch(() => null);
    if (status) report.lock = status;
  }
  return report;
}
