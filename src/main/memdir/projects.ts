/**
 * Project discovery under `<home>/projects/` (R-LAYOUT), the real path of a project recovered
 * from its transcripts (R-SANITIZE: the directory name cannot be reversed), and locating the
 * project and memory directory of any path or directory name.
 */
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { dirNameMatchesKey, sanitizeDirName } from '../../shared/sanitize.js';
import { SANITIZED_MAX_LENGTH } from '../../shared/limits.js';
import { canonicalKey, DirectoryError } from './canonical-key.js';
import { expandTilde, projectsRoot } from './home.js';
import { readEffectiveSettings, type EffectiveSettings } from './settings.js';

/** At most this many bytes are read from one transcript while looking for a `cwd`. */
export const CWD_SCAN_MAX_BYTES = 1024 * 1024;
/** At most this many transcripts (newest first) are tried. */
export const CWD_SCAN_MAX_FILES = 5;

const CHUNK_BYTES = 64 * 1024;
const NEWLINE = 0x0a;

/**
 * Directory names under `<home>/projects/`, sorted. Files, symlinks and dot-entries are
 * skipped (Claude Code never creates them; following a link could leave the home). A missing
 * or unreadable home gives [] — a home with nothing in it is not an error.
 */
export async function listProjectDirs(home: string): Promise<string[]> {
  try {
    const entries = await fs.readdir(projectsRoot(home), { withFileTypes: true });
    return entries
      .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
      .map((entry) => entry.name)
      .sort();
  } catch {
    return [];
  }
}

/** `<home>/projects/<dir>/memory`: where a project's memory lives unless settings move it. */
export function memoryDirOf(home: string, dir: string): string {
  return path.join(projectsRoot(home), dir, 'memory');
}

/**
 * The `cwd` of the first line that has one, reading at most `maxBytes` of `file`. Synchronous:
 * the cwd is on one of the first lines, and a thread-pool round trip per call costs more than
 * the read (a scan does this once per project).
 */
function firstCwd(file: string, maxBytes: number): string | null {
  let fd: number;
  try {
    fd = fsSync.openSync(file, 'r');
  } catch {
    return null;
  }
  try {
    const chunk = Buffer.alloc(CHUNK_BYTES);
    let pending = Buffer.alloc(0);
    let total = 0;
    let eof = false;
    while (total < maxBytes) {
      const bytesRead = fsSync.readSync(fd, chunk, 0, Math.min(CHUNK_BYTES, maxBytes - total), null);
      if (bytesRead === 0) {
        eof = true;
        break;
      }
      total += bytesRead;
      let data = pending.length > 0 ? Buffer.concat([pending, chunk.subarray(0, bytesRead)]) : chunk.subarray(0, bytesRead);
      let start = 0;
      for (let nl = data.indexOf(NEWLINE, start); nl !== -1; nl = data.indexOf(NEWLINE, start)) {
        const cwd = cwdOfLine(data.subarray(start, nl));
        if (cwd) return cwd;
        start = nl + 1;
      }
      data = data.subarray(start);
      // Copy: `chunk` is reused by the next read.
      pending = Buffer.from(data);
    }
    // The last line may be complete without a newline, or half-written (then it fails to parse).
    return eof && pending.length > 0 ? cwdOfLine(pending) : null;
  } catch {
    return null;
  } finally {
    fsSync.closeSync(fd);
  }
}

function cwdOfLine(line: Buffer): string | null {
  // Lines that cannot hold a cwd (summaries, snapshots, garbage) are skipped without parsing.
  if (line.indexOf('"cwd"') === -1) return null;
  try {
    const value: unknown = JSON.parse(line.toString('utf8'));
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      const cwd = (value as { cwd?: unknown }).cwd;
      if (typeof cwd === 'string' && cwd.length > 0) return cwd;
    }
  } catch {
    // Garbage or a half-written line: skipped, as SPEC §8 requires.
  }
  return null;
}

