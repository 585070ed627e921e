/**
 * The scan cache: what each file held at which stat facts (size, mtime, ctime, inode), and each
 * memory directory's scan with the records it was built from. A rescan stats and compares; only
 * what changed is read again. It lives in memory for a process; scan-cache-file.ts keeps it on
 * disk between processes.
 */
import path from 'node:path';
import type { ParsedIndex } from '../../shared/index-format.js';
import type { IndexLoad } from '../../shared/index-load.js';
import { type IndexReach, NO_REACH } from '../../shared/index-state.js';
import { INDEX_FILE } from '../../shared/limits.js';
import type { MemoryDirScan } from '../../shared/scan-types.js';
import type { FolderFacts } from './list-memory-files.js';
import type { FileFacts, ReadOutcome } from './read-file.js';
import type { TopicSummary } from './topic-summary.js';

/** Why a file could not be used. */
export type Failure = Exclude<ReadOutcome, { ok: true }>;

/** A topic file as last read: its stat facts and what the scan keeps of it. */
export interface CachedTopic {
  /** Its path relative to the memory directory (`x.md`, `retros/x.md`). */
  file: string;
  facts: FileFacts;
  isSymlink: boolean;
  outcome: Failure | null;
  summary: TopicSummary | null;
  bytes: number;
}
/** MEMORY.md as last read. */
export interface CachedIndex {
  facts: FileFacts;
  outcome: Failure | null;
  parsed: ParsedIndex | null;
  load: IndexLoad | null;
  /** The files its links name, each once, in order (null when it could not be read). */
  targets: string[] | null;
  /** Team files (relative to `team/`) its links name, on lines that reach the agent and past the cut, each once a list; empty for team/MEMORY.md, which no one loads. */
  teamLinks: IndexReach;
  /**
   * Loaded from the cache file: facts and targets only. Enough to recognise an unchanged
   * directory; read again before a directory's scan is rebuilt.
   */
  stub?: true;
}
/** A memory directory's scan and the records it was built from. */
export interface CachedDir {
  /** The records the result was built from; any change of identity means rebuild. */
  parts: (CachedTopic | CachedIndex | string)[];
  result: MemoryDirScan;
  /**
   * The index's links that name no topic file here ({@link otherTargets}): while the index and
   * the listing are the same, only whether these exist can change, so a rescan looks up nothing else.
   */
  others: string[];
  /**
   * The folders of the listing it was built from, with their stat facts (list-memory-files.ts), or
   * null when not known or changed moments before the listing (see {@link settledFolders}).
   */
  folders: FolderFacts[] | null;
  /** Files and folders changed after this moment (ms) may change again with the same facts: not written down ({@link ScanCache.settledBefore}). */
  settledBefore: number;
}

/** size, mtimeMs, ctimeMs, ino — as written in the cache file. */
export type StoredFacts = [number, number, number, number];
export type StoredFailure = { code: 'unreadable' | 'unsafe-link'; reason: string };

/**
 * A memory directory as the cache file wrote it down: enough to tell, with stats only, whether
 * it is unchanged, and to rebuild its records when it is not (see scan-cache-file.ts).
 */
export interface StoredDir {
  index: { facts: StoredFacts; targets: string[] | null; teamLinks: IndexReach; failure: StoredFailure | null } | null;
  /** The topic files' paths, sorted. */
  files: string[];
  /**
   * Their stat facts, four numbers a file (size, mtimeMs, ctimeMs, ino) in the order of `files`:
   * flat, so a cache of 100,000 files loads as a few hundred views of one block, not 100,000 tuples.
   */
  facts: ArrayLike<number>;
  /** For the files that have any, by position in `files`: frontmatter issues, R-NOTSAVE hints, why it could not be read. */
  notes: [number, TopicSummary['issues'], TopicSummary['hints'], StoredFailure | null][];
  /** The other parts the scan was built from (`stray:x.md`, `other:team/x.md`, `parent:x.md`, `parent-cut:x.md`, `parent-read-only:<why>`). */
  tail: string[];
  /** The index's links that name no topic file here ({@link otherTargets}): the paths an unchanged check looks for. */
  others: string[];
  /**
   * Its folders' stat facts when it was listed (the directory first): while they all hold, its
   * listing is the one written down and it is not listed again. Null: listed every time.
   */
  folders: FolderFacts[] | null;
  result: MemoryDirScan;
}

/**
 * Files and folders changed less than this long before they were looked at are not written down:
 * a second change within the file system's timestamp granularity could leave the same facts (git
 * calls them racily clean). Their directory is read again by the next process.
 */
export const RACY_MS = 2_000;

/** Facts of a file that could not be opened. */
export const UNKNOWN: FileFacts = { size: -1, mtimeMs: -1, ctimeMs: -1, ino: -1 };

