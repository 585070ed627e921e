import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseTopicFile } from '../../memdir/topic-file.js';
import { anchorQueriesOf, consolidateWithRules } from './consolidate-rules.js';
import { DreamPlan } from './dream-plan.js';
import { gatherSignals } from './gather.js';
import { readMemorySnapshot, readableTopics } from './memory-snapshot.js';
import { type DreamFixture, createDreamFixture, topic } from '../test-support/dream-fixture.js';

let fx: DreamFixture;
beforeEach(async () => {
  fx = await createDreamFixture('memdir-dream-rules-');
});
afterEach(async () => {
  await fx.cleanup();
});

const NOW = new Date('2026-12-02T12:00:00Z');

async function consolidate() {
  const snapshot = await readMemorySnapshot(fx.memoryDir);
  const gathered = await gatherSignals(fx.projectDir, { sinceMs: null, anchors: anchorQueriesOf(readableTopics(snapshot)) });
  const plan = new DreamPlan(snapshot);
  const result = consolidateWithRules(plan, { anchors: gathered.anchors, signals: gathered.signals, now: NOW });
  return { plan, result, changes: plan.changes(), gathered };
}

const bodyOf = (text: string | null) => parseTopicFile(text ?? '', 'x.md').body.trim();

describe('offline consolidation rules', () => {
  it('merges exact and near duplicates into one, keeping both sources in the body', async () => {
    await fx.write(
      'feedback_db.md',
      topic(
        { name: 'Real database in tests', description: 'Do not mock the database in integration tests', type: 'feedback', originSessionId: 's-1' },
        'Mocks hid a migration bug last quarter.',
      ),
    );
    await fx.write(
      'feedback_db_copy.md',
      topic(
        { name: 'Real database in tests', description: 'Do not mock the database in integration tests', type: 'feedback', originSessionId: 's-2' },
        'Mocks hid a migration bug last quarter.',
      ),
    );
    await fx.write(
      'feedback_db_near.md',
      topic(
        { name: 'Real database for integration tests', description: 'Do not mock the database in the integration tests', type: 'feedback' },
        'Mocks hid a migration bug last quarter.\n\nUse the docker-compose Postgres.',
      ),
    );
    // Same words, different numbers: different facts. Different type: not a duplicate either.
    await fx.write(
      'project_source_1.md',
      topic({ name: 'Source 1', description: 'Ingestion source 1: hourly feed', type: 'project' }, 'Feed 1 arrives hourly.'),
    );
    await fx.write(
      'project_source_2.md',
      topic({ name: 'Source 2', description: 'Ingestion source 2: hourly feed', type: 'project' }, 'Feed 2 arrives hourly.'),
    );
    await fx.write('MEMORY.md', '- [Real database in tests](feedback_db.md) — Do not mock the database in integration tests\n');
    const { changes, result } = await consolidate();
    expect(changes.map((c) => `${c.action} ${c.file}`)).toEqual(['update feedback_db.md', 'delete feedback_db_copy.md', 'delete feedback_db_near.md']);
    expect(new Set(changes.map((c) => c.group))).toEqual(new Set(['merge:feedback_db.md']));
    const kept = changes.find((c) => c.file === 'feedback_db.md')!.after!;
    // The keeper (first in the index) gains what the near duplicate added, and lists every source.
    expect(bodyOf(kept)).toContain('Mocks hid a migration bug last quarter.');
    expect(bodyOf(kept)).toContain('Use the docker-compose Postgres.');
    expect(bodyOf(kept).match(/Mocks hid/g)).toHaveLength(1);
    expect(kept).toContain('`feedback_db_copy.md` — Do not mock the database in integration tests (session s-2)');
    expect(kept).toContain('`feedback_db_near.md`');
    expect(kept).toContain('`feedback_db.md` — Do not mock the database in integration tests (session s-1)');
    expect(parseTopicFile(kept, 'feedback_db.md').meta).toMatchObject({ name: 'Real database in tests', type: 'feedback', originSessionId: 's-1' });
    expect(Object.fromEntries(result.retarget)).toEqual({ 'feedback_db_copy.md': 'feedback_db.md', 'feedback_db_near.md': 'feedback_db.md' });
  });

  it('anchors relative dates at the transcript line, else the frontmatter date, else the mtime', async () => {
    // Said on Friday 2026-03-06 in session s-1; the memory was saved a day later.
    await fx.write(
      'project_freeze.md',
      topic(
        { name: 'Freeze', description: 'Release freeze starts next Friday', type: 'project', originSessionId: 's-1' },
        'The deploy broke yesterday, so the freeze starts next Friday.',
      ),
      '2026-03-07T09:00:00Z',
    );
    await fx.transcript(
      's-1',
      [
        { at: '2026-03-06T11:00:00Z', text: 'unrelated question about yesterday' },
        { at: '2026-03-06T12:00:00Z', text: 'FYI the deploy broke yesterday and the release freeze starts next Friday.' },
      ],
      '2026-03-06T12:05:00Z',
    );
    // No transcript says it: the frontmatter date (Tuesday 2026-02-10).
    await fx.write(
      'project_release.md',
      topic({ name: '发布', description: '下周五发布', type: 'project', modified: '2026-02-10T12:00:00Z' }, '昨天决定：下周五发布。'),
      '2026-03-01T12:00:00Z',
    );
    // Neither: the file's mtime (Wednesday 2026-04-01).
    await fx.write(
      'user_note.md',
      topic({ name: 'Note', description: 'Met the new lead', type: 'user' }, 'Met the new team lead yesterday.'),
      '2026-04-01T12:00:00Z',
    );
    const { plan, result } = await consolidate();
    expect(bodyOf(plan.text('project_freeze.md'))).toBe('The deploy broke 2026-03-05, so the freeze starts 2026-03-13.');
    expect(parseTopicFile(plan.text('project_freeze.md')!, 'x').meta.description).toBe('Release freeze starts 2026-03-13');
    expect(bodyOf(plan.text('project_release.md'))).toBe('2026-02-09决定：2026-02-20发布。');
    expect(parseTopicFile(plan.text('project_release.md')!, 'x').meta.description).toBe('2026-02-20发布');
    expect(bodyOf(plan.text('user_note.md'))).toBe('Met the new team lead 2026-03-31.');
    expect(result.dates.find((d) => d.file === 'project_freeze.md' && d.from === 'yesterday')?.anchor).toBe('said in session s-1 at 2026-03-06T12:00:00.000Z');
    expect(result.dates.find((d) => d.file === 'project_release.md')?.anchor).toMatch(/frontmatter date/);
    expect(result.dates.find((d) => d.file === 'user_note.md')?.anchor).toMatch(/modification time/);
    // Hooks that repeated the description follow it.
    expect(result.descriptions.get('project_freeze.md')).toEqual({ from: 'Release freeze starts next Friday', to: 'Release freeze starts 2026-03-13' });
  });

  it('flags date-bound facts that have passed, and contradictions, without changing them', async () => {
    await fx.write(
      'project_freeze.md',
      topic({ name: 'Freeze', description: 'Freeze until the 2026-03-20 release', type: 'project' }, 'No schema changes until 2026-03-20.'),
    );
    await fx.write(
      'project_cutover.md',
      topic({ name: 'Cutover', description: 'v2 cutover on 2027-04-01', type: 'project' }, 'Cutover is scheduled for 2027-04-01.'),
    );
    await fx.write(
      'feedback_history.md',
      topic({ name: 'Why no ORM', description: 'ORM removed after the 2025-06-01 outage', type: 'feedback' }, 'It was removed after the outage on 2025-06-01.'),
    );
    await fx.write(
      'feedback_mock.md',
      topic({ name: 'No mocks', description: 'Never mock the database in integration tests', type: 'feedback' }, 'Use the real Postgres.'),
    );
    await fx.write(
      'feedback_fast.md',
      topic({ name: 'Fast tests', description: 'Mock the database in integration tests to keep them fast', type: 'feedback' }, 'Speed matters.'),
    );
    const { changes, result } = await consolidate();
    expect(changes).toEqual([]);
    expect(result.flags.filter((f) => f.kind === 'stale').map((f) => f.files)).toEqual([['project_freeze.md']]);
    expect(result.stale).toEqual(new Set(['project_freeze.md']));
    const contradictions = result.flags.filter((f) => f.kind === 'contradiction');
    expect(contradictions.map((f) => f.files.sort())).toEqual([['feedback_fast.md', 'feedback_mock.md']]);
    expect(contradictions[0]!.message).toMatch(/one says not to/);
  });

  it('never merges team memories (a deletion would come back with the next pull)', async () => {
    const t = topic({ name: 'Rota', description: 'Where the on-call rota lives', type: 'reference' }, 'PagerDuty schedule checkout-primary.');
    await fx.write('team/reference_rota.md', t);
    await fx.write('team/reference_rota_copy.md', t);
    const { changes } = await consolidate();
    expect(changes).toEqual([]);
  });

  it('lists signal from the transcripts that no memory holds yet', async () => {
    await fx.write('user_role.md', topic({ name: 'Role', description: 'Backend engineer', type: 'user' }, 'Go and Postgres.'));
    await fx.transcript('s-9', [
      { at: '2026-11-30T10:00:00Z', text: 'From now on we decided to deploy with the blue-green script, not the old rolling one.' },
      { at: '2026-11-30T10:01:00Z', text: 'Nothing to see here.' },
    ]);
    const { result, gathered } = await consolidate();
    expect(gathered.signals.map((s) => s.categories)).toEqual([['decision']]);
    expect(result.flags.find((f) => f.kind === 'signal')?.message).toMatch(/blue-green script.*not in any memory yet/);
  });
});
