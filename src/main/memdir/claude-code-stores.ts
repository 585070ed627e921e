/**
 * Folders Claude Code 2.1.332 syncs itself with its memory stores (`CLAUDE_MEMORY_STORES`), known
 * by the manifest the client keeps in each (test/fixtures/claude-code-stores/): `team/<store>/`
 * for a team store, the memory dir itself for the user's own. The one place that finds them, for
 * Memdir's sync (which leaves them alone, team-paths.ts), and that says whether the client is in
 * store mode (the setting, not the sidecars), for what the agent is said to see (health.ts,
 * agent-index.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { INDEX_FILE, TEAM_DIR } from '../../shared/limits.js';
import { listInWords } from '../../shared/size-text.js';

/** The file the client keeps in every folder it syncs; beside it, `.memory-sync-basis`: what it last synced. */
export const CLAUDE_CODE_STORE_MANIFEST = '.memory-sync';

/** Whether the folder at `abs` is one Claude Code syncs itself (it holds the client's manifest). */
export function isClaudeCodeStoreFolder(abs: string): boolean {
  return fs.lstatSync(path.join(abs, CLAUDE_CODE_STORE_MANIFEST), { throwIfNoEntry: false })?.isFile() === true;
}

/**
 * The folders of a memory dir Claude Code syncs with its stores, relative to it ('' for the memory
 * dir itself), sorted. `teamExists: false` (the scan already found no team folder) spares listing
 * it: asked for every project on every scan, that listing would cost a rescan a tenth of its floor.
 */
export function claudeCodeStoreFolders(memoryDir: string, opts: { teamExists?: boolean } = {}): string[] {
  const found = isClaudeCodeStoreFolder(memoryDir) ? [''] : [];
  let names: fs.Dirent[] = [];
  if (opts.teamExists !== false) {
    try {
      names = fs.readdirSync(path.join(memoryDir, TEAM_DIR), { withFileTypes: true });
    } catch {
      // No team folder (or not one Memdir can list): no team store there.
    }
  }
  for (const e of names) if (e.isDirectory() && isClaudeCodeStoreFolder(path.join(memoryDir, TEAM_DIR, e.name))) found.push(`${TEAM_DIR}/${e.name}`);
  return found.sort();
}

/** `CLAUDE_MEMORY_STORES` as a session sees it (settings.ts `memoryStores`): its value and where it is set. */
export type MemoryStoresSetting = { value: string; from: string } | null;

/**
 * Whether Claude Code runs in memory-store mode: as 2.1.332 decides it, `CLAUDE_MEMORY_STORES` set
 * to anything but blanks. Neither a sync nor the sidecars it leaves count (recorded,
 * test/fixtures/claude-code-stores/loaded-2.1.332.json: the setting dropped, sidecars left, loads
 * MEMORY.md again; the setting with the stores never reached loads none). A value the client cannot
 * use as a store list counts too: it then syncs nothing, yet loads no MEMORY.md and recalls
 * (recorded, test/fixtures/claude-code/stores-setting-2.1.332.json: `notjson`, `[]`, `{}`).
 */
export function inStoreMode(setting: MemoryStoresSetting): setting is { value: string; from: string } {
  return setting !== null && setting.value.trim() !== '';
}

/** One store of the setting as the client reads it, with the folder name it mounts at. */
export interface MemoryStoreEntry {
  path: string;
  mode: 'rw' | 'ro';
  scope: 'user' | 'team';
  /** `mount`, else the path's last segment with other characters than letters, digits, `_` and `-` made `-`. */
  mount: string;
  promptIndex?: string;
  skillsDirs?: string[];
}

/** A path segment list the client accepts for `promptIndex` and `skillsDirs`. */
const isSegments = (v: unknown): v is string =>
  typeof v === 'string' && v.length > 0 && v.split('/').every((s) => /^[A-Za-z0-9._-]+$/.test(s) && s !== '.' && s !== '..');

/** The client's test of a store path: path-absolute, and not one that names another host (`//host/…`). */
function isStorePath(v: unknown): v is string {
  if (typeof v !== 'string' || !v.startsWith('/')) return false;
  try {
    return new URL(v, 'https://sentinel.invalid').origin === 'https://sentinel.invalid';
  } catch {
    return false;
  }
}

