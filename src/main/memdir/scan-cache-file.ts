/**
 * The scan cache kept on disk, in Memdir's data dir, so that a fresh process (the CLI, the app
 * starting) answers a scan of an unchanged home after stats only: per memory directory its files'
 * stat facts (size, mtime, ctime, inode) and its scan (scan-cache-record.ts), per transcript folder
 * its session count, launch directory and whether it holds a memory folder.
 *
 * Nothing in it is trusted: the file must parse, carry this format and version and name this
 * home, and every record must check; otherwise it is ignored and the next save rebuilds it. An entry is
 * used only while every stat matches — the scanner checks each file as it always does. Written
 * atomically (temp file, fsync, rename), private to the user (0600).
 */
import { failureWords } from '../../shared/failure-words.js';
import { isAscii } from 'node:buffer';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { INDEX_FILE } from '../../shared/limits.js';
import type { FileFacts } from './read-file.js';
import { type CachedIndex, type CachedTopic, type StoredDir, UNKNOWN, childPath } from './scan-cache.js';
import { isRecord } from '../../shared/is-record.js';
import { BlockWriter, type DirRecord, isNumber, isNumbers, isString, readBlocks, readDirRecord, writeDirRecord } from './scan-cache-record.js';
import { HomeScanCache } from './scan-home.js';
import { writeDataFile } from '../core/safe-fs.js';

/**
 * Bump when the meaning or shape of the file changes: an older or newer file is then ignored.
 * 5: topic notes may hold `cut-by-comment` issues, issues carry their line, and bad-YAML messages
 * are worded anew — a version 4 file has none of these, so its files would go unflagged until changed.
 * 6: the over-limit problem counts the memories past the cut, not every pointer (index-cut.ts).
 * 7: a file without frontmatter Claude Code can read has no type (it took one from its name); a
 *    build between the two changes wrote version 6 with only one of them.
 * 8: a problem a topic's notes give is written as its number among them (scan-cache-record.ts), not again in full.
 * 9: a team directory's problems include `user-in-team` (a `user` memory in `team/`), and its
 *    orphans name team/MEMORY.md.
 * 10: one rule for what an index lists (index-state.ts): any link lists a memory, a team memory is
 *    loaded or past the cut through either index; the record holds `cutMemories`, and an index's
 *    team links are split into loaded and past the cut.
 * 11: an index Memdir will not edit (a link out of the folder, not UTF-8, binary) is scanned as
 *    Claude Code reads it: its links, loaded and cut lists were empty in a version 10 file.
 * 12: team/MEMORY.md loads nothing (Claude Code 2.1.332, index-state.ts): a team memory it alone
 *    lists is an orphan, its cut hides nothing (no over-limit, no cutMissing), and the team's
 *    cutMemories come from MEMORY.md's cut only.
 * 13: team/MEMORY.md's own problems (dangling, repeated, malformed, unsafe or unreadable lines) name
 *    team/MEMORY.md and no longer say the agent is told.
 * 14: team/MEMORY.md's summary says nothing of it loads: no loaded or cut pointers, no loaded
 *    lines, bytes or characters, no first cut line, no reason (they described a cut no one makes).
 * 15: a directory's record holds its folders' stat facts: a fresh process does not list a
 *    directory whose folders are unchanged (issue 16, bench start).
 * 16: a folder with memories but no MEMORY.md lists them as loaded, as the index Claude Code
 *    builds at session start does (index-build.ts), with an `index-built` hint; they were orphans.
 * 17: a retired team memory (an empty file in team/, R-SYNC) is no memory: not listed, no orphan
 *    problem (a version 16 file lists it and offers it a pointer).
 * 18: a description only under `metadata:` is not read, as Claude Code 2.1.332 reads none there: the
 *    memory has no description and a note saying where it is (a version 17 file shows the nested one).
 */
export const SCAN_CACHE_VERSION = 18;
const FORMAT = 'memdir-scan-cache';

/** A transcript folder under `projects/` (project-groups.ts): how it groups, at which stat facts. */
interface StoredFolder {
  /** Its path. */
  folder: string;
  /** Its mtimeMs, ctimeMs, ino. */
  facts: [number, number, number];
  transcripts: number;
  /** The launch directory its transcripts record. */
  cwd: string | null;
  hasMemory: boolean;
}

interface CacheFile {
  format: typeof FORMAT;
  version: typeof SCAN_CACHE_VERSION;
  home: string;
  dirs: DirRecord[];
  folders: StoredFolder[];
  /** The facts block the directory records share (scan-cache-record.ts). */
  facts: string;
  /** The text block's length in UTF-16 code units: the file ends with it, two bytes a unit. */
  textLength: number;
}

/**
 * Where the scan cache of `home` lives in Memdir's data dir (one file per home). `.cache`, not
 * `.json`: since version 4 a JSON line is followed by a UTF-16LE block.
 */