function pathFlavour(p: string): typeof path.posix {
  return /^[A-Za-z]:[\\/]/.test(p) || p.startsWith('\\\\') ? path.win32 : path.posix;
}

/**
 * The directory among `cwd` and its parents whose sanitised name is `dirName`: a session may
 * run in a subdirectory of the project. Tried as written and NFC-normalised (the key is NFC,
 * the cwd is what the OS reported). An exact name wins; failing that, a long name written by
 * another runtime matches on its 200-character prefix (R-SANITIZE) — ambiguous, since a long
 * path and its subdirectories share that prefix, so the directory nearest the cwd is taken
 * (sessions usually start at the project root). Null when none matches.
 */
export function projectPathFromCwd(dirName: string, cwd: string): string | null {
  const flavour = pathFlavour(cwd);
  const candidates: string[] = [];
  for (let current = cwd; ; ) {
    candidates.push(current);
    const parent = flavour.dirname(current);
    if (parent === current) break;
    current = parent;
  }
  const forms = (p: string): string[] => [p, p.normalize('NFC')];
  return (
    candidates.find((c) => forms(c).some((form) => sanitizeDirName(form) === dirName)) ??
    candidates.find((c) => forms(c).some((form) => dirNameMatchesKey(dirName, form))) ??
    null
  );
}

/**
 * The real path of a project, recovered from the `cwd` of its transcripts (`*.jsonl` directly
 * in `projectDir`; SPEC §8). Cheap: the newest transcripts first (at most
 * {@link CWD_SCAN_MAX_FILES}), each read line by line only until the first line with a string
 * `cwd`, never past {@link CWD_SCAN_MAX_BYTES}; malformed and half-written lines are skipped.
 * When the cwd is a subdirectory of the project the matching parent is returned; when no
 * parent matches the project's name (e.g. the session ran in a linked worktree) the cwd is
 * returned as found. Null when no transcript has a cwd. `entries`, when the caller has just
 * listed `projectDir`, saves listing it again.
 */
export async function projectRealPath(projectDir: string, entries?: readonly fsSync.Dirent[]): Promise<string | null> {
  let names: string[];
  try {
    names = (entries ?? fsSync.readdirSync(projectDir, { withFileTypes: true })).filter((e) => e.isFile() && e.name.endsWith('.jsonl')).map((e) => e.name);
  } catch {
    return null;
  }
  // Synchronous like firstCwd: one stat per transcript, no thread-pool round trips.
  const dated = names.map((name) => {
    const file = path.join(projectDir, name);
    let mtimeMs = 0;
    try {
      mtimeMs = fsSync.statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0;
    } catch {
      // Unreadable: tried last.
    }
    return { file, mtimeMs };
  });
  dated.sort((a, b) => b.mtimeMs - a.mtimeMs || a.file.localeCompare(b.file));
  const dirName = path.basename(projectDir);
  for (const { file } of dated.slice(0, CWD_SCAN_MAX_FILES)) {
    const cwd = firstCwd(file, CWD_SCAN_MAX_BYTES);
    if (cwd) return projectPathFromCwd(dirName, cwd) ?? cwd;
  }
  return null;
}

/** Where a project's memory is, and which settings decided it. */
export interface ProjectLocation {
  /**
   * The canonical key (R-KEY) when known: computed from a path, or recovered from transcripts
   * for a directory name. For a directory name with no transcripts the real path is unknown and
   * this is the directory name itself (`keySource: 'dir-name'`).
   */
  key: string;
  keySource: 'path' | 'transcripts' | 'dir-name';
  /** The sanitised directory name under `projects/` (R-SANITIZE). */
  dir: string;
  /** `<home>/projects/<dir>`. */
  projectDir: string;
  /** Where the memory is: `<projectDir>/memory`, or the `autoMemoryDirectory` setting. */
  memoryDir: string;
  settings: EffectiveSettings;
  /** Whether `projectDir` exists (Claude Code has run there). */
  existing: boolean;
}

