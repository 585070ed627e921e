import { type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryLockError, acquireLock, withLock } from './lock.js';
import { runWorkersTogether, startWorker, waitForLine } from '../memdir/test-support/spawn-worker.js';

const lockWorker = fileURLToPath(new URL('./test-support/lock-worker.ts', import.meta.url));
const sentences = { busy: 'Another process holds it.', busyHere: 'This process holds it.', lost: 'It was taken away.' };

let tmp: string;
let lockPath: string;
const children: ChildProcess[] = [];

beforeEach(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-core-lock-'));
  lockPath = path.join(tmp, 'locks', 'thing.lock');
});

afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
  }
  await fs.rm(tmp, { recursive: true, force: true });
});

async function holdInAnotherProcess(): Promise<ChildProcess> {
  const holder = startWorker(lockWorker, ['hold', lockPath]);
  children.push(holder);
  await waitForLine(holder, 'locked');
  return holder;
}

describe('the lock across processes', () => {
  it('never lets two processes into the critical section at once', async () => {
    const log = path.join(tmp, 'log.txt');
    const codes = await runWorkersTogether(lockWorker, [
      ['loop', lockPath, log, '30'],
      ['loop', lockPath, log, '30'],
      ['loop', lockPath, log, '30'],
    ]);
    expect(codes).toEqual([0, 0, 0]);
    const lines = (await fs.readFile(log, 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(180);
    for (let i = 0; i < lines.length; i += 2) {
      const [start, pid] = (lines[i] ?? '').split(' ');
      expect(start).toBe('start');
      expect(lines[i + 1]).toBe(`end ${pid}`);
    }
    const owners = lines.filter((_, i) => i % 2 === 0).map((l) => l.split(' ')[1]);
    expect(owners.filter((pid, i) => i > 0 && pid !== owners[i - 1]).length).toBeGreaterThan(2);
    // Nothing is left behind: no lock, no half-made or detached folder.
    expect(await fs.readdir(path.dirname(lockPath))).toEqual([]);
  }, 90_000);

  it('waits for a live holder, then says the busy sentence and leaves its lock alone', async () => {
    await holdInAnotherProcess();
    const err = await acquireLock(lockPath, { ...sentences, timeoutMs: 300 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MemoryLockError);
    expect((err as MemoryLockError).reason).toBe('busy');
    expect((err as Error).message).toBe(sentences.busy);
    expect(await fs.readdir(lockPath)).toEqual(['owner.json']);
  }, 30_000);

  it('takes over at once from a holder that was killed, long before the lock would go stale', async () => {
    const holder = await holdInAnotherProcess();
    holder.kill('SIGKILL');
    await once(holder, 'exit');
    // The stale time is 10 s: within 3 s only the owner record can have let us in.
    const held = await acquireLock(lockPath, { ...sentences, timeoutMs: 3_000 });
    const owner = JSON.parse(await fs.readFile(path.join(lockPath, 'owner.json'), 'utf8')) as { pid: number };
    expect(owner.pid).toBe(process.pid);
    await held.release();
    expect(await fs.readdir(path.dirname(lockPath))).toEqual([]);
  }, 30_000);

  it('after losing the lock to another process, says so and releases without touching the new owner', async () => {
    const held = await acquireLock(lockPath, { ...sentences, timeoutMs: 1_000 });
    expect(held.lost).toBeNull();
    // What a frozen holder sees after waking up: its folder went stale and another process took
    // it. (Really that takes 10 s; here a second is enough: proper-lockfile tells folders apart by
    // mtime, and a folder made within the same second as ours gets the very same one.)
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await fs.rm(lockPath, { recursive: true });
    const thief = await holdInAnotherProcess();
    // proper-lockfile notices on its next refresh (half the 10 s stale time).
    await new Promise((resolve) => setTimeout(resolve, 5_600));
    expect(held.lost).toBeInstanceOf(Error);
    await held.release();
    const owner = JSON.parse(await fs.readFile(path.join(lockPath, 'owner.json'), 'utf8')) as { pid: number };
    expect(owner.pid).toBe(thief.pid);
  }, 30_000);
});

describe('the lock within one process', () => {
  it('lets waiters in one at a time, in the order they asked', async () => {
    const order: string[] = [];
    const first = await acquireLock(lockPath, { ...sentences, timeoutMs: 1_000 });
    const waiters = ['b', 'c', 'd'].map((name) =>
      acquireLock(lockPath, { ...sentences, timeoutMs: 5_000 }).then(async (held) => {
        order.push(`${name} in`);
        await new Promise((resolve) => setTimeout(resolve, 5));
        order.push(`${name} out`);
        await held.release();
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(order).toEqual([]);
    await first.release();
    await Promise.all(waiters);
    expect(order).toEqual(['b in', 'b out', 'c in', 'c out', 'd in', 'd out']);
  });

  it('gives up on a holder in this process with the busyHere sentence, and the waiters behind still get in', async () => {
    const first = await acquireLock(lockPath, { ...sentences, timeoutMs: 1_000 });
    const late = acquireLock(lockPath, { ...sentences, timeoutMs: 50 }).catch((e: unknown) => e);
    const patient = acquireLock(lockPath, { ...sentences, timeoutMs: 5_000 });
    const err = await late;
    expect(err).toBeInstanceOf(MemoryLockError);
    expect((err as Error).message).toBe(sentences.busyHere);
    await first.release();
    await (await patient).release();
  });

  it('withLock runs a nested call of its own chain directly and fails the work whose lock was lost', async () => {
    expect(await withLock(lockPath, () => withLock(lockPath, async () => 'nested', { ...sentences, timeoutMs: 200 }), { ...sentences, timeoutMs: 1_000 })).toBe(
      'nested',
    );
    const err = await withLock(
      lockPath,
      async () => {
        await fs.rm(lockPath, { recursive: true });
        await new Promise((resolve) => setTimeout(resolve, 5_600));
        return 'done';
      },
      { ...sentences, timeoutMs: 1_000 },
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MemoryLockError);
    expect((err as MemoryLockError).reason).toBe('compromised');
    expect((err as Error).message).toBe(sentences.lost);
    expect(await withLock(lockPath, async () => 'after', { ...sentences, timeoutMs: 500 })).toBe('after');
  }, 20_000);

  it("says a file-system failure in the caller's words", async () => {
    // A file where the lock's folder should be.
    await fs.writeFile(path.join(tmp, 'locks'), 'not a folder');
    const err = await acquireLock(lockPath, {
      ...sentences,
      timeoutMs: 500,
      failed: (e) => new Error(`Cannot lock: ${(e as NodeJS.ErrnoException).code}`),
    }).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/^Cannot lock: E(EXIST|NOTDIR)$/);
  });

  it('clears what a killed acquisition left beside the lock', async () => {
    await fs.mkdir(path.dirname(lockPath), { recursive: true });
    await fs.mkdir(`${lockPath}.dead-abc`);
    await fs.mkdir(`${lockPath}.new-def`);
    await fs.writeFile(path.join(`${lockPath}.new-def`, 'owner.json'), JSON.stringify({ host: os.hostname(), pid: 2 ** 30, token: 'x' }));
    const held = await acquireLock(lockPath, { ...sentences, timeoutMs: 500 });
    expect((await fs.readdir(path.dirname(lockPath))).sort()).toEqual(['thing.lock']);
    await held.release();
  });
});
