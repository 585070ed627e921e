import { execFile } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DREAM_PHASES } from '../../shared/contract/dream.js';
import { indexEntries, parseIndex } from '../../shared/index-format.js';
import { listHistory, recordSnapshot } from '../history/history.js';
import { memoryDirKey } from '../core/memory-lock.js';
import { defaultAppSettings } from '../settings/app-settings.js';
import { confirmDream } from './apply/confirm-dream.js';
import { CONSOLIDATION_LOCK_FILE, inspectDreamLock } from './consolidation-lock.js';
import { readDreamRecord } from './records/dream-records.js';
import { revertDream } from './apply/revert-dream.js';
import { type DreamRunOptions, runDream } from './run-dream.js';
import { killAndWait, startIdleProcess } from './test-support/child.js';
import { type DreamFixture, createDreamFixture, topic } from './test-support/dream-fixture.js';
import { sharedMemoryFixtures } from '../memdir/test-support/shared-fixtures.js';

const run = promisify(execFile);
const HOUR = 3_600_000;
let fx: DreamFixture;
let prior: number;
const children: ChildProcess[] = [];

const DUP = topic(
  { name: 'Real database in tests', description: 'Do not mock the database in integration tests', type: 'feedback' },
  'Mocks hid a migration bug.',
);

async function craft(): Promise<void> {
  await fx.write('feedback_db.md', DUP);
  await fx.write('feedback_db_copy.md', DUP);
  await fx.write(
    'project_freeze.md',
    topic({ name: 'Freeze', description: 'Release freeze starts next Friday', type: 'project' }, 'The freeze starts next Friday.'),
    '2026-03-06T12:00:00Z',
  );
  await fx.write('user_role.md', topic({ name: 'Role', description: 'Backend engineer', type: 'user' }, 'Go and Postgres.'));
  await fx.write(
    'reference_dash.md',
    topic({ name: 'Dashboard', description: 'Checkout latency board', type: 'reference' }, 'https://grafana.example/d/checkout'),
  );
  await fx.write(
    'MEMORY.md',
    [
      '- [Real database in tests](feedback_db.md) — Do not mock the database in integration tests',
      '- [Copy](feedback_db_copy.md) — Do not mock the database in integration tests',
      '- [Freeze](project_freeze.md) — Release freeze starts next Friday',
      '- [Gone](project_gone.md) — deleted long ago',
      '- [Role](user_role.md) — Backend engineer',
      '',
    ].join('\n'),
  );
}

beforeEach(async () => {
  fx = await createDreamFixture('memdir-dream-run-');
  await craft();
  // The last consolidation, two days ago, in whole seconds so it round-trips exactly.
  prior = Math.floor((Date.now() - 48 * HOUR) / 1000) * 1000;
  const lock = path.join(fx.memoryDir, CONSOLIDATION_LOCK_FILE);
  await fs.writeFile(lock, '');
  await fs.utimes(lock, prior / 1000, prior / 1000);
});
afterEach(async () => {
  await Promise.all(children.splice(0).map((c) => killAndWait(c)));
  await fx.cleanup();
});

function options(extra: Partial<DreamRunOptions> = {}): DreamRunOptions {
  return {
    memoryDir: fx.memoryDir,
    projectDir: fx.projectDir,
    dir: fx.dir,
    dataDir: fx.dataDir,
    trigger: 'manual',
    settings: defaultAppSettings().dream,
    provider: null,
    force: true,
    ...extra,
  };
}

const lockMtime = async () => (await fs.stat(path.join(fx.memoryDir, CONSOLIDATION_LOCK_FILE)).catch(() => null))?.mtimeMs ?? null;

async function commitBody(): Promise<string> {
  const gitDir = path.join(fx.dataDir, 'history', await memoryDirKey(fx.memoryDir), 'repo.git');
  return (await run('git', ['--git-dir', gitDir, 'log', '-1', '--format=%B'])).stdout;
}

