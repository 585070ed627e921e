/**
 * Scan the agent home (R-HOME, R-LAYOUT): every project under `projects/`, its memory dir (moved
 * by `autoMemoryDirectory` where the user's or local settings say so), its team dir, its real
 * path from transcripts. A missing home scans as empty; nothing here throws on a bad file.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { HomeScan, ProjectScan } from '../../shared/scan-types.js';
import { listProjectDirs, projectRealPath } from './projects.js';
import { ScanCache, scanMemoryDir, teamDirOf, teamFilesLinkedFrom } from './scan-dir.js';
import { type SettingsCache, readEffectiveSettings } from './settings.js';
import { projectsRoot } from './home.js';

export interface ScanHomeOptions {
  cache?: HomeScanCache;
  env?: NodeJS.ProcessEnv;
}

/** Per-home memo: file facts plus each project's real path once found and its transcript count. */
export class HomeScanCache extends ScanCache {
  readonly realPaths = new Map<string, { transcripts: number; path: string | null }>();
  readonly settings: SettingsCache = new Map();
  /** Transcript count per project dir, valid while the dir's own stat facts are unchanged. */
  readonly transcriptCounts = new Map<string, { mtimeMs: number; ctimeMs: number; ino: number; count: number }>();
}

/**
 * How many transcripts a project has. A file added, removed or renamed changes its directory's
 * mtime, so an unchanged directory keeps its count: one `stat` instead of a listing.
 */
function countTranscripts(projectDir: string, cache: HomeScanCache | undefined): number {
  try {
    const st = cache ? fs.statSync(projectDir, { throwIfNoEntry: false }) : undefined;
    const known = st ? cache?.transcriptCounts.get(projectDir) : undefined;
    if (st && known && known.mtimeMs === st.mtimeMs && known.ctimeMs === st.ctimeMs && known.ino === st.ino) return known.count;
    const count = fs.readdirSync(projectDir).filter((n) => n.endsWith('.jsonl')).length;
    if (st) cache?.transcriptCounts.set(projectDir, { mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino, count });
    return count;
  } catch {
    return 0;
  }
}

/** Scan one project directory under `projects/`. */
export async function scanProject(home: string, dir: string, options: ScanHomeOptions = {}): Promise<ProjectScan> {
  const projectDir = path.join(projectsRoot(home), dir);
  const cache = options.cache;
  const transcripts = countTranscripts(projectDir, cache);
  let realPath: string | null;
  const known = cache?.realPaths.get(projectDir);
  if (known && (known.path !== null || known.transcripts === transcripts)) realPath = known.path;
  else {
    realPath = transcripts > 0 ? await projectRealPath(projectDir) : null;
    cache?.realPaths.set(projectDir, { transcripts, path: realPath });
  }
  const settings = await readEffectiveSettings(home, realPath, options.env, cache?.settings);
  const memoryDir = settings.autoMemoryDirectory ?? path.join(projectDir, 'memory');
  const own = scanMemoryDir(memoryDir, { scope: 'private', ...(cache ? { cache } : {}) });
  const team = scanMemoryDir(teamDirOf(memoryDir), { scope: 'team', linkedFromParent: () => teamFilesLinkedFrom(memoryDir, cache), ...(cache ? { cache } : {}) });
  return { ...own, dir, path: realPath, team: team.exists ? team : null, transcripts, settings };
}

/** Scan every project in the home. */
export async function scanHome(home: string, options: ScanHomeOptions = {}): Promise<HomeScan> {
  if (!fs.existsSync(home)) return { home, exists: false, projects: [] };
  const dirs = await listProjectDirs(home);
  const projects: ProjectScan[] = [];
  for (const dir of dirs) {
    projects.push(await scanProject(home, dir, options));
    // Reads inside a project are synchronous (see read-file.ts); let other work run between.
    await new Promise((resolve) => setImmediate(resolve));
  }
  return { home, exists: true, projects };
}
