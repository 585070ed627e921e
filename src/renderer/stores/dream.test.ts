/** The Dream tab's state rules, tested without React or a browser. */
import { describe, expect, it } from 'vitest';
import type { DreamOverviewRow } from '../../shared/contract/dream.js';
import type { Job } from '../../shared/contract/events.js';
import { dreamCell, dreamEnded, duration, phaseSteps, until } from './dream.js';
import { parseRoute, routeToHash } from './nav.js';

const job = (over: Partial<Job> = {}): Job => ({
  id: 'j',
  kind: 'dream',
  dir: '-w',
  title: 'Dream',
  state: 'running',
  phase: null,
  step: null,
  progress: null,
  message: null,
  startedAt: '2026-01-01T00:00:00Z',
  endedAt: null,
  ...over,
});
const row = (over: Partial<DreamOverviewRow> = {}): DreamOverviewRow => ({
  dir: '-w',
  eligible: false,
  running: false,
  disabled: null,
  lastConsolidatedAt: null,
  lastDreamAt: null,
  lastDreamStatus: null,
  nextEligibleAt: null,
  waitingFor: null,
  ...over,
});

describe('dream state', () => {
  it('draws the phase bar from the job: earlier phases done, the current one active', () => {
    expect(phaseSteps(job({ phase: 'consolidate' })).map((s) => s.state)).toEqual(['done', 'done', 'active', 'todo', 'todo']);
    expect(phaseSteps(job({ phase: 'apply', state: 'done' })).every((s) => s.state === 'done')).toBe(true);
    expect(phaseSteps(null).map((s) => s.label)).toEqual(['Orient', 'Gather', 'Consolidate', 'Prune', 'Apply']);
  });

  it('says in the dashboard cell what a project waits for', () => {
    const now = Date.parse('2026-03-01T00:00:00Z');
    expect(dreamCell(undefined).text).toBe('—');
    expect(dreamCell(row({ running: true })).text).toBe('dreaming…');
    expect(dreamCell(row({ eligible: true })).text).toBe('eligible now');
    expect(dreamCell(row({ disabled: 'autoDreamEnabled is false' })).text).toBe('scheduled dreams off');
    expect(dreamCell(row({ nextEligibleAt: '2026-03-01T05:00:00Z' }), now).text).toBe('earliest in 5 h');
    expect(dreamCell(row({ waitingFor: '2 of 5 sessions' }), now).text).toBe('waiting: 2 of 5 sessions');
    expect(dreamCell(row({ lastDreamStatus: 'needs-confirmation' })).tone).toBe('warning');
  });

  it('formats durations and countdowns, and tells when a dream job ended', () => {
    expect([duration(null), duration(850), duration(4200), duration(180_000)]).toEqual(['—', '850 ms', '4.2 s', '3 min']);
    expect(until('2026-03-01T00:10:00Z', Date.parse('2026-03-01T00:00:00Z'))).toBe('in 10 min');
    expect(until('2026-02-01T00:00:00Z', Date.parse('2026-03-01T00:00:00Z'))).toBe('now');
    expect(dreamEnded(job({ state: 'cancelled' }), '-w')).toBe(true);
    expect(dreamEnded(job({ state: 'running' }), '-w')).toBe(false);
    expect(dreamEnded(job({ state: 'done', kind: 'extract' }), '-w')).toBe(false);
  });

  it('routes to the Dream tab and back', () => {
    expect(parseRoute(routeToHash({ view: 'project', dir: '-demo-x', tab: 'dream' }))).toEqual({ view: 'project', dir: '-demo-x', tab: 'dream' });
  });
});
