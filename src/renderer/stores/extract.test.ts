/** State rules of the review queue, live sessions and their routes, without React. */
import { describe, expect, it } from 'vitest';
import type { ExtractionLogEntry, Proposal } from '../../shared/contract/extract.js';
import type { SessionStatus } from '../../shared/contract/session.js';
import { describeLogEntry, logDetail } from '../views/ReviewView.js';
import { editOf, totalPending, withoutProposal } from './extract.js';
import { parseRoute, routeToHash } from './nav.js';
import { handBackSentence } from '../views/LiveSessionsView.js';
import { progressToNext, withSession } from './sessions.js';

const proposal = (id: string, project: string): Proposal => ({
  id,
  kind: 'proposal',
  status: 'pending',
  createdAt: '2026-03-05T10:00:00.000Z',
  decidedAt: null,
  project,
  memoryDir: `/h/${project}/memory`,
  sessionId: 's',
  transcriptPath: '/h/s.jsonl',
  turnUuid: 'u',
  operation: { action: 'create', file: `${id}.md`, scope: 'private', type: 'feedback', name: id, description: 'd', body: 'b', hook: null, reason: null },
  evidence: 'said',
  warnings: [],
  edited: false,
  result: null,
  rejectReason: null,
});

describe('review queue state', () => {
  it('drops a decided proposal and lowers its project count', () => {
    const state = { proposals: [proposal('a', 'p1'), proposal('b', 'p1'), proposal('c', 'p2')], pending: { p1: 2, p2: 1 } };
    const after = withoutProposal(state, { ...proposal('a', 'p1'), status: 'accepted' });
    expect(after.proposals.map((p) => p.id)).toEqual(['b', 'c']);
    expect(after.pending).toEqual({ p1: 1, p2: 1 });
    expect(withoutProposal(after, proposal('c', 'p2')).pending).toEqual({ p1: 1 });
    expect(withoutProposal(after, proposal('zzz', 'p1')).pending).toEqual({ p1: 1, p2: 1 });
    expect(totalPending({ p1: 2, p2: 3 })).toBe(5);
    expect(editOf(proposal('a', 'p1'))).toEqual({ file: 'a.md', scope: 'private', type: 'feedback', name: 'a', description: 'd', body: 'b' });
  });

  it('describes log entries in words', () => {
    const turns = (outcome: Partial<ExtractionLogEntry & { kind: 'turns' }>['outcome']): ExtractionLogEntry => ({
      kind: 'turns',
      id: 'x',
      time: 't',
      project: 'p',
      transcriptPath: '/t',
      trigger: 'hook',
      mode: 'review',
      outcome: outcome!,
    });
    const base = { sessionId: 's', firstUuid: 'a', lastUuid: 'b', message: null, model: null };
    expect(describeLogEntry(turns({ ...base, turns: 1, skipped: true, reason: 'memory-written-by-agent', method: null, operations: [] }))).toBe(
      '1 turn skipped: the agent wrote the memory itself',
    );
    expect(describeLogEntry(turns({ ...base, turns: 2, skipped: false, reason: null, method: 'model', operations: [] }))).toBe('2 turns: nothing to remember');
    const op = { operation: proposal('a', 'p').operation, reason: null, warnings: [], proposalId: null };
    expect(
      describeLogEntry(
        turns({
          ...base,
          turns: 1,
          skipped: false,
          reason: null,
          method: 'offline',
          operations: [
            { ...op, disposition: 'queued' },
            { ...op, disposition: 'refused' },
          ],
        }),
      ),
    ).toBe('1 turn: 1 queued, 1 refused (offline)');
    // The log's detail says why each operation was not written: an apply-mode update that overlapped an edit is queued, in a sentence.
    const overlap =
      'Not written: a.md was changed since the model read it, and the change overlaps its update. It waits in the review queue: compare both and choose which to keep.';
    expect(
      logDetail({
        ...base,
        message: '2 operations.',
        turns: 1,
        skipped: false,
        reason: null,
        method: 'model',
        operations: [
          { ...op, disposition: 'queued', reason: overlap },
          { ...op, disposition: 'applied' },
        ],
      }),
    ).toBe(`2 operations. a.md: ${overlap}`);
    expect(
      describeLogEntry({ kind: 'decision', id: 'd', time: 't', project: 'p', proposalId: 'x', decision: 'rejected', file: 'a.md', rev: null, reason: 'stale' }),
    ).toBe('rejected a.md (stale)');
  });
});

describe('live sessions state', () => {
  const session = (over: Partial<SessionStatus>): SessionStatus => ({
    sessionId: 's1',
    project: 'p',
    projectPath: null,
    transcriptPath: '/t',
    contextTokens: 0,
    started: true,
    tokensSinceUpdate: 0,
    toolCallsSinceUpdate: 0,
    lastResponseUsedTools: true,
    due: false,
    tokensToNext: 5000,
    toolCallsToNext: 3,
    lastActivityAt: null,
    endedAt: null,
    lastUpdateAt: null,
    updates: 0,
    method: null,
    fallbackReason: null,
    note: null,
    noteFile: null,
    handBack: null,
    claudeCodeSummary: null,
    ...over,
  });
  it('measures the distance to the next update per threshold (R-SESSION)', () => {
    expect(progressToNext(session({ tokensSinceUpdate: 2_500, toolCallsSinceUpdate: 1 }))).toEqual({ tokens: 0.5, tools: 1 / 3 });
    expect(progressToNext(session({ tokensSinceUpdate: 90_000, toolCallsSinceUpdate: 9 }))).toEqual({ tokens: 1, tools: 1 });
    // Before the first note: toward 10,000 tokens of context.
    expect(progressToNext(session({ started: false, contextTokens: 2_500, tokensSinceUpdate: 2_500 }))).toEqual({ tokens: 0.25, tools: 0 });
    // The last answer made no tool call: the tool-call threshold is met.
    expect(progressToNext(session({ lastResponseUsedTools: false, toolCallsSinceUpdate: 0 }))).toEqual({ tokens: 0, tools: 1 });
  });
  it('replaces an updated session in place', () => {
    const list = [session({ sessionId: 'a' }), session({ sessionId: 'b' })];
    expect(withSession(list, session({ sessionId: 'b', updates: 3 })).map((s) => [s.sessionId, s.updates])).toEqual([
      ['a', 0],
      ['b', 3],
    ]);
    expect(withSession(list, session({ sessionId: 'c' })).map((s) => s.sessionId)).toEqual(['c', 'a', 'b']);
  });
  it('says how much of the note Claude Code gets back, counting what is handed back, not the note alone (R-SESSION)', () => {
    // A 9,869-character note is cut: under its one-line intro the text handed back would be 10,069.
    const cut = handBackSentence({ chars: 9_991, wholeChars: 10_069, cut: true });
    expect(cut.warning).toBe(true);
    expect(cut.text).toContain('10,069 characters, more than the 10,000 Claude Code takes from a hook');
    expect(cut.text).toContain('Memdir hands back 9,991 characters');
    expect(cut.text).not.toContain('9,869');
    const whole = handBackSentence({ chars: 412, wholeChars: 412, cut: false });
    expect(whole).toEqual({
      warning: false,
      text: 'After a compaction or a resume Claude Code gets this note back whole: 412 of the 10,000 characters it takes from a hook.',
    });
  });
  it('has routes for the review queue and live sessions', () => {
    for (const route of [{ view: 'review' } as const, { view: 'review', dir: '-a-b' } as const, { view: 'sessions' } as const])
      expect(parseRoute(routeToHash(route))).toEqual(route);
  });
});
