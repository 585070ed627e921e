/** The renderer's state rules, tested without React or a browser. */
import { describe, expect, it } from 'vitest';
import type { ProjectSummary } from '../../shared/contract/projects.js';
import { cutFactsOf } from '../../shared/index-cut.js';
import { type IndexReach, teamReachOf } from '../../shared/index-state.js';
import type { ProjectScan } from '../../shared/scan-types.js';
import { wrapParts } from '../components/Breakable.js';
import { matchItems } from '../components/CommandPalette.js';
import { deleteQuestion } from '../components/ConfirmDelete.js';
import type { MemoryDoc } from '../../shared/contract/memories.js';
import { ago, when } from '../components/format.js';
import { draftKey, sortDrafts } from './drafts.js';
import { draftOf, draftProblem, emptyDraft, fromStored, isDirty, needsRepair, resume, sameTarget, toStored, withType } from './editor.js';
import { describePlan, restorableFrom } from './history.js';
import { toastLifetime } from './toasts.js';
import { noticeOf } from './undo.js';
import { cutOf, lineLabel, moveLine } from './index-order.js';
import { parseIndex, serializeIndex } from '../../shared/index-format.js';
import { plural } from '../../shared/size-text.js';
import { parseRoute, routeToHash, type Route } from './nav.js';
import { type MemoryRow, filterMemories, memoryRows, rowKey, sortMemories, toggleSelection } from './project.js';
import { keepUnchanged, projectNotes, visibleProjects } from './projects.js';

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
  private: { total: 1, byType: { user: 0, feedback: 1, project: 0, reference: 0, untyped: 0 }, cut: 0 },
  team: null,
  index: {
    exists: true,
    lines: 1,
    bytes: 10,
    chars: 10,
    cut: [],
    loadedLines: 1,
    loadedBytes: 10,
    loadedChars: 10,
    firstCutLine: null,
    reason: null,
    cutMemories: [],
    cutMissing: [],
    loadedMissing: [],
  },
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
    autoMemoryDirectoryTrust: null,
    memoryBase: null,
    autoDreamEnabled: false,
    autoDreamEnabledSource: 'default',
    autoDreamEnabledFrom: null,
    launchDir: null,
    memoryStores: null,
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
    summary('gamma', {
      index: {
        exists: true,
        lines: 230,
        bytes: 9000,
        chars: 9000,
        cut: ['x.md'],
        loadedLines: 200,
        loadedBytes: 8000,
        loadedChars: 8000,
        firstCutLine: 201,
        reason: '230 lines (limit: 200)',
        cutMemories: ['x.md'],
        cutMissing: [],
        loadedMissing: [],
      },
    }),
  ];
  const all = { text: '', type: 'all' as const, onlyProblems: false, onlyTeam: false };
  it('sorts, filters and searches', () => {
    expect(visibleProjects(rows, all, 'changed', true).map((p) => p.dir)).toEqual(['alpha', 'beta', 'gamma']);
    expect(visibleProjects(rows, all, 'load', true)[0]!.dir).toBe('gamma');
    expect(visibleProjects(rows, { ...all, onlyProblems: true }, 'name', false).map((p) => p.dir)).toEqual(['beta']);
    expect(visibleProjects(rows, { ...all, text: 'GAM' }, 'name', false).map((p) => p.dir)).toEqual(['gamma']);
    expect(visibleProjects(rows, { ...all, type: 'user' }, 'name', false)).toEqual([]);
  });
  it('a reload re-renders only what changed: unchanged projects stay the objects shown, an unchanged list stays the list', () => {
    const reloaded = () => rows.map((p) => JSON.parse(JSON.stringify(p)) as typeof p);
    expect(keepUnchanged(rows, reloaded())).toBe(rows);
    const changed = reloaded();
    changed[1] = { ...changed[1]!, problems: { error: 0, warning: 0, hint: 0 } };
    const kept = keepUnchanged(rows, changed);
    expect(kept).not.toBe(rows);
    expect(kept[0]).toBe(rows[0]);
    expect(kept[1]).toBe(changed[1]);
    expect(kept[1]!.problems.error).toBe(0);
    expect(kept[2]).toBe(rows[2]);
    // Reordered, or one gone: a new list, each survivor still the object shown.
    const reordered = keepUnchanged(rows, reloaded().reverse());
    expect(reordered.map((p) => p.dir)).toEqual(['gamma', 'beta', 'alpha']);
    expect(reordered[0]).toBe(rows[2]);
    expect(keepUnchanged(rows, reloaded().slice(1)).map((p) => p.dir)).toEqual(['beta', 'gamma']);
  });
});

