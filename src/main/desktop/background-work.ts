/**
 * What Memdir does only while it runs — extraction after each Claude Code turn, Session Memory
 * notes, automatic dreams, team sync — said in words. The desktop app stays in the tray when its
 * window closes while any of it is on (and quits when none is), and Settings says so.
 */
import { loadAppSettings } from '../settings/index.js';
import type { HomeScan } from '../../shared/scan-types.js';

/** The facts the sentences are made from. */
export interface BackgroundFacts {
  /** Memdir's extraction after each turn is on (Settings → Extraction). */
  extraction: boolean;
  /** Session Memory notes are kept. */
  sessionNotes: boolean;
  /** Projects whose gates Memdir's scheduler checks (auto memory and autoDreamEnabled on). */
  dreamingProjects: number;
  /** Projects whose team memory is connected to a sync server. */
  syncedProjects: number;
}

const projects = (n: number) => `${n} project${n === 1 ? '' : 's'}`;

/** One phrase per kind of background work that is on; empty when there is none. */
export function describeBackgroundWork(facts: BackgroundFacts): string[] {
  const work: string[] = [];
  if (facts.extraction) work.push('extracting memories after each Claude Code turn');
  if (facts.sessionNotes) work.push('keeping Session Memory notes of live sessions');
  if (facts.dreamingProjects > 0) work.push(`automatic dreams in ${projects(facts.dreamingProjects)}`);
  if (facts.syncedProjects > 0) work.push(`team sync of ${projects(facts.syncedProjects)}`);
  return work;
}

/** What `backgroundWork` reads of the running app (its AppContext): settings, the home's projects, the team connections. */
export interface BackgroundWorkSource {
  readonly dataDir: string;
  homeExists(): boolean;
  scanHome(): Promise<HomeScan>;
  readonly team: { readonly connections: { list(): Promise<readonly unknown[]> } };
}

/** The background work of this app now. */
export async function backgroundWork(ctx: BackgroundWorkSource): Promise<string[]> {
  const [{ settings }, scan, connections] = await Promise.all([
    loadAppSettings(ctx.dataDir),
    ctx.homeExists() ? ctx.scanHome() : Promise.resolve(null),
    ctx.team.connections.list().catch(() => []),
  ]);
  return describeBackgroundWork({
    extraction: settings.extraction.enabled,
    sessionNotes: settings.session.enabled,
    dreamingProjects: scan?.projects.filter((p) => p.settings.autoMemoryEnabled && p.settings.autoDreamEnabled).length ?? 0,
    syncedProjects: connections.length,
  });
}
