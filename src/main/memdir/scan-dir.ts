/**
 * Scan one memory directory: its index, its topic files, their health. Bad files never crash a
 * scan (R-HEALTH). A cache keyed by each file's stat facts makes a rescan with nothing changed
 * cost a directory listing and one stat per file: no re-reads, no re-parsing, and the previous
 * result handed back as is.
 */
import fs from 'node:fs';
import path from 'node:path';
import { indexLinks, parseIndex, splitLoadedEntries, type ParsedIndex } from '../../shared/index-format.js';
import { type IndexLoad, lineFate, loadIndexAsClaudeCode } from '../../shared/index-load.js';
import { INDEX_FILE, TEAM_DIR } from '../../shared/limits.js';
import type { Scope } from '../../shared/memory-types.js';
import type { IndexSummary, MemoryDirScan, MemorySummary } from '../../shared/scan-types.js';
import { assessHealth, problem, type TopicFacts } from './health.js';
import { listMemoryFiles } from './list-memory-files.js';
import { type FileFacts, type ReadOutcome, factsOf, readMemoryText } from './read-file.js';
import { type ParsedTopic, parseTopicFile } from './topic-file.js';

type Failure = Exclude<ReadOutcome, { ok: true }>;
interface CachedTopic {
  facts: FileFacts;
  isSymlink: boolean;
  outcome: Failure | null;
  parsed: ParsedTopic | null;
  bytes: number;
}
interface CachedIndex {
  facts: FileFacts;
  outcome: Failure | null;
  parsed: ParsedIndex | null;
  load: IndexLoad | null;
}
interface CachedDir {
  /** The records the result was built from; any change of identity means rebuild. */
  parts: (CachedTopic | CachedIndex | string)[];
  result: MemoryDirScan;
}

const UNKNOWN: FileFacts = { size: -1, mtimeMs: -1, ctimeMs: -1, ino: -1 };

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

function sameFacts(a: FileFacts, b: FileFacts): boolean {
  return a.mtimeMs === b.mtimeMs && a.size === b.size && a.ino === b.ino && a.ctimeMs === b.ctimeMs;
}

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
function read<T extends { facts: FileFacts }>(
  map: Map<string, T> | undefined,
  root: string,
  abs: string,
  isSymlink: boolean,
  build: (outcome: ReadOutcome) => T,
  maxBytes?: number,
): T {
  const cached = map?.get(abs);
  if (cached && !isSymlink) {
    const facts = statFacts(abs, false);
    if (facts && sameFacts(facts, cached.facts)) return cached;
  }
  const record = build(readMemoryText(root, abs, isSymlink, maxBytes));
  if (map && record.facts.ino !== -1 && !isSymlink) map.set(abs, record);
  return record;
}

function loadTopic(root: string, file: string, isSymlink: boolean, cache: ScanCache | undefined): CachedTopic {
  // A link in a subfolder may point anywhere inside the memory directory: the directory is the bound.
  return read(cache?.topics, root, path.join(root, file), isSymlink, (outcome) =>
    outcome.ok
      ? { facts: outcome.facts, isSymlink, outcome: null, parsed: parseTopicFile(outcome.text, file), bytes: outcome.facts.size }
      : { facts: outcome.facts ?? UNKNOWN, isSymlink, outcome, parsed: null, bytes: outcome.facts?.size ?? 0 },
  );
}

function loadIndex(abs: string, isSymlink: boolean, cache: ScanCache | undefined): CachedIndex {
  // The index has no size cap beyond sanity: an over-long index is a problem to show, not hide.
  return read(
    cache?.indexes,
    path.dirname(abs),
    abs,
    isSymlink,
    (outcome) =>
      outcome.ok
        ? { facts: outcome.facts, outcome: null, parsed: parseIndex(outcome.text), load: loadIndexAsClaudeCode(outcome.text) }
        : { facts: outcome.facts ?? UNKNOWN, outcome, parsed: null, load: null },
    20_000_000,
  );
}

export interface ScanDirOptions {
  scope: Scope;
  cache?: ScanCache;
  /**
   * Files of this directory linked from the parent's index (team files linked from `MEMORY.md`):
   * not orphans. Asked only when the directory exists.
   */
  linkedFromParent?: () => ReadonlySet<string>;
}

const EMPTY_INDEX: IndexSummary = { exists: false, lines: 0, bytes: 0, chars: 0, loaded: [], cut: [], loadedLines: 0, loadedBytes: 0, loadedChars: 0, firstCutLine: null, reason: null };

