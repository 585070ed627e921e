/**
 * R-SETTINGS: which Claude Code settings files apply to a session, and reading them. Where each
 * file is, as Claude Code 2.1.332 looks for it (checked against the real client):
 *
 * - **managed** (policy): `managed-settings.json` in `/Library/Application Support/ClaudeCode`
 *   (macOS), `C:\Program Files\ClaudeCode` (Windows), `/etc/claude-code` (Linux and others),
 *   with the drop-ins `managed-settings.d/*.json` merged over it in name order. MDM profiles,
 *   the Windows registry and server-managed settings are not files Memdir can read.
 * - **user**: `<home>/settings.json`.
 * - **project**: `<launch dir>/.claude/settings.json` — the directory Claude Code was launched
 *   in, never a parent.
 * - **local**: `<store root>/.claude/settings.local.json`, where the store root is the
 *   canonical git root (R-KEY) of the launch directory when that differs from it, is not the
 *   user's home and is owned — root, its `.git` and its `.claude` — by the current user;
 *   otherwise the launch directory. When the store root is not the launch directory, the
 *   launch directory's own `.claude/settings.local.json` is read too, beneath it.
 */
import { failureWords, notJsonWords } from '../../shared/failure-words.js';
import fs from 'node:fs';
import path from 'node:path';
import { userHomeDir } from './home.js';

/** Where a setting can come from. */
export type SettingsSource = 'managed' | 'user' | 'project' | 'local';

/** One settings file as read. */
export interface SettingsFile {
  source: SettingsSource;
  file: string;
  /** The parsed object, or null when the file is missing, empty or unusable. */
  values: Record<string, unknown> | null;
  /** Whether something is at that path. */
  exists: boolean;
  /** When Claude Code drops the whole file for a value its schema rejects: where (its dotted path) and why, in a sentence. */
  rejected?: { key: string; reason: string };
}

/** A settings file that exists but could not be used. */
export interface SettingsProblem {
  file: string;
  message: string;
}

/**
 * Parsed settings files by path, valid while the file's stat facts are unchanged, so that a
 * scan of hundreds of projects reads the user's settings once and re-stats them after.
 */
export type SettingsCache = Map<string, { key: string; file: SettingsFile; problems: SettingsProblem[] }>;

/** The directory holding `managed-settings.json` on this platform. */
export function managedSettingsDir(platform: NodeJS.Platform = process.platform): string {
  if (platform === 'darwin') return '/Library/Application Support/ClaudeCode';
  if (platform === 'win32') return 'C:\\Program Files\\ClaudeCode';
  return '/etc/claude-code';
}

/** Read one settings file (cached by its stat facts when a cache is given). Never throws. */
export function readSettingsFile(source: SettingsSource, file: string, problems: SettingsProblem[], cache?: SettingsCache): SettingsFile {
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
  const own: SettingsProblem[] = [];
  const result = key === 'missing' ? { source, file, values: null, exists: false } : { ...parseSettingsFile(source, file, own), exists: true };
  cache?.set(file, { key, file: result, problems: own });
  problems.push(...own);
  return result;
}

function parseSettingsFile(source: SettingsSource, file: string, problems: SettingsProblem[]): Omit<SettingsFile, 'exists'> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // A missing file (or a missing parent) is the normal case: nothing is configured there.
    if (code !== 'ENOENT' && code !== 'ENOTDIR') {
      const why = failureWords(error);
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
    const why = notJsonWords(text, error);
    if (source === 'managed') {
      problems.push({ file, message: `Claude Code refuses to start while this file is broken: ${why}.` });
      return { source, file, values: null };
    }
    // Claude Code 2.1.332 drops such a file whole and says so ("Invalid or malformed JSON":
    // test/fixtures/claude-code/settings-unparseable-2.1.332.json): the same route as a schema rejection.
    const reason = droppedWholeReason(why);
    problems.push({ file, message: reason });
    return { source, file, values: null, rejected: { key: '', reason } };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    problems.push({ file, message: 'These settings are not a JSON object; none of them is applied.' });
    return { source, file, values: null };
  }
  const rejected = claudeCodeRejection(parsed as Record<string, unknown>);
  if (rejected) {
    const reason = droppedWholeReason(rejected.why);
    problems.push({ file, message: reason });
    return { source, file, values: null, rejected: { key: rejected.key, reason } };
  }
  return { source, file, values: parsed as Record<string, unknown> };
}

