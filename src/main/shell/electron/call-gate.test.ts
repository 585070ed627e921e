/**
 * Quitting the desktop app while a write is in flight: the write finishes, or is never begun —
 * and a write that never returns holds the quit no longer than its cap, which then says what it
 * did not wait for. A real app context and dispatcher over a fixture home (what main.ts wires to
 * the window's IPC).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppContext } from '../../app/app-context.js';
import { createAppDispatcher } from '../../api/index.js';
import { fsckHistory } from '../../history/test-support/crash-check.js';
import { buildFixtureHome, type FixtureHome } from '../../memdir/test-support/fixture-home.js';
import { withMemoryLock } from '../../core/memory-lock.js';
import { CallGate, STOPPING } from './call-gate.js';
import { callWords, CHANGE_WORDS, READING } from './call-words.js';
import { CLOSING_APP, closeWithin, quitCutSentence } from './quit.js';
import { CONTRACT } from '../../../shared/contract/index.js';

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

describe('a quit that would wait for ever', () => {
  it('a save that never returns (another Memdir process keeps its folder locked) holds the quit only to the cap, which names it', async () => {
    const dataDir = path.join(root, 'data');
    const ctx = await AppContext.create({ homeFlag: fixture.home, dataDir, env: {} });
    const api = createAppDispatcher(ctx);
    const gate = new CallGate();
    const memoryDir = path.join(fixture.home, 'projects', '-work-noindex', 'memory');
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const holder = withMemoryLock(memoryDir, () => (locked(), held), { dataDir });
    await isLocked;
    const input = {
      dir: '-work-noindex',
      scope: 'private',
      memoryDir,
      fields: { name: 'stuck', description: 'never saved', type: 'feedback' },
      body: 'Stuck.\n',
      file: 'stuck.md',
    };
    const save = gate.run(() => api.call('memories.create', input), callWords('memories.create', input));
    const listing = gate.run(() => api.call('projects.list', {}), callWords('projects.list', {}));
    await listing;

    const started = Date.now();
    const unfinished = await closeWithin(gate, () => ctx.close(), 300);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(unfinished).toEqual(['saving a memory (stuck.md)']);
    expect(quitCutSentence(unfinished, 10_000)).toBe(
      'Memdir quit after waiting 10 s for: saving a memory (stuck.md). Each file it was writing is either as it was or wholly written, never half: open Memdir again, look at what you changed, and make the change again if it is not there.',
    );
    release();
    await holder;
    await save;
    await ctx.close();
  });

  it('an app close that never ends is cut at the cap too, and says so', async () => {
    const gate = new CallGate();
    const unfinished = await closeWithin(gate, () => new Promise<void>(() => undefined), 50);
    expect(unfinished).toEqual([CLOSING_APP]);
    expect(quitCutSentence(unfinished, 10_000)).toContain(
      'Memdir quit after waiting 10 s for: stopping background work (team and personal sync, dreams, extraction).',
    );
  });

  it('a quit in time says nothing; one cut during reads says nothing was being changed', async () => {
    const gate = new CallGate();
    expect(await closeWithin(gate, async () => undefined, 1_000)).toEqual([]);
    expect(quitCutSentence([])).toBeNull();
    expect(quitCutSentence([READING, READING], 10_000)).toBe('Memdir quit after waiting 10 s for the window to finish reading; nothing was being changed.');
  });

  it('every call that changes something is named in words, never by its call name', () => {
    for (const [name, def] of Object.entries(CONTRACT)) {
      if (def.kind !== 'mutation') continue;
      expect(CHANGE_WORDS[name.split('.')[0]!], name).toBeDefined();
      expect(callWords(name, {}), name).not.toContain(name);
    }
    expect(callWords('memories.list', {})).toBe(READING);
    expect(callWords('no.such', {})).toBe(READING);
  });
});

describe('a save cut by the quit cap', () => {
  const DRIVER = path.join(import.meta.dirname, '..', 'test-support', 'quit-driver.ts');
  const REPO = path.resolve(import.meta.dirname, '../../../..');

  it('leaves the memory as it was or wholly saved, never half; the next start reads it and saves on it, History intact', async () => {
    const dataDir = path.join(root, 'data');
    const memoryDir = path.join(fixture.home, 'projects', '-work-noindex', 'memory');
    const first = await AppContext.create({ homeFlag: fixture.home, dataDir, env: {} });
    const created = await createAppDispatcher(first).call('memories.create', {
      dir: '-work-noindex',
      scope: 'private',
      memoryDir,
      fields: { name: 'cut', description: 'saved while quitting', type: 'feedback' },
      body: 'first\n',
      file: 'cut.md',
    });
    expect(created).toMatchObject({ ok: true });
    await first.close();

    const bodies = ['first\n'];
    let cutMidSave = 0;
    for (const afterMs of [400, 900, 1_500, 2_200]) {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['--import', 'tsx', DRIVER, fixture.home, dataDir, '-work-noindex', memoryDir, 'cut.md', String(afterMs)],
        {
          cwd: REPO,
          timeout: 60_000,
        },
      );
      bodies.push(...[...stdout.matchAll(/^intend (.*)$/gm)].map((m) => `${m[1]}\n`));
      const cut = JSON.parse(/^cut (.*)$/m.exec(stdout)![1]!) as string[];
      if (cut.includes('saving a memory (cut.md)')) cutMidSave++;
      const text = await fs.readFile(path.join(memoryDir, 'cut.md'), 'utf8');
      expect(text.startsWith('---\n'), text.slice(0, 200)).toBe(true);
      expect(
        bodies.some((body) => text.endsWith(`\n${body}`)),
        `cut.md holds no whole body:\n${text.slice(-300)}`,
      ).toBe(true);
    }
    // At least one quit came in the middle of a save (else this proved nothing about a cut).
    expect(cutMidSave).toBeGreaterThan(0);

    const next = await AppContext.create({ homeFlag: fixture.home, dataDir, env: {} });
    const api = createAppDispatcher(next);
    const read = await api.call('memories.read', { dir: '-work-noindex', file: 'cut.md' });
    expect(read).toMatchObject({ ok: true, result: { problems: [] } });
    const saved = await api.call('memories.update', {
      dir: '-work-noindex',
      file: 'cut.md',
      memoryDir,
      baseText: (read as { result: { text: string } }).result.text,
      fields: { name: 'cut', description: 'saved while quitting', type: 'feedback' },
      body: 'after the cut\n',
    });
    expect(saved).toMatchObject({ ok: true });
    await next.close();
    expect((await fs.readdir(memoryDir)).filter((name) => name.startsWith('.memdir-tmp-'))).toEqual([]);
    await fsckHistory(dataDir, true);
  }, 120_000);
});