/** Why one entry of the setting is refused, or its store. */
function readStoreEntry(raw: unknown, at: number): MemoryStoreEntry | string {
  const entry = typeof raw === 'string' ? { path: raw } : raw;
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return `entry ${at + 1} is neither a path nor an object`;
  const e = entry as Record<string, unknown>;
  if (!isStorePath(e.path)) return `entry ${at + 1} has no path starting with / (on the store's host)`;
  if (e.mode !== undefined && e.mode !== 'rw' && e.mode !== 'ro') return `entry ${at + 1} has a mode other than "rw" or "ro"`;
  if (e.scope !== undefined && e.scope !== 'user' && e.scope !== 'team') return `entry ${at + 1} has a scope other than "user" or "team"`;
  if (e.mount !== undefined && (typeof e.mount !== 'string' || !/^[A-Za-z0-9_-]+$/.test(e.mount)))
    return `entry ${at + 1} has a mount other than letters, digits, _ and -`;
  if (e.promptIndex !== undefined && !isSegments(e.promptIndex)) return `entry ${at + 1} has a promptIndex that is not a relative path`;
  const dirs = e.skillsDirs;
  if (dirs !== undefined && (!Array.isArray(dirs) || dirs.length > 10 || !dirs.every((d) => isSegments(d) && d.split('/').at(-1) === 'skills')))
    return `entry ${at + 1} has skillsDirs that are not at most 10 relative paths ending in skills`;
  if (e.promptIndexMaxBytes !== undefined && !(Number.isInteger(e.promptIndexMaxBytes) && (e.promptIndexMaxBytes as number) > 0))
    return `entry ${at + 1} has a promptIndexMaxBytes that is not a positive whole number`;
  let mount = e.mount as string | undefined;
  if (mount === undefined) {
    const trimmed = e.path.replace(/\/+$/, '');
    mount = trimmed.slice(trimmed.lastIndexOf('/') + 1).replace(/[^A-Za-z0-9_-]/g, '-');
    if (mount === '' || mount === '.' || mount === '..') return `entry ${at + 1} has a path whose last segment names no folder`;
  }
  return {
    path: e.path,
    mode: (e.mode as 'rw' | 'ro' | undefined) ?? 'rw',
    scope: (e.scope as 'user' | 'team' | undefined) ?? 'team',
    mount,
    ...(e.promptIndex !== undefined ? { promptIndex: e.promptIndex as string } : {}),
    ...(Array.isArray(dirs) && dirs.length > 0 ? { skillsDirs: dirs as string[] } : {}),
  };
}

/**
 * The setting read as Claude Code 2.1.332 reads it (its schema and checks, read from the bundle):
 * the stores, `null` when it names none (unset, empty, `[]`), or why the client refuses the whole
 * value (not JSON, not a list, a bad entry, a mount twice, two `scope: "user"` stores) — it then
 * syncs nothing and recall scans as without stores (recorded: stores-setting-2.1.332.json).
 */
export function readStoreSetting(setting: MemoryStoresSetting): { stores: MemoryStoreEntry[] } | { refused: string } | null {
  if (setting === null || setting.value === '') return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(setting.value);
  } catch {
    return { refused: 'it is not valid JSON' };
  }
  if (!Array.isArray(parsed)) return { refused: 'it is not a list of stores' };
  const stores: MemoryStoreEntry[] = [];
  for (const [at, raw] of parsed.entries()) {
    const entry = readStoreEntry(raw, at);
    if (typeof entry === 'string') return { refused: entry };
    if (stores.some((s) => s.mount === entry.mount)) return { refused: `two stores mount at ${entry.mount}` };
    if (entry.scope === 'user' && stores.some((s) => s.scope === 'user')) return { refused: 'it has more than one scope "user" store' };
    stores.push(entry);
  }
  return stores.length === 0 ? null : { stores };
}

/** The stores of a setting the client can use; none otherwise. */
export function settingStores(setting: MemoryStoresSetting): MemoryStoreEntry[] {
  const read = readStoreSetting(setting);
  return read && 'stores' in read ? read.stores : [];
}

/**
 * The folders the setting's stores mount at, relative to the memory dir, as the client mounts
 * them: a `scope: "user"` store at the memory dir itself (''), a team one (a bare string is one)
 * at `team/<mount>`. A value the client refuses names none.
 */
export function settingStoreFolders(setting: MemoryStoresSetting): string[] {
  return settingStores(setting).map((s) => (s.scope === 'user' ? '' : `${TEAM_DIR}/${s.mount}`));
}

/**
 * The store folders of a memory dir while in store mode ({@link inStoreMode}), sorted: those the
 * setting names and those holding the client's manifest. None out of store mode: the client then
 * syncs nothing and loads MEMORY.md, whatever sidecars an earlier sync left; none either when the
 * client cannot use the value ({@link readStoreSetting}).
 */
