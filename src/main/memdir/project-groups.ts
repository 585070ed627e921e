/**
 * R-LAYOUT: which folders under `<home>/projects/` make one project. Claude Code names a
 * session's transcript folder after its **launch directory** (`sanitize(cwd)`) and the memory
 * folder after the **canonical key** (R-KEY) of that directory: a session started in a
 * subdirectory or a linked worktree writes `…-sub/<session>.jsonl` while it reads
 * `…-repo/memory/`. So every transcript folder is grouped under the key of its `cwd`; it is
 * never a project of its own — unless the cwd names another folder (a moved or copied project,
 * see isLaunchDirOf): Claude Code goes by the folder, so its transcripts stay there. A folder holding a `memory/` directory is still listed, even when
 * its own sessions read another one (older tools wrote there): then `readInstead` says which.
 */
import fs from 'node:fs';
import path from 'node:path';
import { SANITIZED_MAX_LENGTH } from '../../shared/limits.js';
import { dirNameMatchesKey, sanitizeDirName } from '../../shared/sanitize.js';
import { type KeyExplanation, type KeyWalkMemo, explainCanonicalKey, newKeyWalkMemo } from './canonical-key.js';
import { projectsRoot } from './home.js';
import { listProjectDirs, readLaunchDir } from './projects.js';

/** A transcript folder under `projects/` and the directory its sessions were launched in. */
export interface LaunchFolder {
  /** The folder's name under `projects/`. */
  folder: string;
  /** `<home>/projects/<folder>`. */
  folderPath: string;
  /** The `cwd` its newest transcripts record; null when none does, or when it names another folder (see isLaunchDirOf). */
  cwd: string | null;
  /** Session transcripts (`*.jsonl`) directly in it. */
  transcripts: number;
  /** How its launch directory keys (R-KEY), computed once per grouping; null without a usable cwd. */
  explanation: KeyExplanation | null;
}

/** One project: a memory folder and the transcript folders of the sessions that read it. */
export interface ProjectGroup {
  /** The memory folder's name under `projects/` (it may not exist yet). */
  dir: string;
  /** The canonical key, or null when unknown (a folder with memory but no transcript naming it). */
  key: string | null;
  /** How the key was chosen (from the newest launch directory's walk-up), when known. */
  explanation: KeyExplanation | null;
  /** Transcript folders whose sessions read this project's memory, most transcripts first. */
  launchFolders: LaunchFolder[];
  /** Whether `projects/<dir>` exists. */
  folderExists: boolean;
  /** For a folder whose own sessions read another memory folder: that folder's name. */
  readInstead: string | null;
}

interface CachedFolder {
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  transcripts: number;
  cwd: string | null;
  hasMemory: boolean;
}

/** Per-home memo of transcript folders, valid while a folder's own stat facts are unchanged. */
export type GroupCache = Map<string, CachedFolder>;

/**
 * A folder's transcripts, launch directory and whether it has a `memory/` dir. A transcript
 * added, removed or renamed (or `memory/` created) changes the folder's mtime, so an unchanged
 * folder costs one `stat`.
 */
async function readFolder(folderPath: string, cache: GroupCache | undefined): Promise<Omit<CachedFolder, 'mtimeMs' | 'ctimeMs' | 'ino'>> {
  let st: fs.Stats | undefined;
  try {
    st = fs.statSync(folderPath, { throwIfNoEntry: false });
  } catch {
    st = undefined;
  }
  const known = st ? cache?.get(folderPath) : undefined;
  if (st && known && known.mtimeMs === st.mtimeMs && known.ctimeMs === st.ctimeMs && known.ino === st.ino) return known;
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(folderPath, { withFileTypes: true });
  } catch {
    entries = [];
  }
  let transcripts = 0;
  let hasMemory = false;
  for (const entry of entries) {
    if (entry.name.endsWith('.jsonl')) transcripts++;
    else if (entry.name === 'memory') hasMemory = true;
  }
  const cwd = transcripts > 0 ? await readLaunchDir(folderPath, entries) : null;
  const facts = { transcripts, cwd, hasMemory };
  if (st) cache?.set(folderPath, { mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino, ...facts });
  return facts;
}

/** The existing folder name for `key` (long names match on their 200-character prefix, R-SANITIZE), else its computed name. */
export function dirNameForKey(key: string, existing: readonly string[]): string {
  const wanted = sanitizeDirName(key);
  if (wanted.length <= SANITIZED_MAX_LENGTH || existing.includes(wanted)) return wanted;
  return existing.find((name) => dirNameMatchesKey(name, key)) ?? wanted;
}

