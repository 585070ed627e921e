/**
 * Whether a memory reaches the agent (R-INDEX, R-TEAM, R-HEALTH): the one rule for "listed",
 * "loaded" and "past the cut", for the scan's orphans and cut counts, `memdir show`, the app's
 * list and Health alike.
 *
 * - **Listed by any link.** Claude Code does not read pointers: it sends the index's text whole
 *   (up to its cut), so the agent sees every link on a line it gets — a canonical pointer, a
 *   `- See [T](f.md)` line, a cross-reference in another pointer's hook. A memory any such link
 *   names is listed; the first link of a line only decides repeated pointers (index-format.ts).
 * - **Team memories through either index.** A team memory is listed by `- [T](x.md)` in
 *   `team/MEMORY.md` or by `- [T](team/x.md)` in the main `MEMORY.md`; it reaches the agent when
 *   any of those links is on a loaded line, and is past the cut when all of them are below a cut.
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

/**
 * The team files the main index points at, as a project's scan summary holds them: its pointers
 * (`index.loaded`, `index.cut`), not the cross-references the summary does not keep. For what the
 * app works out from an index's text (a draft of team/MEMORY.md) beside the scan.
 */
export function mainTeamPointersOf(scan: Pick<ProjectScan, 'index'>): IndexReach {
  return teamReachOf({ loaded: scan.index.loaded, cut: scan.index.cut });
}

/** Loaded (it reaches the agent), cut (every link to it is past a cut) or unlisted (no link). */
export type IndexState = 'loaded' | 'cut' | 'unlisted';

/** Whether the directory's index exists but could not be read: the agent starts without it, so nothing of it is listed. */
function indexUnreadable(dir: Pick<MemoryDirScan, 'index' | 'problems'>): boolean {
  return dir.index.exists && dir.problems.some((p) => p.file === INDEX_FILE && p.line === null && (p.code === 'unreadable' || p.code === 'unsafe-link'));
}

/**
 * The index state of every memory of a project, by scope and file, read from the scan's own
 * verdicts: past the cut when its directory's `cutMemories` has it, unlisted when Health calls it
 * an orphan (or its index cannot be read), else loaded. So the list never disagrees with the counts or lint.
 */
export function indexStatesOf(scan: Pick<ProjectScan, 'index' | 'problems' | 'team'>): (memory: { scope: 'private' | 'team'; file: string }) => IndexState {
  const verdicts = (dir: Pick<MemoryDirScan, 'index' | 'problems'> | null) => ({
    cut: new Set(dir?.index.cutMemories ?? []),
    orphans: new Set((dir?.problems ?? []).flatMap((p) => (p.code === 'orphan' && p.file !== null ? [p.file] : []))),
    unreadable: dir !== null && indexUnreadable(dir),
  });
  const of = { private: verdicts(scan), team: verdicts(scan.team) };
  // A team index that cannot be read leaves the main index's pointers to team files.
  const teamFromMain = new Set(of.private.unreadable ? [] : mainTeamPointersOf(scan).loaded);
  return ({ scope, file }) => {
    const v = of[scope];
    if (v.cut.has(file)) return 'cut';
    if (v.orphans.has(file)) return 'unlisted';
    if (v.unreadable && !(scope === 'team' && teamFromMain.has(file))) return 'unlisted';
    return 'loaded';
  };
}

/**
 * Each memory's place in the index order, or null when no pointer names it: the pointers that
 * reach the agent first — the main MEMORY.md's as they come (a `team/x.md` link places that team
 * memory), then team/MEMORY.md's — then those past the cut, in the same way. A memory named twice
 * takes its first place. The list's "Index order", so that it follows a reorder of the index.
 */
export function indexOrderOf(scan: Pick<ProjectScan, 'index' | 'team'>): (memory: { scope: 'private' | 'team'; file: string }) => number | null {
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
  for (const file of scan.team?.index.loaded ?? []) place('team', file);
  fromMain(scan.index.cut);
  for (const file of scan.team?.index.cut ?? []) place('team', file);
  return ({ scope, file }) => order.get(`${scope}/${file}`) ?? null;
}
