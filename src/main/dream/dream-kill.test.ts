import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../cli/main.js';
import { AppContext } from '../app/app-context.js';
import { listHistory, recordSnapshot } from '../history/history.js';
import { CONSOLIDATION_LOCK_FILE, inspectDreamLock } from './consolidation-lock.js';
import { listDreamRecords } from './records/dream-records.js';
import { recoverInterruptedDreams } from './apply/recover-dreams.js';
import { runDream } from './run-dream.js';
import { defaultAppSettings } from '../settings/app-settings.js';
import { killAndWait } from './test-support/child.js';
import { type DreamFixture, createDreamFixture, topic } from './test-support/dream-fixture.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const worker = path.join(here, 'test-support', 'dream-worker.ts');
const projectRoot = path.resolve(here, '../../..');
const HOUR = 3_600_000;

let fx: DreamFixture;
let prior: number;
let child: ChildProcess | null = null;

beforeEach(async () => {
  fx = await createDreamFixture('memdir-dream-kill-');
  const dup = topic(
    { name: 'Real database in tests', description: 'Do not mock the database in integration tests', type: 'feedback' },
    'Mocks hid a migration bug.',
  );
  await fx.write('feedback_db.md', dup);
  await fx.write('feedback_db_copy.md', dup);
  await fx.write(
    'project_freeze.md',
    topic({ name: 'Freeze', description: 'Freeze starts next Friday', type: 'project' }, '下周五冻结，昨天决定的。'),
    '2026-03-06T12:00:00Z',
  );
  await fx.write('MEMORY.md', '- [Real database in tests](feedback_db.md) — Do not mock the database\n- [Gone](gone.md) — dangling\n');
  await fx.transcript('s-1', [{ at: '2026-03-06T12:00:00Z', text: 'We decided: freeze next Friday.' }]);
  await recordSnapshot(fx.memoryDir, { source: 'external', summary: 'before the dream', dataDir: fx.dataDir });
  prior = Math.floor((Date.now() - 48 * HOUR) / 1000) * 1000;
  const lock = path.join(fx.memoryDir, CONSOLIDATION_LOCK_FILE);
  await fs.writeFile(lock, '');
  await fs.utimes(lock, prior / 1000, prior / 1000);
});
afterEach(async () => {
  if (child) await killAndWait(child);
  child = null;
  await fx.cleanup();
});

/** Starts the worker and resolves with its first line of output. */
function startWorker(pauseAt: string): Promise<string> {
  child = spawn(process.execPath, ['--import', 'tsx', worker, fx.memoryDir, fx.projectDir, fx.dataDir, pauseAt], {
    cwd: projectRoot,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child!.stdout!.on('data', (d: Buffer) => {
      out += d.toString('utf8');
      const nl = out.indexOf('\n');
      if (nl !== -1) resolve(out.slice(0, nl));
    });
    child!.once('exit', (code) => reject(new Error(`worker exited (${code}) before pausing: ${out}`)));
  });
}

const lockMtime = async () => (await fs.stat(path.join(fx.memoryDir, CONSOLIDATION_LOCK_FILE))).mtimeMs;

describe('kill -9 of a dreaming process', () => {
  for (const where of ['orient', 'gather', 'consolidate', 'prune', 'apply', 'apply-write']) {
    it(`at ${where}: files unchanged and the lock rolled back`, async () => {
      const before = await fx.files();
      expect(await startWorker(where)).toBe(`paused ${where}`);
      const pid = child!.pid!;
      // While it dreams, the lock names it.
      expect(await fs.readFile(path.join(fx.memoryDir, CONSOLIDATION_LOCK_FILE), 'utf8')).toBe(String(pid));
      if (where === 'apply-write') expect(await fx.files()).not.toEqual(before);
      await killAndWait(child!, 'SIGKILL');
      child = null;

      // What the app's scheduler (and the CLI) do at start and on every tick.
      const recovery = await recoverInterruptedDreams({ dataDir: fx.dataDir });
      expect(recovery.locks.map((l) => l.pid)).toEqual([pid]);
      expect(await fx.files()).toEqual(before);
      expect(await lockMtime()).toBe(prior);
      expect((await inspectDreamLock(fx.memoryDir, { dataDir: fx.dataDir })).state).toBe('free');
      const [record] = await listDreamRecords(fx.dataDir);
      expect(record).toMatchObject({ status: 'interrupted', pid });
      if (where === 'apply-write') {
        expect(recovery.applies).toHaveLength(1);
        expect(recovery.applies[0]!.restored.length).toBeGreaterThan(0);
        expect(record!.error).toMatch(/had begun to write were put back/);
        // History tells what happened: the half-applied state, then its rollback.
        const history = await listHistory(fx.memoryDir, { dataDir: fx.dataDir });
        expect(history.slice(0, 2).map((e) => e.summary)).toEqual([
          `dream ${record!.id} rolled back (interrupted)`,
          `dream ${record!.id} (interrupted while applying)`,
        ]);
      } else {
        expect(recovery.applies).toEqual([]);
        expect((await listHistory(fx.memoryDir, { dataDir: fx.dataDir })).map((e) => e.summary)).toEqual(['before the dream']);
      }
      // And the next dream runs normally.
      const next = await runDream({
        memoryDir: fx.memoryDir,
        projectDir: fx.projectDir,
        dataDir: fx.dataDir,
        trigger: 'cli',
        settings: { ...defaultAppSettings().dream, maxDeleteShare: 1 },
        provider: null,
        force: true,
      });
      expect(next.record?.status).toBe('completed');
    });
  }
});

