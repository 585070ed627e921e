import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lockSyncState } from './sync-state.js';

let dir: string;
beforeEach(async () => {
  dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-sync-lock-')));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe('lockSyncState', () => {
  it('takes over at once from a syncing process that was killed (kill -9), instead of reporting it busy', async () => {
    const holder = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'test-support', 'sync-lock-holder.ts'), dir], {
      cwd: path.resolve(import.meta.dirname, '../../..'),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve) => holder.stdout!.on('data', (d: Buffer) => d.toString().includes('locked') && resolve()));
    holder.kill('SIGKILL');
    await once(holder, 'exit');
    const start = performance.now();
    const release = await lockSyncState(dir);
    expect(performance.now() - start).toBeLessThan(2_000);
    release();
  });

  it('still waits for, then refuses with a sentence, a live holder', async () => {
    const release = await lockSyncState(dir);
    const holder = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'test-support', 'sync-lock-holder.ts'), dir], {
      cwd: path.resolve(import.meta.dirname, '../../..'),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    holder.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    const [code] = (await once(holder, 'exit')) as [number];
    expect(code).not.toBe(0);
    expect(err).toContain('Another Memdir process is syncing this project right now');
    release();
  }, 30_000);
});
