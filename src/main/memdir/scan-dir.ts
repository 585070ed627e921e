/**
 * Scan one memory directory: its index, its topic files (subfolders included), their health.
 * Bad files never crash a scan (R-HEALTH). A cache keyed by each file's stat facts makes a
 * rescan with nothing changed cost the directory listings and one stat per file: no re-reads,
 * no re-parsing, and the previous result handed back as is.
 */
import { failureWords } from '../../shared/failure-words.js';
import fs from 'node:fs';
import path from 'node:path';
import { cutFactsOf, missingFilesOf, missingPointersOf } from '../../shared/index-cut.js';
import { indexLinks, parseIndex, splitLoadedEntries } from '../../shared/index-format.js';
import type { BuiltIndex } from '../../shared/index-build.js';
import { loadIndexAsClaudeCode } from '../../shared/index-load.js';
import { type IndexReach, NO_REACH, indexReachOf, teamReachOf } from '../../shared/index-state.js';
import { INDEX_FILE, TEAM_DIR } from '../../shared/limits.js';
import { isRetiredMemory, type Scope } from '../../shared/memory-types.js';
import { EMPTY_INDEX, type MemoryDirScan, type MemorySummary } from '../../shared/scan-types.js';
import { builtIndexFrom, builtIndexOf } from './built-index.js';
import { assessHealth, problem, type TopicFacts } from './health.js';
import { type FolderFacts, type MemoryFileListing, folderFacts, listMemoryFiles } from './list-memory-files.js';
import { INDEX_READ_MAX_BYTES } from './read-memory-file.js';
import { type FileFacts, factsOf, readFileHead, readIndexAsClaudeCode, readMemoryBytes, utf8ByteLength } from './read-file.js';
import {
  type CachedDir,
  type CachedIndex,
  type CachedTopic,
  type Failure,
  type ScanCache,
  type StoredDir,
  UNKNOWN,
  childPath,
  otherTargets,
  restoreStoredDir,
  sameFacts,
  settledFolders,
} from './scan-cache.js';
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
function cached<T extends { facts: FileFacts }>(
  cache: ScanCache | undefined,
  map: Map<string, T> | undefined,
  abs: string,
  isSymlink: boolean,
  build: () => T,
): T {
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

/** How much of a file too large to read whole is read for its frontmatter: what Claude Code reads of every file for recall. */
const TOO_LARGE_HEAD_BYTES = 65_536;

function loadTopic(memoryDir: string, file: string, isSymlink: boolean, cache: ScanCache | undefined): CachedTopic {
  const abs = childPath(memoryDir, file);
  return cached(cache, cache?.topics, abs, isSymlink, () => {
    // A link in a subfolder may point anywhere inside the memory directory: the directory is the bound.
    const outcome = readMemoryBytes(memoryDir, abs, isSymlink, (bytes, facts): TopicSummary | Failure => {
      const summary = summarizeTopicBytes(bytes, file);
      return 'problem' in summary ? { ok: false, code: 'unreadable', reason: summary.problem, facts } : summary;
    });
    if (outcome.ok) return { file, facts: outcome.facts, isSymlink, outcome: null, summary: outcome.value, bytes: outcome.facts.size };
    return {
      file,
      facts: outcome.facts ?? UNKNOWN,
      isSymlink,
      outcome,
      summary: outcome.tooLarge ? headSummary(abs, file) : null,
      bytes: outcome.facts?.size ?? 0,
    };
  });
}

/**
 * What the beginning of a file too large to read whole says (its frontmatter, as Claude Code reads
 * it for recall), or null when that is not text either: such a file is listed as a memory marked
 * too large, and its read failure stays a Health problem.
 */
function headSummary(abs: string, file: string): TopicSummary | null {
  const head = readFileHead(abs, TOO_LARGE_HEAD_BYTES);
  if (!head) return null;
  const summary = summarizeTopicBytes(head, file);
  return 'problem' in summary ? null : { ...summary, hints: [] };
}

/**
 * One index read as Claude Code reads it. Its load is kept for either scope: for team/MEMORY.md
 * too it says which lines are stripped (Health ignores those) and the size shown. Only MEMORY.md's
 * links can bring a team memory to the agent (index-state.ts), so team/MEMORY.md's are not
 * split into team files loaded or cut: no one asks.
 */
function readIndex(abs: string, isSymlink: boolean, scope: Scope, agent = false): CachedIndex {
  // The index has no size cap beyond sanity: an over-long index is a problem to show, not hide.
  // One Memdir will not edit (a link out, not UTF-8) still reaches the agent: scanned as the client reads it.
  const outcome = readIndexAsClaudeCode(path.dirname(abs), abs, isSymlink, INDEX_READ_MAX_BYTES);
  if (!outcome.ok) return { facts: outcome.facts ?? UNKNOWN, outcome, parsed: null, load: null, targets: null, teamLinks: NO_REACH };
  const parsed = parseIndex(outcome.text);
  const load = loadIndexAsClaudeCode(outcome.text, { byteLength: utf8ByteLength, strip: !agent, fileBytes: outcome.facts.size });
  const targets = new Set<string>();
  for (const link of indexLinks(parsed)) targets.add(link.file);
  // The team files its links name, loaded or past the cut (stripped lines are not seen).
  const team = scope === 'private' ? teamReachOf(indexReachOf(parsed, load)) : NO_REACH;
  return {
    facts: outcome.facts,
    outcome: outcome.refusal,
    parsed,
    load,
    targets: [...targets],
    teamLinks: { loaded: [...new Set(team.loaded)], cut: [...new Set(team.cut)] },
  };
}

function loadIndex(abs: string, isSymlink: boolean, scope: Scope, cache: ScanCache | undefined, agent = false): CachedIndex {
  // Cached by path: a sub-agent's memory directory is never also a main memory directory.
  return cached(cache, cache?.indexes, abs, isSymlink, () => readIndex(abs, isSymlink, scope, agent));
}

export interface ScanDirOptions {
  scope: Scope;
  /**
   * A sub-agent's memory directory (R-AGENT): Claude Code 2.1.332 loads its MEMORY.md without
   * stripping frontmatter and block comments first (the same cut otherwise), so they count.
   */
  agent?: boolean;
  cache?: ScanCache;
  /**
   * Files of this directory the parent's index links (team files linked from `MEMORY.md`), from
   * lines that reach the agent and from lines past the cut: not orphans, and loaded or past the
   * cut by those links too (index-state.ts). Asked only when the directory exists.
   */
  linkedFromParent?: () => ParentLinks;
}

/** What the parent's index (MEMORY.md) links of a directory's files, and why Memdir will not edit it, when it will not: then no fix adds a pointer there. */
export interface ParentLinks extends IndexReach {
  readOnly?: string;
}

/** Which of these links (see otherTargets) exist, in their order, and which point at a retired team memory. */
function existingOf(memoryDir: string, others: readonly string[]): OtherTargets {
  const existing = new Set<string>();
  const retired = new Set<string>();
  for (const target of others) {
    let found: fs.Stats | undefined;
    try {
      found = fs.statSync(path.join(memoryDir, target), { throwIfNoEntry: false });
    } catch {
      found = undefined; // not a path that exists (a file in the way, no permission): as existsSync said
    }
    // A retired team memory (emptied, R-SYNC) is no memory: MEMORY.md's pointer to it dangles, and Health offers to drop it, saying why.
    if (found && target.startsWith(`${TEAM_DIR}/`) && found.isFile() && isRetiredMemory('team', found.size)) retired.add(target);
    else if (found) existing.add(target);
  }
  return { existing, retired };
}

/** The links of an index to paths that are not its directory's topic files: those that exist, and those that point at a retired team memory. */
interface OtherTargets {
  existing: Set<string>;
  retired: Set<string>;
}

/** The parts of a directory's scan that are not file records, in the order they are compared. */
function tailOf(strays: MemoryFileListing['strays'], others: OtherTargets, linkedFromParent: ParentLinks | undefined): string[] {
  return [
    ...strays.map((s) => `stray:${s.file}`),
    ...[...others.existing].map((f) => `other:${f}`),
    ...[...others.retired].map((f) => `retired:${f}`),
    ...(linkedFromParent?.loaded ?? []).map((f) => `parent:${f}`),
    ...(linkedFromParent?.cut ?? []).map((f) => `parent-cut:${f}`),
    ...(linkedFromParent?.readOnly !== undefined ? [`parent-read-only:${linkedFromParent.readOnly}`] : []),
  ];
}

/** Whether the file at `abs` has the stat facts written down at `facts[at…at+3]` (size, mtimeMs, ctimeMs, ino). */
function sameStoredFacts(abs: string, facts: ArrayLike<number>, at = 0): boolean {
  try {
    const now = fs.statSync(abs, { throwIfNoEntry: false });
    return now !== undefined && now.size === facts[at] && now.mtimeMs === facts[at + 1] && now.ctimeMs === facts[at + 2] && now.ino === facts[at + 3];
  } catch {
    return false;
  }
}

/**
 * Whether a directory known from the cache file is still exactly as written down: the same
 * entries (subfolders included), every one with the same stat facts, the same other targets and
 * the same files linked from the parent's index. Stats only.
 */
function storedStillHolds(memoryDir: string, stored: StoredDir, listing: MemoryFileListing, linkedFromParent: ParentLinks | undefined): boolean {
  const { topics: topicEntries, strays, index: indexEntry } = listing;
  if ((stored.index === null) !== (indexEntry === null) || indexEntry?.isSymlink) return false;
  if (stored.files.length !== topicEntries.length) return false;
  for (let i = 0; i < topicEntries.length; i++) {
    const entry = topicEntries[i]!;
    if (entry.file !== stored.files[i] || entry.isSymlink) return false;
  }
  return storedFilesHold(memoryDir, stored, strays, linkedFromParent);
}

/** Whether the files of a directory known from the cache file, listed as written down, all have the facts written down, with the same other parts. */
function storedFilesHold(memoryDir: string, stored: StoredDir, strays: MemoryFileListing['strays'], linkedFromParent: IndexReach | undefined): boolean {
  if (stored.index && !sameStoredFacts(childPath(memoryDir, INDEX_FILE), stored.index.facts)) return false;
  for (let i = 0; i < stored.files.length; i++) if (!sameStoredFacts(childPath(memoryDir, stored.files[i]!), stored.facts, 4 * i)) return false;
  const tail = tailOf(strays, existingOf(memoryDir, stored.others), linkedFromParent);
  return tail.length === stored.tail.length && tail.every((t, i) => t === stored.tail[i]);
}

/** Whether two listings' folder facts are the same (null: not known). */
function sameFolders(a: readonly FolderFacts[] | null, b: readonly FolderFacts[] | null): boolean {
  if (a === null || b === null) return a === b;
  return a.length === b.length && a.every((f, i) => f.every((v, j) => v === b[i]![j]));
}

/** Whether every folder still has the stat facts its listing was taken at: then nothing in them was added, removed or renamed since. */
function foldersHold(memoryDir: string, folders: readonly FolderFacts[]): boolean {
  for (const [rel, mtimeMs, ctimeMs, ino] of folders) {
    const now = folderFacts(rel, rel ? path.join(memoryDir, rel) : memoryDir);
    if (ino === -1 || now[1] !== mtimeMs || now[2] !== ctimeMs || now[3] !== ino) return false;
  }
  return folders.length > 0;
}

/** The strays of a directory as its record has them (their reasons are not kept): for comparing, never for a scan's result. */
function strayPartsOf(tail: readonly string[]): MemoryFileListing['strays'] {
  return tail.filter((t) => t.startsWith('stray:')).map((t) => ({ file: t.slice('stray:'.length), reason: '' }));
}

/** Whether the file at `abs` still has exactly these stat facts (one `stat`, nothing kept). */
function stillSame(abs: string, facts: FileFacts): boolean {
  try {
    const now = fs.statSync(abs, { throwIfNoEntry: false });
    return now !== undefined && now.size === facts.size && now.mtimeMs === facts.mtimeMs && now.ctimeMs === facts.ctimeMs && now.ino === facts.ino;
  } catch {
    return false;
  }
}

/**
 * Whether a directory scanned before in this process is unchanged: the same entries in the same
 * order, each record still in the cache and its file at the same stat facts, the same other
 * parts. What the per-file records would say, walked straight from the last scan's parts
 * instead of looked up by path one by one: a rescan costs the listing and one stat per file.
 * Links are re-read every time, so a directory holding one never holds.
 */
function previousStillHolds(memoryDir: string, previous: CachedDir, listing: MemoryFileListing, linkedFromParent: ParentLinks | undefined): boolean {
  const { topics: topicEntries, strays, index: indexEntry } = listing;
  const { parts } = previous;
  if (parts.length < topicEntries.length + 1) return false;
  const first = parts[0]!;
  if (indexEntry === null) {
    if (first !== '-') return false;
  } else {
    if (indexEntry.isSymlink || typeof first === 'string' || !('targets' in first) || first.facts.ino === UNKNOWN.ino) return false;
    if (!stillSame(childPath(memoryDir, INDEX_FILE), first.facts)) return false;
  }
  for (let i = 0; i < topicEntries.length; i++) {
    const entry = topicEntries[i]!;
    const part = parts[i + 1]!;
    if (entry.isSymlink || typeof part === 'string' || !('file' in part) || part.file !== entry.file || part.facts.ino === UNKNOWN.ino) return false;
    if (!stillSame(childPath(memoryDir, entry.file), part.facts)) return false;
  }
  // The same index record and the same topic files: the same links to look for.
  const tail = tailOf(strays, existingOf(memoryDir, previous.others), linkedFromParent);
  if (parts.length !== topicEntries.length + 1 + tail.length) return false;
  return tail.every((t, i) => t === parts[topicEntries.length + 1 + i]);
}

/** Whether nothing is at `dir`, asked without the exception a listing throws: for team directories, which most projects lack. */
function isMissing(dir: string): boolean {
  try {
    return fs.statSync(dir, { throwIfNoEntry: false }) === undefined;
  } catch {
    return false;
  }
}

/** Everything about one memory directory (private or team); a missing directory is empty. */
export function scanMemoryDir(memoryDir: string, options: ScanDirOptions): MemoryDirScan {
  const { cache, scope } = options;
  const missing = (): MemoryDirScan => {
    if (cache?.dirs.delete(memoryDir)) cache.revision++;
    return { memoryDir, exists: false, index: EMPTY_INDEX, memories: [], problems: [], lastChangeMs: null };
  };
  // Most private directories exist (their listing says when not); most team directories do not.
  if (scope === 'team' && isMissing(memoryDir)) return missing();
  let linked: { reach: IndexReach | undefined } | undefined;
  const linkedOnce = (): IndexReach | undefined => (linked ??= { reach: options.linkedFromParent?.() }).reach;

  // Before anything is looked at: what changed after this may change again with the same facts.
  const settledBefore = cache ? cache.settledBefore() : 0;

  // Known only from the cache file (a fresh process), its folders unchanged since they were listed:
  // answered from it without listing them again while every file's stat matches.
  const stored = cache?.stored.get(memoryDir);
  if (stored?.folders && foldersHold(memoryDir, stored.folders) && storedFilesHold(memoryDir, stored, strayPartsOf(stored.tail), linkedOnce()))
    return stored.result;

  let listing: MemoryFileListing;
  try {
    listing = listMemoryFiles(memoryDir, { excludeTeam: scope === 'private' });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return missing();
    if (cache?.dirs.delete(memoryDir)) cache.revision++;
    const reason = code === 'EACCES' || code === 'EPERM' ? 'Memdir has no permission to list it' : `it could not be listed (${failureWords(error)})`;
    return {
      memoryDir,
      exists: true,
      index: EMPTY_INDEX,
      memories: [],
      problems: [problem('unreadable', null, null, `The memory directory ${memoryDir} cannot be read: ${reason}.`)],
      lastChangeMs: null,
    };
  }
  const { topics: topicEntries, strays, index: indexEntry } = listing;
  const linkedFromParent = linkedOnce();
  const folders = settledFolders(listing.folders, settledBefore);

  // Known only from the cache file (a fresh process): answered from it while every stat matches.
  if (stored) {
    if (storedStillHolds(memoryDir, stored, listing, linkedFromParent)) {
      // Its folders as listed now, so the next process need not list them (they may have been unknown, or moved and back).
      if (!sameFolders(stored.folders, folders)) {
        stored.folders = folders;
        cache!.revision++;
      }
      return stored.result;
    }
    restoreStoredDir(cache!, memoryDir, stored);
  }

  // Scanned before in this process: unchanged when every entry is the same file at the same stat facts.
  const previous = cache?.dirs.get(memoryDir);
  if (previous && previousStillHolds(memoryDir, previous, listing, linkedFromParent)) {
    // Every fact checked again now: written down as of now.
    previous.settledBefore = settledBefore;
    if (!sameFolders(previous.folders, folders)) {
      previous.folders = folders;
      cache!.revision++;
    }
    return previous.result;
  }

  let index = indexEntry ? loadIndex(childPath(memoryDir, INDEX_FILE), indexEntry.isSymlink, scope, cache, options.agent) : null;
  const topics = topicEntries.map((t) => loadTopic(memoryDir, t.file, t.isSymlink, cache));
  const others = otherTargets(
    index?.targets ?? null,
    topicEntries.map((t) => t.file),
  );
  const linkTargets = existingOf(memoryDir, others);

  // Nothing changed since the last scan: hand back the same result. (Links are re-read every
  // time, so a directory holding one never matches.)
  const parts: CachedDir['parts'] = [index ?? '-', ...topics, ...tailOf(strays, linkTargets, linkedFromParent)];
  if (previous && previous.parts.length === parts.length && previous.parts.every((p, i) => p === parts[i])) return previous.result;
  // Something changed: an index known only from the cache file is read now.
  if (index?.stub) {
    index = readIndex(childPath(memoryDir, INDEX_FILE), false, scope, options.agent);
    if (cache && index.facts.ino !== -1) cache.indexes.set(childPath(memoryDir, INDEX_FILE), index);
    parts[0] = index;
  }

  // A retired team memory (emptied, R-SYNC) is no memory: not listed, and no problem offers it a pointer.
  const retired = (t: CachedTopic) => t.outcome === null && isRetiredMemory(scope, t.bytes);
  const topicFacts: TopicFacts[] = topics.flatMap((t, i): TopicFacts[] => {
    const file = topicEntries[i]!.file;
    if (retired(t)) return [];
    if (t.outcome) return [{ file, unreadable: { code: t.outcome.code, reason: t.outcome.reason } }];
    return [{ file, issues: t.summary!.issues, hints: t.summary!.hints, type: t.summary!.meta.type }];
  });
  const memories: MemorySummary[] = [];
  let lastChangeMs: number | null = index && index.facts.mtimeMs > 0 ? index.facts.mtimeMs : null;
  topics.forEach((t, i) => {
    if (t.facts.mtimeMs > (lastChangeMs ?? 0)) lastChangeMs = t.facts.mtimeMs;
    if (!t.summary || retired(t)) return;
    const { meta } = t.summary;
    memories.push({
      file: topicEntries[i]!.file,
      name: meta.name,
      description: meta.description,
      type: meta.type,
      scope,
      bytes: t.bytes,
      mtimeMs: t.facts.mtimeMs,
      layout: meta.layout,
      tooLarge: t.outcome !== null,
    });
  });

  // No MEMORY.md: Claude Code writes one from these memories at its next session start (index-build.ts).
  // The listing says there is no entry named MEMORY.md and which topics are links: nothing to stat again.
  const links = !index && scope === 'private' && !options.agent ? new Set(topicEntries.filter((t) => t.isSymlink).map((t) => t.file)) : null;
  const built = links ? builtIndexFrom(memories.filter((m) => !links.has(m.file))) : null;
  const problems = assessHealth({
    index: {
      exists: index !== null,
      parsed: index?.parsed ?? null,
      load: index?.load ?? null,
      ...(index?.outcome ? { unreadable: { code: index.outcome.code, reason: index.outcome.reason } } : {}),
      ...(built ? { built } : {}),
    },
    topics: topicFacts,
    otherExisting: linkTargets.existing,
    otherRetired: linkTargets.retired,
    strays,
    scope,
    ...(linkedFromParent ? { linkedFromParent } : {}),
  });

  // Asked for the pointers above the cut and below it: the problems are walked once.
  let missingFiles: ReadonlySet<string> | undefined;
  const missingOf = () => (missingFiles ??= missingFilesOf(problems));
  // No team/MEMORY.md: its memories may still be past the main index's cut.
  let indexSummary = linkedFromParent?.cut.length
    ? { ...EMPTY_INDEX, ...cutFactsOf({ reach: NO_REACH, cutPointers: [] }, memories, missingOf, linkedFromParent) }
    : EMPTY_INDEX;
  if (built) {
    // What the built file will hold: its memories reach the agent (it is far under the cut); `exists` stays false.
    const load = loadIndexAsClaudeCode(built.text, { byteLength: utf8ByteLength });
    indexSummary = {
      ...EMPTY_INDEX,
      lines: load.lines,
      bytes: load.bytes,
      chars: load.chars,
      loaded: built.listed.map((f) => f.split('/').join(path.sep)),
      loadedLines: load.loadedLines,
      loadedBytes: load.loadedBytes,
      loadedChars: load.loadedChars,
    };
  }
  if (index) {
    const load = index.load;
    // team/MEMORY.md loads nothing (index-state.ts): its summary gives the file's size and says nothing
    // of it loads or is cut; a team memory is past the cut only through MEMORY.md's.
    const loads = scope === 'private' ? load : null;
    const split = index.parsed && loads ? splitLoadedEntries(index.parsed, loads) : { loaded: [], cut: [] };
    const loaded = split.loaded.map((e) => e.file);
    const cut = split.cut.map((e) => e.file);
    const reach = index.parsed && loads ? indexReachOf(index.parsed, loads) : NO_REACH;
    indexSummary = {
      exists: true,
      lines: load?.lines ?? 0,
      bytes: load?.bytes ?? 0,
      chars: load?.chars ?? 0,
      loaded,
      cut,
      loadedLines: loads?.loadedLines ?? 0,
      loadedBytes: loads?.loadedBytes ?? 0,
      loadedChars: loads?.loadedChars ?? 0,
      firstCutLine: loads?.firstCutLine ?? null,
      reason: loads?.reason ?? null,
      ...cutFactsOf({ reach, cutPointers: cut }, memories, missingOf, linkedFromParent),
      loadedMissing: missingPointersOf(loaded, missingOf),
    };
  }
  const result: MemoryDirScan = { memoryDir, exists: true, index: indexSummary, memories, problems, lastChangeMs };
  if (cache) {
    cache.dirs.set(memoryDir, { parts, result, others, folders, settledBefore });
    cache.revision++;
  }
  return result;
}

/**
 * Team files the private index links (`- [T](team/x.md)`), relative to the team directory, from
 * lines that reach the agent and from lines past the cut: the team scan calls none of them
 * orphans, and counts them loaded or past the cut (index-state.ts). From the cache file's record
 * of the index while its stat facts hold, else from the index itself.
 */
export function teamFilesLinkedFrom(memoryDir: string, cache?: ScanCache): ParentLinks {
  const abs = childPath(memoryDir, INDEX_FILE);
  const isSymlink = fs.lstatSync(abs, { throwIfNoEntry: false })?.isSymbolicLink();
  if (isSymlink === undefined) return NO_REACH;
  const stored = isSymlink ? undefined : cache?.stored.get(memoryDir)?.index;
  if (stored && !stored.failure && sameStoredFacts(abs, stored.facts)) return stored.teamLinks;
  const index = loadIndex(abs, isSymlink, 'private', cache);
  // Read as the client reads it but not edited by Memdir (a link out, not UTF-8), or not read at all.
  return index.outcome ? { ...index.teamLinks, readOnly: index.outcome.reason } : index.teamLinks;
}

/** The team directory of a memory directory (R-LAYOUT). */
export function teamDirOf(memoryDir: string): string {
  return path.join(memoryDir, TEAM_DIR);
}

/**
 * The index Claude Code would write for a main memory folder now (built-index.ts), or null: there
 * is a MEMORY.md, or nothing to list. `leaveOut`: memories (`/`-separated) not to count — those a
 * change is writing its own pointers for (memory-service's writeIndex). `memories`: the folder's
 * memories as a scan of it just found them (the app's, through its scan cache): then no memory is
 * read again — without them the folder is scanned afresh.
 */
export function predictBuiltIndex(memoryDir: string, options: { leaveOut?: ReadonlySet<string>; memories?: readonly MemorySummary[] } = {}): BuiltIndex | null {
  if (fs.lstatSync(childPath(memoryDir, INDEX_FILE), { throwIfNoEntry: false }) !== undefined) return null;
  const memories = options.memories ?? scanMemoryDir(memoryDir, { scope: 'private' }).memories;
  const leaveOut = options.leaveOut;
  return builtIndexOf(memoryDir, leaveOut ? memories.filter((m) => !leaveOut.has(m.file.split(path.sep).join('/'))) : memories);
}
