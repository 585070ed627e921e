/**
 * Project discovery under `<home>/projects/` (R-LAYOUT), the launch directory of a transcript
 * folder recovered from its transcripts (R-SANITIZE: the directory name cannot be reversed), and
 * locating the project and memory directory of any path, directory name or transcript.
 */
import fsSync from 'node:fs';
import path from 'node:path';
import { DirectoryError, type KeyExplanation, explainCanonicalKey } from './canonical-key.js';
import { expandTilde, projectsRoot } from './home.js';
import { listSubfolders } from './subfolders.js';
import { type LaunchFolder, type ProjectGroup, dirNameForKey, groupOfFolder, groupProjects, primaryLaunchFolder } from './project-groups.js';
import { type EffectiveSettings, type LaunchContext, type SettingsCache, type SharedSettings, memoryDirFor, readEffectiveSettings } from './settings.js';
import { MemdirError } from '../../shared/errors.js';

/** At most this many bytes are read from one transcript while looking for a `cwd`. */
export const CWD_SCAN_MAX_BYTES = 1024 * 1024;
/** At most this many transcripts (newest first) are tried. */
export const CWD_SCAN_MAX_FILES = 5;

const CHUNK_BYTES = 64 * 1024;
const NEWLINE = 0x0a;
// One chunk reused by every read: a scan reads a transcript of each of hundreds of folders, and a
// fresh zero-filled 64 KiB buffer for each cost more than reading its first lines. Safe to share:
// firstTranscriptField never yields between filling it and being done with it.
const chunk = Buffer.allocUnsafe(CHUNK_BYTES);

/**
 * Directory names under `<home>/projects/`, sorted (listSubfolders). Symbolic links are skipped
 * too (Claude Code never creates them; following a link could leave the home). A missing or
 * unreadable home gives [] — a home with nothing in it is not an error.
 */
export async function listProjectDirs(home: string): Promise<string[]> {
  return listSubfolders(projectsRoot(home))
    .filter((f) => !f.link)
    .map((f) => f.name);
}

/**
 * The first non-empty string value of `field` on a line of a transcript (`cwd`, `version`),
 * reading at most `maxBytes` of `file`; garbage and half-written lines are skipped (SPEC §8).
 * The reads are synchronous: the field is on one of the first lines, and a thread-pool round
 * trip per read costs more than the read (a scan does this for every transcript folder).
 */
export async function firstTranscriptField(file: string, field: string, maxBytes: number = CWD_SCAN_MAX_BYTES): Promise<string | null> {
  let fd: number;
  try {
    fd = fsSync.openSync(file, 'r');
  } catch {
    return null;
  }
  try {
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
        const value = fieldOfLine(data.subarray(start, nl), field);
        if (value) return value;
        start = nl + 1;
      }
      data = data.subarray(start);
      // Copy: `chunk` is reused by the next read.
      pending = Buffer.from(data);
    }
    // The last line may be complete without a newline, or half-written (then it fails to parse).
    return eof && pending.length > 0 ? fieldOfLine(pending, field) : null;
  } catch {
    return null;
  } finally {
    fsSync.closeSync(fd);
  }
}

function fieldOfLine(line: Buffer, field: string): string | null {
  // Lines that cannot hold the field (summaries, snapshots, garbage) are skipped without parsing.
  if (line.indexOf(`"${field}"`) === -1) return null;
  try {
    const value: unknown = JSON.parse(line.toString('utf8'));
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      const found = (value as Record<string, unknown>)[field];
      if (typeof found === 'string' && found.length > 0) return found;
    }
  } catch {
    // Garbage or a half-written line: skipped, as SPEC §8 requires.
  }
  return null;
}

/**
 * The launch directory of a transcript folder: the `cwd` its transcripts record (`*.jsonl`
 * directly in `folder`; SPEC §8), as written. Cheap: the newest transcripts first (at most
 * {@link CWD_SCAN_MAX_FILES}), each read line by line only until the first line with a string
 * `cwd`, never past {@link CWD_SCAN_MAX_BYTES}; malformed and half-written lines are skipped.
 * Null when no transcript has a cwd. `entries`, when the caller has just listed `folder`, saves
 * listing it again.
 */
