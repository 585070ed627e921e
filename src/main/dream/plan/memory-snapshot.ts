/**
 * R-DREAM-PHASES, Orient: read every memory file and the index once, into a snapshot the later
 * phases work on. Nothing after Orient reads the memory dir again until apply, which compares
 * each file it is about to change with what Orient read (a file edited by someone else
 * mid-dream is left alone, and reported).
 *
 * Read: `MEMORY.md` and the top-level `*.md` of the memory dir, and the same in `team/`. Not read:
 * dotfiles (the lock, temp files), other folders. Files that cannot be read (binary, too large,
 * a symlink — never followed here) are in the snapshot with their reason and are never changed; a
 * name of the index or a memory held by something that is no file (a folder `MEMORY.md/`) is listed
 * in `notFiles` with its reason. `unreadableFiles` lists both: what the dream must say it could not read.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { INDEX_FILE, TEAM_DIR } from '../../../shared/limits.js';
import type { Scope } from '../../../shared/memory-types.js';
import { type ParsedTopic, parseTopicFile, readMemoryText } from '../../memdir/index.js';
import { splitRelativePath } from '../../core/confined-path.js';

/** One file as Orient read it. */
export interface SnapshotFile {
  /** Relative to the memory dir, forward slashes: `x.md`, `MEMORY.md`, `team/x.md`. */
  rel: string;
  scope: Scope;
  /** The name inside its scope's directory. */
  name: string;
  kind: 'index' | 'topic';
  /** The text, or null when it could not be read (see `problem`). */
  text: string | null;
  problem: string | null;
  /** A symbolic link: never followed or changed, by choice — no failure (a dream says so as a note, not as "could not read"). */
  link?: boolean;
  /** sha256 of the text ('' when unreadable): what apply compares against. */
  hash: string;
  mtimeMs: number;
  /** The parsed topic file (topics only). */
  topic: ParsedTopic | null;
}

/** The memory dir as Orient saw it. */
export interface MemorySnapshot {
  memoryDir: string;
  /** Files by `rel`. */
  files: Map<string, SnapshotFile>;
  /** Names of the index or a memory (`MEMORY.md`, `x.md`, `team/…`) held by no file (a folder): why, by `rel`. Never changed. */
  notFiles: Map<string, string>;
  readAtMs: number;
  bytes: number;
}

/**
 * What Orient could not read, by the memory's name (`rel`), with why: a dream reports it and never
 * writes over it. `link`: a symbolic link, left alone by choice rather than by a failure.
 */
export function unreadableFiles(snapshot: MemorySnapshot): { rel: string; reason: string; link: boolean }[] {
  const out = [...snapshot.files.values()].filter((f) => f.problem !== null).map((f) => ({ rel: f.rel, reason: f.problem!, link: f.link === true }));
  for (const [rel, reason] of snapshot.notFiles) out.push({ rel, reason, link: false });
  return out.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
}

