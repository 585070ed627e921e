/**
 * The identity of each project (issue 18; the pure core and the shape are in
 * src/shared/project-identity.ts): its repository's normalised remotes and root commits, read
 * from the repository's files (git-repo-files.ts) where the project is now; what Memdir read
 * there before, once the repository is gone (`<dataDir>/identity/projects.json`); else the
 * paths its sessions ran in. Personal sync keys spaces by `identityKey` of this identity.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ProjectIdentity } from '../../shared/project-identity.js';
import { projectIdentitySchema } from '../../shared/project-identity-schema.js';
import { type KeyExplanation, explainCanonicalKey } from './canonical-key.js';
import { type ReadKind, findRootCommits, gitDirsOf, readRepoConfig, recordReads, resolveHead } from './git-repo-files.js';
import { projectsRoot } from './home.js';
import type { ProjectGroup } from './project-groups.js';
import { changeDataFile, readDataFileNow, statFacts } from './data-file-merge.js';
import { RACY_MS } from './scan-cache.js';
import { isRecord } from '../../shared/is-record.js';

/** What a repository says about itself now. */
export interface RepositoryFacts {
  remotes: string[];
  rootCommits: string[];
  gitDir: string;
  note: string | null;
}

/** Root walks already made, by common dir and HEAD: a history does not change under a commit. */
export type IdentityCache = Map<string, { roots: string[]; problem: string | null }>;

/** The repository facts of a key explanation, or null outside git. `cache` (in memory) and `remembered` (on disk) keep root walks by HEAD. */
export function readRepositoryFacts(explanation: KeyExplanation, cache?: IdentityCache, remembered?: RememberedIdentities): RepositoryFacts | null {
  const dirs = gitDirsOf(explanation);
  if (!dirs) return null;
  const config = readRepoConfig(dirs);
  const notes: string[] = [];
  if (config.remotes.length === 0) notes.push('no remote');
  let roots: string[] = [];
  if (config.reftable) notes.push('its refs are in a reftable, which Memdir does not read: root commit unknown');
  else if (config.shallow) notes.push('a shallow clone: its first commit is not here');
  else {
    const head = resolveHead(dirs, config.hashBytes);
    if (head === null) notes.push('no commit yet');
    else {
      const memoKey = `${dirs.commonDir}\0${head}`;
      const walk = cache?.get(memoKey) ?? remembered?.rootsAt(memoKey) ?? findRootCommits(dirs, head, config.hashBytes);
      cache?.set(memoKey, walk);
      remembered?.rememberRoots(memoKey, walk);
      roots = walk.roots;
      if (walk.problem) notes.push(walk.problem);
    }
  }
  return { remotes: config.remotes, rootCommits: roots, gitDir: dirs.gitDir, note: notes.length > 0 ? `${capitalize(notes.join('; '))}.` : null };
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** The repository facts of any directory (a candidate location, a path the user gives); null outside git or when it is missing. */
export async function readPathFacts(dir: string, cache?: IdentityCache): Promise<{ explanation: KeyExplanation; facts: RepositoryFacts | null } | null> {
  const explanation = await explainCanonicalKey(dir).catch(() => null);
  if (!explanation) return null;
  return { explanation, facts: readRepositoryFacts(explanation, cache) };
}

/** The identity of a path now (a candidate): from its repository, or its path alone. */
export function identityOfPath(explanation: KeyExplanation, facts: RepositoryFacts | null, now: Date = new Date()): ProjectIdentity {
  const paths = [...new Set([explanation.key, explanation.dir])];
  if (!facts) return { source: 'paths', remotes: [], rootCommits: [], paths, gitDir: null, readAt: null, note: 'Not in a git repository.' };
  return {
    source: 'repository',
    remotes: facts.remotes,
    rootCommits: facts.rootCommits,
    paths,
    gitDir: facts.gitDir,
    readAt: now.toISOString(),
    note: facts.note,
  };
}

/** The recorded paths of a project: its key, then the launch directories of its sessions (busiest first). */
export function recordedPaths(group: ProjectGroup): string[] {
  const paths: string[] = [];
  if (group.key) paths.push(group.key);
  for (const l of group.launchFolders) if (l.cwd && path.isAbsolute(l.cwd)) paths.push(l.cwd);
  return [...new Set(paths)];
}

/** A walk from a HEAD to its root commits. */
interface RootWalk {
  roots: string[];
  problem: string | null;
}

/** projects.json as found on disk: its entries unchecked (an entry this version cannot read is still kept when saving). */
interface RawContents {
  projects: Record<string, unknown>;
  roots: Record<string, unknown>;
}

/** How many root walks are kept: the oldest go first (a HEAD long moved on is not asked about again). */
const MAX_ROOT_WALKS = 500;

/**
 * What each projects.json held, by path, at which stat facts: the app scans on every change in
 * the home, and an unchanged file is not read, parsed and checked again. Only facts older than
 * the scan cache's racy window (RACY_MS) are trusted: a second write within the file system's
 * timestamp granularity could leave the same facts.
 */
const readMemo = new Map<string, { facts: string; projects: Record<string, ProjectIdentity>; roots: Record<string, RootWalk> }>();

/** The parts of projects.json, or null when it is damaged (not JSON, or not the shape of one). */
function parseContents(text: string): RawContents | null {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isRecord(raw)) return null;
  const projects = raw.projects ?? {};
  const roots = raw.roots ?? {};
  if (!isRecord(projects) || !isRecord(roots)) return null;
  return { projects, roots };
}

