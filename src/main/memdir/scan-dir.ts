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
import { type CachedDir, type CachedIndex, type CachedTopic, type Failure, type ScanCache, UNKNOWN, sameFacts } from './scan-cache.js';
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
function cached<T extends { facts: FileFacts }>(map: Map<string, T> | undefined, abs: string, isSymlink: boolean, build: () => T): T {
  const known = map?.get(abs);
  if (known && !isSymlink) {
    const facts = statFacts(abs, false);
    if (facts && sameFacts(facts, known.facts)) return known;
  }
  const record = build();
  if (map && record.facts.ino !== -1 && !isSymlink) map.set(abs, record);
  return record;
}

function loadTopic(abs: string, file: string, isSymlink: boolean, cache: ScanCache | undefined): CachedTopic {
  return cached(cache?.topics, abs, isSymlink, () => {
    const outcome = readMemoryBytes(path.dirname(abs), abs, isSymlink, (bytes, facts): TopicSummary | Failure => {
      const summary = summarizeTopicBytes(bytes, file);
      return 'problem' in summary ? { ok: false, code: 'unreadable', reason: summary.problem, facts } : summary;
    });
    return outcome.ok
      ? { facts: outcome.facts, isSymlink, outcome: null, summary: outcome.value, bytes: outcome.facts.size }
      : { facts: outcome.facts ?? UNKNOWN, isSymlink, outcome, summary: null, bytes: outcome.facts?.size ?? 0 };
  });
}

function loadIndex(abs: string, isSymlink: boolean, cache: ScanCache | undefined): CachedIndex {
  return cached(cache?.indexes, abs, isSymlink, () => {
    // The index has no size cap beyond sanity: an over-long index is a problem to show, not hide.
    const outcome = readMemoryText(path.dirname(abs), abs, isSymlink, 20_000_000);
    return outcome.ok
      ? { facts: outcome.facts, outcome: null, parsed: parseIndex(outcome.text), load: computeIndexLoad(outcome.text) }
      : { facts: outcome.facts ?? UNKNOWN, outcome, parsed: null, load: null };
  });
}

export interface ScanDirOptions {
  scope: Scope;
  cache?: ScanCache;
}

const EMPTY_INDEX: IndexSummary = { exists: false, lines: 0, bytes: 0, loaded: [], cut: [], loadedLines: 0, loadedBytes: 0, firstCutLine: null };

/** Everything about one memory directory (private or team); a missing directory is empty. */
export function scanMemoryDir(memoryDir: string, options: ScanDirOptions): MemoryDirScan {
  const { cache, scope } = options;
  let dirents: fs.Dirent[];
  try {
    dirents = fs.readdirSync(memoryDir, { withFileTypes: true });
  } catch (error) {
    cache?.dirs.delete(memoryDir);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      return { memoryDir, exists: false, index: EMPTY_INDEX, memories: [], problems: [], lastChangeMs: null };
    }
    const reason = code === 'EACCES' || code === 'EPERM' ? 'Memdir has no permission to list it' : `it could not be listed (${code ?? String(error)})`;
    return { memoryDir, exists: true, index: EMPTY_INDEX, memories: [], problems: [problem('unreadable', null, null, `The memory directory ${memoryDir} cannot be read: ${reason}.`)], lastChangeMs: null };
  }

  const topicEntries: { file: string; isSymlink: boolean }[] = [];
  const strays: { file: string; reason: string }[] = [];
  let indexEntry: { isSymlink: boolean } | null = null;
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

  const index = indexEntry ? loadIndex(path.join(memoryDir, INDEX_FILE), indexEntry.isSymlink, cache) : null;
  const topics = topicEntries.map((t) => loadTopic(path.join(memoryDir, t.file), t.file, t.isSymlink, cache));

  // Pointers at paths that are not top-level topic files (a subfolder, say): exist or dangle?
  const topicNames = new Set(topicEntries.map((t) => t.file));
  const otherExisting = new Set<string>();
  if (index?.parsed) {
    for (const entry of indexEntries(index.parsed)) {
      if (topicNames.has(entry.file) || entry.file.startsWith('..') || entry.file === '') continue;
      if (fs.existsSync(path.join(memoryDir, entry.file))) otherExisting.add(entry.file);
    }
  }

  // Nothing changed since the last scan: hand back the same result. (Links are re-read every
  // time, so a directory holding one never matches.)
  const parts: CachedDir['parts'] = [index ?? '-', ...topics, ...strays.map((s) => `stray:${s.file}`), ...[...otherExisting].map((f) => `other:${f}`)];
  const previous = cache?.dirs.get(memoryDir);
  if (previous && previous.parts.length === parts.length && previous.parts.every((p, i) => p === parts[i])) return previous.result;

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
  cache?.dirs.set(memoryDir, { parts, result });
  return result;
}

/** The team directory of a memory directory (R-LAYOUT). */
export function teamDirOf(memoryDir: string): string {
  return path.join(memoryDir, TEAM_DIR);
}