export function scanCacheFile(dataDir: string, home: string): string {
  const id = createHash('sha256').update(path.resolve(home)).digest('hex').slice(0, 16);
  return path.join(dataDir, 'scan-cache', `${id}.cache`);
}

/** The file versions 1–3 wrote for the same home (all JSON): removed once the new one is saved. */
function legacyScanCacheFile(file: string): string {
  return file.replace(/\.cache$/, '.json');
}

function checkedFolder(v: unknown): StoredFolder | null {
  if (!isRecord(v) || !isString(v.folder) || !path.isAbsolute(v.folder) || !isNumbers(v.facts, 3)) return null;
  if (!isNumber(v.transcripts) || (v.cwd !== null && !isString(v.cwd)) || typeof v.hasMemory !== 'boolean') return null;
  return v as unknown as StoredFolder;
}

export type LoadOutcome = { loaded: true; dirs: number } | { loaded: false; reason: string };

/**
 * Fill an empty `cache` from `file`. Never throws: a missing, unreadable, corrupt, foreign or
 * other-home file leaves the cache empty and says why. Directories are kept as written down
 * until one changes (ScanCache.stored); nothing is built for them up front.
 */
export function loadScanCache(cache: HomeScanCache, file: string, home: string): LoadOutcome {
  let raw: string;
  let bytes: Buffer;
  let end: number;
  try {
    // A line of JSON written as ASCII (see saveScanCache): checked as such, then read without
    // decoding UTF-8; the text block after it is copied as it is, not parsed.
    bytes = fs.readFileSync(file);
    end = bytes.indexOf(0x0a);
    if (end < 0 || !isAscii(bytes.subarray(0, end))) return { loaded: false, reason: 'the cache file is corrupt' };
    raw = bytes.toString('latin1', 0, end);
  } catch (error) {
    return {
      loaded: false,
      reason: (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no cache file yet' : `the cache file cannot be read (${failureWords(error)})`,
    };
  }
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch {
    return { loaded: false, reason: 'the cache file is corrupt' };
  }
  if (!isRecord(data) || data.format !== FORMAT || data.version !== SCAN_CACHE_VERSION)
    return { loaded: false, reason: `not a version ${SCAN_CACHE_VERSION} scan cache` };
  if (!isString(data.home) || path.resolve(data.home) !== path.resolve(home)) return { loaded: false, reason: 'the cache file belongs to another home' };
  if (!Array.isArray(data.dirs) || !Array.isArray(data.folders)) return { loaded: false, reason: 'the cache file is corrupt' };
  const textBytes = bytes.length - end - 1;
  if (!Number.isSafeInteger(data.textLength) || textBytes !== 2 * (data.textLength as number)) return { loaded: false, reason: 'the cache file is corrupt' };
  const blocks = readBlocks(data.facts, bytes.toString('utf16le', end + 1));
  if (!blocks) return { loaded: false, reason: 'the cache file is corrupt' };
  const dirs = data.dirs.map((d) => readDirRecord(d, blocks));
  const folders = data.folders.map(checkedFolder);
  // One bad entry and none is trusted: something else wrote this file.
  if (dirs.includes(null) || folders.includes(null)) return { loaded: false, reason: 'the cache file is corrupt' };
  for (const entry of dirs as (StoredDir & { dir: string })[]) {
    const { dir, ...stored } = entry;
    cache.stored.set(dir, stored);
  }
  for (const f of folders as StoredFolder[]) {
    cache.groups.set(f.folder, { mtimeMs: f.facts[0], ctimeMs: f.facts[1], ino: f.facts[2], transcripts: f.transcripts, cwd: f.cwd, hasMemory: f.hasMemory });
  }
  return { loaded: true, dirs: dirs.length };
}

/** The clock and window that decide which files are too fresh to write down, measured when a scan looks at them (tests pass their own). */
export interface Freshness {
  now?: () => number;
  racyMs?: number;
}

/** The cache as a file — every directory whose records are all still cached (links never are) — and the text block its records share. */
export function serializeScanCache(cache: HomeScanCache, home: string): { head: CacheFile; text: string } {
  const dirs: CacheFile['dirs'] = [];
  const blocks = new BlockWriter();
  const write = (dir: string, stored: StoredDir): void => {
    const record = writeDirRecord(dir, stored, blocks);
    if (record) dirs.push(record);
  };
  for (const [dir, { parts, result, others, folders, settledBefore }] of cache.dirs) {
    // Measured from when the directory was looked at: the save comes later.
    const racy = (facts: FileFacts): boolean => Math.max(facts.mtimeMs, facts.ctimeMs) > settledBefore;
    const [first, ...rest] = parts;
    let index: StoredDir['index'] = null;
    if (first !== '-') {
      const record = first as CachedIndex;
      if (typeof first === 'string' || cache.indexes.get(childPath(dir, INDEX_FILE)) !== record || record.facts.ino === UNKNOWN.ino || racy(record.facts))
        continue;
      index = {
        facts: [record.facts.size, record.facts.mtimeMs, record.facts.ctimeMs, record.facts.ino],
        targets: record.targets,
        teamLinks: record.teamLinks,
        failure: record.outcome ? { code: record.outcome.code, reason: record.outcome.reason } : null,
      };
    }
    const files: string[] = [];
    const facts: number[] = [];
    const notes: StoredDir['notes'] = [];
    const tail: string[] = [];
    let usable = true;
    for (const part of rest) {
      if (typeof part === 'string') {
        tail.push(part);
        continue;
      }
      const t = part as CachedTopic;
      if (cache.topics.get(childPath(dir, t.file)) !== t || racy(t.facts)) {
        usable = false;
        break;
      }
      const issues = t.summary?.issues ?? [];
      const hints = t.summary?.hints ?? [];
      if (issues.length > 0 || hints.length > 0 || t.outcome)
        notes.push([files.length, issues, hints, t.outcome ? { code: t.outcome.code, reason: t.outcome.reason } : null]);
      files.push(t.file);
      facts.push(t.facts.size, t.facts.mtimeMs, t.facts.ctimeMs, t.facts.ino);
    }
    // Folders changed moments before the listing are already left out (null): listed again next time.
    if (usable) write(dir, { index, files, facts, notes, tail, others, folders, result });
  }
  // Directories still exactly as the last file had them.
  for (const [dir, stored] of cache.stored) write(dir, stored);
  const folders: CacheFile['folders'] = [];
  for (const [folder, f] of cache.groups) {
    // A folder changed moments before it was read may change again without its facts moving: read it next time.
    if (Math.max(f.mtimeMs, f.ctimeMs) > cache.groupsSettledBefore) continue;
    folders.push({ folder, facts: [f.mtimeMs, f.ctimeMs, f.ino], transcripts: f.transcripts, cwd: f.cwd, hasMemory: f.hasMemory });
  }
  const { facts, text } = blocks.written();
  return { head: { format: FORMAT, version: SCAN_CACHE_VERSION, home: path.resolve(home), dirs, folders, facts, textLength: text.length }, text };
}

/**
 * Write the cache to `file` atomically (0600, in a private folder): one line of JSON, where
 * everything past ASCII is a `\u` escape (a one-byte string parses twice as fast as decoding
 * UTF-8 first), then the text block.
 */
export async function saveScanCache(cache: HomeScanCache, file: string, home: string): Promise<void> {
  const { head, text } = serializeScanCache(cache, home);
  const json = JSON.stringify(head).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  // The names and descriptions follow the line as UTF-16LE: read back with a copy, where parsing them as JSON cost a fresh process 4 ms.
  await writeDataFile(file, Buffer.concat([Buffer.from(`${json}\n`, 'latin1'), Buffer.from(text, 'utf16le')]), { mode: 0o600 });
}

/** A scan cache for `home`, filled from its file in `dataDir`, and how to save it when it changed. */
export interface OpenedScanCache {
  cache: HomeScanCache;
  loaded: LoadOutcome;
  /**
   * Write the cache if anything changed since it was loaded or last saved; never throws. A save
   * asked while one is writing waits for it, then writes only what that one did not hold — so
   * when the last ask returns, nothing is still being written (a closing app awaits it).
   */
  save(): Promise<boolean>;
}

export function openScanCache(dataDir: string, home: string, freshness: Freshness = {}): OpenedScanCache {
  const cache = new HomeScanCache();
  if (freshness.now) cache.clock = freshness.now;
  if (freshness.racyMs !== undefined) cache.racyMs = freshness.racyMs;
  const file = scanCacheFile(dataDir, home);
  const loaded = loadScanCache(cache, file, home);
  let saved = cache.revision;
  let legacyRemoved = false;
  let writing: Promise<boolean> = Promise.resolve(false);
  const write = async (): Promise<boolean> => {
    if (cache.revision === saved) return false;
    const revision = cache.revision;
    try {
      await saveScanCache(cache, file, home);
      saved = revision;
      // An older Memdir's cache for this home would never be read again: nothing of it is needed
      // (removed after the first save of this opening; none comes back while it runs).
      if (!legacyRemoved) await fs.promises.rm(legacyScanCacheFile(file), { force: true }).catch(() => undefined);
      legacyRemoved = true;
      return true;
    } catch {
      // The cache only saves time: failing to write it must never fail a scan.
      return false;
    }
  };
  return {
    cache,
    loaded,
    save() {
      writing = writing.then(write);
      return writing;
    },
  };
}
