/** Every project at a glance; a newcomer without a home gets the demo workspace in one click. */
import { memo, useEffect, useMemo, useRef, useState } from 'react';
import { MEMORY_TYPES } from '../../shared/memory-types.js';
import type { ProjectSummary } from '../../shared/contract/projects.js';
import { plural } from '../../shared/size-text.js';
import { Breakable } from '../components/Breakable.js';
import { Badge } from '../components/Badge.js';
import { type CardColumn, CardRow, CardTable } from '../components/CardTable.js';
import { DreamCell } from '../components/DreamCell.js';
import { IdentityPanels } from '../components/IdentityPanels.js';
import { LoadMeter } from '../components/LoadMeter.js';
import { TeamCell } from '../components/TeamCell.js';
import { useDream } from '../stores/dream.js';
import { useTeam } from '../stores/team.js';
import { ago } from '../components/format.js';
import { useApp } from '../stores/app.js';
import { useConnection } from '../stores/connection.js';
import { identityLine } from '../stores/identity.js';
import { type Route, useNav } from '../stores/nav.js';
import { type ProjectSort, projectName, projectNotes, useProjects, visibleProjects } from '../stores/projects.js';

function EmptyState({ home, exists }: { home: string | null; exists: boolean }) {
  const openDemo = useApp((s) => s.openDemo);
  const busy = useApp((s) => s.busy);
  return (
    <section className="empty">
      <h1>{exists ? 'No memories yet' : 'No Claude Code home found'}</h1>
      <p>
        {exists
          ? `Claude Code has not saved any memories in ${home} yet. They appear here as soon as it does.`
          : `Memdir looks for Claude Code's memory in ${home ?? '~/.claude'}, and there is nothing there yet: Claude Code makes it at its first session, and its memories appear here as it writes them.`}
      </p>
      <p>See what Memdir does with a ready-made workspace: projects with English and Chinese memories, transcripts, and a few problems to fix.</p>
      <button className="primary" onClick={() => void openDemo()} disabled={busy}>
        {busy ? 'Creating…' : 'Open demo workspace'}
      </button>
      <p className="muted small">The demo lives in Memdir&apos;s own data folder; your real home is not touched. Switch back in Settings.</p>
    </section>
  );
}

const SORTS: [ProjectSort, string][] = [
  ['name', 'Project'],
  ['memories', 'Memories'],
  ['load', 'Index'],
  ['problems', 'Problems'],
  ['changed', 'Changed'],
];

function TypeChips({ p }: { p: ProjectSummary }) {
  return (
    <span className="chips">
      {MEMORY_TYPES.map((t) => {
        const n = p.private.byType[t] + (p.team?.byType[t] ?? 0);
        return n > 0 ? (
          <span key={t} className={`chip type-${t}`} title={`${n} ${t}`}>
            {t} {n}
          </span>
        ) : null;
      })}
    </span>
  );
}

/**
 * One project's row. Memoised: a reload of the list keeps the projects that did not change as the
 * same objects (keepUnchanged), so only changed rows render again — and every row once the minute
 * has turned (`minute`), so its times ("3 minutes ago") are as fresh as the dashboard's last render.
 */
const ProjectRow = memo(function ProjectRow({ p, go }: { p: ProjectSummary; go: (route: Route) => void; minute: number }) {
  return (
    <CardRow className="clickable" onClick={() => go({ view: 'project', dir: p.dir, tab: 'memories' })}>
      <td>
        <button className="link strong project-name" onClick={(e) => (e.stopPropagation(), go({ view: 'project', dir: p.dir, tab: 'memories' }))}>
          <Breakable text={projectName(p)} />
        </button>
        {identityLine(p.identity) && (
          <div
            className="muted small identity"
            title={`Identity (${p.identity.source}): ${[...p.identity.remotes, ...p.identity.rootCommits].join(', ')}${p.identity.note ? `\n${p.identity.note}` : ''}`}
          >
            {identityLine(p.identity)}
          </div>
        )}
        {projectNotes(p).map((n) =>
          n.tone === 'warning' ? (
            <Badge key={n.text} tone="warning" why={n.title}>
              {n.text}
            </Badge>
          ) : (
            <div key={n.text} className="muted small" title={n.title}>
              {n.text}
            </div>
          ),
        )}
      </td>
      <td>
        <span className="num">{p.private.total + (p.team?.total ?? 0)}</span> <TypeChips p={p} />
        <div className="muted small">
          {p.private.total} private{p.team ? `, ${p.team.total} team` : ''}
        </div>
      </td>
      <td>
        <LoadMeter index={p.index} compact cutMemories={p.private.cut + (p.team?.cut ?? 0)} />
      </td>
      <td>
        {p.problems.error > 0 && <span className="badge error">{plural(p.problems.error, 'error')}</span>}
        {p.problems.warning > 0 && <span className="badge warning">{plural(p.problems.warning, 'warning')}</span>}
        {p.problems.error + p.problems.warning === 0 && <span className="muted">none</span>}
      </td>
      <td className="muted">{ago(p.lastChangeMs)}</td>
      <td>
        <TeamCell dir={p.dir} hasTeamDir={p.team !== null} />
      </td>
      <td>
        <DreamCell dir={p.dir} />
      </td>
    </CardRow>
  );
});