describe('a dream', () => {
  it('applies all its changes as one history entry "dream <id>" with its report, and ends the lock at its start', async () => {
    const before = Date.now();
    const { record } = await runDream(options());
    expect(record?.status).toBe('completed');
    const r = record!;
    expect(r.method).toBe('rules');
    expect(r.changes.filter((c) => c.status === 'applied').map((c) => `${c.action} ${c.file}`)).toEqual([
      'update MEMORY.md',
      'update feedback_db.md',
      'delete feedback_db_copy.md',
      'update project_freeze.md',
    ]);
    const files = await fx.files();
    expect(Object.keys(files)).toEqual(['MEMORY.md', 'feedback_db.md', 'project_freeze.md', 'reference_dash.md', 'user_role.md']);
    expect(files['project_freeze.md']).toContain('The freeze starts 2026-03-13.');
    // Prune: no dangling pointer, the orphan in, the merged pointer gone, user first, the freeze
    // (its date has passed: stale) last.
    expect(indexEntries(parseIndex(files['MEMORY.md']!)).map((e) => e.file)).toEqual([
      'user_role.md',
      'feedback_db.md',
      'reference_dash.md',
      'project_freeze.md',
    ]);
    const history = await listHistory(fx.memoryDir, { dataDir: fx.dataDir });
    expect(history[0]).toMatchObject({ source: 'dream', summary: `dream ${r.id}`, rev: r.rev });
    expect(history[0]!.files.map((f) => f.path).sort()).toEqual(['MEMORY.md', 'feedback_db.md', 'feedback_db_copy.md', 'project_freeze.md']);
    expect(history.filter((e) => e.source === 'dream')).toHaveLength(1);
    expect(await commitBody()).toContain(`Dream ${r.id} (manual, offline rules) — 4 files changed.`);
    expect(r.report).toContain('[stale] project_freeze.md');
    // Released: lastConsolidatedAt is when the dream took the lock; no holder.
    const lock = await inspectDreamLock(fx.memoryDir, { dataDir: fx.dataDir });
    expect(lock.state).toBe('free');
    expect(lock.mtimeMs!).toBeGreaterThanOrEqual(before - 1000);
    expect(lock.mtimeMs!).toBeLessThanOrEqual(Date.parse(r.startedAt) + 1000);
    expect(await readDreamRecord(fx.dataDir, r.id)).toEqual(r);
    // A second dream finds nothing to do.
    const again = await runDream(options());
    expect(again.record?.status).toBe('no-changes');
  });

  it('dry run: reports the plan, writes nothing, takes no lock, keeps no record', async () => {
    const files = await fx.files();
    const { record } = await runDream(options({ dryRun: true }));
    expect(record?.status).toBe('dry-run');
    expect(record!.changes.every((c) => c.status === 'planned')).toBe(true);
    expect(record!.changes.length).toBe(4);
    // Plain words, as the app's job says them (review s44 #6).
    expect(record!.report).toMatch(/— dry run: 4 files would change\./);
    expect(await fx.files()).toEqual(files);
    expect(await lockMtime()).toBe(prior);
    expect(await readDreamRecord(fx.dataDir, record!.id)).toBeNull();
    expect(await listHistory(fx.memoryDir, { dataDir: fx.dataDir })).toEqual([]);
  });

  // N3rdage's index links 12 retros in a `retros/` subfolder: real files the dry run called
  // "dangling" and said it would drop, while the dream itself (apply) kept them.
  it.skipIf(sharedMemoryFixtures() === null)('dry run says what the dream does with pointers into a subfolder: kept, not dropped as dangling', async () => {
    await fs.rm(fx.memoryDir, { recursive: true, force: true });
    await fs.cp(path.join(sharedMemoryFixtures()!, 'N3rdage__the-library', 'memory'), fx.memoryDir, { recursive: true });
    const retros = (await fs.readFile(path.join(fx.memoryDir, 'MEMORY.md'), 'utf8')).match(/\(retros\/[^)]+\)/g)!;
    expect(retros).toHaveLength(12);
    const indexReason = (r: Awaited<ReturnType<typeof runDream>>) => r.record!.changes.find((c) => c.file === 'MEMORY.md')?.reason ?? '';
    const preview = indexReason(await runDream(options({ dryRun: true })));
    expect(preview).not.toContain('dangling');
    expect(preview).not.toContain('retros/');
    const done = indexReason(await runDream(options()));
    expect(preview).toBe(done);
    const after = await fs.readFile(path.join(fx.memoryDir, 'MEMORY.md'), 'utf8');
    for (const link of retros) expect(after).toContain(link);
  });

  it('a pointer that climbs out of the memory folder (retros/../../x.md) is judged without looking outside it, in the dry run and in apply', async () => {
    const index = await fx.read('MEMORY.md');
    await fx.write('MEMORY.md', `${index}- [Outside](retros/../../outside.md) — a file beside the memory folder\n`);
    const indexReason = (r: Awaited<ReturnType<typeof runDream>>) => r.record!.changes.find((c) => c.file === 'MEMORY.md')?.reason ?? '';
    // Whether a file is there outside the memory folder must not change what the dream does with the line.
    const without = indexReason(await runDream(options({ dryRun: true })));
    await fs.writeFile(path.join(fx.projectDir, 'outside.md'), 'not a memory\n');
    const withFile = indexReason(await runDream(options({ dryRun: true })));
    expect(without).toBe(withFile);
    expect(without).not.toContain('outside.md');
    const done = indexReason(await runDream(options()));
    expect(done).toBe(withFile);
    expect(await fx.read('MEMORY.md')).toContain('(retros/../../outside.md)');
  });

  it('is refused by a held lock (a Claude Code dream in progress), whatever Dream now says', async () => {
    const holder = await startIdleProcess();
    children.push(holder);
    await fs.writeFile(path.join(fx.memoryDir, CONSOLIDATION_LOCK_FILE), String(holder.pid));
    const files = await fx.files();
    const result = await runDream(options());
    expect(result.record).toBeNull();
    expect(result.reason).toMatch(new RegExp(`Held by PID ${holder.pid}`));
    expect(await fx.files()).toEqual(files);
  });

  it('holds back a dream that removes more than the allowed share, until the user confirms it', async () => {
    await fx.write('feedback_db_copy2.md', DUP);
    await fx.write('feedback_db_copy3.md', DUP);
    const files = await fx.files();
    const { record } = await runDream(options());
    expect(record?.status).toBe('needs-confirmation');
    // 3 of 7 memories would go; 25% allows 1.
    expect(record!.deletions).toEqual({ count: 3, total: 7, limit: 1 });
    expect(record!.report).toMatch(/held back: it removes 3 of 7 memories/);
    expect(await fx.files()).toEqual(files);
    expect(await lockMtime()).toBe(prior);
    expect(await listHistory(fx.memoryDir, { dataDir: fx.dataDir })).toEqual([]);

    const confirmed = await confirmDream(record!.id, { dataDir: fx.dataDir });
    expect(confirmed.status).toBe('completed');
    expect(Object.keys(await fx.files())).toEqual(['MEMORY.md', 'feedback_db.md', 'project_freeze.md', 'reference_dash.md', 'user_role.md']);
    expect((await listHistory(fx.memoryDir, { dataDir: fx.dataDir }))[0]).toMatchObject({ source: 'dream', summary: `dream ${record!.id}` });
    await expect(confirmDream(record!.id, { dataDir: fx.dataDir })).rejects.toThrow(/not waiting for confirmation/);
  });

  it('allows those removals at once when the user said so (allowDeletes)', async () => {
    await fx.write('feedback_db_copy2.md', DUP);
    await fx.write('feedback_db_copy3.md', DUP);
    const { record } = await runDream(options({ allowDeletes: true }));
    expect(record?.status).toBe('completed');
    expect(record!.deletions.count).toBe(3);
  });

  for (const phase of DREAM_PHASES) {
    it(`cancelled at ${phase}: the memory dir is unchanged and the lock rolled back`, async () => {
      const files = await fx.files();
      const controller = new AbortController();
      const { record } = await runDream(
        options({ signal: controller.signal, hooks: { atPhase: async (p) => (p === phase ? controller.abort() : undefined) } }),
      );
      expect(record?.status).toBe('cancelled');
      expect(record!.report).toMatch(/cancelled; nothing was changed/);
      expect(await fx.files()).toEqual(files);
      expect(await lockMtime()).toBe(prior);
      expect((await inspectDreamLock(fx.memoryDir, { dataDir: fx.dataDir })).state).toBe('free');
      expect((await listHistory(fx.memoryDir, { dataDir: fx.dataDir })).filter((e) => e.source === 'dream')).toEqual([]);
    });
  }

  it('Ctrl-C (SIGINT) once apply has begun: apply finishes whole, and the record, history and lock say it was applied', async () => {
    // The CLI's `memdir dream` listens for SIGINT itself (it reports the cancel), so the signal does not end the process here either.
    const cli = () => undefined;
    process.on('SIGINT', cli);
    try {
      const { record } = await runDream(options({ hooks: { afterFirstWrite: async () => void process.emit('SIGINT', 'SIGINT') } }));
      const files = await fx.files();
      // Whole: every change of the plan is on disk (none half-applied), as one history entry.
      expect(Object.keys(files)).toEqual(['MEMORY.md', 'feedback_db.md', 'project_freeze.md', 'reference_dash.md', 'user_role.md']);
      expect(files['project_freeze.md']).toContain('2026-03-13');
      const dreams = (await listHistory(fx.memoryDir, { dataDir: fx.dataDir })).filter((e) => e.source === 'dream');
      expect(dreams).toHaveLength(1);
      // And said so: the record is the applied dream (revertible by its rev), not "cancelled; nothing was changed".
      expect(record?.status).toBe('completed');
      expect(record!.rev).toBe(dreams[0]!.rev);
      expect(record!.report).not.toMatch(/nothing was changed/);
      // The lock ends as a completed dream's does: at the dream's start, not rolled back to before it.
      expect(await lockMtime()).not.toBe(prior);
    } finally {
      process.off('SIGINT', cli);
    }
  });

  it('leaves a file edited by someone else mid-dream alone (with the rest of its merge), and says so', async () => {
    const edited = `${DUP}\nAdded by hand while the dream ran.\n`;
    await recordSnapshot(fx.memoryDir, { source: 'external', summary: 'before', dataDir: fx.dataDir });
    const { record } = await runDream(
      options({
        hooks: {
          atPhase: async (p) => {
            if (p === 'apply') await fx.write('feedback_db_copy.md', edited);
          },
        },
      }),
    );
    expect(record?.status).toBe('completed');
    const skipped = record!.changes.filter((c) => c.status === 'skipped');
    expect(skipped.map((c) => c.file).sort()).toEqual(['feedback_db.md', 'feedback_db_copy.md']);
    expect(skipped.find((c) => c.file === 'feedback_db_copy.md')!.skippedReason).toMatch(/edited by someone else while the dream ran; left alone/);
    expect(skipped.find((c) => c.file === 'feedback_db.md')!.skippedReason).toMatch(/and so was the rest of its merge/);
    expect(record!.report).toMatch(/Left alone:/);
    const files = await fx.files();
    expect(files['feedback_db_copy.md']).toBe(edited);
    expect(files['feedback_db.md']).toBe(DUP);
    expect(files['project_freeze.md']).toContain('2026-03-13');
    // The index was recomputed from the disk: the copy, still there, keeps its pointer.
    expect(indexEntries(parseIndex(files['MEMORY.md']!)).map((e) => e.file)).toContain('feedback_db_copy.md');
    const history = await listHistory(fx.memoryDir, { dataDir: fx.dataDir });
    expect(history[0]!.source).toBe('dream');
    expect(history[1]).toMatchObject({ source: 'external', files: [{ path: 'feedback_db_copy.md', status: 'modified' }] });
  });

  it('reverts through the one undo: a file changed since stops it, nothing written; overwriting puts every file back', async () => {
    const before = await fx.files();
    const { record } = await runDream(options());
    const dreamt = await fx.files();
    await fx.write('project_freeze.md', 'rewritten by hand after the dream\n');
    const first = await revertDream(record!.id, { dataDir: fx.dataDir });
    expect(first.revert).toMatchObject({ rev: null, restored: [] });
    expect(first.revert.warnings).toEqual([{ file: 'project_freeze.md', message: expect.stringMatching(/changed since the dream .*so nothing was reverted/) }]);
    expect(await fx.files()).toEqual({ ...dreamt, 'project_freeze.md': 'rewritten by hand after the dream\n' });

    // Asked again, overwriting: every file comes back (the later content stays in history).
    const second = await revertDream(record!.id, { dataDir: fx.dataDir, overwriteChanged: true });
    expect(second.revert.restored.sort()).toEqual(['MEMORY.md', 'feedback_db.md', 'feedback_db_copy.md', 'project_freeze.md']);
    expect(second.revert.warnings).toEqual([{ file: 'project_freeze.md', message: expect.stringMatching(/overwritten with its pre-dream content/) }]);
    expect(await fx.files()).toEqual(before);
    const history = await listHistory(fx.memoryDir, { dataDir: fx.dataDir });
    expect(history[0]).toMatchObject({ source: 'restore', summary: `revert dream ${record!.id}` });
    expect((await readDreamRecord(fx.dataDir, record!.id))!.revert!.restored.sort()).toEqual([
      'MEMORY.md',
      'feedback_db.md',
      'feedback_db_copy.md',
      'project_freeze.md',
    ]);
    await expect(revertDream(record!.id, { dataDir: fx.dataDir })).rejects.toThrow(/already reverted/);
  });
});
