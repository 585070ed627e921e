/**
 * Orphans (issue 18, item 2): a memory directory whose recorded project paths no longer exist —
 * the project was renamed, moved or re-cloned, and Claude Code, keying memory by path (R-KEY,
 * R-SANITIZE), now reads another, empty folder. Where the project went is looked for among the
 * projects other sessions ran in (their transcripts), the workspace folders the user lists in
 * Settings and any folder the user gives (each scanned shallowly, bounded), and matched by
 * identity: the same remote, the same root commit, the same folder name.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Orphan, OrphanCandidate, OrphanReport } from '../../shared/contract/identity.js';
import { type IdentityEvidence, type ProjectIdentity, baseNameOf, compareIdentities } from '../../shared/project-identity.js';
import { SANITIZED_MAX_LENGTH } from '../../shared/limits.js';
import { sanitizeDirName } from '../../shared/sanitize.js';
import type { ProjectScan } from '../../shared/scan-types.js';
import { type IdentityCache, identityOfPath, locateProject, readPathFacts, scanHome } from '../memdir/index.js';

/** A workspace is looked into this deep (the folder, its children, their children). */
export const WORKSPACE_DEPTH = 2;
/** At most this many folders are looked at per workspace. */
export const WORKSPACE_MAX_FOLDERS = 2_000;
/** Folders never worth looking into for a project. */
const SKIPPED = new Set(['node_modules', '.git', '.cache', 'Library', 'AppData', 'venv', '.venv', 'target', 'dist', 'build']);

function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** Whether any of a project's recorded paths still exists. */
export function anyPathExists(paths: readonly string[]): boolean {
  return paths.some((p) => path.isAbsolute(p) && isDirectory(p));
}

/**
 * Existing directories whose sanitised path (R-SANITIZE) is `name`: how a memory folder whose
 * transcripts are gone (Claude Code deletes old ones) is found to be in use. A walk from `/`
 * that only enters folders whose name fits the rest of `name`, bounded. POSIX paths only; names
 * cut and hashed (over 200 characters) cannot be walked back: null, as when the walk ran out of
 * reads before it could tell.
 */
export function pathsForDirName(name: string, maxReads = 500): string[] | null {
  if (process.platform === 'win32' || !name.startsWith('-') || name.length > SANITIZED_MAX_LENGTH) return null;
  const found: string[] = [];
  const stack: { dir: string; rest: string }[] = [{ dir: '/', rest: name.slice(1) }];
  let reads = 0;
  while (stack.length > 0 && reads < maxReads) {
    const { dir, rest } = stack.pop()!;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
      reads++;
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (!entry.isDirectory() && !entry.isSymbolicLink()) continue;
      const part = sanitizeDirName(entry.name);
      const full = path.join(dir, entry.name);
      if (part === rest) {
        if (isDirectory(full)) found.push(full);
      } else if (rest.startsWith(`${part}-`)) stack.push({ dir: full, rest: rest.slice(part.length + 1) });
    }
  }
  return found.length === 0 && stack.length > 0 ? null : found;
}

/** Folders under `root` (itself included) that may be a project: those holding `.git`, and `root` itself. Bounded. */
export function shallowProjects(root: string, depth = WORKSPACE_DEPTH, maxFolders = WORKSPACE_MAX_FOLDERS): { found: string[]; looked: number } {
  const found: string[] = [];
  let looked = 0;
  const walk = (dir: string, level: number): void => {
    if (looked >= maxFolders) return;
    looked++;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    if (level === 0 || entries.some((e) => e.name === '.git')) found.push(dir);
    if (level >= depth) return;
    for (const entry of entries) {
      if (!entry.isDirectory() || entry.name.startsWith('.') || SKIPPED.has(entry.name)) continue;
      walk(path.join(dir, entry.name), level + 1);
    }
  };
  if (isDirectory(root)) walk(root, 0);
  return { found, looked };
}

/** Options of {@link findOrphans}. */
export interface FindOrphansOptions {
  dataDir: string;
  env?: NodeJS.ProcessEnv;
  /** Workspace folders from Settings. */
  workspaces?: readonly string[];
  /** Folders the user gives. */
  lookIn?: readonly string[];
  /** A scan already made with the same data dir. */
  scan?: ProjectScan[];
}

interface Place {
  path: string;
  identity: ProjectIdentity;
  origin: OrphanCandidate['origin'];
}

const STRENGTH: Record<IdentityEvidence, number> = { 'same-remote': 4, 'same-root-commit': 4, 'same-name': 1 };

/** The evidence an orphan and a place share; an orphan whose paths are unknown is compared by its folder name. */
function evidenceFor(orphan: ProjectScan, place: Place): IdentityEvidence[] {
  const evidence = compareIdentities(orphan.identity, place.identity);
  if (orphan.identity.paths.length === 0 && !evidence.includes('same-name')) {
    const name = sanitizeDirName(baseNameOf(place.path));
    if (/[A-Za-z0-9]/.test(name) && orphan.dir.endsWith(`-${name}`)) evidence.push('same-name');
  }
  return evidence;
}