function validProjects(raw: Record<string, unknown>): Record<string, ProjectIdentity> {
  const out: Record<string, ProjectIdentity> = {};
  for (const [key, value] of Object.entries(raw)) {
    const parsed = projectIdentitySchema.safeParse(value);
    if (parsed.success) out[key] = parsed.data;
  }
  return out;
}

function validRoots(raw: Record<string, unknown>): Record<string, RootWalk> {
  const out: Record<string, RootWalk> = {};
  for (const [key, value] of Object.entries(raw)) {
    const walk = value as { roots?: unknown; problem?: unknown } | null;
    if (walk && Array.isArray(walk.roots) && walk.roots.every((r) => typeof r === 'string') && (walk.problem === null || typeof walk.problem === 'string'))
      out[key] = { roots: walk.roots as string[], problem: walk.problem };
  }
  return out;
}

/** Whether `a` was read from its repository later than `b` (an identity never read from one is the oldest). */
function readLater(a: ProjectIdentity, b: ProjectIdentity): boolean {
  const at = (i: ProjectIdentity) => (i.readAt ? Date.parse(i.readAt) : Number.NEGATIVE_INFINITY);
  return at(a) > at(b);
}

/**
 * Identities Memdir read earlier, by project folder (`<home>/projects/<dir>`): what is left when a
 * repository moved away. Several stores may be open on one file at once (the app's scans, a
 * `memdir scan` in a terminal, a relink): each saves only what it remembered, merged into the
 * file as it is at that moment, under the data dir's lock — so no store drops another's entries.
 */
export class RememberedIdentities {
  private data: Record<string, ProjectIdentity> = {};
  /** Root walks by common dir and HEAD (a walk of a long history without a commit-graph takes seconds: once is enough). */
  private roots: Record<string, RootWalk> = {};
  /** What this store remembered since it was opened or last saved: all a save writes. */
  private readonly changedProjects = new Set<string>();
  private readonly changedRoots = new Set<string>();
  private constructor(
    private readonly file: string | null,
    private readonly dataDir: string | null,
  ) {}

  /**
   * `<dataDir>/identity/projects.json`, or an in-memory store without a data dir. A file unchanged
   * since this process last read it is not read again. A damaged file reads as empty; it is kept
   * aside by the next save. `now` is a test seam (the racy window).
   */
  static async open(dataDir: string | undefined, options: { now?: Date } = {}): Promise<RememberedIdentities> {
    const store = new RememberedIdentities(dataDir ? path.join(dataDir, 'identity', 'projects.json') : null, dataDir ?? null);
    if (!store.file) return store;
    const file = store.file;
    try {
      const st = fs.statSync(file, { throwIfNoEntry: false });
      const memo = st ? readMemo.get(file) : undefined;
      if (st && memo && memo.facts === statFacts(st)) {
        store.data = { ...memo.projects };
        store.roots = { ...memo.roots };
        return store;
      }
      readMemo.delete(file);
      const read = st ? await readDataFileNow(file, parseContents) : null;
      if (!read || read.contents === 'damaged') return store;
      const projects = validProjects(read.contents.projects);
      const roots = validRoots(read.contents.roots);
      if (read.changedMs <= (options.now ?? new Date()).getTime() - RACY_MS) readMemo.set(file, { facts: read.facts, projects, roots });
      store.data = { ...projects };
      store.roots = { ...roots };
    } catch {
      // Unreadable: nothing remembered yet (it is only ever a help; a save will not overwrite it).
    }
    return store;
  }

