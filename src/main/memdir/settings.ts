/**
 * R-SETTINGS: the Claude Code settings that decide whether memory is written automatically and
 * where it lives, read the way Claude Code reads them, with the source of each value kept so
 * the app can show which setting is in force.
 *
 * Files: user `<home>/settings.json`; project (shared, committed) `<root>/.claude/settings.json`;
 * local (personal, not committed) `<root>/.claude/settings.local.json`. Managed policy settings
 * and `--settings` flags exist only inside a running Claude Code and are not read here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expandTilde } from './home.js';

/** The settings that matter to memory, each with where it came from. */
export interface EffectiveSettings {
  /** False when automatic memory writing is off. */
  autoMemoryEnabled: boolean;
  autoMemoryEnabledSource: 'default' | 'env' | 'user' | 'local' | 'project';
  /** The validated absolute memory directory that replaces the default, or null. */
  autoMemoryDirectory: string | null;
  autoMemoryDirectorySource: 'default' | 'user' | 'local';
  /** Background consolidation ("dream"); on unless a settings file turns it off. */
  autoDreamEnabled: boolean;
  /** Settings found but not applied, with the reason, to show the user. */
  ignored: { file: string; key: string; reason: string }[];
  /** Settings files that exist but could not be used. Never thrown. */
  problems: { file: string; message: string }[];
}

type Source = 'user' | 'project' | 'local';

interface SettingsFile {
  source: Source;
  file: string;
  values: Record<string, unknown> | null;
}

/** The environment variable that turns automatic memory off (or, set falsy, forces it on). */
export const DISABLE_AUTO_MEMORY_ENV = 'CLAUDE_CODE_DISABLE_AUTO_MEMORY';

const TRUTHY = new Set(['1', 'true', 'yes', 'on']);
const FALSY = new Set(['0', 'false', 'no', 'off']);

/** Where each settings file of a home and project lives. */
export function settingsFiles(home: string, projectRoot: string | null): { source: Source; file: string }[] {
  const files: { source: Source; file: string }[] = [{ source: 'user', file: path.join(home, 'settings.json') }];
  if (projectRoot) {
    files.push({ source: 'project', file: path.join(projectRoot, '.claude', 'settings.json') });
    files.push({ source: 'local', file: path.join(projectRoot, '.claude', 'settings.local.json') });
  }
  return files;
}

/**
 * Parsed settings files by path, valid while the file's stat facts are unchanged, so that a
 * scan of hundreds of projects reads the user's settings once and re-stats them after.
 */
export type SettingsCache = Map<string, { key: string; file: SettingsFile; problems: EffectiveSettings['problems'] }>;

function readSettingsFile(source: Source, file: string, problems: EffectiveSettings['problems'], cache?: SettingsCache): SettingsFile {
  let key = 'missing';
  try {
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    if (stat) key = `${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`;
  } catch {
    key = 'unstatable';
  }
  const cached = cache?.get(file);
  if (cached && cached.key === key && cached.file.source === source) {
    problems.push(...cached.problems);
    return cached.file;
  }
  const own: EffectiveSettings['problems'] = [];
  const result = key === 'missing' ? { source, file, values: null } : parseSettingsFile(source, file, own);
  cache?.set(file, { key, file: result, problems: own });
  problems.push(...own);
  return result;
}

function parseSettingsFile(source: Source, file: string, problems: EffectiveSettings['problems']): SettingsFile {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // A missing file (or a missing parent) is the normal case: nothing is configured there.
    if (code !== 'ENOENT' && code !== 'ENOTDIR') {
      const why =
        code === 'EACCES' || code === 'EPERM'
          ? 'permission denied'
          : code === 'EISDIR'
            ? 'it is a directory'
            : (code ?? String(error));
      problems.push({ file, message: `Cannot read these settings (${why}); they are not applied.` });
    }
    return { source, file, values: null };
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.trim() === '') return { source, file, values: null };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    problems.push({ file, message: `These settings are not valid JSON (${detail}); none of them is applied.` });
    return { source, file, values: null };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    problems.push({ file, message: 'These settings are not a JSON object; none of them is applied.' });
    return { source, file, values: null };
  }
  return { source, file, values: parsed as Record<string, unknown> };
}

/**
 * Validate an `autoMemoryDirectory` value as Claude Code does: `~/` expanded; the result must
 * be absolute, not a root or near-root (`/`, `/a`, `C:`), not a UNC path, not contain a null
 * byte, and `~`, `~/` or `~/..` (the home itself or above) are refused. A relative path is
 * refused too — Claude Code ignores it, so honouring it here would show memory in a place
 * Claude Code never writes. Returns the normalised path (NFC, no trailing separator) or the
 * reason it was refused.
 */
export function validateMemoryDirectory(
  raw: string,
  env: NodeJS.ProcessEnv = process.env,
): { ok: true; dir: string } | { ok: false; reason: string } {
  if (raw === '') return { ok: false, reason: 'it is empty' };
  if (raw.includes('\0')) return { ok: false, reason: 'it contains a null byte' };
  let candidate = raw;
  if (candidate.startsWith('~/') || candidate.startsWith('~\\')) {
    const rest = path.normalize(candidate.slice(2) || '.');
    if (rest === '.' || rest === '..') {
      return { ok: false, reason: 'it names your home directory or a directory above it' };
    }
    candidate = expandTilde(candidate, env);
  } else if (candidate === '~') {
    return { ok: false, reason: 'it names your home directory itself' };
  }
  if (candidate.startsWith('\\\\') || candidate.startsWith('//')) {
    return { ok: false, reason: 'network (UNC) paths are not accepted' };
  }
  if (!path.isAbsolute(path.normalize(candidate))) {
    return { ok: false, reason: 'it is not an absolute path (Claude Code accepts only absolute paths or ~/…)' };
  }
  const normalized = path.normalize(candidate).replace(/[/\\]+$/, '');
  if (normalized.length < 3 || /^[A-Za-z]:$/.test(normalized)) {
    return { ok: false, reason: 'it is a root directory or too close to one' };
  }
  return { ok: true, dir: normalized.normalize('NFC') };
}

