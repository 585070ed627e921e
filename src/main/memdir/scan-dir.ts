/**
 * Scan one memory directory: its index, its topic files, their health. Bad files never crash a
 * scan (R-HEALTH). A cache keyed by each file's stat facts makes a rescan with nothing changed
 * cost a directory listing and one stat per file: no re-reads, no re-parsing, and the previous
 * result handed back as is.
 */
import fs from 'node:fs';
import path from 'node:path';
import { computeIndexLoad, indexEntries, parseIndex, splitLoadedEntries } from '../../shared/index-format.js';
import { INDEX_FILE, TEAM_DIR } from '../../shared/limits.js';
import type { Scope } from '../../shared/memory-types.js';
import type { IndexSummary, MemoryDirScan, MemorySummary } from '../../shared/scan-types.js';
import { assessHealth, problem, type TopicFacts } from './health.js';
import { type FileFacts, factsOf, readMemoryBytes, readMemoryText } from './read-file.js';
import { type CachedDir, type CachedIndex, type CachedTopic, type Failure, type ScanCache, type StoredDir, UNKNOWN, restoreStoredDir, sameFacts } from './scan-cache.js';
import { type TopicSummary, summarizeTopicBytes } from './topic-summary.js';

export { ScanCache } from './scan-cache.js';

/** Run `fn` over items with at most `limit` in flight, keeping order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!, i);
    }
  });
  await Promise.all(workers);
  return results;
}

function statFacts(abs: string, isSymlink: boolean): FileFacts | null {
  try {
    const stat = isSymlink ? fs.lstatSync(abs, { throwIfNoEntry: false }) : fs.statSync(abs, { throwIfNoEntry: false });
    return stat ? factsOf(stat) : null;
  } catch {
    return null;
  }
}

/** A link's own facts identify it; a link's content is judged from its target each time. */
function cached<T extends { facts: FileFacts }>(cache: ScanCache | undefined, map: Map<string, T> | undefined, abs: string, isSymlink: boolean, build: () => T): T {
  const known = map?.get(abs);
  if (known && !isSymlink) {
    const facts = statFacts(abs, false);
    if (facts && sameFacts(facts, known.facts)) return known;
  }
  const record = build();
  if (cache && map && record.facts.ino !== -1 && !isSymlink) {
    map.set(abs, record);
    cache.revision++;
  }
  return record;
}

function loadTopic(abs: string, file: string, isSymlink: boolean, cache: ScanCache | undefined): CachedTopic {
  return cached(cache, cache?.topics, abs, isSymlink, () => {
    const outcome = readMemoryBytes(path.dirname(abs), abs, isSymlink, (bytes, facts): TopicSummary | Failure => {
      const summary = summarizeTopicBytes(bytes, file);
      return 'problem' in summary ? { ok: false, code: 'unreadable', reason: summary.problem, facts } : summary;
    });
    return outcome.ok
      ? { file, facts: outcome.facts, isSymlink, outcome: null, summary: outcome.value, bytes: outcome.facts.size }
      : { file, facts: outcome.facts ?? UNKNOWN, isSymlink, outcome, summary: null, bytes: outcome.facts?.size ?? 0 };
  });
}

function readIndex(abs: string, isSymlink: boolean): CachedIndex {
  // The index has no size cap beyond sanity: an over-long index is a problem to show, not hide.
  const outcome = readMemoryText(path.dirname(abs), abs, isSymlink, 20_000_000);
  if (!outcome.ok) return { facts: outcome.facts ?? UNKNOWN, outcome, parsed: null, load: null, targets: null };
  const parsed = parseIndex(outcome.text);
  return { facts: outcome.facts, outcome: null, parsed, load: computeIndexLoad(outcome.text), targets: indexEntries(parsed).map((e) => e.file) };
}

function loadIndex(abs: string, isSymlink: boolean, cache: ScanCache | undefined): CachedIndex {
  return cached(cache, cache?.indexes, abs, isSymlink, () => readIndex(abs, isSymlink));
}

export interface ScanDirOptions {
  scope: Scope;
  cache?: ScanCache;
}

const EMPTY_INDEX: IndexSummary = { exists: false, lines: 0, bytes: 0, loaded: [], cut: [], loadedLines: 0, loadedBytes: 0, firstCutLine: null };