/** sha256 of a text, hex; the identity apply checks a file against. */
export function hashText(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The scope of a relative path and its name inside the scope's directory. */
export function scopeOf(rel: string): { scope: Scope; name: string } {
  return rel.startsWith(`${TEAM_DIR}/`) ? { scope: 'team', name: rel.slice(TEAM_DIR.length + 1) } : { scope: 'private', name: rel };
}

/** `rel` for a name in a scope. */
export function relOf(scope: Scope, name: string): string {
  return scope === 'team' ? `${TEAM_DIR}/${name}` : name;
}

/**
 * The names in a directory Orient reads: the index and top-level `*.md`, no dotfiles; a `*.md` that
 * is no file (a folder) comes back with why (`notFile`), to be reported, never read.
 */
function listMemoryNames(dir: string): { name: string; isSymlink: boolean; notFile: string | null }[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter((d) => !d.name.startsWith('.') && /\.md$/i.test(d.name))
    .map((d) => ({
      name: d.name,
      isSymlink: d.isSymbolicLink(),
      notFile: d.isFile() || d.isSymbolicLink() ? null : d.isDirectory() ? 'it is a folder, not a file' : 'it is not a regular file',
    }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * Current content of one file for apply's comparison: the text, null when absent, or a
 * `problem` when it exists but is not a plain readable file (a symlink counts: never followed).
 */
export function readCurrent(memoryDir: string, rel: string): { text: string | null; problem: string | null } {
  // Confined as a write there would be (splitRelativePath): a path that leaves the memory folder is not read.
  let parts: string[];
  try {
    parts = splitRelativePath(rel, 'the memory directory', 'read');
  } catch (error) {
    return { text: null, problem: error instanceof Error ? error.message : String(error) };
  }
  const abs = path.join(memoryDir, ...parts);
  const stat = fs.lstatSync(abs, { throwIfNoEntry: false });
  if (!stat) return { text: null, problem: null };
  if (stat.isSymbolicLink()) return { text: null, problem: 'it is now a symbolic link' };
  const outcome = readMemoryText(path.dirname(abs), abs, false);
  return outcome.ok ? { text: outcome.text, problem: null } : { text: null, problem: outcome.reason };
}

/**
 * Orient: reads every memory file and both indexes. `onFile` is called after each file (for
 * progress); `signal` is checked between files (cancel at any phase).
 */
export async function readMemorySnapshot(
  memoryDir: string,
  opts: { signal?: AbortSignal; onFile?: (done: number, total: number, rel: string) => void } = {},
): Promise<MemorySnapshot> {
  const files = new Map<string, SnapshotFile>();
  const notFiles = new Map<string, string>();
  const listed: { rel: string; scope: Scope; name: string; isSymlink: boolean; abs: string }[] = [];
  for (const scope of ['private', 'team'] as const) {
    const dir = scope === 'team' ? path.join(memoryDir, TEAM_DIR) : memoryDir;
    if (scope === 'team') {
      // A team folder that is a link is never followed (R-SYNC-SECURITY).
      const st = fs.lstatSync(dir, { throwIfNoEntry: false });
      if (!st?.isDirectory()) continue;
    }
    for (const { name, isSymlink, notFile } of listMemoryNames(dir)) {
      if (notFile !== null) notFiles.set(relOf(scope, name), notFile);
      else listed.push({ rel: relOf(scope, name), scope, name, isSymlink, abs: path.join(dir, name) });
    }
  }
  let bytes = 0;
  for (const [i, entry] of listed.entries()) {
    opts.signal?.throwIfAborted();
    const kind = entry.name === INDEX_FILE ? 'index' : 'topic';
    let file: SnapshotFile;
    if (entry.isSymlink) {
      const stat = fs.lstatSync(entry.abs, { throwIfNoEntry: false });
      file = {
        rel: entry.rel,
        scope: entry.scope,
        name: entry.name,
        kind,
        text: null,
        problem: 'it is a symbolic link; a dream never follows or changes links',
        link: true,
        hash: '',
        mtimeMs: stat?.mtimeMs ?? 0,
        topic: null,
      };
    } else {
      const outcome = readMemoryText(path.dirname(entry.abs), entry.abs, false, kind === 'index' ? 20_000_000 : undefined);
      if (outcome.ok) {
        bytes += outcome.facts.size;
        file = {
          rel: entry.rel,
          scope: entry.scope,
          name: entry.name,
          kind,
          text: outcome.text,
          problem: null,
          hash: hashText(outcome.text),
          mtimeMs: outcome.facts.mtimeMs,
          topic: kind === 'topic' ? parseTopicFile(outcome.text, entry.name) : null,
        };
      } else {
        file = {
          rel: entry.rel,
          scope: entry.scope,
          name: entry.name,
          kind,
          text: null,
          problem: outcome.reason,
          hash: '',
          mtimeMs: outcome.facts?.mtimeMs ?? 0,
          topic: null,
        };
      }
    }
    files.set(entry.rel, file);
    opts.onFile?.(i + 1, listed.length, entry.rel);
    // Yield now and then: Orient of a big memory dir must not freeze the app's event loop.
    if (i % 64 === 63) await new Promise((resolve) => setImmediate(resolve));
  }
  return { memoryDir, files, notFiles, readAtMs: Date.now(), bytes };
}

/** Topic files of a snapshot that were read, optionally of one scope. */
export function readableTopics(snapshot: MemorySnapshot, scope?: Scope): (SnapshotFile & { text: string; topic: ParsedTopic })[] {
  return [...snapshot.files.values()].filter(
    (f): f is SnapshotFile & { text: string; topic: ParsedTopic } =>
      f.kind === 'topic' && f.text !== null && f.topic !== null && (scope === undefined || f.scope === scope),
  );
}
