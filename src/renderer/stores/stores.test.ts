/** The renderer's state rules, tested without React or a browser. */
import { describe, expect, it } from 'vitest';
import type { ProjectSummary } from '../../shared/contract/projects.js';
import type { ProjectScan } from '../../shared/scan-types.js';
import { matchItems } from '../components/CommandPalette.js';
import { draftProblem, emptyDraft, isDirty, withType } from './editor.js';
import { parseRoute, routeToHash, type Route } from './nav.js';
import { filterMemories, memoryRows } from './project.js';
import { projectNotes, visibleProjects } from './projects.js';

describe('routes', () => {
  it('print and parse back, including names with slashes, spaces and Chinese', () => {
    const routes: Route[] = [
      { view: 'dashboard' },
      { view: 'settings' },
      { view: 'agents' },
      { view: 'agents', dir: '-work-x' },
      { view: 'project', dir: '-demo------', tab: 'memories' },
      { view: 'project', dir: '-a-b', tab: 'memories', scope: 'team', file: '项目 notes #1.md' },
      { view: 'project', dir: '-a-b', tab: 'history' },
    ];
    for (const route of routes) expect(parseRoute(routeToHash(route))).toEqual(route);
    expect(parseRoute('#/garbage/%E0%A4%A')).toEqual({ view: 'dashboard' });
  });
});

const summary = (dir: string, over: Partial<ProjectSummary> = {}): ProjectSummary => ({
  dir,
  path: `/w/${dir}`,
  memoryDir: `/h/${dir}/memory`,
  exists: true,
  private: { total: 1, byType: { user: 0, feedback: 1, project: 0, reference: 0, untyped: 0 } },
  team: null,
  index: { exists: true, lines: 1, bytes: 10, chars: 10, loaded: [], cut: [], loadedLines: 1, loadedBytes: 10, loadedChars: 10, firstCutLine: null, reason: null },
  problems: { error: 0, warning: 0, hint: 0 },
  lastChangeMs: 1,
  transcripts: 0,
  launchDirs: [],
  readInstead: null,
  settings: {
    autoMemoryEnabled: true,
    autoMemoryEnabledSource: 'default',
    autoMemoryEnabledFrom: null,
    autoMemoryDirectory: null,
    autoMemoryDirectorySource: 'default',
    autoMemoryDirectoryFrom: null,
    memoryBase: null,
    autoDreamEnabled: false,
    autoDreamEnabledSource: 'default',
    autoDreamEnabledFrom: null,
    launchDir: null,
    files: [],
    ignored: [],
    problems: [],
  },
  identity: { source: 'paths', remotes: [], rootCommits: [], paths: [`/w/${dir}`], gitDir: null, readAt: null, note: null },
  ...over,
});

describe('dashboard notes (R-LAYOUT, R-SETTINGS)', () => {
  const launch = (cwd: string, folder: string, transcripts: number, on = true): ProjectSummary['launchDirs'][number] => ({
    cwd,
    folder,
    transcripts,
    autoMemoryEnabled: on,
    autoMemoryEnabledSource: on ? 'default' : 'local',
    autoMemoryEnabledFrom: on ? null : `${cwd}/.claude/settings.local.json`,
  });

  it('says where sessions come from and which launch directory has memory off, with the file that decides', () => {
    const p = summary('repo', { path: '/w/repo', launchDirs: [launch('/w/repo', '-w-repo', 3), launch('/w/repo/sub', '-w-repo-sub', 2, false)] });
    p.settings.launchDir = '/w/repo';
    const notes = projectNotes(p);
    expect(notes.map((n) => n.text)).toEqual(['off in 1 launch directory', '2 sessions from another launch directory']);
    expect(notes[0]!.title).toBe('/w/repo/sub: /w/repo/sub/.claude/settings.local.json');
    expect(notes[1]!.title).toBe('/w/repo/sub → projects/-w-repo-sub (2)');
  });

  it('shows memory off for the whole project with its source, and a memory Claude Code never reads', () => {
    const p = summary('sub', { readInstead: '-w-repo' });
    p.settings = { ...p.settings, autoMemoryEnabled: false, autoMemoryEnabledSource: 'env', autoMemoryEnabledFrom: 'CLAUDE_CODE_DISABLE_AUTO_MEMORY' };
    expect(projectNotes(p).map((n) => [n.text, n.title])).toEqual([
      ['auto memory off', 'Auto memory is off: CLAUDE_CODE_DISABLE_AUTO_MEMORY'],
      ['not read by Claude Code', 'Sessions launched here read projects/-w-repo/memory instead; this memory is never loaded.'],
    ]);
  });
});