/** Remembers what each file held at which stat facts, across scans of any number of dirs. */
export class ScanCache {
  readonly topics = new Map<string, CachedTopic>();
  readonly indexes = new Map<string, CachedIndex>();
  readonly dirs = new Map<string, CachedDir>();
  /** Directories known only from the cache file, kept as read until one of them changes. */
  readonly stored = new Map<string, StoredDir>();
  /** Bumped on every change, so a saver knows whether there is anything new to write. */
  revision = 0;
  /** The clock and the racy window (RACY_MS) a scan measures freshness with (tests pass their own: openScanCache). */
  clock: () => number = Date.now;
  racyMs = RACY_MS;
  /**
   * Taken right before a directory is looked at: what changed after it may change again without
   * its stat facts moving, so it is not written down — measured from when the facts were taken, not
   * from the save, which comes later.
   */
  settledBefore(): number {
    return this.clock() - this.racyMs;
  }
  /** Drop everything under a directory (after a write Memdir made, say). */
  forget(dir: string): void {
    this.revision++;
    const prefix = dir.endsWith(path.sep) ? dir : dir + path.sep;
    for (const map of [this.topics, this.indexes, this.dirs, this.stored] as Map<string, unknown>[]) {
      for (const key of map.keys()) if (key === dir || key.startsWith(prefix)) map.delete(key);
    }
  }
}

/** A listing's folder facts as the cache file may keep them: null when one is unknown or changed after `settledBefore`. */
export function settledFolders(folders: FolderFacts[], settledBefore: number): FolderFacts[] | null {
  return folders.every(([, mtimeMs, ctimeMs, ino]) => ino !== -1 && Math.max(mtimeMs, ctimeMs) <= settledBefore) ? folders : null;
}

/** Whether two stat snapshots describe the same unchanged file. */
export function sameFacts(a: FileFacts, b: FileFacts): boolean {
  return a.mtimeMs === b.mtimeMs && a.size === b.size && a.ino === b.ino && a.ctimeMs === b.ctimeMs;
}

/**
 * `dir/file` for a path relative to a memory directory (`x.md`, `retros/x.md`): what `path.join`
 * gives for a normalised directory, without its cost. Every record of the cache is keyed by it.
 */
export function childPath(dir: string, file: string): string {
  if (path.sep !== '/' && file.includes('/')) return path.join(dir, file);
  return dir.endsWith(path.sep) ? dir + file : dir + path.sep + file;
}

/**
 * The links of an index (`targets`) at paths that are not topic files of its directory (a team
 * file from the main index, say, or a dangling link), in the index's order: the ones a scan looks
 * for on disk. Paths leaving the directory are never looked for.
 */
export function otherTargets(targets: readonly string[] | null, topicFiles: readonly string[]): string[] {
  if (!targets || targets.length === 0) return [];
  const topicNames = new Set(topicFiles);
  return targets.filter((target) => !topicNames.has(target) && !target.startsWith('..') && target !== '');
}

const toFacts = ([size, mtimeMs, ctimeMs, ino]: StoredFacts): FileFacts => ({ size, mtimeMs, ctimeMs, ino });

/**
 * Turn a directory known from the cache file into the records a scan would have left (it has
 * changed, so its scan is about to be rebuilt): unchanged files are then not read again, and its
 * index — known only by its facts — is read before its health is assessed.
 */
export function restoreStoredDir(cache: ScanCache, memoryDir: string, stored: StoredDir): void {
  cache.stored.delete(memoryDir);
  cache.revision++;
  const memories = new Map(stored.result.memories.map((m) => [m.file, m]));
  const notes = new Map(stored.notes.map(([i, ...note]) => [i, note]));
  const topics: CachedTopic[] = [];
  for (let i = 0; i < stored.files.length; i++) {
    const file = stored.files[i]!;
    const [issues, hints, failure] = notes.get(i) ?? [[], [], null];
    const f = toFacts([stored.facts[4 * i]!, stored.facts[4 * i + 1]!, stored.facts[4 * i + 2]!, stored.facts[4 * i + 3]!]);
    const m = memories.get(file);
    if (failure) topics.push({ file, facts: f, isSymlink: false, outcome: { ok: false, ...failure, facts: f }, summary: null, bytes: f.size });
    else if (m)
      topics.push({
        file,
        facts: f,
        isSymlink: false,
        outcome: null,
        summary: { meta: { name: m.name, description: m.description, type: m.type, layout: m.layout }, issues, hints },
        bytes: f.size,
      });
    else return; // not consistent: nothing restored, everything read again
  }
  let index: CachedIndex | null = null;
  if (stored.index) {
    const f = toFacts(stored.index.facts);
    const failure: Failure | null = stored.index.failure ? { ok: false, ...stored.index.failure, facts: f } : null;
    // An index Memdir will not edit still has links when Claude Code reads it (a link out, not UTF-8): a stub like any other.
    index =
      failure && stored.index.targets === null
        ? { facts: f, outcome: failure, parsed: null, load: null, targets: null, teamLinks: NO_REACH }
        : { facts: f, outcome: failure, parsed: null, load: null, targets: stored.index.targets ?? [], teamLinks: stored.index.teamLinks, stub: true };

    cache.indexes.set(childPath(memoryDir, INDEX_FILE), index);
  }
  for (const t of topics) cache.topics.set(childPath(memoryDir, t.file), t);
  cache.dirs.set(memoryDir, {
    parts: [index ?? '-', ...topics, ...stored.tail],
    result: stored.result,
    others: stored.others,
    folders: stored.folders,
    // Written down settled, as of an earlier look: still so now.
    settledBefore: cache.settledBefore(),
  });
}
