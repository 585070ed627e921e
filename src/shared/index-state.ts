/**
 * Whether a memory's pointer reaches the agent (R-INDEX, R-TEAM): the agent reads the main
 * `MEMORY.md` and the team's own `team/MEMORY.md`, so a team memory is listed by a pointer in
 * either — `- [T](x.md)` in team/MEMORY.md or `- [T](team/x.md)` in MEMORY.md. The one rule for
 * the scan's orphan check, `memdir show` and the app's list.
 */
import { TEAM_DIR } from './limits.js';
import type { ProjectScan } from './scan-types.js';

/** The team memory a link of the main MEMORY.md names (`team/x.md` → `x.md`), or null for any other link. */
export function teamFileOfMainLink(file: string): string | null {
  return file.startsWith(`${TEAM_DIR}/`) ? file.slice(TEAM_DIR.length + 1) : null;
}

/** Loaded (the pointer reaches the agent), cut (past the limit) or unlisted (no pointer). */
export type IndexState = 'loaded' | 'cut' | 'unlisted';

/** The index state of every memory of a project, by scope and file (see the file comment). */
export function indexStatesOf(scan: Pick<ProjectScan, 'index' | 'team'>): (memory: { scope: 'private' | 'team'; file: string }) => IndexState {
  const fromMain = (files: readonly string[]) => files.map(teamFileOfMainLink).filter((f) => f !== null);
  const loaded = { private: new Set(scan.index.loaded), team: new Set([...(scan.team?.index.loaded ?? []), ...fromMain(scan.index.loaded)]) };
  const cut = { private: new Set(scan.index.cut), team: new Set([...(scan.team?.index.cut ?? []), ...fromMain(scan.index.cut)]) };
  return ({ scope, file }) => (loaded[scope].has(file) ? 'loaded' : cut[scope].has(file) ? 'cut' : 'unlisted');
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
