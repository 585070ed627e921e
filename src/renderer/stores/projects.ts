/** The dashboard: every project, sorted, filtered and searched. */
import { INDEX_MAX_CHARS, INDEX_MAX_LINES } from '../../shared/limits.js';
import { create } from 'zustand';
import type { ProjectSummary } from '../../shared/contract/projects.js';
import type { MemoryType } from '../../shared/memory-types.js';
import { call } from '../transport/transport.js';
import { coalescedReads } from './coalesced-read.js';
import { messageOf } from './errors.js';

export type ProjectSort = 'name' | 'memories' | 'problems' | 'changed' | 'load';
export interface ProjectFilter {
  text: string;
  type: MemoryType | 'all';
  onlyProblems: boolean;
  onlyTeam: boolean;
}

/** The project's path, else the path Memdir knows for it (a folder a relink filled before any session ran there), else its folder name. */
export function projectName(p: Pick<ProjectSummary, 'path' | 'dir'> & { identity?: Pick<ProjectSummary['identity'], 'paths'> }): string {
  return p.path ?? p.identity?.paths[0] ?? p.dir;
}

/** Where a project's sessions come from and what is off, in a few words each, for the dashboard (R-LAYOUT, R-SETTINGS). */
export function projectNotes(
  p: Pick<ProjectSummary, 'path' | 'dir' | 'launchDirs' | 'readInstead' | 'settings'>,
): { text: string; title: string; tone: 'muted' | 'warning' }[] {
  const notes: { text: string; title: string; tone: 'muted' | 'warning' }[] = [];
  const s = p.settings;
  if (!s.autoMemoryEnabled)
    notes.push({ text: 'auto memory off', title: `Auto memory is off: ${s.autoMemoryEnabledFrom ?? s.autoMemoryEnabledSource}`, tone: 'warning' });
  const offIn = p.launchDirs.filter((l) => !l.autoMemoryEnabled && l.cwd !== s.launchDir);
  if (s.autoMemoryEnabled && offIn.length > 0) {
    notes.push({
      text: `off in ${offIn.length === 1 ? '1 launch directory' : `${offIn.length} launch directories`}`,
      title: offIn.map((l) => `${l.cwd ?? l.folder}: ${l.autoMemoryEnabledFrom ?? l.autoMemoryEnabledSource}`).join('\n'),
      tone: 'warning',
    });
  }
  const elsewhere = p.launchDirs.filter((l) => l.cwd !== p.path);
  if (elsewhere.length > 0) {
    const sessions = elsewhere.reduce((n, l) => n + l.transcripts, 0);
    notes.push({
      text: `${sessions} session${sessions === 1 ? '' : 's'} from ${elsewhere.length === 1 ? 'another launch directory' : `${elsewhere.length} other launch directories`}`,
      title: elsewhere.map((l) => `${l.cwd ?? '(unknown)'} → projects/${l.folder} (${l.transcripts})`).join('\n'),
      tone: 'muted',
    });
  }
  if (p.readInstead)
    notes.push({
      text: 'not read by Claude Code',
      title: `Sessions launched here read projects/${p.readInstead}/memory instead; this memory is never loaded.`,
      tone: 'warning',
    });
  return notes;
}

/** Share of the index limit used (0..1+), the larger of lines and characters (R-INDEX). */
export function indexLoad(p: Pick<ProjectSummary, 'index'>): number {
  return Math.max(p.index.lines / INDEX_MAX_LINES, p.index.chars / INDEX_MAX_CHARS);
}

/** The dashboard's rows: the projects the filter keeps, in the chosen order (ties by name). */
export function visibleProjects(projects: ProjectSummary[], filter: ProjectFilter, sort: ProjectSort, descending: boolean): ProjectSummary[] {
  const text = filter.text.trim().toLowerCase();
  const key = (p: ProjectSummary, name: string): number | string => {
    switch (sort) {
      case 'name':
        return name.toLowerCase();
      case 'memories':
        return p.private.total + (p.team?.total ?? 0);
      case 'problems':
        return p.problems.error * 1000 + p.problems.warning;
      case 'changed':
        return p.lastChangeMs ?? 0;
      case 'load':
        return indexLoad(p);
    }
  };
  // Name and key once per project, not once per comparison.
  const rows: { p: ProjectSummary; name: string; key: number | string }[] = [];
  for (const p of projects) {
    const name = projectName(p);
    if (text && !name.toLowerCase().includes(text) && !p.dir.toLowerCase().includes(text)) continue;
    if (filter.onlyProblems && p.problems.error + p.problems.warning === 0) continue;
    if (filter.onlyTeam && !p.team) continue;
    if (filter.type !== 'all' && p.private.byType[filter.type] + (p.team?.byType[filter.type] ?? 0) === 0) continue;
    rows.push({ p, name, key: key(p, name) });
  }
  rows.sort((a, b) => {
    const order = a.key < b.key ? -1 : a.key > b.key ? 1 : a.name.localeCompare(b.name);
    return descending ? -order : order;
  });
  return rows.map((r) => r.p);
}

/** Whether two values read from JSON are the same value. */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/**
 * A reloaded list with every project that did not change kept as the object already shown, and
 * the shown list itself when nothing changed: the list is reloaded after every change on disk and
 * right after the first answer (identity), and the dashboard then renders only the rows that changed.
 */
export function keepUnchanged(shown: ProjectSummary[], loaded: ProjectSummary[]): ProjectSummary[] {
  const before = new Map(shown.map((p) => [p.dir, p]));
  let same = shown.length === loaded.length;
  const list = loaded.map((p, i) => {
    const old = before.get(p.dir);
    if (old === undefined || !sameJson(old, p)) {
      same = false;
      return p;
    }
    if (shown[i] !== old) same = false;
    return old;
  });
  return same ? shown : list;
}

interface ProjectsState {
  projects: ProjectSummary[];
  home: string | null;
  homeExists: boolean;
  loaded: boolean;
  error: string | null;
  filter: ProjectFilter;
  sort: ProjectSort;
  descending: boolean;
  /** Read the list now (one read at a time: calls made during one share the one after it). */
  load: () => Promise<void>;
  /** A project's memory changed: read the list again once per burst of changes (`coalescedReads`). */
  onChanged: (outside: boolean) => void;
  setFilter: (patch: Partial<ProjectFilter>) => void;
  setSort: (sort: ProjectSort) => void;
}

export const useProjects = create<ProjectsState>()((set, get) => {
  const reads = coalescedReads<null>(async () => {
    try {
      const list = await call('projects.list', {});
      const { projects, home, homeExists, loaded, error } = get();
      const kept = keepUnchanged(projects, list.projects);
      // Nothing new: no update, so nothing renders again.
      if (kept === projects && home === list.home && homeExists === list.exists && loaded && error === null) return;
      set({ projects: kept, home: list.home, homeExists: list.exists, loaded: true, error: null });
    } catch (error) {
      set({ error: messageOf(error), loaded: true });
    }
  });
  return {
    projects: [],
    home: null,
    homeExists: false,
    loaded: false,
    error: null,
    filter: { text: '', type: 'all', onlyProblems: false, onlyTeam: false },
    sort: 'changed',
    descending: true,
    load: () => reads.now(null),
    onChanged: (outside) => reads.changed(null, outside),
    setFilter(patch) {
      set({ filter: { ...get().filter, ...patch } });
    },
    setSort(sort) {
      const { sort: current, descending } = get();
      set(sort === current ? { descending: !descending } : { sort, descending: sort !== 'name' });
    },
  };
});