describe('memory browser', () => {
  /**
   * A directory's scan as a scan works it out from what its index links — for the team, from what
   * the main index links (`parent`) alone: Claude Code 2.1.332 does not load team/MEMORY.md.
   */
  const dir = (files: [string, string][], loaded: string[], cut: string[], scope: 'private' | 'team', parent?: IndexReach) => ({
    memoryDir: '/m',
    exists: true,
    index: {
      exists: true,
      lines: 0,
      bytes: 0,
      chars: 0,
      loaded,
      cut,
      loadedLines: 0,
      loadedBytes: 0,
      loadedChars: 0,
      firstCutLine: null,
      reason: null,
      ...cutFactsOf(
        { reach: scope === 'team' ? { loaded: [], cut: [] } : { loaded, cut }, cutPointers: scope === 'team' ? [] : cut },
        files.map(([file]) => ({ file })),
        () => new Set(),
        parent,
      ),
    },
    memories: files.map(([file, name]) => ({
      file,
      name,
      description: `${name} desc`,
      type: 'project' as const,
      scope,
      bytes: 1,
      mtimeMs: 1,
      layout: 'flat' as const,
    })),
    // Health's orphans: memories no link of an index that loads names.
    problems: files
      .filter(([file]) => ![...(scope === 'team' ? [] : [...loaded, ...cut]), ...(parent?.loaded ?? []), ...(parent?.cut ?? [])].includes(file))
      .map(([file]) => ({
        code: 'orphan' as const,
        file,
        line: null,
        message: `${file} is not listed`,
        severity: 'warning' as const,
        fix: 'add-to-index' as const,
      })),
    lastChangeMs: 1,
  });
  const scan = {
    ...dir(
      [
        ['a.md', 'Alpha deploy'],
        ['b.md', 'Beta 部署'],
        ['c.md', 'Gamma'],
      ],
      ['a.md', 'team/t.md'],
      ['b.md'],
      'private',
    ),
    dir: 'x',
    path: null,
    transcripts: 0,
    team: dir([['t.md', 'Team thing']], ['t.md'], [], 'team', teamReachOf({ loaded: ['a.md', 'team/t.md'], cut: ['b.md'] })),
  } as unknown as ProjectScan;
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

  it('marks a team memory as the main MEMORY.md points at it (team/x.md), whatever team/MEMORY.md says', () => {
    const main = { loaded: ['a.md', 'team/env.md', 'team/both.md'], cut: ['team/late.md'] };
    const viaMain = {
      ...dir([['a.md', 'Alpha']], main.loaded, main.cut, 'private'),
      team: dir(
        [
          ['env.md', 'Env'],
          ['late.md', 'Late'],
          ['lost.md', 'Lost'],
          ['both.md', 'Below the team cut, loaded from the main index'],
          ['shared.md', 'Listed in team/MEMORY.md only'],
        ],
        ['shared.md'],
        ['both.md'],
        'team',
        teamReachOf(main),
      ),
    } as unknown as ProjectScan;
    expect(memoryRows(viaMain).map((r) => [r.scope, r.file, r.indexState])).toEqual([
      ['private', 'a.md', 'loaded'],
      ['team', 'env.md', 'loaded'],
      ['team', 'late.md', 'cut'],
      ['team', 'lost.md', 'unlisted'],
      ['team', 'both.md', 'loaded'],
      ['team', 'shared.md', 'unlisted'],
    ]);
    // The counts say the same: one team memory past the cut (late.md, only below the main index's cut), not both.md.
    expect(viaMain.team!.index.cutMemories).toEqual(['late.md']);
  });

  it("lists in MEMORY.md's order, not the files' (team/MEMORY.md places nothing: the agent never gets it; unlisted last, by scope and file), and follows a reorder", () => {
    // The scan finds files in name order; the index names them in its own.
    const files: [string, string][] = [
      ['apple.md', 'Apple'],
      ['kiwi.md', 'Kiwi'],
      ['mango.md', 'Mango'],
      ['zebra.md', 'Zebra'],
      ['cherry.md', 'Cherry'],
    ];
    const teamDir = dir(
      [
        ['env.md', 'Env'],
        ['ops.md', 'Ops'],
        ['stray.md', 'Stray'],
      ],
      ['ops.md', 'env.md'],
      [],
      'team',
    );
    const scanOf = (loaded: string[], cut: string[]) => ({ ...dir(files, loaded, cut, 'private'), team: teamDir }) as unknown as ProjectScan;
    const shown = (scan: ProjectScan) => sortMemories(memoryRows(scan), 'index').map(rowKey);
    expect(shown(scanOf(['zebra.md', 'team/env.md', 'kiwi.md', 'apple.md'], ['mango.md']))).toEqual([
      'private/zebra.md',
      'team/env.md',
      'private/kiwi.md',
      'private/apple.md',
      'private/mango.md',
      'private/cherry.md',
      'team/ops.md',
      'team/stray.md',
    ]);
    // After "Reorder entries" the scan reads the new order, and the list follows it.
    expect(shown(scanOf(['apple.md', 'kiwi.md', 'zebra.md', 'team/env.md'], ['mango.md']))).toEqual([
      'private/apple.md',
      'private/kiwi.md',
      'private/zebra.md',
      'team/env.md',
      'private/mango.md',
      'private/cherry.md',
      'team/ops.md',
      'team/stray.md',
    ]);
  });
});

