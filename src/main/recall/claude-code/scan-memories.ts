/**
 * The memory scan of Claude Code's recall, replicated (R-RECALL-SELECT; Claude Code 2.1.332's
 * `memoryScan`, read from its bundle and checked against its requests). It is deliberately not
 * Memdir's own scan (scan-dir.ts, with its cache and its health rules): the selector sees the
 * memory directory through Claude Code's eyes, and those differ from Memdir's in ways a user
 * would notice —
 *   - every `*.md` (case-sensitive) anywhere below the memory dir, symlinks followed (a linked
 *     folder once, never an ancestor), except any file named `MEMORY.md`, any path with a
 *     segment starting with `.`, the top folders `logs/`, `sessions/`, `proposals/` (compared
 *     case-insensitively), and anything deeper than `team/<file>` in the team folder;
 *   - only the head of each file is read: its first 30 lines, at most 64 KiB;
 *   - the frontmatter is the text between an opening `---` line and the *first* `---` after it,
 *     even in the middle of a line (`description: a---b` reads as `a`); YAML, retried once with
 *     risky values quoted and leading tabs turned into spaces; anything else reads as none;
 *   - the description is the top-level `description` when it is a non-empty string (a number, a
 *     list or `metadata.description` are ignored; whitespace and newlines are kept as written);
 *   - the type is `metadata.type` if the file has a `metadata:` map holding `type` (even null),
 *     else the top-level `type`, and only one of the four exact words counts;
 *   - a frontmatter holding a NUL character reads as none (no type, no description);
 *   - newest first by mtime; unreadable files are left out.
 * In memory-store mode (a `CLAUDE_MEMORY_STORES` the client can use: {@link recallStoreRules}) three
 * things change (recorded: test/fixtures/claude-code/recall-stores-2.1.332.json): only the memory
 * dir's own `MEMORY.md` (and a store's `promptIndex`) is left out, so every other `MEMORY.md` is
 * offered; the files of a team store's folder `team/<mount>/` are offered at any depth (dot folders
 * too, as everything under team/); and a file without a description is offered with its first line
 * of text after the frontmatter ({@link firstTextLine}).
 * The 200-newest cap is applied by the caller, who also shows what falls past it.
 */
import { failureWords } from '../../../shared/failure-words.js';
import type { Dirent } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import YAML from 'yaml';
import { isMemoryType, type MemoryType } from '../../../shared/memory-types.js';
import { SKIPPED_TOP_FOLDERS } from '../../../shared/limits.js';
import { mapLimit, type MemoryStoresSetting, quoteProblematicValues, scanFrontmatter, settingStores } from '../../memdir/index.js';
import { isRecord } from '../../../shared/is-record.js';

/** A topic file as Claude Code's recall sees it. */
export interface ClaudeCodeMemoryHeader {
  /** Path relative to the memory dir, with the platform's separator (`retros/q1.md`). */
  file: string;
  mtimeMs: number;
  /** Null when the file has none that Claude Code would read. */
  description: string | null;
  type: MemoryType | null;
}

/** Claude Code sends the selector only the newest this many files. */
export const CLAUDE_CODE_RECALL_CAP = 200;
/** How much of each file Claude Code reads for its frontmatter. */
export const HEAD_LINES = 30;
export const HEAD_BYTES = 65_536;
// Enough bytes that a line crossing HEAD_BYTES is seen to cross it even after `\r`s are removed.
const READ_BYTES = HEAD_BYTES + 1_024;

/** Claude Code's folder-name comparison: NFC, trailing dots and spaces dropped, lower case. */
function folderKey(name: string): string {
  return name
    .normalize('NFC')
    .replace(/[. ]+$/, '')
    .toLowerCase();
}

/** What memory-store mode changes in the scan (2.1.332, read from its bundle and recorded). */
export interface RecallStoreRules {
  /** Relative paths never offered: the memory dir's MEMORY.md and each store's `promptIndex`. */
  excluded: ReadonlySet<string>;
  /** Folders never offered (each store's `skillsDirs`), relative, ending in the separator. */
  excludedFolders: readonly string[];
  /** Team stores' mounts: `team/<mount>/` is offered at any depth (a mount named `account` never). */
  teamMounts: ReadonlySet<string>;
}

/** The rules of {@link RecallStoreRules} for a setting, or null when the client has no stores from it (unset, blank, refused, `[]`). */
export function recallStoreRules(setting: MemoryStoresSetting): RecallStoreRules | null {
  const stores = settingStores(setting);
  if (stores.length === 0) return null;
  const under = (store: (typeof stores)[number], rel: string) =>
    store.scope === 'user' ? path.join(...rel.split('/')) : path.join('team', store.mount, ...rel.split('/'));
  return {
    excluded: new Set(['MEMORY.md', ...stores.flatMap((s) => (s.promptIndex === undefined ? [] : [under(s, s.promptIndex)]))]),
    excludedFolders: stores.flatMap((s) => (s.skillsDirs ?? []).map((d) => under(s, d) + path.sep)),
    teamMounts: new Set(stores.flatMap((s) => (s.scope === 'team' && s.mount !== 'account' ? [s.mount] : []))),
  };
}

