import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CONSOLIDATION_LOCK_FILE,
  LOCK_STALE_MS,
  acquireDreamLock,
  inspectDreamLock,
  parseLockContent,
  recoverCrashedDreams,
  recoverDreamLock,
} from './consolidation-lock.js';
import { NOBODY, deadPid, killAndWait, startIdleProcess, startLockWorker } from './test-support/child.js';

const HOUR = 60 * 60 * 1000;
const isRoot = process.getuid?.() === 0;

let tmp: string;
let mem: string;
let dataDir: string;
let lockFile: string;
const children: ChildProcess[] = [];

beforeEach(async () => {
  tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-dream-lock-')));
  mem = path.join(tmp, 'memory');
  dataDir = path.join(tmp, 'data');
  await fs.mkdir(mem);
  lockFile = path.join(mem, CONSOLIDATION_LOCK_FILE);
});

afterEach(async () => {
  await Promise.all(children.splice(0).map((c) => killAndWait(c)));
  await fs.chmod(mem, 0o755).catch(() => undefined);
  await fs.rm(tmp, { recursive: true, force: true });
});

/** A time in whole seconds, so utimes/stat round-trip it exactly. */
function secondsAgo(ms: number): number {
  return Math.floor((Date.now() - ms) / 1000) * 1000;
}

async function plant(content: string, mtimeMs: number): Promise<void> {
  await fs.writeFile(lockFile, content);
  await fs.utimes(lockFile, mtimeMs / 1000, mtimeMs / 1000);
}

async function mtimeOf(file: string): Promise<number | null> {
  return (await fs.stat(file).catch(() => null))?.mtimeMs ?? null;
}

const opts = () => ({ dataDir });

/** Lets another user reach the memory dir and write the data dir (tmp dirs are created 0700). */
async function openUpForOtherUsers(): Promise<void> {
  await fs.chmod(tmp, 0o755);
  await fs.mkdir(dataDir, { recursive: true });
  await fs.chmod(dataDir, 0o777);
}

/** One acquire attempt in a child process (as `as`, when given); its outcome. */
async function tryInChild(as?: { uid: number; gid: number }): Promise<{ ok: boolean; reason?: string; message?: string; status?: unknown }> {
  const worker = startLockWorker('try', mem, dataDir, as);
  children.push(worker.child);
  return JSON.parse(await worker.nextLine()) as { ok: boolean; reason?: string; message?: string };
}

describe('parseLockContent', () => {
  it('reads the PID as Claude Code writes it, and tolerates whitespace and trailing text', () => {
    expect(parseLockContent('12345')).toEqual({ kind: 'pid', pid: 12345, trailing: false });
    expect(parseLockContent(' 12345\r\n')).toEqual({ kind: 'pid', pid: 12345, trailing: false });
    // Claude Code's parseInt sees PID 12345 here too: Memdir must not see "no holder".
    expect(parseLockContent('12345\n{"x":1}')).toEqual({ kind: 'pid', pid: 12345, trailing: true });
  });

  it('treats empty content as no holder and nonsense as garbage', () => {
    expect(parseLockContent('')).toEqual({ kind: 'empty' });
    expect(parseLockContent('\n')).toEqual({ kind: 'empty' });
    expect(parseLockContent('hello').kind).toBe('garbage');
    expect(parseLockContent('-42').kind).toBe('garbage');
    expect(parseLockContent('0').kind).toBe('garbage');
    expect(parseLockContent('1').kind).toBe('garbage');
    expect(parseLockContent('99999999999999999999').kind).toBe('garbage');
  });
});

