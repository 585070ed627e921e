/**
 * R-SETTINGS: the Claude Code settings that decide whether memory is written automatically,
 * where it lives and whether it is consolidated on a schedule — read the way Claude Code 2.1.332
 * reads them for a session launched in a given directory (files: settings-files.ts), with the
 * source of each value kept so the app can show which setting is in force and where it came from.
 *
 * Observed with the real client (claude-code-interop tests):
 * - memory off when `CLAUDE_CODE_SAFE_MODE` is set; off when `CLAUDE_CODE_SIMPLE` is set in the
 *   shell (`--bare`); then `CLAUDE_CODE_DISABLE_AUTO_MEMORY` — truthy off, falsy (`0`, `false`,
 *   `no`, `off`) on, over every file, managed settings included; then off when
 *   `CLAUDE_CODE_REMOTE` is set in the shell without `CLAUDE_CODE_REMOTE_MEMORY_DIR` or
 *   `CLAUDE_COWORK_MEMORY_PATH_OVERRIDE`; then `autoMemoryEnabled` from managed over local over
 *   project over user settings; default on;
 * - the `env` blocks of settings files set those variables too (managed over local over project
 *   over user over the shell): `CLAUDE_CODE_DISABLE_AUTO_MEMORY` from any file; safe mode,
 *   `--bare` and the two that move the memory only from managed and user settings;
 *   `CLAUDE_CODE_REMOTE` only from the shell;
 * - the memory directory: `CLAUDE_COWORK_MEMORY_PATH_OVERRIDE` (an absolute path), else
 *   `autoMemoryDirectory` from managed, local, project or user settings (the first that sets it
 *   decides, even when its value is then refused), else `<base>/projects/<key>/memory` where the
 *   base is `CLAUDE_CODE_REMOTE_MEMORY_DIR` or the home. The repository's files (local and the
 *   shared project settings) count in `claude -p` and, in a session, once the folder is trusted:
 *   no interactive session starts in a folder before its trust dialog is accepted (checked with
 *   the real client: "Claude Code didn't start because this folder isn't trusted"), so Memdir
 *   follows them and says whether the folder is trusted yet (claude-config.ts). The settings
 *   schema's own description still says "Ignored if set in projectSettings"; the code
 *   reads them (`policySettings`, `flagSettings`, then `localSettings` and `projectSettings` when
 *   non-interactive or trusted, then `userSettings`).
 */
import path from 'node:path';
import { type FolderTrust, readFolderTrust } from './claude-config.js';
import { expandTilde } from './home.js';
import {
  type SettingsCache,
  type SettingsFile,
  type SettingsProblem,
  type SettingsSource,
  localSettingsRoots,
  managedSettingsDir,
  readManagedSettings,
  readSettingsFile,
} from './settings-files.js';

export type { SettingsCache } from './settings-files.js';

/** The settings that matter to memory, each with where it came from. */
export interface EffectiveSettings {
  /** False when automatic memory writing is off. */
  autoMemoryEnabled: boolean;
  autoMemoryEnabledSource: 'default' | 'env' | 'managed' | 'user' | 'local' | 'project';
  /** The file or environment variable that decided it; null for the default. */
  autoMemoryEnabledFrom: string | null;
  /** The validated absolute memory directory that replaces the default, or null. */
  autoMemoryDirectory: string | null;
  autoMemoryDirectorySource: 'default' | 'env' | 'managed' | 'user' | 'local' | 'project';
  autoMemoryDirectoryFrom: string | null;
  /**
   * When the repository's own settings (local or project) move the memory: whether Claude Code
   * trusts the folder (its interactive sessions follow them only then; `claude -p` always does).
   * Null when the directory comes from anywhere else.
   */
  autoMemoryDirectoryTrust: FolderTrust | null;
  /** `CLAUDE_CODE_REMOTE_MEMORY_DIR`: where `projects/<key>/memory` lives instead of the home, or null. */
  memoryBase: string | null;
  /** Memdir's own scheduled dreams (R-DREAM-GATE): the `autoDreamEnabled` setting, default off. */
  autoDreamEnabled: boolean;
  autoDreamEnabledSource: 'default' | 'managed' | 'user' | 'local' | 'project';
  autoDreamEnabledFrom: string | null;
  /** The launch directory project and local settings were read for; null: user and managed settings only. */
  launchDir: string | null;
  /**
   * The `permissions.deny` and `permissions.ask` rules of every settings file, highest precedence
   * first: some of them stop Claude Code's own dream (R-DREAM-GATE, claude-code-dream.ts).
   */
  permissionRules: PermissionRule[];
  /** `CLAUDE_MEMORY_STORES` as the session sees it (the shell's, or an env block's) and where it came from, or null. */
  memoryStores: { value: string; from: string } | null;
  /** Every settings file consulted, highest precedence first, and whether it exists. */
  files: { source: SettingsSource; file: string; exists: boolean }[];
  /** Settings found but not applied, with the reason, to show the user. */
  ignored: { file: string; key: string; reason: string }[];
  /** Settings files that exist but could not be used. Never thrown. */
  problems: SettingsProblem[];
}