const doc = (over: Partial<MemoryDoc> = {}): MemoryDoc => ({
  file: 'a.md',
  memoryDir: '/h/p/memory',
  text: '---\nname: A\n---\nb',
  name: 'A',
  description: 'd',
  type: 'user',
  rawType: null,
  frontmatter: 'name: A',
  frontmatterError: null,
  missingFields: [],
  body: 'b',
  layout: 'flat',
  otherKeys: [],
  problems: [],
  mtimeMs: 0,
  heldByServer: false,
  ...over,
});

describe('editor rules', () => {
  it("gives a new memory its type's default scope, and never puts a user memory in the team", () => {
    expect(withType(emptyDraft(), 'reference', true).scope).toBe('team');
    expect(withType(emptyDraft(), 'feedback', true).scope).toBe('private');
    expect(withType({ ...emptyDraft(), scope: 'team' }, 'user', false).scope).toBe('private');
    expect(draftProblem({ ...emptyDraft(), name: 'Me', description: 'd', type: 'user', scope: 'team' })).toMatch(/always stays private/);
    expect(draftProblem({ ...emptyDraft(), name: 'x', description: '' })).toMatch(/description/);
    expect(draftProblem({ ...emptyDraft(), name: 'x', description: 'two\nlines' })).toMatch(/one line/);
    expect(draftProblem({ ...emptyDraft(), name: 'x', description: 'ok' })).toBeNull();
  });

  it('never shows an invalid type as a valid one: it stays unpicked, and must be picked before saving', () => {
    const invalid = doc({ type: null, rawType: 'todo' });
    const draft = draftOf(invalid, 'private');
    expect(draft.type).toBeNull();
    expect(needsRepair(invalid)).toBe(true);
    expect(isDirty(invalid, draft)).toBe(false);
    expect(draftProblem(draft)).toBe('Pick a type: user, feedback, project, reference.');
    expect(draftProblem(withType(draft, 'project', false))).toBeNull();
  });

  it('says a body past the size limit in a sentence before anything is sent', () => {
    expect(draftProblem({ ...emptyDraft(), name: 'x', description: 'ok', body: 'x'.repeat(2 * 1024 * 1024) })).toBe(
      'This memory is 2.1 MB; a memory can be at most 1 MB.',
    );
  });

  it('knows when there is something unsaved, repaired frontmatter included', () => {
    const d = doc();
    expect(isDirty(d, draftOf(d, 'private'))).toBe(false);
    expect(isDirty(d, { ...draftOf(d, 'private'), body: 'b!' })).toBe(true);
    expect(isDirty(null, emptyDraft())).toBe(false);
    const broken = doc({ frontmatter: 'name: "x', frontmatterError: 'not valid YAML' });
    expect(draftOf(broken, 'private').frontmatter).toBe('name: "x');
    expect(isDirty(broken, { ...draftOf(broken, 'private'), frontmatter: 'name: "x"' })).toBe(true);
  });

  it("binds an edit to its file: same project, scope and file, or a project's one new memory", () => {
    expect(sameTarget({ dir: 'A', scope: 'private', file: 'x.md' }, { dir: 'B', scope: 'private', file: 'x.md' })).toBe(false);
    expect(sameTarget({ dir: 'A', scope: 'private', file: 'x.md' }, { dir: 'A', scope: 'team', file: 'x.md' })).toBe(false);
    expect(sameTarget({ dir: 'A', scope: 'private', file: null }, { dir: 'A', scope: 'team', file: null })).toBe(true);
    expect(sameTarget(null, null)).toBe(true);
  });

  it('resumes a kept draft: as it was, beside a changed file, or offering to recreate a deleted one', () => {
    const d = doc();
    const mine = { ...draftOf(d, 'private'), body: 'mine' };
    const stored = { ...toStored({ dir: 'A', scope: 'private', file: 'a.md' }, d.memoryDir, d, mine), savedAt: '2026-12-01T10:00:00.000Z' };
    expect(fromStored(stored, d)).toEqual(mine);
    expect(resume(d, null, 'private')).toEqual({ draft: draftOf(d, 'private'), conflict: null, missing: false, restoredAt: null });
    expect(resume(d, stored, 'private')).toEqual({ draft: mine, conflict: null, missing: false, restoredAt: stored.savedAt });
    const changed = doc({ text: 'changed by Claude Code' });
    expect(resume(changed, stored, 'private')).toMatchObject({ draft: mine, conflict: 'changed by Claude Code' });
    expect(resume(null, stored, 'private')).toMatchObject({ draft: mine, missing: true });
    // Another home: the same file name, read from another folder, is not the file the draft started from.
    expect(resume(doc({ memoryDir: '/other/memory' }), stored, 'private').conflict).not.toBeNull();
  });
});

