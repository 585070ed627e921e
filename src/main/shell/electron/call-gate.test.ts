/**
 * Quitting the desktop app while a write is in flight: the write finishes, or is never begun.
 * A real app context and dispatcher over a fixture home (what main.ts wires to the window's IPC).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { AppContext } from '../../app/app-context.js';
import { createAppDispatcher } from '../../api/index.js';
import { buildFixtureHome, type FixtureHome } from '../../memdir/test-support/fixture-home.js';
import { CallGate, STOPPING } from './call-gate.js';

let root: string;
let fixture: FixtureHome;

beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-gate-'));
  fixture = await buildFixtureHome(root);
});

afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

it('a save in flight when the app quits is finished before the app closes; one asked after is refused and never begun', async () => {
  const ctx = await AppContext.create({ homeFlag: fixture.home, dataDir: path.join(root, 'data'), env: {} });
  const api = createAppDispatcher(ctx);
  const gate = new CallGate();
  const memoryDir = path.join(fixture.home, 'projects', '-work-noindex', 'memory');
  const save = (file: string) =>
    gate.run(() =>
      api.call('memories.create', {
        dir: '-work-noindex',
        scope: 'private',
        memoryDir,
        fields: { name: file, description: 'saved while quitting', type: 'feedback' },
        body: 'Kept.\n',
        file,
      }),
    );
  const inFlight = save('in-flight.md');
  // Quit: the gate closes first, then the app (main.ts's before-quit).
  const quit = gate.close().then(() => ctx.close());
  expect(await save('after-quit.md')).toEqual(STOPPING);
  await quit;
  expect(await inFlight).toMatchObject({ ok: true });
  expect(await fs.readFile(path.join(memoryDir, 'in-flight.md'), 'utf8')).toContain('Kept.');
  await expect(fs.stat(path.join(memoryDir, 'after-quit.md'))).rejects.toThrow();
});

it('a call that fails does not hold the quit', async () => {
  const gate = new CallGate();
  const failing = gate.run(() => Promise.reject(new Error('disk full')));
  await gate.close();
  await expect(failing).rejects.toThrow('disk full');
});