/** Everything about one memory directory (private or team); a missing directory is empty. */
export function scanMemoryDir(memoryDir: string, options: ScanDirOptions): MemoryDirScan {
  const { cache, scope } = options;
  let listing: ReturnType<typeof listMemoryFiles>;
  try {
    listing = listMemoryFiles(memoryDir, { excludeTeam: scope === 'private' });
  } catch (error) {
    cache?.dirs.delete(memoryDir);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      return { memoryDir, exists: false, index: EMPTY_INDEX, memories: [], problems: [], lastChangeMs: null };
    }
    const reason = code === 'EACCES' || code === 'EPERM' ? 'Memdir has no permission to list it' : `it could not be listed (${code ?? String(error)})`;
    return { memoryDir, exists: true, index: EMPTY_INDEX, memories: [], problems: [problem('unreadable', null, null, `The memory directory ${memoryDir} cannot be read: ${reason}.`)], lastChangeMs: null };
  }
  const { topics: topicEntries, strays, index: indexEntry } = listing;
  const linkedFromParent = options.linkedFromParent?.();

  const index = indexEntry ? loadIndex(path.join(memoryDir, INDEX_FILE), indexEntry.isSymlink, cache) : null;
  const topics = topicEntries.map((t) => loadTopic(memoryDir, t.file, t.isSymlink, cache));

  // Links at paths that are not topic files here (a team file from the main index, say): exist or dangle?
  const topicNames = new Set(topicEntries.map((t) => t.file));
  const otherExisting = new Set<string>();
  if (index?.parsed) {
    for (const link of indexLinks(index.parsed)) {
      if (topicNames.has(link.file) || link.file.startsWith('..') || link.file === '') continue;
      if (fs.existsSync(path.join(memoryDir, link.file))) otherExisting.add(link.file);
    }
  }

  // Nothing changed since the last scan: hand back the same result. (Links are re-read every
  // time, so a directory holding one never matches.)
  const parts: CachedDir['parts'] = [
    index ?? '-',
    ...topics,
    ...strays.map((s) => `stray:${s.file}`),
    ...[...otherExisting].map((f) => `other:${f}`),
    ...[...(linkedFromParent ?? [])].map((f) => `parent:${f}`),
  ];
  const previous = cache?.dirs.get(memoryDir);
  if (previous && previous.parts.length === parts.length && previous.parts.every((p, i) => p === parts[i])) return previous.result;

  const topicFacts: TopicFacts[] = topics.map((t, i) => {
    const file = topicEntries[i]!.file;
    if (t.outcome) return { file, unreadable: { code: t.outcome.code, reason: t.outcome.reason } };
    return { file, issues: t.parsed!.issues, body: t.parsed!.body };
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
    ...(linkedFromParent ? { linkedFromParent } : {}),
  });

  const memories: MemorySummary[] = [];
  let lastChangeMs: number | null = index && index.facts.mtimeMs > 0 ? index.facts.mtimeMs : null;
  topics.forEach((t, i) => {
    if (t.facts.mtimeMs > (lastChangeMs ?? 0)) lastChangeMs = t.facts.mtimeMs;
    if (!t.parsed) return;
    memories.push({
      file: topicEntries[i]!.file,
      name: t.parsed.meta.name,
      description: t.parsed.meta.description,
      type: t.parsed.meta.type,
      scope,
      bytes: t.bytes,
      mtimeMs: t.facts.mtimeMs,
      layout: t.parsed.meta.layout,
    });
  });

  let indexSummary = EMPTY_INDEX;
  if (index) {
    const load = index.load;
    const split = index.parsed && load ? splitLoadedEntries(index.parsed, load) : { loaded: [], cut: [] };
    indexSummary = {
      exists: true,
      lines: load?.lines ?? 0,
      bytes: load?.bytes ?? 0,
      chars: load?.chars ?? 0,
      loaded: split.loaded.map((e) => e.file),
      cut: split.cut.map((e) => e.file),
      loadedLines: load?.loadedLines ?? 0,
      loadedBytes: load?.loadedBytes ?? 0,
      loadedChars: load?.loadedChars ?? 0,
      firstCutLine: load?.firstCutLine ?? null,
      reason: load?.reason ?? null,
    };
  }
  const result: MemoryDirScan = { memoryDir, exists: true, index: indexSummary, memories, problems, lastChangeMs };
  cache?.dirs.set(memoryDir, { parts, result });
  return result;
}

/**
 * Team files the private index links (`- [T](team/x.md)`), relative to the team directory: the
 * agent reaches them from the main index, so the team scan must not call them orphans.
 */
export function teamFilesLinkedFrom(memoryDir: string, cache?: ScanCache): Set<string> {
  const abs = path.join(memoryDir, INDEX_FILE);
  const isSymlink = fs.lstatSync(abs, { throwIfNoEntry: false })?.isSymbolicLink();
  if (isSymlink === undefined) return new Set();
  const index = loadIndex(abs, isSymlink, cache);
  const linked = new Set<string>();
  if (!index.parsed) return linked;
  for (const link of indexLinks(index.parsed)) {
    if (link.file.startsWith(`${TEAM_DIR}/`) && (!index.load || lineFate(index.load, link.line) !== 'hidden')) linked.add(link.file.slice(TEAM_DIR.length + 1));
  }
  return linked;
}

/** The team directory of a memory directory (R-LAYOUT). */
export function teamDirOf(memoryDir: string): string {
  return path.join(memoryDir, TEAM_DIR);
}
