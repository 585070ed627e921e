/** The alert center on a real data dir, written by two processes (the app and the CLI) at once. */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AlertCenter } from './alert-center.js';
import { runWorkersTogether } from '../memdir/test-support/spawn-worker.js';

const dataFileWorker = fileURLToPath(new URL('./test-support/data-file-worker.ts', import.meta.url));

let tmp: string;
let dataDir: string;

beforeEach(async () => {
  tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-alerts-')));
  dataDir = path.join(tmp, 'data');
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

describe('AlertCenter', () => {
  it('loses no alert when two processes raise theirs at the same time', async () => {
    const codes = await runWorkersTogether(dataFileWorker, [
      ['alerts', dataDir, 'app', '15'],
      ['alerts', dataDir, 'cli', '15'],
    ]);
    expect(codes).toEqual([0, 0]);
    const { alerts, open } = await new AlertCenter(dataDir).list();
    expect(open).toBe(30);
    expect(alerts.map((a) => a.title).sort()).toEqual(
      [...Array.from({ length: 15 }, (_, i) => `Alert app-${i}`), ...Array.from({ length: 15 }, (_, i) => `Alert cli-${i}`)].sort(),
    );
  }, 60_000);
});