describe('drafts', () => {
  it('are keyed per file (one new memory per project) and listed newest first, stably', () => {
    expect(draftKey({ dir: 'A', scope: 'private', file: 'x.md' })).not.toBe(draftKey({ dir: 'B', scope: 'private', file: 'x.md' }));
    expect(draftKey({ dir: 'A', scope: 'private', file: null })).toBe(draftKey({ dir: 'A', scope: 'team', file: null }));
    const base = toStored({ dir: 'A', scope: 'private', file: null }, '/m', null, emptyDraft());
    const list = [
      { ...base, file: 'b.md', savedAt: '2026-12-01T10:00:00.000Z' },
      { ...base, file: 'a.md', savedAt: '2026-12-01T10:00:00.000Z' },
      { ...base, file: 'c.md', savedAt: '2026-12-02T10:00:00.000Z' },
    ];
    expect(sortDrafts(list).map((d) => d.file)).toEqual(['c.md', 'a.md', 'b.md']);
  });
});

describe('memory list order and selection', () => {
  const row = (file: string, over: Partial<MemoryRow> = {}): MemoryRow => ({
    file,
    name: file,
    description: '',
    type: 'project',
    scope: 'private',
    bytes: 10,
    mtimeMs: 1,
    layout: 'flat',
    tooLarge: false,
    indexState: 'loaded',
    indexOrder: 0,
    problems: 0,
    ...over,
  });
  const rows = [
    row('c.md', { name: 'Gamma', indexState: 'unlisted', indexOrder: null, mtimeMs: 5 }),
    row('a.md', { name: 'alpha', indexOrder: 0, mtimeMs: 5, bytes: 99 }),
    row('b.md', { name: 'Beta', indexState: 'cut', indexOrder: 2, mtimeMs: 9 }),
    row('t.md', { name: 'alpha', scope: 'team', indexOrder: 1, mtimeMs: 5 }),
  ];
  it('sorts by each order stably, and reverses on request', () => {
    expect(sortMemories(rows, 'index').map(rowKey)).toEqual(['private/a.md', 'team/t.md', 'private/b.md', 'private/c.md']);
    expect(sortMemories(rows, 'name').map(rowKey)).toEqual(['private/a.md', 'team/t.md', 'private/b.md', 'private/c.md']);
    expect(sortMemories(rows, 'changed').map(rowKey)).toEqual(['private/b.md', 'private/a.md', 'private/c.md', 'team/t.md']);
    expect(sortMemories(rows, 'size')[0]!.file).toBe('a.md');
    expect(sortMemories(rows, 'name', true).map(rowKey)).toEqual(['private/c.md', 'private/b.md', 'private/a.md', 'team/t.md']);
    expect(rows.map(rowKey)).toEqual(['private/c.md', 'private/a.md', 'private/b.md', 'team/t.md']);
  });
  it('toggles one memory, or a shift range over the rows as shown', () => {
    const shown = sortMemories(rows, 'name');
    const one = toggleSelection(new Set(), shown, 'private/a.md', null, false);
    expect([...one]).toEqual(['private/a.md']);
    expect([...toggleSelection(one, shown, 'private/b.md', 'private/a.md', true)]).toEqual(['private/a.md', 'team/t.md', 'private/b.md']);
    expect([...toggleSelection(one, shown, 'private/a.md', 'private/a.md', false)]).toEqual([]);
  });
});