export async function readLaunchDir(folder: string, entries?: readonly fsSync.Dirent[]): Promise<string | null> {
  let names: string[];
  try {
    names = (entries ?? fsSync.readdirSync(folder, { withFileTypes: true })).filter((e) => e.isFile() && e.name.endsWith('.jsonl')).map((e) => e.name);
  } catch {
    return null;
  }
  // Synchronous like firstTranscriptField: one stat per transcript, no thread-pool round trips.
  // A folder's only transcript (most folders) is read without one: there is no order to find.
  const dated = names.map((name) => {
    const file = path.join(folder, name);
    let mtimeMs = 0;
    try {
      if (names.length > 1) mtimeMs = fsSync.statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0;
    } catch {
      // Unreadable: tried last.
    }
    return { file, mtimeMs };
  });
  dated.sort((a, b) => b.mtimeMs - a.mtimeMs || a.file.localeCompare(b.file));
  for (const { file } of dated.slice(0, CWD_SCAN_MAX_FILES)) {
    const cwd = await firstTranscriptField(file, 'cwd');
    if (cwd) return cwd;
  }
  return null;
}

/** Where a project's memory is, and which settings decided it. */
export interface ProjectLocation {
  /**
   * The canonical key (R-KEY) when known: computed from a path, or from the launch directory of
   * the project's transcripts. For a directory name with no transcripts the real path is unknown
   * and this is the directory name itself (`keySource: 'dir-name'`).
   */
  key: string;
  keySource: 'path' | 'transcripts' | 'dir-name';
  /** How the key was chosen (which `.git`, whether a worktree link holds); null when unknown. */
  explanation: KeyExplanation | null;
  /** The sanitised directory name of the memory folder under `projects/` (R-SANITIZE). */
  dir: string;
  /** `<home>/projects/<dir>`. */
  projectDir: string;
  /** Where the memory is: `<projectDir>/memory`, or where a setting moves it. */
  memoryDir: string;
  /** The settings of the launch directory that speaks for the project (see `settings.launchDir`). */
  settings: EffectiveSettings;
  /** Whether Claude Code has been here: `projectDir` exists or sessions read this memory. */
  existing: boolean;
  /** Transcript folders whose sessions read this memory (R-LAYOUT), most sessions first. */
  launchFolders: LaunchFolder[];
  /** Their paths: where this project's sessions are. */
  transcriptDirs: string[];
  /** For a folder whose own sessions read another memory folder: that folder's name. */
  readInstead: string | null;
}

/**
 * A target that names no project: a name with no folder under `projects/` (and no directory of
 * that name), a path where there is no directory, or (`detail`) a path that cannot be used. The
 * one place this is worded, true for each case.
 */
export class ProjectNotFoundError extends MemdirError<'project-not-found'> {
  override readonly name = 'ProjectNotFoundError';
  constructor(
    readonly target: string,
    readonly home: string,
    detail?: string,
  ) {
    super('project-not-found', detail ?? projectNotFoundSentence(target, home));
  }
}

function projectNotFoundSentence(target: string, home: string): string {
  const choose = 'give a project directory, or one of the names `memdir scan` lists';
  if (looksLikeDirName(target)) return `There is no project "${target}" under ${projectsRoot(home)}, and no directory of that name: ${choose}.`;
  return `There is no directory "${target}": ${choose}.`;
}

function looksLikeDirName(target: string): boolean {
  return target.length > 0 && !/[/\\]/.test(target) && !target.startsWith('.') && target !== '~';
}

/** Options of {@link locateProject}. */
export interface LocateOptions {
  /** The home's projects, when the caller already grouped them (a scan). */
  groups?: ProjectGroup[];
  /** Where managed settings are (tests); default the platform's. */
  managedDir?: string;
  /** Parsed settings files, reused across the projects of a scan. */
  settingsCache?: SettingsCache;
  /** The managed and user settings, read once for the projects of a scan. */
  sharedSettings?: SharedSettings;
}

/** Settings are read for a launch directory: the one its folder was keyed from. */
export function launchContextOf(folder: LaunchFolder | null | undefined): { launch: LaunchContext | null; explanation: KeyExplanation | null } {
  const explanation = folder?.explanation ?? null;
  if (!explanation) return { launch: null, explanation: null };
  return { launch: { launchDir: explanation.dir, canonicalRoot: explanation.key, ...(explanation.exists ? {} : { missing: true }) }, explanation };
}