/** Whether a scanned project is an orphan: it holds memories, and no path recorded for it exists. */
export function isOrphan(project: ProjectScan): boolean {
  const memories = project.memories.length + (project.team?.memories.length ?? 0);
  if (memories === 0 && !project.index.exists) return false;
  if (project.identity.paths.length > 0) return !anyPathExists(project.identity.paths);
  // No path recorded anywhere: an orphan only when it is certain no existing folder has its name.
  return pathsForDirName(project.dir)?.length === 0;
}

/** Every orphan in the home, with candidate new locations (see the module comment). */
export async function findOrphans(home: string, options: FindOrphansOptions): Promise<OrphanReport> {
  const projects = options.scan ?? (await scanHome(home, { dataDir: options.dataDir, ...(options.env ? { env: options.env } : {}) })).projects;
  const orphans = projects.filter(isOrphan);
  const searched = { workspaces: [...(options.workspaces ?? [])], given: [...(options.lookIn ?? [])], folders: 0 };
  if (orphans.length === 0) return { orphans: [], searched };

  const places = new Map<string, Place>();
  // 1. Projects other sessions ran in, where they still are.
  for (const p of projects) {
    if (p.path && !orphans.includes(p) && isDirectory(p.path)) places.set(p.path, { path: p.path, identity: p.identity, origin: 'transcripts' });
  }
  // 2. and 3. Workspaces and folders the user gives, shallowly.
  const cache: IdentityCache = new Map();
  const lookInto = async (roots: readonly string[], origin: Place['origin']) => {
    for (const root of roots) {
      const { found, looked } = shallowProjects(path.resolve(root));
      searched.folders += looked;
      for (const dir of found) {
        const read = await readPathFacts(dir, cache);
        if (!read || places.has(read.explanation.key)) continue;
        // A folder inside a repository stands for that repository (its key), as Claude Code would key it.
        places.set(read.explanation.key, { path: read.explanation.key, identity: identityOfPath(read.explanation, read.facts), origin });
      }
    }
  };
  await lookInto(options.lookIn ?? [], 'given');
  await lookInto(options.workspaces ?? [], 'workspace');

  const out: Orphan[] = [];
  const memoryCounts = new Map(projects.map((p) => [p.dir, p.memories.length + (p.team?.memories.length ?? 0)]));
  for (const orphan of orphans) {
    const candidates: OrphanCandidate[] = [];
    for (const place of places.values()) {
      const evidence = evidenceFor(orphan, place);
      if (evidence.length === 0) continue;
      const loc = await locateProject(home, place.path, options.env ?? process.env).catch(() => null);
      if (!loc || loc.dir === orphan.dir) continue;
      candidates.push({
        path: place.path,
        evidence,
        origin: place.origin,
        dir: loc.dir,
        memoryDir: loc.memoryDir,
        memories: memoryCounts.get(loc.dir) ?? 0,
        claimedBy: [],
      });
    }
    const score = (c: OrphanCandidate) => c.evidence.reduce((n, e) => n + STRENGTH[e], 0);
    candidates.sort((a, b) => score(b) - score(a) || a.path.localeCompare(b.path));
    const transcriptsMs = Math.max(0, ...orphan.launchDirs.map((l) => folderMtime(home, l.folder)));
    const last = Math.max(orphan.lastChangeMs ?? 0, orphan.team?.lastChangeMs ?? 0, transcriptsMs);
    out.push({
      dir: orphan.dir,
      memoryDir: orphan.memoryDir,
      paths: orphan.identity.paths,
      identity: orphan.identity,
      memories: {
        private: orphan.memories.length,
        team: orphan.team?.memories.length ?? 0,
        files: [...orphan.memories.map((m) => m.file), ...(orphan.team?.memories.map((m) => `team/${m.file}`) ?? [])],
      },
      lastActivityMs: last > 0 ? last : null,
      candidates,
    });
  }
  // Two orphans claiming the same new place: each is told of the other (R: "two orphans claiming the same new path").
  for (const o of out) {
    for (const c of o.candidates)
      c.claimedBy = out.filter((other) => other !== o && other.candidates.some((x) => x.path === c.path && strong(x))).map((other) => other.dir);
  }
  return { orphans: out, searched };
}

function strong(c: OrphanCandidate): boolean {
  return c.evidence.includes('same-remote') || c.evidence.includes('same-root-commit');
}

function folderMtime(home: string, folder: string): number {
  try {
    const dir = path.join(home, 'projects', folder);
    let newest = 0;
    for (const name of fs.readdirSync(dir)) {
      if (!name.endsWith('.jsonl')) continue;
      const st = fs.statSync(path.join(dir, name), { throwIfNoEntry: false });
      if (st && st.mtimeMs > newest) newest = st.mtimeMs;
    }
    return newest;
  } catch {
    return 0;
  }
}