/**
 * The effective memory settings for a project (or for no project: `projectRoot` null reads
 * the user settings only). `projectRoot` is the directory whose `.claude/` holds the project
 * settings — the canonical key of the project.
 *
 * Precedence, as in Claude Code:
 * - `autoMemoryEnabled`: env `CLAUDE_CODE_DISABLE_AUTO_MEMORY` (1/true/yes/on → off;
 *   0/false/no/off → on) over local over project over user settings, default on. The project
 *   file may set it: it only switches memory, it cannot move it.
 * - `autoMemoryDirectory`: local over user only. The shared project settings are never
 *   trusted with it (a cloned repository must not redirect writes to, say, `~/.ssh`); one
 *   found there is listed in `ignored`. As in Claude Code, the first file that sets it wins even
 *   when its value is then refused (the user's value behind it is not used).
 * - `autoDreamEnabled`: local over project over user, default on.
 * Never throws: unreadable or malformed files are listed in `problems` and skipped.
 */
export async function readEffectiveSettings(
  home: string,
  projectRoot: string | null,
  env: NodeJS.ProcessEnv = process.env,
  cache?: SettingsCache,
): Promise<EffectiveSettings> {
  const problems: EffectiveSettings['problems'] = [];
  const ignored: EffectiveSettings['ignored'] = [];
  // Settings files are tiny; read synchronously (cached by stat when a cache is given).
  const files = settingsFiles(home, projectRoot).map(({ source, file }) => readSettingsFile(source, file, problems, cache));
  const bySource = (source: Source): SettingsFile | undefined => files.find((f) => f.source === source);
  const mergeOrder = (['local', 'project', 'user'] as const)
    .map(bySource)
    .filter((f): f is SettingsFile => f !== undefined && f.values !== null);

  const booleanSetting = (key: string): { value: boolean; source: Source } | null => {
    let found: { value: boolean; source: Source } | null = null;
    for (const f of mergeOrder) {
      if (!Object.hasOwn(f.values!, key)) continue;
      const value = f.values![key];
      if (typeof value !== 'boolean') {
        ignored.push({ file: f.file, key, reason: 'it must be true or false' });
        continue;
      }
      if (found) {
        ignored.push({ file: f.file, key, reason: `overridden by the ${found.source} settings` });
        continue;
      }
      found = { value, source: f.source };
    }
    return found;
  };

  let autoMemoryEnabled = true;
  let autoMemoryEnabledSource: EffectiveSettings['autoMemoryEnabledSource'] = 'default';
  const fromFiles = booleanSetting('autoMemoryEnabled');
  const envValue = env[DISABLE_AUTO_MEMORY_ENV]?.trim().toLowerCase();
  if (envValue !== undefined && (TRUTHY.has(envValue) || FALSY.has(envValue))) {
    autoMemoryEnabled = FALSY.has(envValue);
    autoMemoryEnabledSource = 'env';
    if (fromFiles) {
      const file = bySource(fromFiles.source)!.file;
      ignored.push({ file, key: 'autoMemoryEnabled', reason: `overridden by the environment variable ${DISABLE_AUTO_MEMORY_ENV}` });
    }
  } else if (fromFiles) {
    autoMemoryEnabled = fromFiles.value;
    autoMemoryEnabledSource = fromFiles.source;
  }

  const dream = booleanSetting('autoDreamEnabled');

  let autoMemoryDirectory: string | null = null;
  let autoMemoryDirectorySource: EffectiveSettings['autoMemoryDirectorySource'] = 'default';
  const project = bySource('project');
  if (project?.values && Object.hasOwn(project.values, 'autoMemoryDirectory')) {
    ignored.push({
      file: project.file,
      key: 'autoMemoryDirectory',
      reason: 'only your own or local settings may move the memory directory, not the shared project settings',
    });
  }
  let decided = false;
  for (const f of (['local', 'user'] as const).map(bySource)) {
    if (!f?.values || !Object.hasOwn(f.values, 'autoMemoryDirectory')) continue;
    const value = f.values.autoMemoryDirectory;
    if (value === null || value === undefined) continue;
    if (decided) {
      ignored.push({ file: f.file, key: 'autoMemoryDirectory', reason: 'overridden by the local settings' });
      continue;
    }
    if (typeof value !== 'string') {
      ignored.push({ file: f.file, key: 'autoMemoryDirectory', reason: 'it must be a path (a string)' });
      continue;
    }
    decided = true;
    const checked = validateMemoryDirectory(value, env);
    if (!checked.ok) {
      ignored.push({ file: f.file, key: 'autoMemoryDirectory', reason: `${checked.reason}; the default directory is used` });
      continue;
    }
    autoMemoryDirectory = checked.dir;
    autoMemoryDirectorySource = f.source === 'local' ? 'local' : 'user';
  }

  return {
    autoMemoryEnabled,
    autoMemoryEnabledSource,
    autoMemoryDirectory,
    autoMemoryDirectorySource,
    autoDreamEnabled: dream ? dream.value : true,
    ignored,
    problems,
  };
}
