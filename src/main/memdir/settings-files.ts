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
      const why = code === 'EACCES' || code === 'EPERM' ? 'permission denied' : code === 'EISDIR' ? 'it is a directory' : (code ?? String(error));
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
    const consequence = source === 'managed' ? 'Claude Code refuses to start while it is broken' : 'none of them is applied';
    problems.push({ file, message: `These settings are not valid JSON (${detail}); ${consequence}.` });
    return { source, file, values: null };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    problems.push({ file, message: 'These settings are not a JSON object; none of them is applied.' });
    return { source, file, values: null };
  }
  return { source, file, values: parsed as Record<string, unknown> };
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
      problems.push({ file: dropIns, message: `Cannot list these managed settings (${code ?? String(error)}); they are not applied.` });
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