/** Whether Claude Code offers this relative path to its selector; `stores`: in memory-store mode. */
export function isRecallCandidatePath(relative: string, stores: RecallStoreRules | null = null): boolean {
  const segments = relative.split(/[\\/]/);
  const name = segments[segments.length - 1]!;
  if (!relative.endsWith('.md')) return false;
  if (stores ? stores.excluded.has(relative) || stores.excludedFolders.some((f) => relative.startsWith(f)) : name === 'MEMORY.md') return false;
  // Team memory: files directly in team/, and in store mode anything in a team store's folder.
  if (folderKey(segments[0]!) === 'team') return segments.length < 3 || (stores?.teamMounts.has(segments[1]!) ?? false);
  if (segments.some((s) => s.startsWith('.'))) return false;
  return !SKIPPED_TOP_FOLDERS.includes(folderKey(segments[0]!));
}

type EntryKind = 'file' | 'directory' | 'link' | 'other';

async function kindOf(abs: string, entry: { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }): Promise<EntryKind> {
  if (entry.isFile()) return 'file';
  if (entry.isDirectory()) return 'directory';
  if (entry.isSymbolicLink()) return 'link';
  const stat = await fs.lstat(abs).catch(() => null);
  if (!stat) return 'other';
  if (stat.isSymbolicLink()) return 'link';
  return stat.isFile() ? 'file' : stat.isDirectory() ? 'directory' : 'other';
}

/** A folder's identity, so a linked folder is entered once and an ancestor never. */
async function folderId(abs: string): Promise<string | null> {
  const stat = await fs.stat(abs, { bigint: true }).catch(() => null);
  return stat?.isDirectory() ? `${stat.dev}:${stat.ino}` : null;
}

/**
 * A folder's entries in the order the OS lists them (`ls -U`): `fs.readdir` would sort them by
 * name (libuv's scandir does), and Claude Code keeps files of one mtime in this order (review x5 F4).
 */
async function entriesInOsOrder(abs: string): Promise<Dirent[]> {
  const entries: Dirent[] = [];
  for await (const entry of await fs.opendir(abs)) entries.push(entry);
  return entries;
}

/**
 * Every file below `root` (relative paths), in Claude Code's order: depth first, each folder's
 * entries in the order the OS lists them, then what symlinks lead to (links sorted by path).
 */
async function listFiles(root: string): Promise<string[]> {
  const links: string[] = [];
  const realFolders: string[] = [''];
  let entered: Set<string> | null = null;

  const walk = async (relative: string): Promise<string[]> => {
    const abs = path.join(root, relative);
    if (entered) {
      const stat = await fs.stat(abs, { bigint: true }).catch(() => null);
      if (!stat) return [];
      if (!stat.isDirectory()) return stat.isFile() ? [relative] : [];
      const id = `${stat.dev}:${stat.ino}`;
      if (entered.has(id)) return [];
      entered.add(id);
    } else if (relative !== '') realFolders.push(relative);
    const entries = await entriesInOsOrder(abs);
    const nested = await Promise.all(
      entries.map(async (entry) => {
        const child = relative ? path.join(relative, entry.name) : entry.name;
        const kind = await kindOf(path.join(root, child), entry).catch((): EntryKind => 'link');
        // An unreadable subfolder is skipped, as Claude Code skips it.
        if (kind === 'directory') return walk(child).catch(() => []);
        if (kind === 'link') links.push(child);
        return kind === 'file' ? [child] : [];
      }),
    );
    return nested.flat();
  };

  const found = await walk('');
  if (links.length === 0) return found;
  entered = new Set();
  for (const folder of realFolders) {
    const id = await folderId(path.join(root, folder));
    if (id) entered.add(id);
  }
  // Never follow a link back up: every ancestor of the memory dir counts as entered.
  for (let dir = path.dirname(path.resolve(root)); ; dir = path.dirname(dir)) {
    const id = await folderId(dir);
    if (id) entered.add(id);
    if (path.dirname(dir) === dir) break;
  }
  const all = [found];
  while (links.length > 0) {
    for (const link of links.splice(0).sort()) all.push(await walk(link).catch(() => []));
  }
  return all.flat();
}

/**
 * The head Claude Code reads: BOM dropped, lines split on `\n` with a trailing `\r` removed, at
 * most HEAD_LINES lines, and no line that would take the text past HEAD_BYTES (UTF-8).
 */
export function headOf(text: string): string {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const lines: string[] = [];
  let bytes = 0;
  let stopped = false;
  const add = (raw: string): void => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const next = bytes + (lines.length > 0 ? 1 : 0) + Buffer.byteLength(line);
    if (next > HEAD_BYTES) {
      stopped = true;
      return;
    }
    bytes = next;
    lines.push(line);
  };
  let count = 0;
  let start = 0;
  for (let nl = body.indexOf('\n'); nl !== -1 && count < HEAD_LINES; nl = body.indexOf('\n', start)) {
    if (!stopped) add(body.slice(start, nl));
    count++;
    start = nl + 1;
  }
  if (count < HEAD_LINES && !stopped) add(body.slice(start));
  return lines.join('\n');
}