describe('after a dream killed between apply steps, the next start and every status answer are truthful (issue 15, finding 4)', () => {
  async function killMidApply(): Promise<{ before: Record<string, string>; pid: number }> {
    const before = await fx.files();
    expect(await startWorker('apply-write')).toBe('paused apply-write');
    const pid = child!.pid!;
    expect(await fx.files()).not.toEqual(before);
    await killAndWait(child!, 'SIGKILL');
    child = null;
    return { before, pid };
  }

  it('`memdir dream status` recovers first and says "recovered from an interrupted dream at …"', async () => {
    const { before, pid } = await killMidApply();
    let out = '';
    const code = await runCli(['dream', 'status', '--project', fx.dir, '--home', fx.home, '--json'], {
      out: (t) => (out += t),
      err: () => undefined,
      env: { MEMDIR_DATA_DIR: fx.dataDir },
      cwd: fx.root,
    });
    expect(code).toBe(1);
    const status = JSON.parse(out) as { recovered: { id: string; at: string; detail: string } | null; lastConsolidatedAt: string | null };
    expect(await fx.files()).toEqual(before);
    expect(await lockMtime()).toBe(prior);
    expect(status.lastConsolidatedAt).toBe(new Date(prior).toISOString());
    const [record] = await listDreamRecords(fx.dataDir);
    expect(status.recovered).toEqual({
      id: record!.id,
      at: record!.startedAt,
      detail: expect.stringMatching(/^Recovered from an interrupted dream at .+ \(PID \d+, dream /),
    });
    expect(status.recovered!.detail).toContain(`PID ${pid}`);
    let text = '';
    await runCli(['dream', 'status', '--project', fx.dir, '--home', fx.home], {
      out: (t) => (text += t),
      err: () => undefined,
      env: { MEMDIR_DATA_DIR: fx.dataDir },
      cwd: fx.root,
    });
    expect(text).toContain(`Recovered from an interrupted dream at ${record!.startedAt}`);
  });

  it('the app recovers when it starts, and its Dream tab says so', async () => {
    const { before } = await killMidApply();
    const ctx = await AppContext.create({ homeFlag: fx.home, dataDir: fx.dataDir, env: {} });
    try {
      expect(await fx.files()).toEqual(before);
      expect(await lockMtime()).toBe(prior);
      const status = await ctx.dreams.status(fx.dir);
      expect(status.recovered?.detail).toMatch(/^Recovered from an interrupted dream at /);
    } finally {
      await ctx.close();
    }
  });

  it('"Dream now" in an app opened before the kill sweeps first, as `memdir dream` does: the killed dream is listed as interrupted, never as running', async () => {
    const ctx = await AppContext.create({ homeFlag: fx.home, dataDir: fx.dataDir, env: {} });
    try {
      const { pid } = await killMidApply();
      const started = await ctx.dreams.start(fx.dir, { trigger: 'manual', force: true });
      expect(started.started).toBe(true);
      await ctx.jobs.settle(started.jobId!);
      // Both may start within one second: their ids (to the second) do not order them, so pick by PID.
      const records = await ctx.dreams.list(fx.dir);
      expect(records).toHaveLength(2);
      expect(records.find((r) => r.pid !== pid)).toMatchObject({ trigger: 'manual', status: 'needs-confirmation' });
      expect(records.find((r) => r.pid === pid)).toMatchObject({ status: 'interrupted', error: expect.stringMatching(/had begun to write were put back/) });
    } finally {
      await ctx.close();
    }
  });
});

describe('kill -9 after a dream applied, before its record said so (found by the kill bench)', () => {
  it('the next start records it as completed, keeps its changes and its consolidation time, and reports no recovery', async () => {
    const before = await fx.files();
    expect(await startWorker('committed')).toBe('paused committed');
    const pid = child!.pid!;
    const applied = await fx.files();
    expect(applied).not.toEqual(before);
    await killAndWait(child!, 'SIGKILL');
    child = null;

    const ctx = await AppContext.create({ homeFlag: fx.home, dataDir: fx.dataDir, env: {} });
    try {
      const status = await ctx.dreams.status(fx.dir);
      const [record] = await listDreamRecords(fx.dataDir);
      // What is on disk is the dream, and the record, history and lock all say so.
      expect(await fx.files()).toEqual(applied);
      expect(record).toMatchObject({ status: 'completed', pid, rev: expect.any(String) });
      expect(record!.changes.some((c) => c.status === 'applied')).toBe(true);
      const history = await listHistory(fx.memoryDir, { dataDir: fx.dataDir });
      expect(history[0]).toMatchObject({ rev: record!.rev, summary: `dream ${record!.id}` });
      expect(await lockMtime()).toBeGreaterThan(prior);
      expect(status.recovered).toBeNull();
      expect(status.lastDream?.status).toBe('completed');
      expect((await inspectDreamLock(fx.memoryDir, { dataDir: fx.dataDir })).state).toBe('free');
    } finally {
      await ctx.close();
    }
  });
});
