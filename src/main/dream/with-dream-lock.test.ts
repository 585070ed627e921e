import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CONSOLIDATION_LOCK_FILE, inspectDreamLock } from './consolidation-lock.js';
import { killAndWait, startLockWorker } from './test-support/child.js';
import { DreamCancelledError, withDreamLock } from './with-dream-lock.js';

const HOUR = 60 * 60 * 1000;

let tmp: string;
let mem: string;
let dataDir: string;
let lockFile: string;
let prior: number;
const children: ChildProcess[] = [];

beforeEach(async () => {
  tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-dream-run-')));
  mem = path.join(tmp, 'memory');
  dataDir = path.join(tmp, 'data');
  await fs.mkdir(mem);
  lockFile = path.join(mem, CONSOLIDATION_LOCK_FILE);
  // The last consolidation, two days ago, in whole seconds so it round-trips exactly.
  prior = Math.floor((Date.now() - 48 * HOUR) / 1000) * 1000;
  await fs.writeFile(lockFile, '');
  await fs.utimes(lockFile, prior / 1000, prior / 1000);
});

afterEach(async () => {
  await Promise.all(children.splice(0).map((c) => killAndWait(c)));
  await fs.rm(tmp, { recursive: true, force: true });
});

const mtime = async (): Promise<number | null> => (await fs.stat(lockFile).catch(() => null))?.mtimeMs ?? null;
const records = async (): Promise<string[]> => (await fs.readdir(path.join(dataDir, 'dream-locks')).catch(() => [])).filter((n) => n.endsWith('.json'));

describe('withDreamLock', () => {
  it('holds the lock while fn runs and, on success, leaves lastConsolidatedAt at the dream start', async () => {
    const result = await withDreamLock(
      mem,
      async ({ lock }) => {
        expect(await fs.readFile(lockFile, 'utf8')).toBe(String(process.pid));
        expect(await lock.verify()).toBe(true);
        return 42;
      },
      { dataDir },
    );
    expect(result.outcome).toBe('completed');
    if (result.outcome !== 'completed') return;
    expect(result.value).toBe(42);
    const end = Date.parse(result.lastConsolidatedAt);
    expect(Math.abs((await mtime())! - end)).toBeLessThan(1);
    expect(end).toBeGreaterThan(prior);
    expect(await fs.readFile(lockFile, 'utf8')).toBe('');
    expect(await records()).toEqual([]);
  });

  it('rolls back and rethrows when fn throws', async () => {
    const boom = new Error('phase failed');
    await expect(
      withDreamLock(
        mem,
        async () => {
          throw boom;
        },
        { dataDir },
      ),
    ).rejects.toBe(boom);
    expect(await mtime()).toBe(prior);
    expect(await fs.readFile(lockFile, 'utf8')).toBe('');
    expect(await records()).toEqual([]);
  });

  it('rolls back when cancelled through the AbortSignal mid-run', async () => {
    const controller = new AbortController();
    const result = await withDreamLock(
      mem,
      ({ signal }) =>
        new Promise((_, reject) => {
          signal.addEventListener('abort', () => reject(signal.reason as Error));
          setTimeout(() => controller.abort(new DreamCancelledError('user pressed cancel')), 20);
        }),
      { dataDir, signal: controller.signal },
    );
    expect(result.outcome).toBe('cancelled');
    if (result.outcome === 'cancelled') expect((result.reason as Error).message).toBe('user pressed cancel');
    expect(await mtime()).toBe(prior);
  });

  it('does not even take the lock when already cancelled', async () => {
    const controller = new AbortController();
    controller.abort();
    let ran = false;
    const result = await withDreamLock(
      mem,
      async () => {
        ran = true;
      },
      { dataDir, signal: controller.signal },
    );
    expect(result.outcome).toBe('cancelled');
    expect(ran).toBe(false);
    expect(await mtime()).toBe(prior);
  });

  it('reports not-acquired, without running fn, when another dream holds the lock', async () => {
    const holder = startLockWorker('hold', mem, dataDir);
    children.push(holder.child);
    await holder.nextLine();
    let ran = false;
    const result = await withDreamLock(
      mem,
      async () => {
        ran = true;
      },
      { dataDir },
    );
    expect(ran).toBe(false);
    expect(result).toMatchObject({ outcome: 'not-acquired', problem: { reason: 'held' } });
  });

  it('keeps the lock fresh with a heartbeat, and a lock taken over is left alone', async () => {
    const result = await withDreamLock(
      mem,
      async ({ lock, signal }) => {
        // Age the lock as if the dream had run for 50 minutes; the heartbeat brings it back.
        const aged = (Date.now() - 50 * 60 * 1000) / 1000;
        await fs.utimes(lockFile, aged, aged);
        await new Promise((resolve) => setTimeout(resolve, 150));
        expect(Date.now() - (await mtime())!).toBeLessThan(10_000);
        // Someone else takes it over (as they may once it looks stale).
        await fs.writeFile(lockFile, '4242');
        // The next heartbeat notices; it may already have, while the write above was awaited.
        if (!signal.aborted) await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
        expect(lock.state).toBe('lost');
        expect(signal.reason).toMatchObject({ name: 'DreamLockLostError' });
        throw signal.reason as Error;
      },
      { dataDir, heartbeatMs: 50 },
    );
    expect(result.outcome).toBe('lost');
    expect(await fs.readFile(lockFile, 'utf8')).toBe('4242');
  });

  it.each(['SIGTERM', 'SIGINT'] as const)('rolls back in the signal handler when the process gets %s, then dies of it', async (signal) => {
    const holder = startLockWorker('hold', mem, dataDir);
    children.push(holder.child);
    expect(await holder.nextLine()).toBe(`locked ${holder.child.pid}`);
    expect(await mtime()).not.toBe(prior);
    const exit = await killAndWait(holder.child, signal);
    // Node's default was restored and re-raised: the process ended by the signal itself.
    expect(exit.signal).toBe(signal);
    expect(await mtime()).toBe(prior);
    expect(await fs.readFile(lockFile, 'utf8')).toBe('');
    expect(await records()).toEqual([]);
    expect((await inspectDreamLock(mem, { dataDir })).state).toBe('free');
  });
});