  get(projectDir: string): ProjectIdentity | null {
    return this.data[projectDir] ?? null;
  }

  rootsAt(key: string): RootWalk | undefined {
    return this.roots[key];
  }

  rememberRoots(key: string, walk: RootWalk): void {
    if (this.roots[key]) return;
    this.roots[key] = walk;
    this.changedRoots.add(key);
  }

  remember(projectDir: string, identity: ProjectIdentity): void {
    const before = this.data[projectDir];
    const same = before && JSON.stringify({ ...before, readAt: null }) === JSON.stringify({ ...identity, readAt: null });
    if (same) return;
    this.data[projectDir] = identity;
    this.changedProjects.add(projectDir);
  }

  /**
   * Merge what this store remembered into the file as it is now, under the lock of its folder,
   * atomically (writeDataFile): another store's entries stay; for a project both remembered, the
   * later read from its repository wins. A damaged file is renamed aside (dated), never silently
   * overwritten. Afterwards this store holds the merged whole. Never fails a scan: on an error
   * the changes are kept for the next save.
   */
  async save(now: Date = new Date()): Promise<void> {
    if (!this.file || !this.dataDir || (this.changedProjects.size === 0 && this.changedRoots.size === 0)) return;
    const mine = new Map([...this.changedProjects].map((key) => [key, this.data[key]!]));
    const myRoots = [...this.changedRoots];
    let written: { projects: Record<string, unknown>; roots: Record<string, unknown> };
    try {
      written = await changeDataFile(this.file, (disk: RawContents | null) => this.mergeInto(disk ?? { projects: {}, roots: {} }, mine, myRoots), {
        dataDir: this.dataDir,
        parse: parseContents,
        now,
      });
    } catch {
      // Remembering is a help, never a reason for a scan to fail: the changes stay for the next save.
      return;
    }
    // What was remembered while the file was being written stays to be saved next time.
    for (const [key, identity] of mine) if (this.data[key] === identity) this.changedProjects.delete(key);
    for (const key of myRoots) this.changedRoots.delete(key);
    const pending = Object.fromEntries([...this.changedProjects].map((key) => [key, this.data[key]!]));
    this.data = { ...validProjects(written.projects), ...pending };
    this.roots = { ...validRoots(written.roots), ...Object.fromEntries([...this.changedRoots].map((key) => [key, this.roots[key]!])) };
  }

  /** projects.json as it is now with this store's changes merged in. */
  private mergeInto(disk: RawContents, mine: Map<string, ProjectIdentity>, myRoots: string[]): { version: 1 } & RawContents {
    const projects = { ...disk.projects };
    for (const [key, identity] of mine) {
      const theirs = projectIdentitySchema.safeParse(projects[key]);
      if (!theirs.success) projects[key] = identity;
      else {
        // The later read's facts win; paths only ever accumulate (a relink's path is kept beside a newer scan's read).
        const [winner, other] = readLater(theirs.data, identity) ? [theirs.data, identity] : [identity, theirs.data];
        projects[key] = { ...winner, paths: [...new Set([...winner.paths, ...other.paths])] };
      }
    }
    const roots = { ...disk.roots };
    for (const key of myRoots) if (!(key in roots)) roots[key] = this.roots[key];
    const keys = Object.keys(roots);
    for (const old of keys.slice(0, Math.max(0, keys.length - MAX_ROOT_WALKS))) delete roots[old];
    return { version: 1, projects, roots };
  }
}

/**
 * A project's identity as last read from its repository, with what it was read from: its key's
 * explanation and paths, and every repository file read with its stat facts then. Handed back
 * while all of that is unchanged, so a rescan of an unchanged home stats these files instead of
 * reading and parsing them again (a commit, a new remote, a checkout each rewrite one of them).
 */
export interface IdentityMemo {
  inputs: string;
  witness: [path: string, kind: ReadKind, facts: string][];
  identity: ProjectIdentity;
}
/** Identity memos by project folder (kept by the scan cache for the life of a process). */
export type IdentityMemos = Map<string, IdentityMemo>;

/** What a path looks like now, as far as a read of that kind could tell, and when it last changed (files). */
function factsNow(p: string, kind: ReadKind): { facts: string; changedMs: number } {
  let st: fs.Stats | undefined;
  try {
    st = fs.statSync(p, { throwIfNoEntry: false });
  } catch {
    return { facts: 'unreadable', changedMs: 0 };
  }
  if (!st) return { facts: '-', changedMs: 0 };
  if (kind === 'exists') return { facts: 'exists', changedMs: 0 };
  if (kind === 'dir') return { facts: st.isDirectory() ? 'dir' : 'not a dir', changedMs: 0 };
  if (!st.isFile()) return { facts: 'not a file', changedMs: 0 };
  return { facts: `${st.size}:${st.mtimeMs}:${st.ctimeMs}:${st.ino}`, changedMs: Math.max(st.mtimeMs, st.ctimeMs) };
}

