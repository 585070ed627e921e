import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startWorker, waitForLine } from '../memdir/test-support/spawn-worker.js';
import { MemoryLockError } from './lock.js';
import { withMemoryLock } from './memory-lock.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const lockWorker = path.join(here, 'test-support', 'memory-lock-worker.ts');

let tmp: string;
let root: string;
let dataDir: string;

beforeEach(async () => {
  tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-memory-lock-')));
  root = path.join(tmp, 'memory');
  dataDir = path.join(tmp, 'data');
  await fs.mkdir(root);
});

afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

const startLockWorker = (args: string[]): ChildProcess => startWorker(lockWorker, args);

describe('withMemoryLock', () => {
  it('never lets two processes into the critical section at once', async () => {
    const log = path.join(tmp, 'log.txt');
    const workers = [startLockWorker(['loop', root, dataDir, log, '40']), startLockWorker(['loop', root, dataDir, log, '40'])];
    await Promise.all(workers.map((w) => waitForLine(w, 'ready')));
    for (const w of workers) w.stdin?.end('go\n');
    const codes = await Promise.all(workers.map(async (w) => (await once(w, 'exit'))[0]));
    expect(codes).toEqual([0, 0]);
    const all = (await fs.readFile(log, 'utf8')).trim().split('\n');
    const lines = all.filter((line) => line.startsWith('start ') || line.startsWith('end '));
    expect(lines).toHaveLength(160);
    for (let i = 0; i < lines.length; i += 2) {
      const [start, pid] = (lines[i] ?? '').split(' ');
      expect(start).toBe('start');
      expect(lines[i + 1]).toBe(`end ${pid}`);
    }
    // They really contended: holds during which the other process was asking for the lock, and
    // still never got in before the end (the pairs above). Not left to scheduling: see the worker.
    let contended = 0;
    const asking = new Set<string>();
    for (const line of all) {
      const [what, pid] = line.split(' ');
      if (what === 'ask') asking.add(pid!);
      else if (what === 'start') asking.delete(pid!);
      else if (what === 'end' && [...asking].some((other) => other !== pid)) contended++;
    }
    expect(contended).toBeGreaterThan(2);
  }, 60_000);

  it('waits for a live holder, then gives a clear message', async () => {
    const holder = startLockWorker(['hold', root, dataDir]);
    try {
      await waitForLine(holder, 'locked');
      const err = await withMemoryLock(root, async () => 'never', { dataDir, timeoutMs: 300 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(MemoryLockError);
      expect((err as Error).message).toBe(`Another Memdir process is writing to ${root}; try again in a moment`);
    } finally {
      holder.kill('SIGKILL');
      await once(holder, 'exit');
    }
  }, 30_000);

  it('takes over at once from a holder that was killed', async () => {
    const holder = startLockWorker(['hold', root, dataDir]);
    await waitForLine(holder, 'locked');
    holder.kill('SIGKILL');
    await once(holder, 'exit');
    const started = Date.now();
    expect(await withMemoryLock(root, async () => 'mine', { dataDir, timeoutMs: 2_000 })).toBe('mine');
    expect(Date.now() - started).toBeLessThan(1_500);
  }, 30_000);

  it('is reentrant in one async chain and serialises unrelated callers', async () => {
    const events: string[] = [];
    const section = (name: string) =>
      withMemoryLock(
        root,
        async () => {
          events.push(`${name} in`);
          const inner = await withMemoryLock(root, async () => `${name} nested`, { dataDir, timeoutMs: 500 });
          await new Promise((resolve) => setTimeout(resolve, 5));
          events.push(`${name} out`);
          return inner;
        },
        { dataDir },
      );
    expect(await Promise.all([section('a'), section('b'), section('c')])).toEqual(['a nested', 'b nested', 'c nested']);
    expect(events).toEqual(['a in', 'a out', 'b in', 'b out', 'c in', 'c out']);
  });

  it('times out a waiter in the same process without blocking those after it', async () => {
    let release!: () => void;
    const held = withMemoryLock(root, () => new Promise<void>((resolve) => (release = resolve)), { dataDir });
    const late = withMemoryLock(root, async () => 'late', { dataDir, timeoutMs: 50 }).catch((e: unknown) => e);
    const patient = withMemoryLock(root, async () => 'patient', { dataDir, timeoutMs: 5_000 });
    const err = await late;
    expect(err).toBeInstanceOf(MemoryLockError);
    expect((err as MemoryLockError).reason).toBe('busy');
    release();
    await held;
    expect(await patient).toBe('patient');
  });

  it('fails the work, instead of crashing the process, when the lock is taken away while held', async () => {
    const locks = path.join(dataDir, 'locks');
    const result = withMemoryLock(
      root,
      async () => {
        // What another process breaking our lock looks like from here: the lock folder is gone.
        for (const name of await fs.readdir(locks)) await fs.rm(path.join(locks, name), { recursive: true });
        // proper-lockfile notices on its next refresh (half the 10 s stale time).
        await new Promise((resolve) => setTimeout(resolve, 5_600));
        return 'done';
      },
      { dataDir },
    );
    const err = await result.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MemoryLockError);
    expect((err as MemoryLockError).reason).toBe('compromised');
    expect((err as Error).message).toBe(`Lost the lock on ${root} while writing (another process took it over); check the result and try again`);
    expect(await withMemoryLock(root, async () => 'after', { dataDir, timeoutMs: 500 })).toBe('after');
  }, 20_000);

  it('releases the lock when the work fails', async () => {
    await expect(withMemoryLock(root, async () => Promise.reject(new Error('boom')), { dataDir })).rejects.toThrow('boom');
    expect(await withMemoryLock(root, async () => 'again', { dataDir, timeoutMs: 200 })).toBe('again');
    expect(await fs.readdir(path.join(dataDir, 'locks'))).toEqual([]);
  });
});