/** One `permissions.deny` or `permissions.ask` rule as written (`Write`, `Edit(//abs/path/**)`…), and the file it is in. */
export interface PermissionRule {
  behavior: 'deny' | 'ask';
  rule: string;
  file: string;
}

/** Where to read the project and local settings: a session's launch directory and its R-KEY key. */
export interface LaunchContext {
  launchDir: string;
  canonicalRoot: string;
  /** True when the launch directory was found deleted (the key came from a parent): nothing under it is asked of the disk. */
  missing?: boolean;
}

/** Options of {@link readEffectiveSettings}. */
export interface ReadSettingsOptions {
  cache?: SettingsCache;
  /** Where the managed settings are; default the platform's ({@link managedSettingsDir}). */
  managedDir?: string;
  /** The managed and user settings as read once for a scan of many projects ({@link readSharedSettings}); read here when absent. */
  shared?: SharedSettings;
}

/**
 * The settings files every session of the home reads, whatever its launch directory: the managed
 * ones (highest precedence first) and the user's, with the problems found in each. A scan of
 * hundreds of projects reads them once, not once per project.
 */
export interface SharedSettings {
  managed: SettingsFile[];
  managedProblems: SettingsProblem[];
  user: SettingsFile;
  userProblems: SettingsProblem[];
}

export function readSharedSettings(home: string, options: Omit<ReadSettingsOptions, 'shared'> = {}): SharedSettings {
  const managedProblems: SettingsProblem[] = [];
  const managed = readManagedSettings(options.managedDir ?? managedSettingsDir(), managedProblems, options.cache).reverse();
  const userProblems: SettingsProblem[] = [];
  const user = readSettingsFile('user', path.join(home, 'settings.json'), userProblems, options.cache);
  return { managed, managedProblems, user, userProblems };
}

/** The environment variable that turns automatic memory off (or, set falsy, forces it on). */
export const DISABLE_AUTO_MEMORY_ENV = 'CLAUDE_CODE_DISABLE_AUTO_MEMORY';
/** The memory stores Claude Code syncs itself (claude-code-stores.ts). */
export const MEMORY_STORES_ENV = 'CLAUDE_MEMORY_STORES';

const TRUTHY = new Set(['1', 'true', 'yes', 'on']);
const FALSY = new Set(['0', 'false', 'no', 'off']);
const truthy = (v: string | undefined): boolean => v !== undefined && TRUTHY.has(v.trim().toLowerCase());
const falsy = (v: string | undefined): boolean => v !== undefined && FALSY.has(v.trim().toLowerCase());

/**
 * Variables the memory checks read, and which settings files' `env` blocks can set them (as
 * observed with the real client): the switch from any file; the ones read at start-up or that
 * move the memory only from managed and user settings, never from a repository's files.
 * `CLAUDE_CODE_REMOTE` comes from the shell alone.
 */