/** A target that is neither a directory nor a project known under `projects/`. */
export class ProjectNotFoundError extends Error {
  override readonly name = 'ProjectNotFoundError';
  constructor(
    readonly target: string,
    readonly home: string,
    detail?: string,
  ) {
    super(
      detail ??
        `"${target}" is neither a directory nor a project under ${projectsRoot(home)}: give a project directory or one of the names \`memdir scan\` lists.`,
    );
  }
}

/** A real directory under `projects/`; a symlink there is not a project (as in listProjectDirs). */
async function isProjectDirectory(p: string): Promise<boolean> {
  const stat = await fs.lstat(p).catch(() => null);
  return stat?.isDirectory() ?? false;
}

function looksLikeDirName(target: string): boolean {
  return target.length > 0 && !/[/\\]/.test(target) && !target.startsWith('.') && target !== '~';
}

/** The existing project directory name for `key`, or its computed name when there is none. */
async function dirNameForKey(home: string, key: string): Promise<{ dir: string; existing: boolean }> {
  const wanted = sanitizeDirName(key);
  if (await isProjectDirectory(path.join(projectsRoot(home), wanted))) return { dir: wanted, existing: true };
  // Long names carry a hash suffix that depends on the runtime that wrote them (R-SANITIZE).
  if (wanted.length > SANITIZED_MAX_LENGTH) {
    const match = (await listProjectDirs(home)).find((name) => dirNameMatchesKey(name, key));
    if (match) return { dir: match, existing: true };
  }
  return { dir: wanted, existing: false };
}

/**
 * Locate a project and its memory directory. `target` is either
 * - an existing project directory name under `<home>/projects/` (no path separator, not a
 *   dot-name): its real path comes from its transcripts and decides the project settings; or
 * - a filesystem path (absolute, relative to the current directory, or `~/…`) of an existing
 *   directory: its canonical key is computed (R-KEY) and sanitised (R-SANITIZE); for long keys an
 *   existing directory with the same 200-character prefix is preferred to the computed name.
 * The memory directory is `<projectDir>/memory` unless `autoMemoryDirectory` moves it.
 * @throws {ProjectNotFoundError} when `target` is neither, with a message a person understands.
 */
export async function locateProject(
  home: string,
  target: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ProjectLocation> {
  const root = projectsRoot(home);
  let key: string;
  let keySource: ProjectLocation['keySource'];
  let dir: string;
  let existing: boolean;
  let settingsRoot: string | null;

  if (looksLikeDirName(target) && (await isProjectDirectory(path.join(root, target)))) {
    dir = target;
    existing = true;
    const realPath = await projectRealPath(path.join(root, target));
    key = realPath ?? target;
    keySource = realPath ? 'transcripts' : 'dir-name';
    if (realPath && projectPathFromCwd(target, realPath) === null) {
      // The session ran somewhere whose name is not this project's (a linked worktree, say):
      // its canonical key, when the directory still exists, is the project's root.
      const canonical = await canonicalKey(realPath).catch(() => null);
      if (canonical && dirNameMatchesKey(target, canonical)) key = canonical;
    }
    settingsRoot = realPath ? key : null;
  } else {
    try {
      key = await canonicalKey(expandTilde(target, env));
    } catch (error) {
      if (error instanceof DirectoryError) {
        if (error.reason === 'missing') throw new ProjectNotFoundError(target, home);
        throw new ProjectNotFoundError(target, home, error.message);
      }
      throw error;
    }
    keySource = 'path';
    ({ dir, existing } = await dirNameForKey(home, key));
    settingsRoot = key;
  }

  const settings = await readEffectiveSettings(home, settingsRoot, env);
  const projectDir = path.join(root, dir);
  return {
    key,
    keySource,
    dir,
    projectDir,
    memoryDir: settings.autoMemoryDirectory ?? memoryDirOf(home, dir),
    settings,
    existing,
  };
}
