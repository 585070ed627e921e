import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DreamRecord, DreamStatusView } from '../../shared/contract/dream.js';
import type { AppEvent, Job } from '../../shared/contract/events.js';
import { createAppDispatcher } from '../api/index.js';
import type { Dispatcher } from '../api/dispatch.js';
import { AppContext } from '../app/app-context.js';
import { EventBus } from '../core/event-bus.js';
import { JobRunner } from '../jobs/job-runner.js';
import { CONSOLIDATION_LOCK_FILE } from './consolidation-lock.js';
import { listDreamRecords } from './records/dream-records.js';
import { DreamService } from './dream-service.js';
import { sanitizeDirName } from '../../shared/sanitize.js';
import { killAndWait, startIdleProcess } from './test-support/child.js';
import { type DreamFixture, createDreamFixture, topic } from './test-support/dream-fixture.js';

let fx: DreamFixture;
const children: ChildProcess[] = [];
const DUP = topic(
  { name: 'Real database in tests', description: 'Do not mock the database in integration tests', type: 'feedback' },
  'Mocks hid a migration bug.',
);

beforeEach(async () => {
  fx = await createDreamFixture('memdir-dream-service-');
  await fx.write('feedback_db.md', DUP);
  await fx.write('feedback_db_copy.md', DUP);
  await fx.write(
    'project_a.md',
    topic({ name: 'A', description: 'Ship the importer next Friday', type: 'project' }, 'Ship it next Friday.'),
    '2026-03-06T12:00:00Z',
  );
  await fx.write('user_role.md', topic({ name: 'Role', description: 'Backend engineer', type: 'user' }, 'Go.'));
  await fx.write('reference_b.md', topic({ name: 'B', description: 'Dashboard', type: 'reference' }, 'https://grafana.example/b'));
  await fx.write('MEMORY.md', '- [Real database in tests](feedback_db.md) — Do not mock the database\n');
  // Offline: no key, no Claude Code CLI, whatever the machine has.
  await fs.mkdir(fx.dataDir, { recursive: true });
  await fs.writeFile(path.join(fx.dataDir, 'settings.json'), JSON.stringify({ model: { provider: 'offline' } }));
});
afterEach(async () => {
  await Promise.all(children.splice(0).map((c) => killAndWait(c)));
  await fx.cleanup();
});

/** A session id as Claude Code writes them (only UUID-named transcripts are sessions, R-DREAM-GATE). */
const sessionUuid = (i: number): string => `0b6f1c1e-8a0e-4d2b-9b7e-${String(i).padStart(12, '0')}`;

async function sessions(n: number, from = 0): Promise<void> {
  for (let i = from; i < from + n; i++) await fx.transcript(sessionUuid(i), [{ at: '2026-11-30T10:00:00Z', text: `session ${i}` }]);
}

function ok<T>(r: Awaited<ReturnType<Dispatcher['call']>>): T {
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
  return r.result as T;
}