const BLOCK_VARS: Record<string, readonly SettingsSource[]> = {
  [DISABLE_AUTO_MEMORY_ENV]: ['managed', 'user', 'project', 'local'],
  CLAUDE_CODE_SAFE_MODE: ['managed', 'user'],
  CLAUDE_CODE_SIMPLE: ['managed', 'user'],
  CLAUDE_CODE_REMOTE_MEMORY_DIR: ['managed', 'user'],
  CLAUDE_COWORK_MEMORY_PATH_OVERRIDE: ['managed', 'user'],
  // Its memory stores: honoured from every file's env block (seen with 2.1.332 for user, project and local).
  [MEMORY_STORES_ENV]: ['managed', 'user', 'project', 'local'],
};

/**
 * Validate an `autoMemoryDirectory` value as Claude Code does: `~/` expanded (unless `tilde` is
 * false, as for `CLAUDE_COWORK_MEMORY_PATH_OVERRIDE`); the result must be absolute, not a root
 * or near-root (`/`, `/a`, `C:`), not a UNC path, not contain a null byte, and `~`, `~/` or `~/..`
 * (the home itself or above) are refused. A relative path is refused too — Claude Code ignores
 * it, so honouring it here would show memory in a place Claude Code never writes. Returns the
 * normalised path (NFC, no trailing separator) or the reason it was refused.
 */
export function validateMemoryDirectory(
  raw: string,
  env: NodeJS.ProcessEnv = process.env,
  options: { tilde?: boolean } = {},
): { ok: true; dir: string } | { ok: false; reason: string } {
  if (raw === '') return { ok: false, reason: 'it is empty' };
  if (raw.includes('\0')) return { ok: false, reason: 'it contains a null byte' };
  let candidate = raw;
  if (options.tilde !== false) {
    if (candidate.startsWith('~/') || candidate.startsWith('~\\')) {
      const rest = path.normalize(candidate.slice(2) || '.');
      if (rest === '.' || rest === '..') return { ok: false, reason: 'it names your home directory or a directory above it' };
      candidate = expandTilde(candidate, env);
    } else if (candidate === '~') {
      return { ok: false, reason: 'it names your home directory itself' };
    }
  }
  if (candidate.startsWith('\\\\') || candidate.startsWith('//')) return { ok: false, reason: 'network (UNC) paths are not accepted' };
  if (!path.isAbsolute(path.normalize(candidate))) {
    return { ok: false, reason: `it is not an absolute path (Claude Code accepts only absolute paths${options.tilde !== false ? ' or ~/…' : ''})` };
  }
  const normalized = path.normalize(candidate).replace(/[/\\]+$/, '');
  if (normalized.length < 3 || /^[A-Za-z]:$/.test(normalized)) return { ok: false, reason: 'it is a root directory or too close to one' };
  return { ok: true, dir: normalized.normalize('NFC') };
}

interface Found<T> {
  value: T;
  file: SettingsFile;
}

/** The files of a session, highest precedence first (managed drop-ins last-first: the last one wins). */
function filesFor(
  home: string,
  launch: LaunchContext | null,
  env: NodeJS.ProcessEnv,
  options: ReadSettingsOptions,
  problems: SettingsProblem[],
): SettingsFile[] {
  const shared = options.shared ?? readSharedSettings(home, options);
  problems.push(...shared.managedProblems);
  const files = [...shared.managed];
  if (launch) {
    // Old sessions' launch directories are often gone: their settings files are known missing without a stat each.
    const inside = launch.launchDir.endsWith(path.sep) ? launch.launchDir : launch.launchDir + path.sep;
    const read = (source: SettingsSource, file: string): SettingsFile =>
      launch.missing && file.startsWith(inside) ? { source, file, values: null, exists: false } : readSettingsFile(source, file, problems, options.cache);
    const local = localSettingsRoots(launch.launchDir, launch.canonicalRoot, env);
    files.push(read('local', path.join(local.root, '.claude', 'settings.local.json')));
    if (local.beneath) files.push(read('local', path.join(local.beneath, '.claude', 'settings.local.json')));
    files.push(read('project', path.join(launch.launchDir, '.claude', 'settings.json')));
  }
  problems.push(...shared.userProblems);
  files.push(shared.user);
  return files;
}