async function located(
  home: string,
  base: { key: string; keySource: ProjectLocation['keySource']; explanation: KeyExplanation | null; dir: string; group: ProjectGroup | null },
  launch: LaunchContext | null,
  env: NodeJS.ProcessEnv,
  options: LocateOptions,
): Promise<ProjectLocation> {
  const settings = await readEffectiveSettings(home, launch, env, {
    ...(options.managedDir ? { managedDir: options.managedDir } : {}),
    ...(options.settingsCache ? { cache: options.settingsCache } : {}),
    ...(options.sharedSettings ? { shared: options.sharedSettings } : {}),
  });
  const launchFolders = base.group?.launchFolders ?? [];
  return {
    key: base.key,
    keySource: base.keySource,
    explanation: base.explanation,
    dir: base.dir,
    projectDir: path.join(projectsRoot(home), base.dir),
    memoryDir: memoryDirFor(home, base.dir, settings),
    settings,
    existing: (base.group?.folderExists ?? false) || launchFolders.length > 0,
    launchFolders,
    transcriptDirs: launchFolders.map((l) => l.folderPath),
    readInstead: base.group?.readInstead ?? null,
  };
}

/**
 * Locate a project and its memory directory. `target` is either
 * - a directory name under `<home>/projects/` (no path separator, not a dot-name): a memory
 *   folder, or a transcript folder — then the project whose memory its sessions read (R-LAYOUT);
 *   the key comes from the launch directory of its transcripts, and the settings are those of
 *   its main launch directory (the key itself when sessions ran there, else the busiest); or
 * - a filesystem path (absolute, relative to the current directory, or `~/…`) of an existing
 *   directory: its canonical key is computed (R-KEY) and sanitised (R-SANITIZE), and the settings
 *   are those of a session launched in that directory. For long keys an existing folder with the
 *   same 200-character prefix is preferred to the computed name.
 * @throws {ProjectNotFoundError} when `target` is neither, with a message a person understands.
 */
export async function locateProject(home: string, target: string, env: NodeJS.ProcessEnv = process.env, options: LocateOptions = {}): Promise<ProjectLocation> {
  const groups = options.groups ?? (await groupProjects(home));
  if (looksLikeDirName(target)) {
    const group = groupOfFolder(groups, target);
    if (group) return locateGroup(home, group, env, options);
  }
  let explanation: KeyExplanation;
  try {
    explanation = await explainCanonicalKey(expandTilde(target, env));
  } catch (error) {
    if (error instanceof DirectoryError) {
      if (error.reason === 'missing') throw new ProjectNotFoundError(target, home);
      throw new ProjectNotFoundError(target, home, error.message);
    }
    throw error;
  }
  const dir = dirNameForKey(explanation.key, await listProjectDirs(home));
  const group = groups.find((g) => g.dir === dir) ?? null;
  return located(
    home,
    { key: explanation.key, keySource: 'path', explanation, dir, group },
    { launchDir: explanation.dir, canonicalRoot: explanation.key },
    env,
    options,
  );
}

/** Locate a project found by {@link groupProjects}: settings of its main launch directory. */
export async function locateGroup(
  home: string,
  group: ProjectGroup,
  env: NodeJS.ProcessEnv = process.env,
  options: LocateOptions = {},
): Promise<ProjectLocation> {
  const { launch, explanation } = launchContextOf(primaryLaunchFolder(group));
  return located(
    home,
    { key: group.key ?? group.dir, keySource: group.key ? 'transcripts' : 'dir-name', explanation: explanation ?? group.explanation, dir: group.dir, group },
    launch,
    env,
    options,
  );
}

/**
 * The project a session transcript belongs to: the memory its sessions read (R-LAYOUT), with the
 * settings of the session's own launch directory (R-SETTINGS). `folder` is the transcript's
 * folder name under `projects/`.
 * @throws {ProjectNotFoundError} when there is no such folder.
 */
export async function locateTranscriptProject(
  home: string,
  folder: string,
  env: NodeJS.ProcessEnv = process.env,
  options: LocateOptions = {},
): Promise<ProjectLocation> {
  const groups = options.groups ?? (await groupProjects(home));
  const group = groups.find((g) => g.launchFolders.some((l) => l.folder === folder)) ?? groups.find((g) => g.dir === folder);
  if (!group) throw new ProjectNotFoundError(folder, home);
  const own = group.launchFolders.find((l) => l.folder === folder);
  const { launch, explanation } = launchContextOf(own);
  return located(
    home,
    { key: group.key ?? folder, keySource: group.key ? 'transcripts' : 'dir-name', explanation: explanation ?? group.explanation, dir: group.dir, group },
    launch,
    env,
    options,
  );
}
