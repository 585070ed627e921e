/**
 * The scan cache: what each file held at which stat facts (size, mtime, ctime, inode), and each
 * memory directory's scan with the records it was built from. A rescan stats and compares; only
 * what changed is read again. It lives in memory for a process; scan-cache-file.ts keeps it on
 * disk between processes.
 */
import path from 'node:path';
import type { IndexLoad, ParsedIndex } from '../../shared/index-format.js';
import type { MemoryDirScan } from '../../shared/scan-types.js';
import type { FileFacts, ReadOutcome } from './read-file.js';
import type { TopicSummary } from './topic-summary.js';

/** Why a file could not be used. */
export type Failure = Exclude<ReadOutcome, { ok: true }>;

/** A topic file as last read: its stat facts and what the scan keeps of it. */
export interface CachedTopic {
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
}
/** A memory directory's scan and the records it was built from. */
export interface CachedDir {
  /** The records the result was built from; any change of identity means rebuild. */
  parts: (CachedTopic | CachedIndex | string)[];
  result: MemoryDirScan;
}

/** Facts of a file that could not be opened. */
export const UNKNOWN: FileFacts = { size: -1, mtimeMs: -1, ctimeMs: -1, ino: -1 };

/** Remembers what each file held at which stat facts, across scans of any number of dirs. */
export class ScanCache {
  readonly topics = new Map<string, CachedTopic>();
  readonly indexes = new Map<string, CachedIndex>();
  readonly dirs = new Map<string, CachedDir>();
  /** Drop everything under a directory (after a write Memdir made, say). */
  forget(dir: string): void {
    const prefix = dir.endsWith(path.sep) ? dir : dir + path.sep;
    for (const map of [this.topics, this.indexes, this.dirs] as Map<string, unknown>[]) {
      for (const key of map.keys()) if (key === dir || key.startsWith(prefix)) map.delete(key);
    }
  }
}

/** Whether two stat snapshots describe the same unchanged file. */
export function sameFacts(a: FileFacts, b: FileFacts): boolean {
  return a.mtimeMs === b.mtimeMs && a.size === b.size && a.ino === b.ino && a.ctimeMs === b.ctimeMs;
}
