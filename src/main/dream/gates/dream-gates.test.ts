import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CONSOLIDATION_LOCK_FILE } from '../consolidation-lock.js';
import { type DreamGate, type DreamGateReport, type DreamTarget, checkDreamGates, dreamGatesOpen, passDreamGates } from './dream-gates.js';
import { SessionScanCache } from './session-scan.js';
import { killAndWait, startIdleProcess, startLockWorker } from '../test-support/child.js';
import { createCountingFs } from '../test-support/counting-fs.js';
import { canChangePermissions } from '../../memdir/test-support/fixture-home.js';

const HOUR = 60 * 60 * 1000;
const MIN = 60 * 1000;

let tmp: string;
let target: DreamTarget;
let dataDir: string;
let lockFile: string;
const children: ChildProcess[] = [];

beforeEach(async () => {
  tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-dream-gates-')));
  const projectDir = path.join(tmp, 'projects', '-work-app');
  target = { projectDir, memoryDir: path.join(projectDir, 'memory') };
  dataDir = path.join(tmp, 'data');
  await fs.mkdir(target.memoryDir, { recursive: true });
  lockFile = path.join(target.memoryDir, CONSOLIDATION_LOCK_FILE);
});

afterEach(async () => {
  await Promise.all(children.splice(0).map((c) => killAndWait(c)));
  await fs.rm(tmp, { recursive: true, force: true });
});

function wholeSeconds(ms: number): number {
  return Math.floor(ms / 1000) * 1000;
}

async function setLock(content: string, mtimeMs: number): Promise<void> {
  await fs.writeFile(lockFile, content);
  await fs.utimes(lockFile, mtimeMs / 1000, mtimeMs / 1000);
}

/** Writes `n` session transcripts (UUID-named, as Claude Code names them) whose mtime is `ageMs` old; returns their ids. */
async function addSessions(n: number, ageMs: number, dir = target.projectDir): Promise<string[]> {
  const t = (Date.now() - ageMs) / 1000;
  const ids: string[] = [];
  await fs.mkdir(dir, { recursive: true });
  for (let i = 0; i < n; i++) {
    const id = randomUUID();
    const file = path.join(dir, `${id}.jsonl`);
    await fs.writeFile(file, '{"type":"user"}\n');
    await fs.utimes(file, t, t);
    ids.push(id);
  }
  return ids;
}

const gate = (report: DreamGateReport, name: DreamGate['name']): DreamGate => report.gates.find((g) => g.name === name)!;