/**
 * The canonical key of a launch directory. A directory deleted since is keyed from its nearest
 * existing parent; a path that is not absolute here (a home copied from another OS) is its own key.
 * `memo`: what the walks up of the same pass found (see KeyWalkMemo).
 */
export async function keyOfLaunchDir(cwd: string, memo?: KeyWalkMemo): Promise<KeyExplanation | null> {
  if (!path.isAbsolute(cwd)) return null;
  return explainCanonicalKey(cwd, { missingOk: true, ...(memo ? { memo } : {}) }).catch(() => null);
}

/**
 * Whether the `cwd` a transcript folder's sessions record is where they were launched: it names
 * this folder (R-SANITIZE: Claude Code 2.1.332 writes a session into the folder of its launch
 * directory), or its key (`keyDir`) does (the folder of the repository a subdirectory session
 * reads, as older tools wrote). A cwd that names another folder was recorded elsewhere: the
 * project was moved or renamed, or its transcripts copied from another machine. Claude Code goes
 * by the folder, not the recorded cwd (a session launched in the directory the folder is named
 * after counts these for its dream gate and resumes them), so such a folder has no known launch
 * directory and its transcripts stay with it — the one rule the dream gate, extraction and the
 * version line share through `ProjectLocation.transcriptDirs`.
 */
export function isLaunchDirOf(folder: string, cwd: string, keyDir: string): boolean {
  return keyDir === folder || dirNameMatchesKey(folder, cwd);
}

/** Every project of a home (see the module comment), sorted by memory folder name. */
export async function groupProjects(home: string, cache?: GroupCache): Promise<ProjectGroup[]> {
  const root = projectsRoot(home);
  const names = await listProjectDirs(home);
  const groups = new Map<string, ProjectGroup>();
  const group = (dir: string): ProjectGroup => {
    let g = groups.get(dir);
    if (!g) {
      g = { dir, key: null, explanation: null, launchFolders: [], folderExists: names.includes(dir), readInstead: null };
      groups.set(dir, g);
    }
    return g;
  };
  const memoryFolders: string[] = [];
  const keyed = new Map<string, string>();
  // The launch directories of a home share their parents: each is looked up once per grouping.
  const memo = newKeyWalkMemo();
  for (const folder of names) {
    const folderPath = path.join(root, folder);
    const facts = await readFolder(folderPath, cache);
    if (facts.hasMemory) memoryFolders.push(folder);
    const cwd = facts.cwd;
    const explanation = cwd === null ? null : await keyOfLaunchDir(cwd, memo);
    const key = explanation?.key ?? cwd;
    const dir = key === null ? null : dirNameForKey(key, names);
    if (cwd === null || dir === null || !isLaunchDirOf(folder, cwd, dir)) {
      // Transcripts that name no launch directory, or one of another folder (moved, copied), stay with their own folder.
      if (facts.transcripts > 0) group(folder).launchFolders.push({ folder, folderPath, cwd: null, transcripts: facts.transcripts, explanation: null });
      continue;
    }
    keyed.set(folder, dir);
    const g = group(dir);
    g.launchFolders.push({ folder, folderPath, cwd, transcripts: facts.transcripts, explanation });
    // The key a project shows is the one its own launch directory gives, else any session's.
    if (g.key === null || folder === dir) {
      g.key = key;
      g.explanation = explanation;
    }
  }
  // Memory without a session that reads it: still a project (its memories are real files).
  for (const folder of memoryFolders) {
    const g = group(folder);
    const elsewhere = keyed.get(folder);
    if (elsewhere !== undefined && elsewhere !== folder) g.readInstead = elsewhere;
  }
  // Folders with neither transcripts nor memory (empty, or only sub-agent folders) stay listed as before.
  for (const folder of names) if (!keyed.has(folder) && !groups.has(folder)) group(folder);
  for (const g of groups.values()) g.launchFolders.sort((a, b) => b.transcripts - a.transcripts || a.folder.localeCompare(b.folder));
  return [...groups.values()].sort((a, b) => (a.dir < b.dir ? -1 : a.dir > b.dir ? 1 : 0));
}

/** The project a folder under `projects/` belongs to: the group whose memory folder it is, or whose sessions it holds. */
export function groupOfFolder(groups: readonly ProjectGroup[], folder: string): ProjectGroup | null {
  return groups.find((g) => g.dir === folder) ?? groups.find((g) => g.launchFolders.some((l) => l.folder === folder)) ?? null;
}

/** The launch folder whose settings speak for the project: its own root's, else the one with most sessions. */
export function primaryLaunchFolder(group: ProjectGroup): LaunchFolder | null {
  return group.launchFolders.find((l) => l.folder === group.dir) ?? group.launchFolders[0] ?? null;
}