/** `dir/name` for a plain name in a normalised directory: what `path.join` gives, without its cost. */
function childPath(dir: string, name: string): string {
  return dir.endsWith(path.sep) ? dir + name : dir + path.sep + name;
}

interface Listing {
  /** Topic files, sorted by name. */
  topicEntries: { file: string; isSymlink: boolean }[];
  /** Entries that look like memories but cannot be read as files. */
  strays: { file: string; reason: string }[];
  indexEntry: { isSymlink: boolean } | null;
}

/** Sort a memory directory's entries into the index, topic files and strays. */
function classifyListing(dirents: readonly fs.Dirent[]): Listing {
  const topicEntries: Listing['topicEntries'] = [];
  const strays: Listing['strays'] = [];
  let indexEntry: Listing['indexEntry'] = null;
  for (const d of dirents) {
    const name = d.name;
    // Dotfiles (.consolidate-lock, temp files) are not memories.
    if (name.startsWith('.')) continue;
    if (name === INDEX_FILE) {
      if (d.isDirectory()) strays.push({ file: name, reason: 'it is a directory, not a file' });
      else indexEntry = { isSymlink: d.isSymbolicLink() };
      continue;
    }
    if (!/\.md$/i.test(name)) continue;
    if (d.isDirectory()) strays.push({ file: name, reason: 'it is a directory, not a file' });
    else if (d.isFile() || d.isSymbolicLink()) topicEntries.push({ file: name, isSymlink: d.isSymbolicLink() });
    else strays.push({ file: name, reason: 'it is not a regular file' });
  }
  topicEntries.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  return { topicEntries, strays, indexEntry };
}

/** Pointers at paths that are not top-level topic files (a subfolder, say): which of them exist. */
function existingOtherTargets(memoryDir: string, targets: readonly string[] | null, topicEntries: Listing['topicEntries']): Set<string> {
  const existing = new Set<string>();
  if (!targets || targets.length === 0) return existing;
  const topicNames = new Set(topicEntries.map((t) => t.file));
  for (const target of targets) {
    if (topicNames.has(target) || target.startsWith('..') || target === '') continue;
    if (fs.existsSync(path.join(memoryDir, target))) existing.add(target);
  }
  return existing;
}

function sameStoredFacts(abs: string, facts: readonly [number, number, number, number]): boolean {
  const now = statFacts(abs, false);
  return now !== null && now.size === facts[0] && now.mtimeMs === facts[1] && now.ctimeMs === facts[2] && now.ino === facts[3];
}

/**
 * Whether a directory known from the cache file is still exactly as written down: the same
 * entries, every one with the same stat facts, the same other targets. Stats only.
 */
function storedStillHolds(memoryDir: string, stored: StoredDir, topicEntries: Listing['topicEntries'], strays: Listing['strays'], indexEntry: Listing['indexEntry']): boolean {
  if ((stored.index === null) !== (indexEntry === null) || indexEntry?.isSymlink) return false;
  if (stored.topics.length !== topicEntries.length) return false;
  if (stored.index && !sameStoredFacts(childPath(memoryDir, INDEX_FILE), stored.index.facts)) return false;
  for (let i = 0; i < topicEntries.length; i++) {
    const entry = topicEntries[i]!;
    const [file, facts] = stored.topics[i]!;
    if (entry.file !== file || entry.isSymlink || !sameStoredFacts(childPath(memoryDir, file), facts)) return false;
  }
  const tail = [...strays.map((s) => `stray:${s.file}`), ...[...existingOtherTargets(memoryDir, stored.index?.targets ?? null, topicEntries)].map((f) => `other:${f}`)];
  return tail.length === stored.tail.length && tail.every((t, i) => t === stored.tail[i]);
}