describe('reordering MEMORY.md', () => {
  it('moves one line and shows where the cut falls for the order shown', () => {
    const lines = ['# Index', ...Array.from({ length: 201 }, (_, i) => `- [M${i}](m${i}.md) — hook ${i}`)];
    const index = parseIndex(`${lines.join('\n')}\n`);
    expect(cutOf(index)).toMatchObject({ firstCut: 200, cut: ['m199.md', 'm200.md'] });
    expect(cutOf(index).fate.slice(199)).toEqual(['loaded', 'cut', 'cut']);
    const moved = moveLine(index, 201, 1);
    expect(moved.lines.map((l) => l.line)).toEqual(lines.map((_, i) => i + 1));
    expect(cutOf(moved).cut).toEqual(['m198.md', 'm199.md']);
    expect(lineLabel(moved.lines[1]!)).toBe('M200');
    expect(moveLine(index, 3, 3)).toBe(index);
    expect(serializeIndex(moveLine(moved, 1, 201))).toBe(serializeIndex(index));
  });
});

describe('whole-snapshot restore', () => {
  it('says what the restore would do to the files before it is confirmed', () => {
    const plan = [
      { path: 'a.md', status: 'added' as const },
      { path: 'b.md', status: 'deleted' as const },
      { path: 'c.md', status: 'deleted' as const },
      { path: 'MEMORY.md', status: 'modified' as const },
    ];
    expect(describePlan(plan)).toBe('1 file brought back, 1 file rewritten, 2 files removed.');
    expect(describePlan([])).toBe('Nothing would change: the memory is already that way.');
  });
  it('offers no restore from an entry only imports undone since hold', () => {
    const entry = (rev: string) => ({ rev, time: '2026-12-05T10:00:00Z', source: 'manual', summary: rev, files: [] });
    const imported = (id: string, undone: boolean, revs: string[]) => ({ id, rev: revs[0]!, source: null, importedAt: null, undone, entries: revs.map(entry) });
    const state = { entries: [entry('own')], imported: [imported('i1', true, ['a', 'b']), imported('i2', false, ['b', 'c'])] };
    expect(['own', 'a', 'b', 'c'].map((rev) => restorableFrom(state, rev))).toEqual([true, false, true, true]);
  });
});

