/**
 * Kills during dreams: a real offline dream of a crafted memory dir (duplicates to merge, dates
 * to make absolute, a dangling pointer to prune; bench/kill/dream-worker.ts)
 * SIGKILLed at a random moment of its run. Then a next start — the app's context, which recovers
 * first — and its Dream tab: the files are exactly as before the dream, or exactly the completed
 * dream's; the lock is not held by the dead process and its time is rolled back unless the dream
 * completed; the last record is never left `running`; an interrupted dream is said to have been
 * recovered; and the history passes `git fsck`.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { AppContext } from '../../src/main/app/app-context.js';
import { CONSOLIDATION_LOCK_FILE, inspectDreamLock } from '../../src/main/dream/consolidation-lock.js';
import { listDreamRecords } from '../../src/main/dream/records/dream-records.js';
import { type DreamFixture, createDreamFixture, topic } from '../../src/main/dream/test-support/dream-fixture.js';
import { readAtRevision, recordSnapshot } from '../../src/main/history/history.js';
import { fsckHistory } from '../../src/main/history/test-support/crash-check.js';
import { type KillTally, bundleWorker, emptyTally, landed, note, releaseAndKill, startWorker } from './harness.js';

const HOUR = 3_600_000;

async function dreamable(): Promise<{ fx: DreamFixture; prior: number }> {
  const fx = await createDreamFixture('memdir-kill-dream-');
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
  for (let i = 0; i < 12; i++)
    await fx.write(`reference_${i}.md`, topic({ name: `Board ${i}`, description: `Dashboard ${i}`, type: 'reference' }, `https://grafana.internal/d/${i}`));
  await fx.write('MEMORY.md', '- [Real database in tests](feedback_db.md) — Do not mock the database\n- [Gone](gone.md) — dangling\n');
  await fx.transcript('s-1', [{ at: '2026-03-06T12:00:00Z', text: 'We decided: freeze next Friday.' }]);
  await recordSnapshot(fx.memoryDir, { source: 'external', summary: 'before the dream', dataDir: fx.dataDir });
  const prior = Math.floor((Date.now() - 48 * HOUR) / 1000) * 1000;
  const lock = path.join(fx.memoryDir, CONSOLIDATION_LOCK_FILE);
  await fs.writeFile(lock, '');
  await fs.utimes(lock, prior / 1000, prior / 1000);
  return { fx, prior };
}

export async function killDreams(kills: number, random: () => number): Promise<KillTally> {
  const tally = emptyTally();
  const bundle = await bundleWorker('bench/kill/dream-worker.ts');
  let duration = 0;
  for (let i = 0; i <= kills; i++) {
    const { fx, prior } = await dreamable();
    try {
      const before = await fx.files();
      const worker = await startWorker(bundle, [fx.memoryDir, fx.projectDir, fx.dataDir]);
      // The first dream is not killed: it measures how long a whole dream takes here.
      const start = performance.now();
      const ended = await releaseAndKill(worker, i === 0 ? 60_000 : random() * duration * 1.1, { group: random() < 0.3 });
      if (i === 0) {
        duration = performance.now() - start;
        if (ended !== 'finished') note(tally, 'crashes', `the calibration dream did not finish: ${worker.stderr().slice(0, 300)}`);
      } else if (ended === 'killed') tally.kills++;
      else if (ended === 'finished') tally.finished++;
      else note(tally, 'crashes', `the dream died on its own: ${worker.stderr().slice(0, 300)}`);

      // The next start.
      let ctx: AppContext | null = null;
      try {
        ctx = await AppContext.create({ homeFlag: fx.home, dataDir: fx.dataDir, env: {} });
        const status = await ctx.dreams.status(fx.dir);
        const [record] = await listDreamRecords(fx.dataDir, { memoryDir: fx.memoryDir, limit: 1 });
        const lock = await inspectDreamLock(fx.memoryDir, { dataDir: fx.dataDir });
        const mtime = (await fs.stat(path.join(fx.memoryDir, CONSOLIDATION_LOCK_FILE))).mtimeMs;
        const files = await fx.files();
        const completed = record && (record.status === 'completed' || record.status === 'no-changes');
        if (ended === 'killed')
          landed(
            tally,
            !record ? 'before its record' : record.status === 'interrupted' && /put back/.test(record.error ?? '') ? 'while applying' : record.status,
          );
        if (record?.status === 'running') note(tally, 'untruthful', `dream ${record.id} still says running after its process was killed`);
        if (lock.state === 'held') note(tally, 'untruthful', `the lock still reads as held: ${lock.detail}`);
        if (record?.status === 'interrupted' && !status.recovered)
          note(tally, 'untruthful', 'an interrupted dream was recovered but the status does not say so');
        if (record?.status !== 'interrupted' && status.recovered) note(tally, 'untruthful', 'the status reports a recovery that did not happen');
        if (completed && record.rev && Math.abs(mtime - prior) <= 1)
          note(tally, 'untruthful', `dream ${record.id} completed but the lock's time still says it never consolidated`);
        if (completed && record.rev) {
          // Exactly the completed dream's files: each as recorded in its history entry.
          for (const [rel, text] of Object.entries(files)) {
            if ((await readAtRevision(fx.memoryDir, record.rev, rel, { dataDir: fx.dataDir }).catch(() => null)) !== text)
              note(tally, 'losses', `${rel} is not as the completed dream ${record.id} left it`);
          }
        } else if (!completed) {
          if (JSON.stringify(files) !== JSON.stringify(before)) {
            const changed = [...new Set([...Object.keys(files), ...Object.keys(before)])].filter((f) => files[f] !== before[f]);
            note(tally, 'losses', `${changed.join(', ')} changed by a dream that did not complete (${record?.status ?? 'no record'}: ${record?.error ?? ''})`);
          }
          if (Math.abs(mtime - prior) > 1)
            note(tally, 'untruthful', `the lock's time (lastConsolidatedAt) was not rolled back after ${record?.status ?? 'a dream with no record'}`);
        }
        await fsckHistory(fx.dataDir, true).catch((error: Error) => note(tally, 'history', error.message.split('\n')[0]!));
        if ((await recordSnapshot(fx.memoryDir, { source: 'fix', summary: 'Left unrecorded', dataDir: fx.dataDir })) !== null)
          note(tally, 'history', 'a change on disk was not in history after the next start');
      } catch (error) {
        note(tally, 'crashes', `the next start failed: ${(error as Error).message.split('\n')[0]}`);
      } finally {
        await ctx?.close();
      }
    } finally {
      await fx.cleanup();
    }
  }
  return tally;
}
