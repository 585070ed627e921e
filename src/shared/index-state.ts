/**
 * Whether a memory reaches the agent (R-INDEX, R-TEAM, R-HEALTH): the one rule for "listed",
 * "loaded" and "past the cut", for the scan's orphans and cut counts, `memdir show`, the app's
 * list and Health alike.
 *
 * - **Listed by any link.** Claude Code does not read pointers: it sends the index's text whole
 *   (up to its cut), so the agent sees every link on a line it gets — a canonical pointer, a
 *   `- See [T](f.md)` line, a cross-reference in another pointer's hook. A memory any such link
 *   names is listed; the first link of a line only decides repeated pointers (index-format.ts).
 * - **Team memories through MEMORY.md only.** Claude Code 2.1.332 sends the agent MEMORY.md's
 *   text and nothing of `team/MEMORY.md` (test/fidelity/team-index.test.ts, recorded from the
 *   client): a team memory reaches the agent when a `team/x.md` link is on a loaded line of the
 *   main `MEMORY.md`, is past the cut when all such links are below its cut, and is unlisted
 *   otherwise — listed in `team/MEMORY.md` or not. team/MEMORY.md stays a file the team shares;
 *   its lines load nothing and its size cuts nothing.
 */
import { indexLinks, type ParsedIndex } from './index-format.js';
import { type IndexLoad, lineFate } from './index-load.js';
import { INDEX_FILE, TEAM_DIR } from './limits.js';
import type { MemoryDirScan, ProjectScan } from './scan-types.js';

/** The team memory a link of the main MEMORY.md names (`team/x.md` → `x.md`), or null for any other link. */
export function teamFileOfMainLink(file: string): string | null {
  return file.startsWith(`${TEAM_DIR}/`) ? file.slice(TEAM_DIR.length + 1) : null;
}

/** The files an index's links name, by whether their line reaches the agent or lies past the cut (each list in index order, repeats kept). */
export interface IndexReach {
  loaded: readonly string[];
  cut: readonly string[];
}

export const NO_REACH: IndexReach = { loaded: [], cut: [] };

/**
 * Every link to a `.md` file on the index's lines (any link, see the file comment), split by its
 * line's fate: lines Claude Code strips before the cut (frontmatter, comment blocks) are in neither.
 */
export function indexReachOf(index: ParsedIndex, load: IndexLoad): IndexReach {
  const loaded: string[] = [];
  const cut: string[] = [];
  for (const link of indexLinks(index)) {
    const fate = lineFate(load, link.line);
    if (fate === 'loaded') loaded.push(link.file);
    else if (fate === 'cut') cut.push(link.file);
  }
  return { loaded, cut };
}

/** The team files (relative to `team/`) the main index's reach names (`team/x.md`). */
export function teamReachOf(reach: IndexReach): IndexReach {
  const team = (files: readonly string[]) => files.map(teamFileOfMainLink).filter((f) => f !== null);
  return { loaded: team(reach.loaded), cut: team(reach.cut) };
}

/** Why team/MEMORY.md reaches no one: the one sentence the MEMORY.md tab and Health show for it. */
export const TEAM_INDEX_NOT_LOADED = `Claude Code 2.1.332 does not load ${TEAM_DIR}/${INDEX_FILE}: a team memory reaches the agent at session start only through a ${TEAM_DIR}/x.md pointer in ${INDEX_FILE}.`;

/**
 * Loaded (it reaches the agent), cut (every link to it is past a cut), unlisted (no link that
 * loads), or no-index: Claude Code syncs the project's memory with its stores and then loads no
 * index at all (the scan's `no-index-loaded` hint, health.ts): no pointer would bring it.
 */
export type IndexState = 'loaded' | 'cut' | 'unlisted' | 'no-index';

/** Whether the directory's index exists but could not be read: the agent starts without it, so nothing of it is listed. */
function indexUnreadable(dir: Pick<MemoryDirScan, 'index' | 'problems'>): boolean {
  return dir.index.exists && dir.problems.some((p) => p.file === INDEX_FILE && p.line === null && (p.code === 'unreadable' || p.code === 'unsafe-link'));
}

/**
 * The index state of every memory of a project, by scope and file, read from the scan's own
 * verdicts: past the cut when its directory's `cutMemories` has it, unlisted when Health calls it
 * an orphan (or, for a private memory, MEMORY.md cannot be read; a team memory is then an orphan
 * already, as no link of MEMORY.md is read), else loaded. So the list never disagrees with the counts or lint.
 */
export function indexStatesOf(scan: Pick<ProjectScan, 'index' | 'problems' | 'team'>): (memory: { scope: 'private' | 'team'; file: string }) => IndexState {
  const verdicts = (dir: Pick<MemoryDirScan, 'index' | 'problems'> | null) => ({
    cut: new Set(dir?.index.cutMemories ?? []),
    orphans: new Set((dir?.problems ?? []).flatMap((p) => (p.code === 'orphan' && p.file !== null ? [p.file] : []))),
  });
  const of = { private: verdicts(scan), team: verdicts(scan.team) };
  const unreadable = indexUnreadable(scan);
  if (scan.problems.some((p) => p.code === 'no-index-loaded')) return () => 'no-index';
  return ({ scope, file }) => {
    const v = of[scope];
    if (v.cut.has(file)) return 'cut';
    if (v.orphans.has(file) || (scope === 'private' && unreadable)) return 'unlisted';
    return 'loaded';
  };
}

/**
 * Each memory's place in the index order, or null when no pointer of MEMORY.md names it: the
 * pointers that reach the agent first, as they come (a `team/x.md` link places that team memory),
 * then those past the cut. A memory named twice takes its first place; team/MEMORY.md, which the
 * agent never gets, places nothing. The list's "Index order", so that it follows a reorder of the index.
 */
export function indexOrderOf(scan: Pick<ProjectScan, 'index'>): (memory: { scope: 'private' | 'team'; file: string }) => number | null {
  const order = new Map<string, number>();
  const place = (scope: 'private' | 'team', file: string) => {
    const key = `${scope}/${file}`;
    if (!order.has(key)) order.set(key, order.size);
  };
  const fromMain = (files: readonly string[]) => {
    for (const file of files) {
      const team = teamFileOfMainLink(file);
      if (team === null) place('private', file);
      else place('team', team);
    }
  };
  fromMain(scan.index.loaded);
  fromMain(scan.index.cut);
  return ({ scope, file }) => order.get(`${scope}/${file}`) ?? null;
}