describe('dreams in the app (through the API)', () => {
  let ctx: AppContext;
  let api: Dispatcher;
  beforeEach(async () => {
    ctx = await AppContext.create({ homeFlag: fx.home, dataDir: fx.dataDir, env: {} });
    api = createAppDispatcher(ctx);
  });
  afterEach(async () => {
    await ctx.close();
  });

  it('status → Dream now as a job with phase progress → history with diffs → revert', async () => {
    const status = ok<DreamStatusView>(await api.call('dream.status', { dir: fx.dir }));
    expect(status.gates.gates.map((g) => [g.name, g.checked, g.passed, g.value])).toEqual([
      ['time', true, true, null],
      ['sessions', true, false, 0],
      ['lock', false, false, null],
    ]);
    expect(status.gates.eligible).toBe(false);
    expect(status).toMatchObject({
      thresholds: { minHours: 24, minSessions: 5, maxDeleteShare: 0.25 },
      method: { kind: 'rules' },
      scheduled: false,
      lastDream: null,
      running: null,
    });

    const events: AppEvent[] = [];
    const sub = api.subscribe('events.stream', {}, (e) => events.push(e));
    const started = ok<{ started: boolean; jobId: string }>(await api.call('dream.now', { dir: fx.dir }));
    expect(started.started).toBe(true);
    await ctx.jobs.settle(started.jobId);
    if (sub.ok) sub.unsubscribe();
    const jobs = events.filter((e): e is Extract<AppEvent, { type: 'job' }> => e.type === 'job').map((e) => e.job);
    expect([...new Set(jobs.map((j) => j.phase).filter(Boolean))]).toEqual(['orient', 'gather', 'consolidate', 'prune', 'apply']);
    expect(jobs.at(-1)).toMatchObject({ state: 'done', progress: 1, message: 'Done: 4 files changed.' });
    expect(jobs.some((j) => /files · 0 tokens/.test(j.message ?? ''))).toBe(true);
    expect(events).toContainEqual({ type: 'projects-changed', dirs: [fx.dir], external: false });

    const { dreams } = ok<{ dreams: DreamRecord[] }>(await api.call('dream.list', { dir: fx.dir }));
    expect(dreams).toHaveLength(1);
    const dream = dreams[0]!;
    expect(dream).toMatchObject({ trigger: 'manual', status: 'completed', method: 'rules', dir: fx.dir });
    const { diff } = ok<{ diff: string }>(await api.call('dream.diff', { id: dream.id }));
    expect(diff).toContain('deleted file mode');
    expect(diff).toContain('+Ship it 2026-03-13.');
    const one = ok<{ diff: string }>(await api.call('dream.diff', { id: dream.id, file: 'project_a.md' }));
    expect(one.diff).toContain('project_a.md');
    expect(one.diff).not.toContain('feedback_db_copy.md');

    const after = ok<DreamStatusView>(await api.call('dream.status', { dir: fx.dir }));
    expect(after.lastDream?.id).toBe(dream.id);
    expect(after.gates.gates[0]).toMatchObject({ name: 'time', passed: false });
    expect(after.gates.nextEligibleAt).toBeDefined();

    const reverted = ok<{ revert: { restored: string[]; warnings: unknown[] } }>(await api.call('dream.revert', { id: dream.id }));
    expect(reverted.revert.restored.sort()).toEqual(['MEMORY.md', 'feedback_db.md', 'feedback_db_copy.md', 'project_a.md']);
    expect(await fx.read('feedback_db_copy.md')).toBe(DUP);
    expect(await api.call('dream.revert', { id: dream.id })).toMatchObject({ ok: false, error: { code: 'conflict' } });
    expect(await api.call('dream.diff', { id: '20260101-000000-dead' })).toMatchObject({ ok: false, error: { code: 'not-found' } });
    expect(await api.call('dream.status', { dir: '-no-such-project' })).toMatchObject({ ok: false, error: { code: 'not-found' } });

    const overview = ok<{ projects: { dir: string; lastDreamStatus: string; waitingFor: string }[] }>(await api.call('dream.overview', {}));
    expect(overview.projects).toEqual([expect.objectContaining({ dir: fx.dir, lastDreamStatus: 'completed', waitingFor: 'autoDream off' })]);
  });

  it('Dream now with a memory it could not read: the job and the record name it (what the Dream view shows), never "nothing to change"', async () => {
    for (const f of ['feedback_db_copy.md', 'project_a.md', 'MEMORY.md']) await fs.rm(path.join(fx.memoryDir, f));
    await fs.mkdir(path.join(fx.memoryDir, 'MEMORY.md'));
    const events: AppEvent[] = [];
    const sub = api.subscribe('events.stream', {}, (e) => events.push(e));
    const started = ok<{ started: boolean; jobId: string }>(await api.call('dream.now', { dir: fx.dir }));
    await ctx.jobs.settle(started.jobId);
    if (sub.ok) sub.unsubscribe();
    const jobs = events.filter((e): e is Extract<AppEvent, { type: 'job' }> => e.type === 'job').map((e) => e.job);
    expect(jobs.at(-1)).toMatchObject({ message: 'Nothing changed: Memdir could not read MEMORY.md and left it as it is.' });
    const dream = ok<{ dreams: DreamRecord[] }>(await api.call('dream.list', { dir: fx.dir })).dreams[0]!;
    expect(dream.status).toBe('no-changes');
    expect(dream.flags).toContainEqual({
      kind: 'unreadable',
      files: ['MEMORY.md'],
      message: 'MEMORY.md could not be read (it is a folder, not a file): the dream left it as it is and did not consolidate it.',
    });
    expect(dream.report).not.toContain('nothing to change');
    expect((await fs.stat(path.join(fx.memoryDir, 'MEMORY.md'))).isDirectory()).toBe(true);
  });

  it('Dream now never skips the lock: a live holder gets a reason, not a job', async () => {
    const holder = await startIdleProcess();
    children.push(holder);
    await fs.writeFile(path.join(fx.memoryDir, CONSOLIDATION_LOCK_FILE), String(holder.pid));
    const r = ok<{ started: boolean; reason: string }>(await api.call('dream.now', { dir: fx.dir }));
    expect(r).toMatchObject({ started: false, reason: expect.stringMatching(new RegExp(`Held by PID ${holder.pid}`)) });
    expect(ctx.jobs.list()).toEqual([]);
  });

  it('a dream held back for removing too much is applied when the user confirms it', async () => {
    await fx.write('feedback_db_copy2.md', DUP);
    await fx.write('feedback_db_copy3.md', DUP);
    const started = ok<{ jobId: string }>(await api.call('dream.now', { dir: fx.dir }));
    await ctx.jobs.settle(started.jobId);
    expect(ctx.jobs.get(started.jobId)).toMatchObject({ state: 'done', message: expect.stringMatching(/^Held back: it would remove 3 of 7 memories/) });
    const [held] = ok<{ dreams: DreamRecord[] }>(await api.call('dream.list', { dir: fx.dir })).dreams;
    expect(held!.status).toBe('needs-confirmation');
    expect(await fx.read('feedback_db_copy3.md')).toBe(DUP);
    const confirmed = ok<{ started: boolean; jobId: string }>(await api.call('dream.confirm', { id: held!.id }));
    await ctx.jobs.settle(confirmed.jobId);
    expect(await fx.read('feedback_db_copy3.md')).toBeNull();
    const [done] = ok<{ dreams: DreamRecord[] }>(await api.call('dream.list', { dir: fx.dir })).dreams;
    expect(done).toMatchObject({ id: held!.id, status: 'completed' });
  });
});