function parseYaml(source: string): unknown {
  // A NUL anywhere in it makes Claude Code 2.1.332 read no frontmatter at all (its selector request
  // lists such a file without type or description); other control characters it reads as written.
  if (source.includes('\u0000')) return {};
  // The shapes memories have are read by the exact scanner (property-tested against the YAML path).
  const simple = scanFrontmatter(source);
  if (simple !== undefined) return simple;
  // Duplicate keys: the last one wins, as in Claude Code's parser; then its quoting retry.
  // `logLevel: 'error'`: the library's warnings would print the file's own text to stderr, raw
  // (frontmatter-yaml.ts).
  try {
    return YAML.parse(source, { uniqueKeys: false, logLevel: 'error' });
  } catch {
    try {
      return YAML.parse(quoteProblematicValues(source), { uniqueKeys: false, logLevel: 'error' });
    } catch {
      return {};
    }
  }
}

/** A head's frontmatter text (null: none) and what follows it, split where Claude Code splits them. */
function splitHead(head: string): { frontmatter: string | null; body: string } {
  const text = head.charCodeAt(0) === 0xfeff ? head.slice(1) : head;
  const match = text.indexOf('---', 3) < 0 ? null : /^---\s*\n([\s\S]*?)---\s*\n?/.exec(text);
  return match ? { frontmatter: match[1] ?? '', body: text.slice(match[0].length) } : { frontmatter: null, body: text };
}

/** How much of a line {@link firstTextLine} keeps (UTF-16 units, as the client cuts). */
const TEXT_LINE_CHARS = 120;

/**
 * The line Claude Code offers in memory-store mode for a file without a description: the first
 * line after the frontmatter with text once one to six leading `#`s and the blanks after them
 * are dropped and it is trimmed, cut at 120 characters; null when there is none.
 */
export function firstTextLine(head: string): string | null {
  for (const line of splitHead(head).body.split('\n')) {
    const text = line.replace(/^#{1,6}\s+/, '').trim();
    if (text) return text.slice(0, TEXT_LINE_CHARS);
  }
  return null;
}

/** The description and type Claude Code reads from a file's head. */
export function readHeadFrontmatter(head: string): { description: string | null; type: MemoryType | null } {
  const { frontmatter } = splitHead(head);
  if (frontmatter === null) return { description: null, type: null };
  const parsed = parseYaml(frontmatter);
  const data = isRecord(parsed) ? parsed : {};
  const description = typeof data.description === 'string' && data.description.length > 0 ? data.description : null;
  // Flat keys (but name, description, metadata and empty values), then `metadata:` over them.
  const merged: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) if (!['name', 'description', 'metadata'].includes(key) && value != null) merged[key] = value;
  if (isRecord(data.metadata)) Object.assign(merged, data.metadata);
  return { description, type: isMemoryType(merged.type) ? merged.type : null };
}

async function readHead(abs: string): Promise<{ head: string; mtimeMs: number }> {
  const handle = await fs.open(abs, 'r');
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new Error('not a file');
    const buffer = Buffer.alloc(Math.min(READ_BYTES, stat.size));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const bytes = buffer.subarray(0, bytesRead);
    // A UTF-16 byte order mark is honoured, as Claude Code's reader does; anything else is UTF-8.
    const text = bytes[0] === 0xff && bytes[1] === 0xfe ? bytes.subarray(0, bytes.length & ~1).toString('utf16le') : bytes.toString('utf8');
    return { head: headOf(text), mtimeMs: stat.mtimeMs };
  } finally {
    await handle.close();
  }
}

/**
 * Scan a memory dir as Claude Code's recall does: every candidate with its description and
 * type, newest first, uncapped (the caller cuts at CLAUDE_CODE_RECALL_CAP); `stores`: the rules of
 * memory-store mode ({@link recallStoreRules}), null without it. A memory dir that
 * cannot be listed gives `error` and no memories — Claude Code then offers nothing either.
 */
export async function scanLikeClaudeCode(
  memoryDir: string,
  stores: RecallStoreRules | null = null,
): Promise<{ memories: ClaudeCodeMemoryHeader[]; error: string | null }> {
  let files: string[];
  try {
    files = (await listFiles(memoryDir)).filter((file) => isRecallCandidatePath(file, stores));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { memories: [], error: code === 'ENOENT' ? null : `The memory directory could not be listed (${failureWords(error)}).` };
  }
  const read = await mapLimit(files, 32, async (file) => {
    try {
      const { head, mtimeMs } = await readHead(path.join(memoryDir, file));
      const { description, type } = readHeadFrontmatter(head);
      return { file, mtimeMs, type, description: description ?? (stores ? firstTextLine(head) : null) };
    } catch {
      return null;
    }
  });
  // Array.prototype.sort is stable: equal mtimes keep the listing order, as in Claude Code.
  const memories = read.filter((m) => m !== null).sort((a, b) => b.mtimeMs - a.mtimeMs);
  return { memories, error: null };
}
