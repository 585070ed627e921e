import { describe, expect, it } from 'vitest';
import type { SyncReport, TeamOverviewRow } from '../../shared/contract/team.js';
import { alertTarget, splitAlerts } from './alerts.js';
import { parseRoute, routeToHash, type Route } from './nav.js';
import { reportMessage } from './project-sync.js';
import { sideBySide, teamCell, unionMerge } from './team.js';

const row = (over: Partial<TeamOverviewRow>): TeamOverviewRow => ({
  dir: '-w',
  connected: true,
  server: 'https://s',
  team: 'platform',
  state: 'synced',
  waiting: 0,
  conflicts: 0,
  lastSyncAt: null,
  error: null,
  ...over,
});

function report(over: Partial<SyncReport> = {}): SyncReport {
  return {
    pull: { status: 304, full: false, written: [], merged: [], conflicts: [], refused: [], wentBack: null },
    push: { uploaded: [], confirmed: [], attempts: 0, stale: 0, requests: 1 },
    waiting: [],
    bytesHashed: 0,
    filesHashed: 0,
    version: 3,
    etag: '"a-3"',
    error: null,
    durationMs: 5,
    ...over,
  };
}

describe('team sync in the renderer', () => {
  it('routes the Team sync tab and the Alerts view', () => {
    const routes: Route[] = [{ view: 'alerts' }, { view: 'project', dir: '-work-app', tab: 'team' }];
    for (const route of routes) expect(parseRoute(routeToHash(route))).toEqual(route);
  });

  it("says in the dashboard's Team column what the sync state is", () => {
    const now = Date.parse('2026-03-01T12:00:00Z');
    expect(teamCell(undefined, true)).toMatchObject({ text: 'local only', tone: 'muted' });
    expect(teamCell(undefined, false)).toMatchObject({ text: '—' });
    expect(teamCell(row({ lastSyncAt: '2026-03-01T11:58:00Z' }), true, now)).toEqual({ text: 'synced', tone: 'ok', detail: 'platform · 2 minutes ago' });
    expect(teamCell(row({ state: 'conflicts', conflicts: 2 }), true, now)).toMatchObject({ text: '2 conflicts', tone: 'warning' });
    expect(teamCell(row({ state: 'pending', waiting: 1 }), true, now)).toMatchObject({ text: '1 waiting', tone: 'warning' });
    expect(teamCell(row({ state: 'error', error: 'Cannot reach the sync server' }), true, now)).toEqual({
      text: 'sync error',
      tone: 'error',
      detail: 'Cannot reach the sync server',
    });
  });

  it('sums up a sync in one line, and flags conflicts and held-back files', () => {
    expect(reportMessage(report())).toEqual({ kind: 'info', text: 'Synced: nothing new either way.' });
    expect(
      reportMessage(
        report({
          pull: { status: 200, full: false, written: ['a.md', 'b.md'], merged: [], conflicts: ['b.md'], refused: [], wentBack: null },
          push: { uploaded: ['c.md'], confirmed: [], attempts: 1, stale: 0, requests: 2 },
        }),
      ),
    ).toEqual({
      kind: 'error',
      text: 'Synced: 2 files pulled, 1 conflict kept for you, 1 pushed.',
    });
    expect(reportMessage(report({ error: { code: 'network', message: 'Cannot reach it.', at: '' } }))).toEqual({
      kind: 'error',
      text: 'Sync failed: Cannot reach it.',
    });
  });

  it('lines the two versions of a conflict up, and proposes every line of both, common ones once', () => {
    const theirs = '# Deploys\nNo Fridays.\nHolidays too.';
    const mine = '# Deploys\nNo Fridays.\nTwo reviewers for rollbacks.';
    expect(sideBySide(theirs, mine)).toEqual([
      { text: '# Deploys', side: 'both' },
      { text: 'No Fridays.', side: 'both' },
      { text: 'Holidays too.', side: 'theirs' },
      { text: 'Two reviewers for rollbacks.', side: 'mine' },
    ]);
    expect(unionMerge(theirs, mine)).toBe('# Deploys\nNo Fridays.\nHolidays too.\nTwo reviewers for rollbacks.');
    expect(unionMerge('same', 'same')).toBe('same');
  });

  it('opens an alert on its memory (team or private), or the Team sync tab for a key in a folder', () => {
    expect(alertTarget({ dir: '-w', file: 'team/reference_ci.md' })).toEqual({
      view: 'project',
      dir: '-w',
      tab: 'memories',
      scope: 'team',
      file: 'reference_ci.md',
    });
    expect(alertTarget({ dir: '-w', file: 'notes.md' })).toEqual({ view: 'project', dir: '-w', tab: 'memories', scope: 'private', file: 'notes.md' });
    expect(alertTarget({ dir: '-w', file: 'team/infra/dns.md' })).toEqual({ view: 'project', dir: '-w', tab: 'team' });
    expect(alertTarget({ dir: null, file: 'team/x.md' })).toBeNull();
    const alert = {
      id: '1',
      kind: 'secret' as const,
      title: '',
      message: '',
      dir: null,
      memoryDir: null,
      file: null,
      findings: [],
      resolution: null,
      createdAt: '',
      updatedAt: '',
      count: 1,
    };
    expect(
      splitAlerts([
        { ...alert, status: 'open' },
        { ...alert, id: '2', status: 'dismissed' },
      ]).open.map((a) => a.id),
    ).toEqual(['1']);
  });
});