/** Everything about one memory directory (private or team); a missing directory is empty. */
export function scanMemoryDir(memoryDir: string, options: ScanDirOptions): MemoryDirScan {
  const { cache, scope } = options;
  let dirents: fs.Dirent[];
  try {
    dirents = fs.readdirSync(memoryDir, { withFileTypes: true });
  } catch (error) {
    if (cache?.dirs.delete(memoryDir)) cache.revision++;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      return { memoryDir, exists: false, index: EMPTY_INDEX, memories: [], problems: [], lastChangeMs: null };
    }
    const reason = code === 'EACCES' || code === 'EPERM' ? 'Memdir has no permission to list it' : `it could not be listed (${code ?? String(error)})`;
    return { memoryDir, exists: true, index: EMPTY_INDEX, memories: [], problems: [problem('unreadable', null, null, `The memory directory ${memoryDir} cannot be read: ${reason}.`)], lastChangeMs: null };
  }

  const { topicEntries, strays, indexEntry } = classifyListing(dirents);

  // Known only from the cache file (a fresh process): answered from it while every stat matches.
  const stored = cache?.stored.get(memoryDir);
  if (stored) {
    if (storedStillHolds(memoryDir, stored, topicEntries, strays, indexEntry)) return stored.result;
    restoreStoredDir(cache!, memoryDir, stored);
  }

  let index = indexEntry ? loadIndex(childPath(memoryDir, INDEX_FILE), indexEntry.isSymlink, cache) : null;
  const topics = topicEntries.map((t) => loadTopic(childPath(memoryDir, t.file), t.file, t.isSymlink, cache));
  const otherExisting = existingOtherTargets(memoryDir, index?.targets ?? null, topicEntries);

  // Nothing changed since the last scan: hand back the same result. (Links are re-read every
  // time, so a directory holding one never matches.)
  const parts: CachedDir['parts'] = [index ?? '-', ...topics, ...strays.map((s) => `stray:${s.file}`), ...[...otherExisting].map((f) => `other:${f}`)];
  const previous = cache?.dirs.get(memoryDir);
  if (previous && previous.parts.length === parts.length && previous.parts.every((p, i) => p === parts[i])) return previous.result;
  // Something changed: an index known only from the cache file is read now.
  if (index?.stub) {
    index = readIndex(childPath(memoryDir, INDEX_FILE), false);
    if (cache && index.facts.ino !== -1) cache.indexes.set(childPath(memoryDir, INDEX_FILE), index);
    parts[0] = index;
  }

  const topicFacts: TopicFacts[] = topics.map((t, i) => {
    const file = topicEntries[i]!.file;
    if (t.outcome) return { file, unreadable: { code: t.outcome.code, reason: t.outcome.reason } };
    return { file, issues: t.summary!.issues, hints: t.summary!.hints };
  });
  const problems = assessHealth({
    index: {
      exists: index !== null,
      parsed: index?.parsed ?? null,
      load: index?.load ?? null,
      ...(index?.outcome ? { unreadable: { code: index.outcome.code, reason: index.outcome.reason } } : {}),
    },
    topics: topicFacts,
    otherExisting,
    strays,
  });

  const memories: MemorySummary[] = [];
  let lastChangeMs: number | null = index && index.facts.mtimeMs > 0 ? index.facts.mtimeMs : null;
  topics.forEach((t, i) => {
    if (t.facts.mtimeMs > (lastChangeMs ?? 0)) lastChangeMs = t.facts.mtimeMs;
    if (!t.summary) return;
    const { meta } = t.summary;
    memories.push({ file: topicEntries[i]!.file, name: meta.name, description: meta.description, type: meta.type, scope, bytes: t.bytes, mtimeMs: t.facts.mtimeMs, layout: meta.layout });
  });

  let indexSummary = EMPTY_INDEX;
  if (index) {
    const load = index.load;
    const split = index.parsed && load ? splitLoadedEntries(index.parsed, load) : { loaded: [], cut: [] };
    indexSummary = {
      exists: true,
      lines: load?.lines ?? 0,
      bytes: load?.bytes ?? 0,
      loaded: split.loaded.map((e) => e.file),
      cut: split.cut.map((e) => e.file),
      loadedLines: load?.loadedLines ?? 0,
      loadedBytes: load?.loadedBytes ?? 0,
      firstCutLine: load?.firstCutLine ?? null,
    };
  }
  const result: MemoryDirScan = { memoryDir, exists: true, index: indexSummary, memories, problems, lastChangeMs };
  if (cache) {
    cache.dirs.set(memoryDir, { parts, result });
    cache.revision++;
  }
  return result;
}

/** The team directory of a memory directory (R-LAYOUT). */
export function teamDirOf(memoryDir: string): string {
  return path.join(memoryDir, TEAM_DIR);
}