export function storeModeFolders(memoryDir: string, setting: MemoryStoresSetting, opts: { teamExists?: boolean } = {}): string[] {
  // A value the client cannot use as a store list: it syncs nothing, so no folder is a store's.
  if (!inStoreMode(setting) || settingStores(setting).length === 0) return [];
  return [...new Set([...settingStoreFolders(setting), ...claudeCodeStoreFolders(memoryDir, opts)])].sort();
}

/**
 * Why no MEMORY.md reaches the agent in store mode: seen with 2.1.332
 * (test/fixtures/claude-code-stores/loaded-2.1.332.json), it then loads no index at session start,
 * neither the memory dir's nor a store folder's, synced or not, and offers memories to the agent
 * by their descriptions. Null out of store mode.
 */
export function storesLoadNoIndex(memoryDir: string, setting: MemoryStoresSetting): string | null {
  return inStoreMode(setting) ? noIndexSentence(setting, storeModeFolders(memoryDir, setting)) : null;
}

/** {@link storesLoadNoIndex} for the store folders found. */
export function noIndexSentence(setting: { value: string; from: string }, folders: readonly string[]): string {
  const set = setting.from === 'CLAUDE_MEMORY_STORES' ? 'in the environment' : setting.from.replace(/^CLAUDE_MEMORY_STORES /, '');
  const read = readStoreSetting(setting);
  if (!read || 'refused' in read) {
    const why = read ? `Claude Code cannot use it as a list of memory stores (${read.refused})` : 'it names no memory store';
    return `CLAUDE_MEMORY_STORES is set (${set}) but ${why}, so Claude Code syncs nothing; Claude Code 2.1.332 still loads no ${INDEX_FILE} at session start while it is set: a pointer in an index brings nothing to the agent, which is offered memories by their descriptions instead. Fix the value or remove it.`;
  }
  const where =
    folders.length === 0 ? 'its memory stores' : `${folders.map((f) => (f === '' ? 'this memory folder' : `${f}/`)).join(', ')} itself with its memory stores`;
  return `CLAUDE_MEMORY_STORES is set (${set}), so Claude Code syncs ${where}, and Claude Code 2.1.332 then loads no ${INDEX_FILE} at session start, synced yet or not: a pointer in an index brings nothing to the agent, which is offered memories by their descriptions instead.`;
}

/**
 * Team memories (relative to the memory dir) in no team store's folder, while there is one: the
 * client's prompt sends team memories to `team/` (test/fixtures/claude-code-stores/observed-2.1.332.json,
 * memorySection) but it syncs only `team/<store>/`, so no one shares these but Memdir's team sync.
 * `readOnly` folders are not offered as where to move them. Null when there is nothing to say.
 */
export function outsideStoresSentence(folders: readonly string[], teamFiles: readonly string[], readOnly: readonly ReadOnlyStoreFolder[]): string | null {
  const teamStores = folders.filter((f) => f.startsWith(`${TEAM_DIR}/`));
  if (teamStores.length === 0) return null;
  const outside = teamFiles.filter((f) => !teamStores.some((s) => f.startsWith(`${s}/`)));
  if (outside.length === 0) return null;
  const named = listInWords(outside);
  const writable = teamStores.filter((s) => !readOnly.some((r) => r.folder === s));
  const into = (writable.length > 0 ? writable : teamStores).map((s) => `${s}/`).join(' or ');
  return `${named} ${outside.length === 1 ? 'is' : 'are'} in ${TEAM_DIR}/ but in no folder Claude Code syncs with a team store (${teamStores.map((s) => `${s}/`).join(', ')}): Claude Code tells the agent to write team memories to ${TEAM_DIR}/, yet shares only those folders, so no teammate gets ${outside.length === 1 ? 'it' : 'these'} unless Memdir's team sync is connected for this project. Move ${outside.length === 1 ? 'it' : 'them'} into ${into} to share ${outside.length === 1 ? 'it' : 'them'} through Claude Code.`;
}

/** A folder of a read-only store (`mode: "ro"`), relative to the memory dir, and the setting that says so. */
export interface ReadOnlyStoreFolder {
  folder: string;
  from: string;
}

/**
 * The store folders of a memory dir whose store is read-only. The client's manifest names only the
 * store (`{"v":1,"partition":<path>}`, no mode): the mode is the `CLAUDE_MEMORY_STORES` entry with
 * that path (a bare string, or `mode` left out, is read-write). Unknown without the setting.
 */
