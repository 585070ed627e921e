import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { isProcessAlive } from './process.js';

describe('isProcessAlive', () => {
  it('sees this process alive and a process that has exited gone', () => {
    expect(isProcessAlive(process.pid)).toBe(true);
    const child = spawnSync(process.execPath, ['-e', '0']);
    expect(child.status).toBe(0);
    expect(isProcessAlive(child.pid!)).toBe(false);
  });

  it('never asks about a process group or every process: 0, negatives, fractions and huge numbers are nobody', () => {
    for (const pid of [0, -1, -process.pid, 1.5, Number.NaN, 2 ** 31, Number.MAX_SAFE_INTEGER + 2]) expect(isProcessAlive(pid)).toBe(false);
  });
});