/** Why Claude Code does not load a settings file at all (not JSON, or a value its schema rejects), as one sentence. */
function droppedWholeReason(why: string): string {
  return `Claude Code 2.1.332 does not load this file at all: ${why}. It drops a settings file with any such error whole, so none of its settings applies (its env block neither).`;
}

/*
 * The schema checks of Claude Code 2.1.332 that drop a whole settings file, as seen live
 * (test/fixtures/claude-code/settings-rejected-2.1.332.json): only these; an unknown key, a
 * non-string env value, a permission rule that is no string, `hooks` that is no object, an
 * unknown hook event and a broken hook of another event than PreToolUse / PermissionRequest
 * leave the file loaded.
 */
const KEY_KINDS: Record<string, 'boolean' | 'string' | 'number' | 'object' | 'map'> = {
  autoMemoryEnabled: 'boolean',
  autoDreamEnabled: 'boolean',
  includeCoAuthoredBy: 'boolean',
  autoMemoryDirectory: 'string',
  model: 'string',
  apiKeyHelper: 'string',
  cleanupPeriodDays: 'number',
  permissions: 'object',
  statusLine: 'object',
  env: 'map',
  enabledPlugins: 'map',
};
const KIND_WORDS = { boolean: 'true or false', string: 'text', number: 'a number', object: 'an object ({…})', map: 'an object of names and values ({…})' };
const PERMISSION_LISTS = ['allow', 'deny', 'ask', 'additionalDirectories'];
const PERMISSION_MODES = ['acceptEdits', 'auto', 'bypassPermissions', 'default', 'dontAsk', 'plan'];
/** The events whose broken hook drops the file: such a hook may be what guards the permissions beside it. */
const GUARD_EVENTS = ['PreToolUse', 'PermissionRequest'];
const HOOK_TYPES = ['command', 'prompt', 'agent', 'http'];

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return 'text';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return typeof value === 'number' ? 'a number' : 'an object';
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The first value Claude Code's schema rejects (its dotted path, and why), or null when it loads the file. */
export function claudeCodeRejection(values: Record<string, unknown>): { key: string; why: string } | null {
  for (const [key, value] of Object.entries(values)) {
    // Own keys only: a key named `toString` or `constructor` is an unknown key, which the client keeps.
    const kind = Object.hasOwn(KEY_KINDS, key) ? KEY_KINDS[key] : undefined;
    if (kind) {
      const ok = kind === 'object' || kind === 'map' ? isObject(value) : typeof value === kind;
      if (!ok) return { key, why: `"${key}" must be ${KIND_WORDS[kind]}, and it is ${kindOf(value)}` };
    }
    if (key === 'permissions' && isObject(value)) {
      for (const list of PERMISSION_LISTS)
        if (Object.hasOwn(value, list) && !Array.isArray(value[list]))
          return { key: `permissions.${list}`, why: `"permissions.${list}" must be a list ([…]), and it is ${kindOf(value[list])}` };
      if (Object.hasOwn(value, 'defaultMode') && !PERMISSION_MODES.includes(value.defaultMode as string))
        return { key: 'permissions.defaultMode', why: `"permissions.defaultMode" must be one of ${PERMISSION_MODES.join(', ')}` };
    }
    if (key === 'hooks' && isObject(value)) {
      const broken = brokenGuardHook(value);
      if (broken) return broken;
    }
  }
  return null;
}