export function readOnlyStoreFolders(
  memoryDir: string,
  setting: { value: string; from: string } | null,
  folders: readonly string[] = setting ? claudeCodeStoreFolders(memoryDir) : [],
): ReadOnlyStoreFolder[] {
  if (!setting) return [];
  const readOnly = new Set(settingStores(setting).flatMap((s) => (s.mode === 'ro' ? [s.path] : [])));
  return folders.flatMap((folder) => {
    try {
      const manifest = JSON.parse(fs.readFileSync(path.join(memoryDir, folder, CLAUDE_CODE_STORE_MANIFEST), 'utf8')) as { partition?: unknown };
      return typeof manifest.partition === 'string' && readOnly.has(manifest.partition) ? [{ folder, from: setting.from }] : [];
    } catch {
      return [];
    }
  });
}

/**
 * What a user editing `rel` (relative to the memory dir) must know when it lies in a read-only
 * store's folder, else null (recorded: test/fixtures/claude-code-stores/read-only-2.1.332.json).
 */
export function readOnlyStoreNote(folders: readonly ReadOnlyStoreFolder[], rel: string): string | null {
  const store = folders.find((r) => r.folder === '' || rel.startsWith(`${r.folder}/`));
  if (!store) return null;
  return `${rel} is in a read-only memory store (${store.from}): Claude Code never uploads an edit of it, so an edit stays on this machine, and the next time the store's copy changes Claude Code replaces it with the store's copy, keeping no copy of the edit.`;
}

/** The client's record of what it last synced in a store folder (beside the manifest). */
export const CLAUDE_CODE_STORE_BASIS = '.memory-sync-basis';

/**
 * Files deleted on disk in a store folder that the client holds back, relative to the memory dir,
 * sorted: its basis (`{"v":1, …, "deletes": [[path, ms, syncs seen], …]}`) lists them. Recorded
 * (test/fixtures/claude-code-stores/held-delete-2.1.332.json): such a delete is never sent, the
 * file is not restored, and it comes back when the store's copy changes. A basis of another
 * shape says nothing (the format is the client's, not a contract).
 */
export function heldDeletes(memoryDir: string, folders: readonly string[]): string[] {
  return folders
    .flatMap((folder) => {
      try {
        const basis = JSON.parse(fs.readFileSync(path.join(memoryDir, folder, CLAUDE_CODE_STORE_BASIS), 'utf8')) as { v?: unknown; deletes?: unknown };
        if (basis.v !== 1 || !Array.isArray(basis.deletes)) return [];
        return basis.deletes.flatMap((d: unknown) => {
          const key = Array.isArray(d) ? (d[0] as unknown) : null;
          if (typeof key !== 'string' || !key.startsWith('/') || key.split('/').some((s) => s === '..')) return [];
          const rel = path.posix.join(folder, key.slice(1));
          return fs.existsSync(path.join(memoryDir, rel)) ? [] : [rel];
        });
      } catch {
        return [];
      }
    })
    .sort();
}

/** What a held-back delete means for the user, or null when there is none. */
export function heldDeletesSentence(files: readonly string[]): string | null {
  if (files.length === 0) return null;
  const one = files.length === 1;
  const named = listInWords(files);
  return `You deleted ${named}, but Claude Code holds the deletion back: the store keeps ${one ? 'the file' : 'them'}, so teammates still have ${one ? 'it' : 'them'}, and Claude Code puts ${one ? 'it' : 'each'} back here when a teammate changes it.`;
}

/**
 * Claude Code 2.1.332's rule for a memory file in memory-store mode, in its words: its Memory
 * section says it only then (test/fixtures/claude-code-extract/observed-stores-2.1.332.json);
 * Memdir's extraction model is told the same.
 */
export const STORE_FILE_SIZE_RULE =
  'Keep each memory file under 4KB including frontmatter (recall shows only the first 4KB) and the description to one specific line; when a file outgrows that, split or summarize it rather than continuing it in a second file.';

/** The 4KB of {@link STORE_FILE_SIZE_RULE}, in bytes. */
export const STORE_FILE_MAX_BYTES = 4096;

/** What to say of a memory file of `bytes` bytes in memory-store mode: null within {@link STORE_FILE_SIZE_RULE}. */
export function storeFileSizeWarning(file: string, bytes: number): string | null {
  if (bytes <= STORE_FILE_MAX_BYTES) return null;
  return `${file} would be ${bytes.toLocaleString('en')} bytes: Claude Code asks in memory-store mode to keep each memory file under 4KB including frontmatter (recall shows only the first 4KB). Split or summarize it.`;
}