describe('passDreamGates', () => {
  it('a closed time gate costs exactly one stat and reports the rest as not checked', async () => {
    const last = wholeSeconds(Date.now() - 3 * HOUR);
    await setLock('', last);
    await addSessions(10, MIN);
    const counting = createCountingFs();
    const { report, lock } = await passDreamGates(target, { fs: counting.fs, dataDir });
    expect(counting.calls).toEqual([{ method: 'stat', path: lockFile }]);
    expect(lock).toBeNull();
    expect(report.eligible).toBe(false);
    expect(report.gates.map((g) => [g.name, g.checked, g.passed])).toEqual([
      ['time', true, false],
      ['sessions', false, false],
      ['lock', false, false],
    ]);
    expect(gate(report, 'time')).toMatchObject({ value: 3, threshold: 24 });
    expect(report.lastConsolidatedAt).toBe(new Date(last).toISOString());
    expect(report.nextEligibleAt).toBe(new Date(last + 24 * HOUR).toISOString());
  });

  it("the scheduler's check of a closed time gate costs exactly one stat too (no lock report read for display)", async () => {
    await setLock('', wholeSeconds(Date.now() - 3 * HOUR));
    await addSessions(10, MIN);
    const counting = createCountingFs();
    expect(await dreamGatesOpen(target, { fs: counting.fs, dataDir })).toBe(false);
    expect(counting.calls).toEqual([{ method: 'stat', path: lockFile }]);
  });

  it('a closed time gate reads as it always did: every field and sentence, in order, as `--json` prints it', async () => {
    const last = wholeSeconds(Date.now() - 3 * HOUR);
    await setLock('', last);
    const nowMs = last + 3 * HOUR + 18 * MIN;
    const { report } = await passDreamGates(target, { dataDir, now: () => nowMs });
    const notChecked = 'Not checked: the time gate is closed.';
    expect(JSON.stringify(report)).toBe(
      JSON.stringify({
        eligible: false,
        forced: false,
        disabled: null,
        gates: [
          {
            name: 'time',
            checked: true,
            passed: false,
            value: 3.3,
            threshold: 24,
            detail: 'Last consolidated 3.3 h ago; needs 24 h.',
            checkedAt: new Date(nowMs).toISOString(),
          },
          { name: 'sessions', checked: false, passed: false, value: null, threshold: 5, detail: notChecked },
          { name: 'lock', checked: false, passed: false, value: null, threshold: null, detail: notChecked },
        ],
        lastConsolidatedAt: new Date(last).toISOString(),
        checkedAt: new Date(nowMs).toISOString(),
        nextEligibleAt: new Date(last + 24 * HOUR).toISOString(),
      }),
    );
  });

  it('right after a dream the time gate says it was just now, not "0 h ago"', async () => {
    await setLock('', wholeSeconds(Date.now() - 20_000));
    const { report } = await passDreamGates(target, { dataDir });
    expect(gate(report, 'time').detail).toMatch(/^Last consolidated just now; needs 24 h\./);
  });

  it('checking the same project again sees a lock touched meanwhile: its new time, its new opening, never the last check’s', async () => {
    const first = wholeSeconds(Date.now() - 3 * HOUR);
    await setLock('', first);
    const before = await passDreamGates(target, { dataDir });
    expect(before.report.lastConsolidatedAt).toBe(new Date(first).toISOString());
    const second = wholeSeconds(Date.now() - 2 * HOUR);
    await setLock('', second);
    const after = await passDreamGates(target, { dataDir });
    expect(after.report.lastConsolidatedAt).toBe(new Date(second).toISOString());
    expect(after.report.nextEligibleAt).toBe(new Date(second + 24 * HOUR).toISOString());
    expect(gate(after.report, 'time').detail).toContain('Last consolidated 2 h ago;');
    // A lock in the future opens 24 h after each check's now, not after the first check's.
    await setLock('', wholeSeconds(Date.now() + 10 * 24 * HOUR));
    const t1 = Date.now();
    const skewed1 = await passDreamGates(target, { dataDir, now: () => t1 });
    const skewed2 = await passDreamGates(target, { dataDir, now: () => t1 + MIN });
    expect(skewed1.report.nextEligibleAt).toBe(new Date(t1 + 24 * HOUR).toISOString());
    expect(skewed2.report.nextEligibleAt).toBe(new Date(t1 + MIN + 24 * HOUR).toISOString());
  });

  it('a target whose memory directory changed is checked at its new lock, not the old one', async () => {
    await setLock('', wholeSeconds(Date.now() - 3 * HOUR));
    expect((await passDreamGates(target, { dataDir })).report.gates[0]!.passed).toBe(false);
    const otherMemory = path.join(tmp, 'projects', '-work-other', 'memory');
    await fs.mkdir(otherMemory, { recursive: true });
    const counting = createCountingFs();
    target.memoryDir = otherMemory;
    const { report, lock } = await passDreamGates(target, { fs: counting.fs, dataDir, minSessions: 1000, sessionCache: new SessionScanCache() });
    expect(counting.calls[0]).toEqual({ method: 'stat', path: path.join(otherMemory, CONSOLIDATION_LOCK_FILE) });
    expect(gate(report, 'time')).toMatchObject({ passed: true, detail: 'Never consolidated.' });
    expect(lock).toBeNull();
  });

  it('time open, too few sessions: counts them (readdir + stats) and stops before the lock', async () => {
    const last = wholeSeconds(Date.now() - 30 * HOUR);
    await setLock('', last);
    await addSessions(3, MIN);
    await addSessions(4, 40 * HOUR);
    const counting = createCountingFs();
    const { report, lock } = await passDreamGates(target, { fs: counting.fs, dataDir, sessionCache: new SessionScanCache() });
    expect(lock).toBeNull();
    expect(gate(report, 'time')).toMatchObject({ checked: true, passed: true });
    expect(gate(report, 'sessions')).toMatchObject({ checked: true, passed: false, value: 3, threshold: 5 });
    expect(gate(report, 'lock')).toMatchObject({ checked: false, passed: false });
    // The time gate's one stat of the lock, then one (synchronous) stat per transcript.
    expect(counting.counts).toEqual({ stat: 1, statSync: 7, readdir: 1 });
    expect(await fs.readFile(lockFile, 'utf8')).toBe('');
  });

  it('all gates open: takes the lock, and the report says so', async () => {
    await setLock('', wholeSeconds(Date.now() - 30 * HOUR));
    await addSessions(5, MIN);
    const { report, lock } = await passDreamGates(target, { dataDir, sessionCache: new SessionScanCache() });
    expect(report.eligible).toBe(true);
    expect(lock).not.toBeNull();
    expect(gate(report, 'lock')).toMatchObject({ checked: true, passed: true, value: 'acquired' });
    expect(await fs.readFile(lockFile, 'utf8')).toBe(String(process.pid));
    await lock!.rollback();
  });

  it('never consolidated: the time gate passes and every transcript counts', async () => {
    await addSessions(6, 400 * HOUR);
    const { report, lock } = await passDreamGates(target, { dataDir, sessionCache: new SessionScanCache() });
    expect(report.lastConsolidatedAt).toBeNull();
    expect(gate(report, 'time')).toMatchObject({ passed: true, value: null, detail: 'Never consolidated.' });
    expect(gate(report, 'sessions')).toMatchObject({ passed: true, value: 6 });
    // Not "6 of 6 sessions touched ever": said as a person would.
    expect(gate(report, 'sessions').detail).toMatch(/^6 sessions so far — never dreamt, so every session counts/);
    expect(report.eligible).toBe(true);
    await lock!.rollback();
    await expect(fs.stat(lockFile)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('the lock gate fails against a Claude Code holder, naming it', async () => {
    const claude = await startIdleProcess();
    children.push(claude);
    // Claude Code's time gate opened for it a moment ago, so the lock is fresh; ours uses 0 h.
    await setLock(String(claude.pid), wholeSeconds(Date.now() - 2 * MIN));
    await addSessions(5, MIN);
    const { report, lock } = await passDreamGates(target, { dataDir, minHours: 0, sessionCache: new SessionScanCache() });
    expect(lock).toBeNull();
    expect(report.eligible).toBe(false);
    expect(gate(report, 'lock')).toMatchObject({ checked: true, passed: false, value: 'held' });
    expect(gate(report, 'lock').detail).toContain(`PID ${claude.pid}`);
  });

  it('force ("Dream now") skips time and sessions but never the lock', async () => {
    const last = wholeSeconds(Date.now() - 1 * HOUR);
    await setLock('', last);
    const { report, lock } = await passDreamGates(target, { dataDir, force: true });
    expect(report.forced).toBe(true);
    expect(report.gates.map((g) => [g.name, g.checked, g.passed])).toEqual([
      ['time', false, true],
      ['sessions', false, true],
      ['lock', true, true],
    ]);
    expect(report.lastConsolidatedAt).toBe(new Date(last).toISOString());
    expect(report.eligible).toBe(true);

    const again = await passDreamGates(target, { dataDir, force: true });
    expect(again.lock).toBeNull();
    expect(gate(again.report, 'lock')).toMatchObject({ passed: false, value: 'held' });
    await lock!.rollback();
    expect((await fs.stat(lockFile)).mtimeMs).toBe(last);
  });

  it('scheduled dreams respect autoDreamEnabled: false and auto memory off without touching the disk; force still runs', async () => {
    await addSessions(9, MIN);
    const counting = createCountingFs();
    const off = await passDreamGates({ ...target, settings: { autoDreamEnabled: false, autoMemoryEnabled: true } }, { fs: counting.fs, dataDir });
    expect(counting.total()).toBe(0);
    expect(off.lock).toBeNull();
    expect(off.report.disabled?.reason).toBe('auto-dream-off');
    expect(off.report.gates.every((g) => !g.checked)).toBe(true);
    expect(off.report.gates[0]!.detail).toContain('Dream now still works');

    const noMemory = await passDreamGates({ ...target, settings: { autoDreamEnabled: true, autoMemoryEnabled: false } }, { fs: counting.fs, dataDir });
    expect(noMemory.report.disabled?.reason).toBe('auto-memory-off');

    const forced = await passDreamGates({ ...target, settings: { autoDreamEnabled: false, autoMemoryEnabled: false } }, { dataDir, force: true });
    expect(forced.report.disabled).toBeNull();
    expect(forced.report.eligible).toBe(true);
    await forced.lock!.rollback();
  });

  it('a lock time far in the future counts as now for the time gate and is reported', async () => {
    const future = wholeSeconds(Date.now() + 10 * 24 * HOUR);
    await setLock('', future);
    const counting = createCountingFs();
    const { report } = await passDreamGates(target, { fs: counting.fs, dataDir });
    expect(counting.total()).toBe(1);
    expect(gate(report, 'time')).toMatchObject({ passed: false, value: 0 });
    expect(gate(report, 'time').detail).toContain('clock skew');
    expect(report.lastConsolidatedAt).toBe(new Date(future).toISOString());
    // It opens 24 h from now, not 10 days from now.
    expect(Date.parse(report.nextEligibleAt!) - Date.now()).toBeLessThan(24 * HOUR + MIN);
  });

  it('rolls back a crashed Memdir dream before the lock gate decides', async () => {
    const last = wholeSeconds(Date.now() - 50 * HOUR);
    await setLock('', last);
    const holder = startLockWorker('hold', target.memoryDir, dataDir);
    children.push(holder.child);
    await holder.nextLine();
    await killAndWait(holder.child, 'SIGKILL');
    const { report, lock } = await passDreamGates(target, { dataDir, force: true });
    expect(report.recovered).toMatchObject({ pid: holder.child.pid, restoredMtimeMs: last });
    expect(report.lastConsolidatedAt).toBe(new Date(last).toISOString());
    await lock!.rollback();
    expect((await fs.stat(lockFile)).mtimeMs).toBe(last);
  });
});

describe('session gate', () => {
  it('is throttled: a second check within 10 minutes reuses the count; after the clock moves on it rescans', async () => {
    await setLock('', wholeSeconds(Date.now() - 30 * HOUR));
    await addSessions(2, MIN);
    const cache = new SessionScanCache();
    let clock = Date.now();
    const now = () => clock;
    const counting = createCountingFs();

    const first = await passDreamGates(target, { fs: counting.fs, now, dataDir, sessionCache: cache });
    expect(gate(first.report, 'sessions')).toMatchObject({ value: 2, passed: false });
    expect(counting.counts.readdir).toBe(1);
    expect(cache.lastCheckedAt(target.projectDir)).toBe(clock);

    await addSessions(4, MIN);
    clock += 9 * MIN;
    counting.reset();
    const second = await passDreamGates(target, { fs: counting.fs, now, dataDir, sessionCache: cache });
    expect(counting.counts).toEqual({ stat: 1 });
    expect(gate(second.report, 'sessions')).toMatchObject({ value: 2, passed: false, checkedAt: new Date(clock - 9 * MIN).toISOString() });
    expect(gate(second.report, 'sessions').detail).toContain('recounted at most every 10 min');

    clock += 2 * MIN;
    counting.reset();
    const third = await passDreamGates(target, { fs: counting.fs, now, dataDir, sessionCache: cache });
    expect(counting.calls.filter((c) => c.method === 'readdir' && c.path === target.projectDir)).toHaveLength(1);
    expect(gate(third.report, 'sessions')).toMatchObject({ value: 6, passed: true });
    expect(cache.lastCheckedAt(target.projectDir)).toBe(clock);
    await third.lock!.rollback();
  });

  it('rescans early when lastConsolidatedAt changed (a dream just ran)', async () => {
    await setLock('', wholeSeconds(Date.now() - 30 * HOUR));
    await addSessions(3, 2 * HOUR);
    const cache = new SessionScanCache();
    const first = await checkDreamGates(target, { dataDir, sessionCache: cache });
    expect(gate(first, 'sessions').value).toBe(3);
    // Another lastConsolidatedAt (Claude Code dreamt meanwhile): the old count means nothing.
    await setLock('', wholeSeconds(Date.now() - 25 * HOUR));
    const counting = createCountingFs();
    const second = await checkDreamGates(target, { fs: counting.fs, dataDir, sessionCache: cache });
    expect(counting.calls.filter((c) => c.method === 'readdir' && c.path === target.projectDir)).toHaveLength(1);
    expect(gate(second, 'sessions').value).toBe(3);
  });

  it('counts top-level transcripts only: not sub-agent transcripts, folders, or other files', async () => {
    await addSessions(2, MIN);
    const sub = path.join(target.projectDir, 's0', 'subagents');
    await fs.mkdir(sub, { recursive: true });
    await fs.writeFile(path.join(sub, 'agent-1.jsonl'), '{}\n');
    await fs.writeFile(path.join(sub, 'agent-2.jsonl'), '{}\n');
    await fs.mkdir(path.join(target.projectDir, 'weird.jsonl'));
    await fs.writeFile(path.join(target.projectDir, 'notes.txt'), 'x');
    const report = await checkDreamGates(target, { dataDir, minSessions: 1, sessionCache: new SessionScanCache() });
    expect(gate(report, 'sessions')).toMatchObject({ value: 2, passed: true });
  });

  it('counts as Claude Code counts: UUID-named transcripts only, each launch folder on its own (the one with the most), the current session excluded', async () => {
    const [current] = await addSessions(2, MIN);
    for (const name of ['session-1.jsonl', 'notes.jsonl', 'A6F1C1E0-8A0E-4D2B-9B7E-2F4A5C6D7E8.jsonl'])
      await fs.writeFile(path.join(target.projectDir, name), '{}\n');
    const subFolder = path.join(tmp, 'projects', '-work-app-packages-api');
    await addSessions(3, MIN, subFolder);
    // A launch folder whose sessions were all removed is no launch folder to count.
    const withSub = { ...target, transcriptDirs: [target.projectDir, subFolder, path.join(tmp, 'projects', '-work-app-gone')] };
    expect(gate(await checkDreamGates(target, { dataDir, sessionCache: new SessionScanCache() }), 'sessions').value).toBe(2);
    // 2 sessions at the root and 3 in the subdirectory's folder: a session in either counts only
    // its own folder, so no session sees 5 (Claude Code 2.1.332, test/fixtures/claude-code-dream/).
    const both = gate(await checkDreamGates(withSub, { dataDir, sessionCache: new SessionScanCache() }), 'sessions');
    expect(both).toMatchObject({ value: 3, passed: false });
    expect(both.detail).toContain('3 sessions so far in -work-app-packages-api');
    expect(both.detail).toContain('in -work-app-packages-api, the most of its 2 launch folders');
    await addSessions(2, MIN, subFolder);
    expect(gate(await checkDreamGates(withSub, { dataDir, sessionCache: new SessionScanCache() }), 'sessions')).toMatchObject({ value: 5, passed: true });
    const [inSub] = await addSessions(1, MIN, subFolder);
    expect(gate(await checkDreamGates(withSub, { dataDir, sessionCache: new SessionScanCache(), excludeSessionIds: [inSub!] }), 'sessions').value).toBe(5);
    expect(gate(await checkDreamGates(target, { dataDir, sessionCache: new SessionScanCache(), excludeSessionIds: [current!] }), 'sessions').value).toBe(1);
  });

  it('one launch folder it cannot read does not close the gate for the others: that folder is named, the others counted', async () => {
    await addSessions(5, MIN);
    // As root, permission bits do not stop a read; a file where a launch folder should be does.
    const notAFolder = path.join(tmp, 'projects', '-work-app-sub');
    await fs.writeFile(notAFolder, 'x');
    const withIt = { ...target, transcriptDirs: [notAFolder, target.projectDir] };
    const open = gate(await checkDreamGates(withIt, { dataDir, sessionCache: new SessionScanCache() }), 'sessions');
    expect(open).toMatchObject({ value: 5, passed: true });
    expect(open.detail).toContain(`Cannot read ${notAFolder} (not a folder): its sessions are not counted.`);
    // Too few in the folders it can read: closed, and still the one it cannot read is named.
    const closed = gate(await checkDreamGates(withIt, { dataDir, minSessions: 6, sessionCache: new SessionScanCache() }), 'sessions');
    expect(closed).toMatchObject({ value: 5, passed: false });
    expect(closed.detail).toContain(`Cannot read ${notAFolder} (not a folder)`);
    // Alone, it closes the gate: nothing could be counted.
    const alone = gate(
      await checkDreamGates({ ...target, transcriptDirs: [notAFolder] }, { dataDir, minSessions: 0, sessionCache: new SessionScanCache() }),
      'sessions',
    );
    expect(alone).toMatchObject({ value: 0, passed: false, detail: `Cannot read ${notAFolder} (not a folder): its sessions are not counted.` });
  });

  it.skipIf(!canChangePermissions)(
    'a launch folder without read permission is named and the others counted (skipped as root, which ignores permission bits)',
    async () => {
      await addSessions(5, MIN);
      const closedFolder = path.join(tmp, 'projects', '-work-app-sub');
      await addSessions(2, MIN, closedFolder);
      await fs.chmod(closedFolder, 0o000);
      try {
        const sessions = gate(
          await checkDreamGates({ ...target, transcriptDirs: [closedFolder, target.projectDir] }, { dataDir, sessionCache: new SessionScanCache() }),
          'sessions',
        );
        expect(sessions).toMatchObject({ value: 5, passed: true });
        expect(sessions.detail).toContain(`Cannot read ${closedFolder} (permission denied): its sessions are not counted.`);
      } finally {
        await fs.chmod(closedFolder, 0o755);
      }
    },
  );

  it('a project without transcripts has zero sessions (not an error)', async () => {
    await fs.rm(target.projectDir, { recursive: true });
    const report = await checkDreamGates(target, { dataDir, sessionCache: new SessionScanCache() });
    expect(gate(report, 'sessions')).toMatchObject({ checked: true, passed: false, value: 0 });
    // What a new user sees first on the Dream tab: not "0 of 0 sessions touched ever".
    expect(gate(report, 'sessions').detail).toBe('No session so far — never dreamt, so every session counts; needs 5.');
    expect(report.lock?.state).toBe('absent');
  });
});

describe('checkDreamGates (status)', () => {
  it('looks at the lock without taking it', async () => {
    await setLock('', wholeSeconds(Date.now() - 30 * HOUR));
    await addSessions(5, MIN);
    const report = await checkDreamGates(target, { dataDir, sessionCache: new SessionScanCache() });
    expect(report.eligible).toBe(true);
    expect(gate(report, 'lock')).toMatchObject({ checked: true, passed: true, value: 'free' });
    expect(await fs.readFile(lockFile, 'utf8')).toBe('');
    expect(report.lock?.state).toBe('free');
  });

  it('shows who holds the lock even when the time gate is what failed', async () => {
    const claude = await startIdleProcess();
    children.push(claude);
    await setLock(String(claude.pid), wholeSeconds(Date.now() - 5 * MIN));
    const report = await checkDreamGates(target, { dataDir });
    expect(gate(report, 'time').passed).toBe(false);
    expect(gate(report, 'lock').checked).toBe(false);
    expect(report.lock).toMatchObject({ state: 'held', holderPid: claude.pid, holderAlive: true });
  });

  it('with scheduled dreams off, still shows the gates and says why a dream will not run', async () => {
    await addSessions(5, MIN);
    const report = await checkDreamGates(
      { ...target, settings: { autoDreamEnabled: false, autoMemoryEnabled: true } },
      { dataDir, sessionCache: new SessionScanCache() },
    );
    expect(report.disabled?.reason).toBe('auto-dream-off');
    expect(report.gates.every((g) => g.checked && g.passed)).toBe(true);
    expect(report.eligible).toBe(false);
  });
});