/**
 * The rows the first frame draws: as many as the window can show (a row is at least two lines of
 * text and its padding, over 40 px). The first page follows once that frame is painted, so the first
 * paint does not wait on rows below the fold (issue 16).
 */
const firstRows = (): number => Math.ceil(window.innerHeight / 40);

/**
 * Rows a page of the table holds: a home of 200 projects drew all 200 rows (5,800 nodes, every
 * refresh a long task); "Show more" adds the next page and takes the focus to its first project.
 * Search, the filters and the sort still work on every project, shown or not.
 */
const DASHBOARD_PAGE = 50;

export function Dashboard() {
  const { projects, loaded, home, homeExists, filter, sort, descending, error } = useProjects();
  const setFilter = useProjects((s) => s.setFilter);
  const setSort = useProjects((s) => s.setSort);
  const go = useNav((s) => s.go);
  // While Memdir does not answer, the connection banner says so (App.tsx): not twice.
  const connected = useConnection((s) => s.status === 'live');
  const rows = useMemo(() => visibleProjects(projects, filter, sort, descending), [projects, filter, sort, descending]);
  const hasRows = rows.length > 0;
  // 0: the first frame (firstRows); then how many rows are drawn, a page at a time.
  const [limit, setLimit] = useState(0);
  const tbody = useRef<HTMLTableSectionElement>(null);
  const [focusRow, setFocusRow] = useState<number | null>(null);
  const shown = rows.slice(0, limit || firstRows());
  const columns: CardColumn[] = [
    ...SORTS.map(([key, label]) => ({
      label,
      bare: key === 'name',
      th: { className: key === 'name' ? 'project-col' : undefined, 'aria-sort': sort === key ? (descending ? 'descending' : 'ascending') : 'none' } as const,
      head: (
        <button className="link" onClick={() => setSort(key)}>
          {label}
          {sort === key ? (descending ? ' ↓' : ' ↑') : ''}
        </button>
      ),
    })),
    { label: 'Team', th: { className: 'no-sort' } },
    { label: 'Dream', th: { className: 'no-sort' } },
  ];
  const more = rows.length - shown.length;
  useEffect(() => {
    if (focusRow === null) return;
    tbody.current?.querySelectorAll<HTMLButtonElement>('.project-name')[focusRow]?.focus();
    setFocusRow(null);
  }, [focusRow]);
  const showMore = (n: number) => {
    setFocusRow(shown.length);
    setLimit(shown.length + n);
  };
  const minute = Math.floor(Date.now() / 60_000);
  useEffect(() => {
    if (!hasRows) return;
    // Two frames after the rows render, the first frame with them has been painted: mark it, for
    // devtools and the bench (`start`), then draw the rows past the first screen.
    requestAnimationFrame(() =>
      requestAnimationFrame(() => {
        performance.mark('memdir:dashboard-painted');
        setLimit((l) => Math.max(l, DASHBOARD_PAGE));
      }),
    );
  }, [hasRows]);
  useEffect(() => {
    // The Team and Dream columns: one overview each serves every row.
    if (!hasRows) return;
    void useTeam.getState().loadOverview();
    void useDream.getState().loadOverview();
  }, [hasRows]);

  if (!loaded) return <p className="muted">Loading projects…</p>;
  // Nothing read yet: the error is all there is to show. Read before: what was read stays.
  if (error && projects.length === 0) return <div className="banner error">{error}</div>;
  if (projects.length === 0) return <EmptyState home={home} exists={homeExists} />;
  return (
    <section>
      <header className="view-head">
        <h1>Projects</h1>
        <span className="muted">
          {projects.length} in {home}
        </span>
      </header>
      {error && connected && (
        <div className="banner warning" role="alert">
          The list of projects could not be read again: {error} What it shows is what was read before.
        </div>
      )}
      <IdentityPanels />
      <div className="toolbar">
        <input
          type="search"
          aria-label="Search projects"
          placeholder="Search projects"
          value={filter.text}
          onChange={(e) => setFilter({ text: e.target.value })}
          data-search
        />
        <select aria-label="Filter by memory type" value={filter.type} onChange={(e) => setFilter({ type: e.target.value as typeof filter.type })}>
          <option value="all">All types</option>
          {MEMORY_TYPES.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
        <label>
          <input type="checkbox" checked={filter.onlyProblems} onChange={(e) => setFilter({ onlyProblems: e.target.checked })} /> With problems
        </label>
        <label>
          <input type="checkbox" checked={filter.onlyTeam} onChange={(e) => setFilter({ onlyTeam: e.target.checked })} /> With team memory
        </label>
      </div>
      <CardTable className="projects" label="Projects" columns={columns} bodyRef={tbody}>
        {shown.map((p) => (
          <ProjectRow key={p.dir} p={p} go={go} minute={minute} />
        ))}
      </CardTable>
      {limit > 0 && more > 0 && (
        <div className="toolbar" role="group" aria-label="More projects">
          <span className="muted">
            {shown.length} of {rows.length} projects shown
          </span>
          <button onClick={() => showMore(Math.min(DASHBOARD_PAGE, more))}>Show {Math.min(DASHBOARD_PAGE, more)} more</button>
          {more > DASHBOARD_PAGE && <button onClick={() => showMore(more)}>Show all {rows.length}</button>}
        </div>
      )}
      {rows.length === 0 && <p className="muted">No project matches these filters.</p>}
    </section>
  );
}