describe('acquireDreamLock', () => {
  it('takes an absent lock: PID as content, mtime now; release keeps the start time and clears the PID', async () => {
    const before = Date.now();
    const taken = await acquireDreamLock(mem, opts());
    expect(taken.ok).toBe(true);
    if (!taken.ok) return;
    const { lock } = taken;
    expect(lock.priorMtimeMs).toBeNull();
    expect(await fs.readFile(lockFile, 'utf8')).toBe(String(process.pid));
    const held = (await mtimeOf(lockFile))!;
    expect(held).toBeGreaterThanOrEqual(before - 1000);
    expect(Math.abs(held - lock.acquiredAtMs)).toBeLessThan(1);

    expect(await lock.release()).toBe('released');
    expect(await fs.readFile(lockFile, 'utf8')).toBe('');
    expect(Math.abs((await mtimeOf(lockFile))! - lock.acquiredAtMs)).toBeLessThan(1);
    // Nothing left behind: no temp files in the memory dir, no rollback record.
    expect(await fs.readdir(mem)).toEqual([CONSOLIDATION_LOCK_FILE]);
    expect((await fs.readdir(path.join(dataDir, 'dream-locks'))).filter((n) => n.endsWith('.json'))).toEqual([]);
    // A released lock is free for the next dream.
    expect((await inspectDreamLock(mem, opts())).state).toBe('free');
  });

  it('rolls back to no file when there was none before', async () => {
    const taken = await acquireDreamLock(mem, opts());
    if (!taken.ok) throw new Error(taken.problem.message);
    expect(await taken.lock.rollback()).toBe('rolled-back');
    expect(await mtimeOf(lockFile)).toBeNull();
  });

  it('rolls back to the exact previous lastConsolidatedAt', async () => {
    const prior = secondsAgo(3 * 24 * HOUR);
    await plant('', prior);
    const taken = await acquireDreamLock(mem, opts());
    if (!taken.ok) throw new Error(taken.problem.message);
    expect(taken.lock.priorMtimeMs).toBe(prior);
    expect(await mtimeOf(lockFile)).not.toBe(prior);
    await taken.lock.rollback();
    expect(await mtimeOf(lockFile)).toBe(prior);
    expect(await fs.readFile(lockFile, 'utf8')).toBe('');
  });

  it('is blocked by a Claude Code-style holder: a live PID with a fresh mtime', async () => {
    const holder = await startIdleProcess();
    children.push(holder);
    await plant(String(holder.pid), secondsAgo(5 * 60 * 1000));
    const taken = await acquireDreamLock(mem, opts());
    expect(taken.ok).toBe(false);
    if (taken.ok) return;
    expect(taken.problem.reason).toBe('held');
    expect(taken.problem.status?.holderPid).toBe(holder.pid);
    expect(taken.problem.message).toContain(`PID ${holder.pid}`);
    // Untouched.
    expect(await fs.readFile(lockFile, 'utf8')).toBe(String(holder.pid));
  });

  it('takes over a lock older than an hour even when its PID is alive (PID reuse)', async () => {
    const holder = await startIdleProcess();
    children.push(holder);
    const old = secondsAgo(LOCK_STALE_MS + 60_000);
    await plant(String(holder.pid), old);
    expect((await inspectDreamLock(mem, opts())).state).toBe('stale');
    const taken = await acquireDreamLock(mem, opts());
    if (!taken.ok) throw new Error(taken.problem.message);
    expect(taken.lock.priorMtimeMs).toBe(old);
    expect(await fs.readFile(lockFile, 'utf8')).toBe(String(process.pid));
    await taken.lock.rollback();
  });

  it('takes over a fresh lock whose PID is dead', async () => {
    const pid = await deadPid();
    const fresh = secondsAgo(60_000);
    await plant(String(pid), fresh);
    const status = await inspectDreamLock(mem, opts());
    expect(status).toMatchObject({ state: 'stale', holderPid: pid, holderAlive: false });
    const taken = await acquireDreamLock(mem, opts());
    if (!taken.ok) throw new Error(taken.problem.message);
    // No Memdir record for that PID (a Claude Code crash): the stuck mtime is the best prior.
    expect(taken.recovered).toBeNull();
    expect(taken.lock.priorMtimeMs).toBe(fresh);
    await taken.lock.release();
  });

  it('takes over garbage content and says so', async () => {
    const fresh = secondsAgo(60_000);
    await plant('not a pid at all', fresh);
    const status = await inspectDreamLock(mem, opts());
    expect(status.state).toBe('stale');
    expect(status.content).toBe('garbage');
    expect(status.detail).toContain('no PID');
    const taken = await acquireDreamLock(mem, opts());
    if (!taken.ok) throw new Error(taken.problem.message);
    expect(taken.lock.priorMtimeMs).toBe(fresh);
    await taken.lock.rollback();
    expect(await mtimeOf(lockFile)).toBe(fresh);
  });

  it('treats a lock far in the future as skewed: stale, and a rollback brings it back to the acquisition time', async () => {
    const holder = await startIdleProcess();
    children.push(holder);
    const future = Math.floor((Date.now() + 30 * 24 * HOUR) / 1000) * 1000;
    await plant(String(holder.pid), future);
    const status = await inspectDreamLock(mem, opts());
    expect(status.state).toBe('stale');
    expect(status.futureByMs).toBeGreaterThan(29 * 24 * HOUR);
    expect(status.detail).toContain('clock skew');
    const taken = await acquireDreamLock(mem, opts());
    if (!taken.ok) throw new Error(taken.problem.message);
    expect(taken.lock.priorMtimeMs).toBe(taken.lock.acquiredAtMs);
    await taken.lock.rollback();
    expect(Math.abs((await mtimeOf(lockFile))! - taken.lock.acquiredAtMs)).toBeLessThan(1);
  });

  it('within the skew tolerance a slightly future lock still counts as held', async () => {
    const holder = await startIdleProcess();
    children.push(holder);
    await plant(String(holder.pid), Date.now() + 60_000);
    expect((await inspectDreamLock(mem, opts())).state).toBe('held');
  });

  it('refuses a second dream in the same process while the first holds the lock', async () => {
    const first = await acquireDreamLock(mem, opts());
    if (!first.ok) throw new Error(first.problem.message);
    const second = await acquireDreamLock(mem, opts());
    expect(second.ok).toBe(false);
    if (!second.ok) expect(second.problem.message).toContain('this process');
    expect((await inspectDreamLock(mem, opts())).heldByThisProcess).toBe(true);
    await first.lock.release();
    const third = await acquireDreamLock(mem, opts());
    expect(third.ok).toBe(true);
    if (third.ok) await third.lock.release();
  });

  it('gives clear outcomes for a missing memory dir and for a file in its place', async () => {
    const missing = await acquireDreamLock(path.join(tmp, 'nope'), opts());
    expect(missing.ok).toBe(false);
    if (!missing.ok) {
      expect(missing.problem.reason).toBe('missing-memory-dir');
      expect(missing.problem.message).toContain('does not exist');
    }
    const file = path.join(tmp, 'file');
    await fs.writeFile(file, 'x');
    const notDir = await acquireDreamLock(file, opts());
    expect(notDir.ok).toBe(false);
    if (!notDir.ok) expect(notDir.problem.reason).toBe('not-a-directory');
    expect((await inspectDreamLock(path.join(tmp, 'nope'), opts())).state).toBe('absent');
  });

  it('reports a memory dir without write permission as a permission problem', async () => {
    const prior = secondsAgo(2 * 24 * HOUR);
    await plant('', prior);
    await fs.chmod(mem, 0o555);
    // Root ignores permission bits: as root, the attempt runs in a child as `nobody`.
    await openUpForOtherUsers();
    const result = await tryInChild(isRoot ? NOBODY : undefined);
    expect(result).toMatchObject({ ok: false, reason: 'permission' });
    expect(result.message).toContain('permission denied');
    expect(await mtimeOf(lockFile)).toBe(prior);
    // The record written before the lock was taken back.
    expect((await fs.readdir(path.join(dataDir, 'dream-locks'))).filter((n) => n.endsWith('.json'))).toEqual([]);
  });

  it("reports Memdir's data dir without write permission as a data-dir problem, touching nothing", async () => {
    const prior = secondsAgo(2 * 24 * HOUR);
    await plant('', prior);
    await openUpForOtherUsers();
    await fs.chmod(mem, 0o777);
    await fs.chmod(dataDir, 0o555);
    const result = await tryInChild(isRoot ? NOBODY : undefined);
    expect(result).toMatchObject({ ok: false, reason: 'data-dir' });
    expect(result.message).toContain(dataDir);
    expect(await mtimeOf(lockFile)).toBe(prior);
    expect(await fs.readFile(lockFile, 'utf8')).toBe('');
  });

  it.skipIf(!isRoot)('counts a live holder of another user as alive (EPERM) — needs root to run a child as another user', async () => {
    const holder = await startIdleProcess();
    children.push(holder);
    await plant(String(holder.pid), secondsAgo(60_000));
    await openUpForOtherUsers();
    await fs.chmod(mem, 0o777);
    const result = await tryInChild(NOBODY);
    expect(result).toMatchObject({ ok: false, reason: 'held', status: { holderPid: holder.pid, holderAlive: true } });
  });

  it('lets exactly one of two racing processes win, round after round', async () => {
    const workers = [startLockWorker('race', mem, dataDir), startLockWorker('race', mem, dataDir)];
    children.push(...workers.map((w) => w.child));
    expect(await Promise.all(workers.map((w) => w.nextLine()))).toEqual(['ready', 'ready']);
    const rounds = 40;
    const wins = [0, 0];
    for (let round = 0; round < rounds; round++) {
      for (const w of workers) w.send(`go ${round}`);
      const results = await Promise.all(workers.map((w) => w.nextLine()));
      const won = results.map((r) => r === `${round} won`);
      expect(won.filter(Boolean), `round ${round}: ${results.join(' / ')}`).toHaveLength(1);
      for (const r of results) if (!r.endsWith('won')) expect(r).toBe(`${round} lost held`);
      wins[won.indexOf(true)]!++;
      for (const w of workers) w.send(`end ${round}`);
      expect(await Promise.all(workers.map((w) => w.nextLine()))).toEqual([`${round} ended`, `${round} ended`]);
    }
    expect(wins[0]! + wins[1]!).toBe(rounds);
    // Both won some rounds: they really contended. (With Claude Code's bare write-then-verify
    // and no guard, both "win" within the first rounds; the guard is what this pins down.)
    expect(Math.min(...wins)).toBeGreaterThan(0);
    for (const w of workers) w.send('quit');
  }, 60_000);

  it('after kill -9 of a holder, the next acquire rolls the mtime back to the previous lastConsolidatedAt first', async () => {
    const prior = secondsAgo(2 * 24 * HOUR);
    await plant('', prior);
    const holder = startLockWorker('hold', mem, dataDir);
    children.push(holder.child);
    expect(await holder.nextLine()).toBe(`locked ${holder.child.pid}`);
    expect(await fs.readFile(lockFile, 'utf8')).toBe(String(holder.child.pid));
    expect(await mtimeOf(lockFile)).not.toBe(prior);
    await killAndWait(holder.child, 'SIGKILL');

    const status = await inspectDreamLock(mem, opts());
    expect(status.crashedDream).toEqual({ pid: holder.child.pid, priorMtimeMs: prior });

    // Rollback alone, as the startup sweep does it: the exact previous mtime.
    expect(await recoverDreamLock(mem, opts())).toMatchObject({ pid: holder.child.pid, restoredMtimeMs: prior });
    expect(await mtimeOf(lockFile)).toBe(prior);
    expect(await fs.readFile(lockFile, 'utf8')).toBe('');
    expect(await recoverDreamLock(mem, opts())).toBeNull();
  });

  it('after kill -9, acquire recovers before deciding, so its own rollback restores the pre-crash time', async () => {
    const prior = secondsAgo(2 * 24 * HOUR);
    await plant('', prior);
    const holder = startLockWorker('hold', mem, dataDir);
    children.push(holder.child);
    await holder.nextLine();
    await killAndWait(holder.child, 'SIGKILL');

    const taken = await acquireDreamLock(mem, opts());
    if (!taken.ok) throw new Error(taken.problem.message);
    expect(taken.recovered).toMatchObject({ pid: holder.child.pid, restoredMtimeMs: prior });
    expect(taken.lock.priorMtimeMs).toBe(prior);
    await taken.lock.rollback();
    expect(await mtimeOf(lockFile)).toBe(prior);
  });

  it('the startup sweep rolls back every crashed dream, including one that created the lock', async () => {
    const holder = startLockWorker('hold', mem, dataDir);
    children.push(holder.child);
    await holder.nextLine();
    await killAndWait(holder.child, 'SIGKILL');
    expect(await mtimeOf(lockFile)).not.toBeNull();
    const recovered = await recoverCrashedDreams(opts());
    expect(recovered).toEqual([expect.objectContaining({ memoryDir: mem, restoredMtimeMs: null })]);
    expect(await mtimeOf(lockFile)).toBeNull();
    expect(await recoverCrashedDreams(opts())).toEqual([]);
  });

  it('does not roll back a lock that Claude Code took after a Memdir crash', async () => {
    const prior = secondsAgo(2 * 24 * HOUR);
    await plant('', prior);
    const holder = startLockWorker('hold', mem, dataDir);
    children.push(holder.child);
    await holder.nextLine();
    await killAndWait(holder.child, 'SIGKILL');
    // Claude Code reclaims the dead holder's lock with its own PID.
    const claude = await startIdleProcess();
    children.push(claude);
    await fs.writeFile(lockFile, String(claude.pid));
    const claudeMtime = (await mtimeOf(lockFile))!;
    expect(await recoverDreamLock(mem, opts())).toBeNull();
    expect(await mtimeOf(lockFile)).toBe(claudeMtime);
    const taken = await acquireDreamLock(mem, opts());
    expect(taken.ok).toBe(false);
    // The obsolete record is gone: nothing will ever roll Claude Code's lock back.
    expect((await fs.readdir(path.join(dataDir, 'dream-locks'))).filter((n) => n.endsWith('.json'))).toEqual([]);
  });
});