/**
 * The witness of a read just made, or null when a file it read changed too recently to be sure
 * the facts noted now are those of what was read (the scan cache's racy window, RACY_MS).
 */
function witnessOf(reads: Map<string, ReadKind>, now: number): IdentityMemo['witness'] | null {
  const witness: IdentityMemo['witness'] = [];
  for (const [p, kind] of reads) {
    const { facts, changedMs } = factsNow(p, kind);
    if (changedMs > now - RACY_MS) return null;
    witness.push([p, kind, facts]);
  }
  return witness;
}

/** Options of {@link identifyProject}. */
export interface IdentifyOptions {
  cache?: IdentityCache;
  /** Identities read from repositories by earlier scans, reused while nothing they were read from changed. */
  memos?: IdentityMemos;
  remembered?: RememberedIdentities;
  now?: Date;
}

/**
 * The identity of one project: its repository now when its key directory still exists (or,
 * for a memory folder no session names yet — one a relink just filled — the path Memdir
 * remembered for it); else what was remembered (with the paths known since); else its
 * recorded paths.
 */
export async function identifyProject(home: string, group: ProjectGroup, options: IdentifyOptions = {}): Promise<ProjectIdentity> {
  const projectDir = path.join(projectsRoot(home), group.dir);
  const remembered = options.remembered?.get(projectDir) ?? null;
  const paths = [...new Set([...recordedPaths(group), ...(remembered?.paths ?? [])])];
  let explanation: KeyExplanation | null = group.explanation && group.explanation.exists && group.key && fs.existsSync(group.key) ? group.explanation : null;
  const inputs = explanation ? JSON.stringify([explanation, paths]) : null;
  if (inputs !== null) {
    const memo = options.memos?.get(projectDir);
    if (memo && memo.inputs === inputs && memo.witness.every(([p, kind, facts]) => factsNow(p, kind).facts === facts)) {
      options.remembered?.remember(projectDir, memo.identity);
      return memo.identity;
    }
  }
  if (!explanation && group.key === null) {
    const known = remembered?.paths.find((p) => path.isAbsolute(p) && fs.existsSync(p));
    const found = known ? await explainCanonicalKey(known).catch(() => null) : null;
    if (found && found.key === known) explanation = found;
  }
  if (explanation) {
    const known = explanation;
    const { value: facts, reads } = recordReads(() => readRepositoryFacts(known, options.cache, options.remembered));
    if (facts) {
      const identity: ProjectIdentity = {
        source: 'repository',
        remotes: facts.remotes,
        rootCommits: facts.rootCommits,
        paths,
        gitDir: facts.gitDir,
        readAt: (options.now ?? new Date()).toISOString(),
        note: facts.note,
      };
      options.remembered?.remember(projectDir, identity);
      const witness = inputs !== null && options.memos ? witnessOf(reads, (options.now ?? new Date()).getTime()) : null;
      if (witness) options.memos!.set(projectDir, { inputs: inputs!, witness, identity });
      else options.memos?.delete(projectDir);
      return identity;
    }
  }
  if (remembered && remembered.source !== 'paths') return { ...remembered, source: 'remembered', paths };
  const identity: ProjectIdentity = {
    source: 'paths',
    remotes: [],
    rootCommits: [],
    paths,
    gitDir: null,
    readAt: null,
    note: paths.length === 0 ? 'No session names a path for this project.' : null,
  };
  if (paths.length > 0) options.remembered?.remember(projectDir, identity);
  return identity;
}

/** Remember that the memory folder `dir` belongs to the project at `projectPath` (a relink or an import just filled it, before any session ran there). */
export async function rememberProjectPath(home: string, dir: string, projectPath: string, dataDir: string): Promise<void> {
  const store = await RememberedIdentities.open(dataDir);
  const projectDir = path.join(projectsRoot(home), dir);
  const before = store.get(projectDir);
  if (before?.paths.includes(projectPath)) return;
  store.remember(projectDir, {
    ...(before ?? { source: 'paths', remotes: [], rootCommits: [], gitDir: null, readAt: null, note: null }),
    paths: [projectPath, ...(before?.paths ?? [])],
  });
  await store.save();
}