describe('the dream scheduler', () => {
  let service: DreamService;
  let jobs: JobRunner;
  const changed: string[] = [];
  beforeEach(() => {
    jobs = new JobRunner(new EventBus());
    service = new DreamService({ home: fx.home, dataDir: fx.dataDir, env: {}, jobs, changed: (dir) => changed.push(dir) });
  });
  afterEach(async () => {
    await service.close();
    await jobs.close();
  });

  const dreamJobs = (): Job[] => jobs.list().filter((j) => j.kind === 'dream');

  const turnOnScheduledDreams = () => fs.writeFile(path.join(fx.home, 'settings.json'), JSON.stringify({ autoDreamEnabled: true }));

  it('dreams a project whose gates are open at start, in the background, once', async () => {
    await turnOnScheduledDreams();
    await sessions(5);
    service.startScheduler();
    await expect.poll(() => dreamJobs().map((j) => j.state), { timeout: 20_000 }).toEqual(['done']);
    const [record] = await listDreamRecords(fx.dataDir);
    expect(record).toMatchObject({ trigger: 'scheduled', status: 'completed' });
    expect(changed).toContain(fx.dir);
    // Ticks after it: the time gate is closed now (one stat), nothing else happens.
    service.noteSessionEnded(fx.projectDir);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(dreamJobs()).toHaveLength(1);
  });

  it('checks again when a session ends, not waiting for the 10-minute session recount', async () => {
    await turnOnScheduledDreams();
    await sessions(4);
    service.startScheduler();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(dreamJobs()).toEqual([]);
    await sessions(1, 4);
    service.noteSessionEnded(fx.dir);
    await expect.poll(() => dreamJobs().map((j) => j.state), { timeout: 20_000 }).toEqual(['done']);
  });

  it('counts the sessions of a subdirectory for the repository they read, and checks it when one of them ends (the SessionEnd hook)', async () => {
    const repo = path.join(fx.root, 'app');
    const sub = path.join(repo, 'web');
    await fs.mkdir(path.join(repo, '.git'), { recursive: true });
    await fs.mkdir(sub, { recursive: true });
    const memoryDir = path.join(fx.home, 'projects', sanitizeDirName(repo), 'memory');
    await fs.mkdir(memoryDir, { recursive: true });
    await fs.writeFile(path.join(memoryDir, 'feedback_db.md'), DUP);
    await fs.writeFile(path.join(memoryDir, 'feedback_db_copy.md'), DUP);
    const subFolder = path.join(fx.home, 'projects', sanitizeDirName(sub));
    await fs.mkdir(subFolder, { recursive: true });
    const subSession = async (i: number) =>
      fs.writeFile(
        path.join(subFolder, `${sessionUuid(100 + i)}.jsonl`),
        `${JSON.stringify({ type: 'user', sessionId: sessionUuid(100 + i), cwd: sub, message: { role: 'user', content: 'hi' } })}\n`,
      );
    for (let i = 0; i < 4; i++) await subSession(i);
    await turnOnScheduledDreams();
    service.startScheduler();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(dreamJobs().filter((j) => j.dir === sanitizeDirName(repo))).toEqual([]);
    expect((await service.status(sanitizeDirName(repo))).gates.gates.find((g) => g.name === 'sessions')?.value).toBe(4);
    await subSession(4);
    service.noteSessionEnded(subFolder);
    await expect
      .poll(
        () =>
          dreamJobs()
            .filter((j) => j.dir === sanitizeDirName(repo))
            .map((j) => j.state),
        { timeout: 20_000 },
      )
      .toEqual(['done']);
    // Never a project of its own.
    expect((await service.projects()).map((p) => p.dir)).not.toContain(sanitizeDirName(sub));
  });

  it('never dreams on a schedule unless autoDreamEnabled is turned on (R-DREAM-GATE: default off), and says so', async () => {
    await sessions(6);
    service.startScheduler();
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(dreamJobs()).toEqual([]);
    const status = await service.status(fx.dir);
    expect(status.gates.disabled).toMatchObject({ reason: 'auto-dream-off', detail: expect.stringContaining('Auto-dream is not set') });
    expect(status.claudeCode).toMatchObject({ wouldDream: false, rule: '2.1.332', flag: null });
  });

  it('respects autoDreamEnabled: false (and never dreams without being started)', async () => {
    await sessions(6);
    await fs.writeFile(path.join(fx.home, 'settings.json'), JSON.stringify({ autoDreamEnabled: false }));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(dreamJobs()).toEqual([]);
    service.startScheduler();
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(dreamJobs()).toEqual([]);
    const status = await service.status(fx.dir);
    expect(status.gates.disabled?.reason).toBe('auto-dream-off');
    // Dream now still works.
    const r = await service.start(fx.dir, { trigger: 'manual', force: true });
    expect(r.started).toBe(true);
  });
});