function brokenGuardHook(hooks: Record<string, unknown>): { key: string; why: string } | null {
  for (const event of GUARD_EVENTS) {
    if (!Object.hasOwn(hooks, event)) continue;
    const matchers = hooks[event];
    const at = `hooks.${event}`;
    if (!Array.isArray(matchers)) return { key: at, why: `"${at}" must be a list of matchers, and it is ${kindOf(matchers)}` };
    for (const [i, entry] of matchers.entries()) {
      if (!isObject(entry)) continue;
      if (Object.hasOwn(entry, 'matcher') && typeof entry.matcher !== 'string')
        return { key: `${at}.${i}`, why: `the "matcher" of ${at}[${i}] must be text, and it is ${kindOf(entry.matcher)}` };
      if (!Array.isArray(entry.hooks))
        return {
          key: `${at}.${i}`,
          why:
            entry.hooks === undefined && typeof entry.command === 'string'
              ? `${at}[${i}] is in the old hook format ({"matcher", "command"}); it is now {"matcher": …, "hooks": [{"type": "command", "command": …}]}`
              : `${at}[${i}] has no "hooks" list of hook entries`,
        };
      for (const [j, hook] of entry.hooks.entries()) {
        if (!isObject(hook)) continue;
        const where = `${at}[${i}].hooks[${j}]`;
        if (!Object.hasOwn(hook, 'type')) return { key: `${at}.${i}.hooks.${j}.type`, why: `${where} has no "type"` };
        if (!HOOK_TYPES.includes(hook.type as string))
          return { key: `${at}.${i}.hooks.${j}.type`, why: `the "type" of ${where} is not one Claude Code knows (${HOOK_TYPES.join(', ')})` };
        if (hook.type === 'command' && typeof hook.command !== 'string')
          return { key: `${at}.${i}.hooks.${j}`, why: `${where} is a command hook with no "command" text` };
      }
    }
  }
  return null;
}

/**
 * The managed settings files, base first, then the drop-ins (`*.json`, not dot-files, in name
 * order): later files win key by key, as Claude Code merges them.
 */
export function readManagedSettings(dir: string, problems: SettingsProblem[], cache?: SettingsCache): SettingsFile[] {
  const files = [readSettingsFile('managed', path.join(dir, 'managed-settings.json'), problems, cache)];
  const dropIns = path.join(dir, 'managed-settings.d');
  let names: string[] = [];
  try {
    // Most machines have no drop-in folder: a stat says so without the exception a listing throws.
    if (fs.statSync(dropIns, { throwIfNoEntry: false }) === undefined) return files;
    names = fs
      .readdirSync(dropIns, { withFileTypes: true })
      .filter((d) => (d.isFile() || d.isSymbolicLink()) && d.name.endsWith('.json') && !d.name.startsWith('.'))
      .map((d) => d.name)
      .sort();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR')
      problems.push({ file: dropIns, message: `Cannot list these managed settings (${failureWords(error)}); they are not applied.` });
  }
  for (const name of names) files.push(readSettingsFile('managed', path.join(dropIns, name), problems, cache));
  return files;
}

function uidOrNull(p: string, follow: boolean): number | null {
  try {
    return (follow ? fs.statSync(p) : fs.lstatSync(p)).uid;
  } catch {
    return null;
  }
}

/**
 * Where the local settings of a session launched in `launchDir` live (see the module comment):
 * the store root, and the launch directory read beneath it when they differ. `canonicalRoot`
 * is the launch directory's R-KEY key.
 */
export function localSettingsRoots(
  launchDir: string,
  canonicalRoot: string,
  env: NodeJS.ProcessEnv = process.env,
): { root: string; beneath: string | null; reason: string | null } {
  if (canonicalRoot === launchDir) return { root: launchDir, beneath: null, reason: null };
  let home = userHomeDir(env);
  try {
    home = fs.realpathSync(home);
  } catch {
    // A home that cannot be resolved is compared as written.
  }
  if (canonicalRoot.normalize('NFC') === home.normalize('NFC')) return { root: launchDir, beneath: null, reason: 'the repository root is your home directory' };
  const euid = process.geteuid?.() ?? process.getuid?.();
  // No uid semantics (Windows): Claude Code keeps the store at the launch directory.
  if (euid === undefined) return { root: launchDir, beneath: null, reason: 'ownership cannot be checked on this platform' };
  const rootUid = uidOrNull(canonicalRoot, true);
  const gitUid = uidOrNull(path.join(canonicalRoot, '.git'), false);
  const claudeUid = fs.existsSync(path.join(canonicalRoot, '.claude')) ? uidOrNull(path.join(canonicalRoot, '.claude'), false) : euid;
  if (rootUid !== euid || gitUid !== euid || claudeUid !== euid) {
    return { root: launchDir, beneath: null, reason: `${canonicalRoot} (or its .git or .claude) is not owned by you` };
  }
  return { root: canonicalRoot, beneath: launchDir, reason: null };
}