/** The environment a session sees: the shell's, with the settings `env` blocks over it. */
function effectiveEnv(files: SettingsFile[], env: NodeJS.ProcessEnv): Map<string, { value: string; from: string }> {
  const out = new Map<string, { value: string; from: string }>();
  for (const name of [...Object.keys(BLOCK_VARS), 'CLAUDE_CODE_REMOTE']) if (env[name] !== undefined) out.set(name, { value: env[name]!, from: name });
  // Lowest precedence first, so higher files overwrite.
  for (const f of [...files].reverse()) {
    const block = f.values?.env;
    if (!block || typeof block !== 'object' || Array.isArray(block)) continue;
    for (const [name, sources] of Object.entries(BLOCK_VARS)) {
      if (!sources.includes(f.source)) continue;
      const value = (block as Record<string, unknown>)[name];
      if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
        out.set(name, { value: String(value), from: `${name} in the env block of ${f.file}` });
    }
  }
  return out;
}

/**
 * The effective memory settings of a session launched in `launch.launchDir` (null: the user and
 * managed settings only, for a project whose launch directory is unknown). See the module
 * comment for the rules. Never throws: unreadable or malformed files are listed in `problems`.
 */
export async function readEffectiveSettings(
  home: string,
  launch: LaunchContext | null,
  env: NodeJS.ProcessEnv = process.env,
  options: ReadSettingsOptions = {},
): Promise<EffectiveSettings> {
  const problems: SettingsProblem[] = [];
  const ignored: EffectiveSettings['ignored'] = [];
  // Settings files are tiny; read synchronously (cached by stat when a cache is given).
  const files = filesFor(home, launch, env, options, problems);
  for (const f of files) if (f.rejected) ignored.push({ file: f.file, key: f.rejected.key, reason: f.rejected.reason });
  const usable = files.filter((f) => f.values !== null);
  const vars = effectiveEnv(files, env);

  const booleanSetting = (key: string): Found<boolean> | null => {
    let found: Found<boolean> | null = null;
    for (const f of usable) {
      if (!Object.hasOwn(f.values!, key)) continue;
      const value = f.values![key];
      if (typeof value !== 'boolean') ignored.push({ file: f.file, key, reason: 'it must be true or false' });
      else if (found) ignored.push({ file: f.file, key, reason: `overridden by ${found.file.file}` });
      else found = { value, file: f };
    }
    return found;
  };

  let autoMemoryEnabled = true;
  let autoMemoryEnabledSource: EffectiveSettings['autoMemoryEnabledSource'] = 'default';
  let autoMemoryEnabledFrom: string | null = null;
  const fromFiles = booleanSetting('autoMemoryEnabled');
  const safe = vars.get('CLAUDE_CODE_SAFE_MODE');
  const disable = vars.get(DISABLE_AUTO_MEMORY_ENV);
  const simple = vars.get('CLAUDE_CODE_SIMPLE');
  const remoteOff =
    truthy(vars.get('CLAUDE_CODE_REMOTE')?.value) &&
    !vars.get('CLAUDE_CODE_REMOTE_MEMORY_DIR')?.value &&
    !vars.get('CLAUDE_COWORK_MEMORY_PATH_OVERRIDE')?.value;
  const byEnv: { on: boolean; from: string } | null = truthy(safe?.value)
    ? { on: false, from: safe!.from }
    : truthy(simple?.value)
      ? { on: false, from: simple!.from }
      : truthy(disable?.value)
        ? { on: false, from: disable!.from }
        : falsy(disable?.value)
          ? { on: true, from: disable!.from }
          : remoteOff
            ? { on: false, from: 'CLAUDE_CODE_REMOTE' }
            : null;
  if (byEnv) {
    autoMemoryEnabled = byEnv.on;
    autoMemoryEnabledSource = 'env';
    autoMemoryEnabledFrom = byEnv.from;
    if (fromFiles) ignored.push({ file: fromFiles.file.file, key: 'autoMemoryEnabled', reason: `overridden by ${byEnv.from}` });
  } else if (fromFiles) {
    autoMemoryEnabled = fromFiles.value;
    autoMemoryEnabledSource = fromFiles.file.source;
    autoMemoryEnabledFrom = fromFiles.file.file;
  }

  const dream = booleanSetting('autoDreamEnabled');

  let autoMemoryDirectory: string | null = null;
  let autoMemoryDirectorySource: EffectiveSettings['autoMemoryDirectorySource'] = 'default';
  let autoMemoryDirectoryFrom: string | null = null;
  let decided = false;
  const cowork = vars.get('CLAUDE_COWORK_MEMORY_PATH_OVERRIDE');
  if (cowork?.value) {
    const checked = validateMemoryDirectory(cowork.value, env, { tilde: false });
    if (checked.ok) {
      autoMemoryDirectory = checked.dir;
      autoMemoryDirectorySource = 'env';
      autoMemoryDirectoryFrom = cowork.from;
      decided = true;
    } else {
      ignored.push({ file: cowork.from, key: 'CLAUDE_COWORK_MEMORY_PATH_OVERRIDE', reason: `${checked.reason}; Claude Code ignores it` });
    }
  }
  for (const f of usable) {
    if (!Object.hasOwn(f.values!, 'autoMemoryDirectory')) continue;
    const value = f.values!.autoMemoryDirectory;
    if (value === null || value === undefined) continue;
    if (decided) {
      ignored.push({ file: f.file, key: 'autoMemoryDirectory', reason: `overridden by ${autoMemoryDirectoryFrom ?? 'a setting before it'}` });
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
      autoMemoryDirectoryFrom = f.file;
      continue;
    }
    autoMemoryDirectory = checked.dir;
    autoMemoryDirectorySource = f.source;
    autoMemoryDirectoryFrom = f.file;
  }
  if (autoMemoryDirectory === null) {
    autoMemoryDirectorySource = 'default';
    autoMemoryDirectoryFrom = null;
  }
  // Read only when the repository's files move the memory: `.claude.json` can be large.
  const autoMemoryDirectoryTrust =
    launch && (autoMemoryDirectorySource === 'local' || autoMemoryDirectorySource === 'project') ? readFolderTrust(home, env, launch) : null;

  let memoryBase: string | null = null;
  const remoteDir = vars.get('CLAUDE_CODE_REMOTE_MEMORY_DIR');
  if (remoteDir?.value) {
    if (path.isAbsolute(remoteDir.value))
      memoryBase = path
        .normalize(remoteDir.value)
        .replace(/[/\\]+$/, '')
        .normalize('NFC');
    else
      ignored.push({
        file: remoteDir.from,
        key: 'CLAUDE_CODE_REMOTE_MEMORY_DIR',
        reason: 'it is not an absolute path, so where it points depends on where Claude Code runs',
      });
  }

  const permissionRules: PermissionRule[] = [];
  for (const f of usable) {
    const permissions = f.values!.permissions;
    if (!permissions || typeof permissions !== 'object' || Array.isArray(permissions)) continue;
    for (const behavior of ['deny', 'ask'] as const) {
      const rules = (permissions as Record<string, unknown>)[behavior];
      if (Array.isArray(rules)) for (const rule of rules) if (typeof rule === 'string') permissionRules.push({ behavior, rule, file: f.file });
    }
  }

  return {
    autoMemoryEnabled,
    autoMemoryEnabledSource,
    autoMemoryEnabledFrom,
    autoMemoryDirectory,
    autoMemoryDirectorySource,
    autoMemoryDirectoryFrom,
    autoMemoryDirectoryTrust,
    memoryBase,
    autoDreamEnabled: dream ? dream.value : false,
    autoDreamEnabledSource: dream ? dream.file.source : 'default',
    autoDreamEnabledFrom: dream ? dream.file.file : null,
    launchDir: launch?.launchDir ?? null,
    permissionRules,
    memoryStores: vars.get(MEMORY_STORES_ENV) ?? null,
    files: files.map((f) => ({ source: f.source, file: f.file, exists: f.exists })),
    ignored,
    problems,
  };
}

/** Where a project's memory is: the setting that moves it, else `<base>/projects/<dir>/memory` (R-LAYOUT). */
export function memoryDirFor(home: string, dir: string, settings: Pick<EffectiveSettings, 'autoMemoryDirectory' | 'memoryBase'>): string {
  return settings.autoMemoryDirectory ?? path.join(settings.memoryBase ?? home, 'projects', dir, 'memory');
}