describe('dashboard', () => {
  const rows = [
    summary('alpha', { lastChangeMs: 10 }),
    summary('beta', { problems: { error: 2, warning: 0, hint: 0 }, lastChangeMs: 5 }),
    summary('gamma', { index: { exists: true, lines: 230, bytes: 9000, chars: 9000, loaded: [], cut: ['x.md'], loadedLines: 200, loadedBytes: 8000, loadedChars: 8000, firstCutLine: 201, reason: '230 lines (limit: 200)' } }),
  ];
  const all = { text: '', type: 'all' as const, onlyProblems: false, onlyTeam: false };
  it('sorts, filters and searches', () => {
    expect(visibleProjects(rows, all, 'changed', true).map((p) => p.dir)).toEqual(['alpha', 'beta', 'gamma']);
    expect(visibleProjects(rows, all, 'load', true)[0]!.dir).toBe('gamma');
    expect(visibleProjects(rows, { ...all, onlyProblems: true }, 'name', false).map((p) => p.dir)).toEqual(['beta']);
    expect(visibleProjects(rows, { ...all, text: 'GAM' }, 'name', false).map((p) => p.dir)).toEqual(['gamma']);
    expect(visibleProjects(rows, { ...all, type: 'user' }, 'name', false)).toEqual([]);
  });
});

describe('memory browser', () => {
  const dir = (files: [string, string][], loaded: string[], cut: string[], scope: 'private' | 'team') => ({
    memoryDir: '/m',
    exists: true,
    index: { exists: true, lines: 0, bytes: 0, chars: 0, loaded, cut, loadedLines: 0, loadedBytes: 0, loadedChars: 0, firstCutLine: null, reason: null },
    memories: files.map(([file, name]) => ({ file, name, description: `${name} desc`, type: 'project' as const, scope, bytes: 1, mtimeMs: 1, layout: 'flat' as const })),
    problems: [],
    lastChangeMs: 1,
  });
  const scan = { ...dir([['a.md', 'Alpha deploy'], ['b.md', 'Beta 部署'], ['c.md', 'Gamma']], ['a.md'], ['b.md'], 'private'), dir: 'x', path: null, transcripts: 0, team: dir([['t.md', 'Team thing']], ['t.md'], [], 'team') } as unknown as ProjectScan;
  it('marks what reaches the agent, what is cut and what is unlisted, and filters by text, type and scope', () => {
    const rows = memoryRows(scan);
    expect(rows.map((r) => [r.file, r.scope, r.indexState])).toEqual([
      ['a.md', 'private', 'loaded'],
      ['b.md', 'private', 'cut'],
      ['c.md', 'private', 'unlisted'],
      ['t.md', 'team', 'loaded'],
    ]);
    expect(filterMemories(rows, { text: '部署', type: 'all', scope: 'all' }).map((r) => r.file)).toEqual(['b.md']);
    expect(filterMemories(rows, { text: 'deploy alpha', type: 'all', scope: 'all' }).map((r) => r.file)).toEqual(['a.md']);
    expect(filterMemories(rows, { text: '', type: 'all', scope: 'team' }).map((r) => r.file)).toEqual(['t.md']);
    expect(filterMemories(rows, { text: '', type: 'user', scope: 'all' })).toEqual([]);
  });
});

describe('editor rules', () => {
  it('gives a new memory its type\'s default scope, and never puts a user memory in the team', () => {
    expect(withType(emptyDraft(), 'reference', true).scope).toBe('team');
    expect(withType(emptyDraft(), 'feedback', true).scope).toBe('private');
    expect(withType({ ...emptyDraft(), scope: 'team' }, 'user', false).scope).toBe('private');
    expect(draftProblem({ ...emptyDraft(), name: 'Me', description: 'd', type: 'user', scope: 'team' })).toMatch(/always stays private/);
    expect(draftProblem({ ...emptyDraft(), name: 'x', description: '' })).toMatch(/description/);
    expect(draftProblem({ ...emptyDraft(), name: 'x', description: 'two\nlines' })).toMatch(/one line/);
    expect(draftProblem({ ...emptyDraft(), name: 'x', description: 'ok' })).toBeNull();
  });
  it('knows when there is something unsaved', () => {
    const doc = { file: 'a.md', text: '', name: 'A', description: 'd', type: 'user' as const, body: 'b', layout: 'flat' as const, otherKeys: [], problems: [], mtimeMs: 0 };
    expect(isDirty(doc, { name: 'A', description: 'd', type: 'user', body: 'b', scope: 'private', file: 'a.md' })).toBe(false);
    expect(isDirty(doc, { name: 'A', description: 'd', type: 'user', body: 'b!', scope: 'private', file: 'a.md' })).toBe(true);
    expect(isDirty(null, emptyDraft())).toBe(false);
  });
});

describe('command palette', () => {
  it('matches every typed word, earliest match first', () => {
    const item = (label: string, hint = '') => ({ id: label, label, hint, run: () => undefined });
    const items = [item('Open settings'), item('Dream now', 'consolidate'), item('No ORM', 'feedback private'), item('Show history')];
    expect(matchItems(items, 'now dream').map((i) => i.label)).toEqual(['Dream now']);
    expect(matchItems(items, 'feedback').map((i) => i.label)).toEqual(['No ORM']);
    expect(matchItems(items, '').length).toBe(4);
  });
});
