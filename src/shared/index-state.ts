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
