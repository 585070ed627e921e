import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gatherSignals } from './gather.js';
import { type DreamFixture, createDreamFixture } from '../test-support/dream-fixture.js';

let fx: DreamFixture;
beforeEach(async () => {
  fx = await createDreamFixture('memdir-dream-gather-');
});
afterEach(async () => {
  await fx.cleanup();
});

describe('Gather', () => {
  it('finds corrections, decisions, preferences, references and dates in English and Chinese, since the last dream only', async () => {
    await fx.transcript('old', [{ at: '2026-01-01T10:00:00Z', text: 'We decided to use Redis.' }], '2026-01-01T10:00:00Z');
    await fx.transcript(
      'new',
      [
        { at: '2026-03-06T10:00:00Z', text: "No, that's wrong: we don't use an ORM here, write SQL." },
        { at: '2026-03-06T10:01:00Z', text: '以后发布前一天都要冻结代码，记住这个。' },
        { at: '2026-03-06T10:02:00Z', text: 'The runbook is at https://wiki.example/runbook' },
        { at: '2026-03-06T10:03:00Z', text: 'Sounds good, thanks.' },
        { at: '2026-03-06T10:04:00Z', text: 'We decided to ship on 2026-03-13.', role: 'assistant' },
      ],
      '2026-03-06T10:05:00Z',
    );
    const r = await gatherSignals(fx.projectDir, { sinceMs: Date.parse('2026-02-01T00:00:00Z') });
    expect(r.transcripts.map((t) => t.sessionId)).toEqual(['new']);
    expect(r.signals.map((s) => [s.time, s.role, s.categories])).toEqual([
      ['2026-03-06T10:04:00Z', 'assistant', ['decision', 'date']],
      ['2026-03-06T10:02:00Z', 'user', ['reference']],
      ['2026-03-06T10:01:00Z', 'user', ['preference']],
      ['2026-03-06T10:00:00Z', 'user', ['correction']],
    ]);
    expect(r.signals[2]!.text).toBe('以后发布前一天都要冻结代码，记住这个。');
  });

  it('skips a transcript that vanishes mid-scan, and reads the rest', async () => {
    await fx.transcript('a', [{ at: '2026-03-06T10:00:00Z', text: 'Remember that the staging DB is read-only.' }], '2026-03-06T10:00:00Z');
    await fx.transcript('b', [{ at: '2026-03-06T11:00:00Z', text: 'Remember to tag releases.' }], '2026-03-06T11:00:00Z');
    const r = await gatherSignals(fx.projectDir, {
      sinceMs: null,
      // Listed newest first: b is searched, then a is deleted before its turn.
      onTranscript: (done) => {
        if (done === 1) rmSync(path.join(fx.projectDir, 'a.jsonl'));
      },
    });
    expect(r.signals.map((s) => s.sessionId)).toEqual(['b']);
    expect(r.problems).toEqual([]);
  });
});