describe('times and plurals', () => {
  const now = Date.parse('2026-12-03T12:00:00Z');
  it('says how long ago in words, never a raw timestamp', () => {
    expect(ago(now - 10_000, now)).toBe('just now');
    expect(ago(now - 60_000, now)).toBe('1 minute ago');
    expect(ago(now - 5 * 60_000, now)).toBe('5 minutes ago');
    expect(ago(now - 3600_000, now)).toBe('1 hour ago');
    expect(ago(now - 86_400_000, now)).toBe('yesterday');
    expect(ago(now - 3 * 86_400_000, now)).toBe('3 days ago');
    expect(ago(now - 90 * 86_400_000, now)).not.toMatch(/T\d\d:|Z$/);
    expect(when('2026-12-03T12:00:00.000Z')).not.toContain('T12:00');
    // 24-hour times, as the CLI and history print them (the Team sync page said "05:48:28 PM").
    const evening = new Date(2026, 11, 5, 17, 48, 28).getTime();
    expect(when(new Date(evening).toISOString())).toContain('17:48:28');
    expect(when(new Date(evening).toISOString())).not.toMatch(/AM|PM/i);
    expect(plural(1, 'file')).toBe('1 file');
    expect(plural(1200, 'file')).toBe('1,200 files');
  });
  it('keeps a notice with an Undo long enough to reach it', () => {
    expect(toastLifetime({ kind: 'info', text: 'Saved a.md.' })).toBe(5000);
    expect(toastLifetime({ kind: 'info', text: 'Deleted a.md.', action: { label: 'Undo', run: () => undefined } })).toBeGreaterThanOrEqual(15_000);
  });
  it('says many pointers put back in one line, every sentence kept behind it, other notes as they are', () => {
    const back = (n: number) => `The pointer to s${n}.md is back at line ${n + 1} of MEMORY.md, where it was.`;
    const cut = (n: number) =>
      `The pointer to s${n}.md is back at line ${n + 1} of MEMORY.md, past the cut: the agent will not see it until the index is shortened.`;
    const team = 'The pointer to t.md is back at line 2 of team/MEMORY.md: at its old place it would have been cut. It pushes u.md past the cut.';
    const other = 'MEMORY.md\'s line for a.md was edited since "x": undone anyway, it went too (as edited, it stays in history).';
    expect(noticeOf('Undone.', [back(1), other])).toEqual({ text: `Undone. ${back(1)} ${other}`, details: [] });
    const notes = [back(1), back(2), cut(300), team, other];
    expect(noticeOf('Undone.', notes)).toEqual({
      text: `Undone. Put back 3 pointers in MEMORY.md (1 past the cut). Put back 1 pointer in team/MEMORY.md (1 pushing others past it). ${other}`,
      details: [back(1), back(2), cut(300), team],
    });
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

describe('asking before a delete', () => {
  it('names the memory, or how many and the first few, as single and bulk delete both ask', () => {
    expect(deleteQuestion(['notes.md'])).toBe('Delete notes.md? It stays in history, and Undo brings it back with its index line.');
    expect(deleteQuestion(['a.md', 'team/b.md'])).toBe(
      'Delete 2 memories (a.md and team/b.md)? They stay in history, and Undo brings them back with their index lines.',
    );
    const seven = ['a.md', 'b.md', 'c.md', 'd.md', 'e.md', 'f.md', 'g.md'];
    expect(deleteQuestion(seven)).toMatch(/^Delete 7 memories \(a\.md, b\.md, c\.md, d\.md, e\.md and 2 more\)\?/);
  });
});

describe('wrapParts (where a long name may wrap)', () => {
  it('wraps after a run of - _ / \\ that follows other characters, and nowhere else', () => {
    expect(wrapParts('-work-benzabonanza__QuantumFurnace.jl')).toEqual(['-work-', 'benzabonanza__', 'QuantumFurnace.jl']);
    expect(wrapParts('/home/ann/code/x_y')).toEqual(['/home/', 'ann/', 'code/', 'x_', 'y']);
    expect(wrapParts('team/project_deploys.md')).toEqual(['team/', 'project_', 'deploys.md']);
    expect(wrapParts('C:\\Users\\ann')).toEqual(['C:\\', 'Users\\', 'ann']);
    expect(wrapParts('plain')).toEqual(['plain']);
    expect(wrapParts('')).toEqual(['']);
    // The parts are the name: nothing added, nothing lost.
    for (const name of ['-a--b__', '__init__.py', 'a/b/']) expect(wrapParts(name).join('')).toBe(name);
  });
});
