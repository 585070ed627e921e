/**
 * One memory directory as the scan cache file writes it down (scan-cache-file.ts), and how it is
 * read back: checked, then built into the StoredDir a scan uses.
 *
 * The record is columnar, so that a fresh process loading 10,000 memories parses little more
 * than their names and descriptions: each memory's file, size and mtime are its topic file's
 * (`files`, `facts`), its scope is the directory's, its type and layout one letter of `kinds`;
 * the index's links and the loaded and cut lists name topic files by position. Reading builds
 * exactly the scan the directory had (memoryDirScanSchema holds of it by construction; the
 * property test checks it against the schema): nothing the file holds is passed on unchecked.
 */
import path from 'node:path';
import { MEMORY_TYPES, SCOPES, type Scope } from '../../shared/memory-types.js';
import { FIX_KINDS, PROBLEM_CODES, type Problem } from '../../shared/problems.js';
import type { IndexSummary, MemoryDirScan, MemorySummary } from '../../shared/scan-types.js';
import type { StoredDir, StoredFacts, StoredFailure } from './scan-cache.js';

/** A directory as written in the file. Arrays of numbers and strings; a few hundred records for 10,000 memories. */
export interface DirRecord {
  dir: string;
  scope: Scope;
  /** MEMORY.md's stat facts, its links (a number: that topic file), its team links, why it could not be read. */
  index: { facts: StoredFacts; targets: (number | string)[] | null; teamLinks: string[]; failure: StoredFailure | null } | null;
  files: string[];
  facts: number[];
  notes: StoredDir['notes'];
  tail: string[];
  /** The scan's memories, one per topic file that could be read, in the order of `files`. */
  names: string[];
  descriptions: string[];
  /** One letter a memory: its type and layout ({@link kindOf}). */
  kinds: string;
  /** The index summary: exists, lines, bytes, chars, loaded, cut (topic files by position), loadedLines, loadedBytes, loadedChars, firstCutLine, reason. */
  summary: unknown[];
  /** code, file, line, message, severity, fix, and the target when there is one. */
  problems: unknown[][];
  lastChangeMs: number | null;
}

const TYPES = [...MEMORY_TYPES, null] as const;
const LAYOUTS = ['flat', 'nested', 'none'] as const;
const SEVERITIES: readonly string[] = ['error', 'warning', 'hint'];
const KIND_BASE = 97; // 'a'
const KINDS = TYPES.length * LAYOUTS.length;

/** A memory's type and layout as one letter of `kinds`. */
function kindOf(m: MemorySummary): string {
  return String.fromCharCode(KIND_BASE + TYPES.indexOf(m.type) * LAYOUTS.length + LAYOUTS.indexOf(m.layout));
}

/**
 * The record of a directory, or null when its scan is not the one its files give (memories other
 * than its readable topic files in order, say): such a directory is not written down.
 */
export function writeDirRecord(dir: string, stored: StoredDir): DirRecord | null {
  const { result, files, facts, notes } = stored;
  if (result.memoryDir !== dir || !result.exists) return null;
  const failed = new Set(notes.filter((n) => n[3] !== null).map((n) => n[0]));
  const scope = result.memories[0]?.scope ?? 'private';
  let m = 0;
  for (let i = 0; i < files.length; i++) {
    if (failed.has(i)) continue;
    const memory = result.memories[m++];
    if (!memory || memory.file !== files[i] || memory.scope !== scope || memory.bytes !== facts[4 * i] || memory.mtimeMs !== facts[4 * i + 1]) return null;
  }
  if (m !== result.memories.length) return null;
  const position = new Map(files.map((f, i) => [f, i]));
  const ref = (file: string): number | string => position.get(file) ?? file;
  const { index } = result;
  return {
    dir,
    scope,
    index: stored.index && {
      facts: stored.index.facts,
      targets: stored.index.targets && stored.index.targets.map(ref),
      teamLinks: stored.index.teamLinks,
      failure: stored.index.failure,
    },
    files,
    facts,
    notes,
    tail: stored.tail,
    names: result.memories.map((x) => x.name),
    descriptions: result.memories.map((x) => x.description),
    kinds: result.memories.map(kindOf).join(''),
    summary: [
      index.exists,
      index.lines,
      index.bytes,
      index.chars,
      index.loaded.map(ref),
      index.cut.map(ref),
      index.loadedLines,
      index.loadedBytes,
      index.loadedChars,
      index.firstCutLine,
      index.reason,
    ],
    problems: result.problems.map((p) => [p.code, p.file, p.line, p.message, p.severity, p.fix, ...(p.target !== undefined ? [p.target] : [])]),
    lastChangeMs: result.lastChangeMs,
  };
}

// Written out rather than a zod schema: a schema over 10,000 memories costs more than the stats
// the cache saves. What is built from a record passes memoryDirScanSchema (the property test).
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isString = (v: unknown): v is string => typeof v === 'string';
const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every(isString);
const isNumbers = (v: unknown, n: number): v is number[] => Array.isArray(v) && v.length === n && v.every(isNumber);
const isFailure = (v: unknown): boolean => v === null || (isObject(v) && (v.code === 'unreadable' || v.code === 'unsafe-link') && isString(v.reason));
const isList = (v: unknown, kinds: readonly string[], key: 'code' | 'kind'): boolean =>
  Array.isArray(v) && v.every((x) => isObject(x) && kinds.includes(x[key] as string) && isString(x.message));
const oneOf = <T>(values: readonly T[], v: unknown): v is T => values.includes(v as T);
// A path relative to the memory directory, as listings give it: `x.md`, `retros/x.md`, never `..`
// (no empty, `.` or `..` segment, no backslash). One regex, no allocation: it runs on every file.
const NOT_RELATIVE = /^$|^\/|\/$|\/\/|\\|(?:^|\/)\.\.?(?:\/|$)/;
const isRelativePath = (v: unknown): v is string => isString(v) && !NOT_RELATIVE.test(v);

/** Notes of topics (issues, hints, failure) by strictly increasing position among `count` files. */
function isNotes(v: unknown, count: number): v is StoredDir['notes'] {
  if (!Array.isArray(v)) return false;
  let last = -1;
  for (const note of v) {
    if (!Array.isArray(note) || note.length !== 4 || !Number.isInteger(note[0]) || note[0] <= last || note[0] >= count) return false;
    last = note[0] as number;
    if (!isList(note[1], ['bad-frontmatter', 'invalid-type'], 'code') || !isList(note[2], ['file-paths', 'code', 'git-log'], 'kind') || !isFailure(note[3]))
      return false;
  }
  return true;
}

/** Topic files named by position, or other paths as written (never a topic file's own path: that is written as its position). */
function refsOf(v: unknown, files: readonly string[]): string[] | null {
  if (!Array.isArray(v)) return null;
  const out = new Array<string>(v.length);
  let names: Set<string> | undefined;
  for (let i = 0; i < v.length; i++) {
    const r: unknown = v[i];
    if (typeof r === 'number') {
      if (!Number.isInteger(r) || r < 0 || r >= files.length) return null;
      out[i] = files[r]!;
    } else if (typeof r === 'string') {
      names ??= new Set(files);
      if (names.has(r)) return null;
      out[i] = r;
    } else return null;
  }
  return out;
}

function problemOf(v: unknown): Problem | null {
  if (!Array.isArray(v) || (v.length !== 6 && v.length !== 7)) return null;
  const [code, file, line, message, severity, fix, target] = v as unknown[];
  if (!oneOf(PROBLEM_CODES, code) || (file !== null && !isString(file)) || (line !== null && !isNumber(line)) || !isString(message)) return null;
  if (!oneOf(SEVERITIES as Problem['severity'][], severity) || (fix !== null && !oneOf(FIX_KINDS, fix))) return null;
  if (v.length === 6) return { code, file, line, message, severity, fix };
  return isString(target) ? { code, file, line, message, severity, fix, target } : null;
}

function summaryOf(v: unknown, files: readonly string[]): IndexSummary | null {
  if (!Array.isArray(v) || v.length !== 11) return null;
  const [exists, lines, bytes, chars, loadedRefs, cutRefs, loadedLines, loadedBytes, loadedChars, firstCutLine, reason] = v as unknown[];
  if (typeof exists !== 'boolean' || !isNumber(lines) || !isNumber(bytes) || !isNumber(chars)) return null;
  if (!isNumber(loadedLines) || !isNumber(loadedBytes) || !isNumber(loadedChars)) return null;
  if ((firstCutLine !== null && !isNumber(firstCutLine)) || (reason !== null && !isString(reason))) return null;
  const loaded = refsOf(loadedRefs, files);
  const cut = refsOf(cutRefs, files);
  if (!loaded || !cut) return null;
  return { exists, lines, bytes, chars, loaded, cut, loadedLines, loadedBytes, loadedChars, firstCutLine, reason };
}

/**
 * A directory read back from the file: checked and built into what a scan uses, or null when
 * anything in it is not as {@link writeDirRecord} writes it.
 */
export function readDirRecord(v: unknown): (StoredDir & { dir: string }) | null {
  if (!isObject(v) || !isString(v.dir) || !path.isAbsolute(v.dir) || !oneOf(SCOPES, v.scope)) return null;
  const { dir, scope, files, facts, notes, tail, names, descriptions, kinds } = v;
  if (!Array.isArray(files) || !files.every(isRelativePath) || !isNumbers(facts, 4 * files.length) || !isNotes(notes, files.length)) return null;
  if (!Array.isArray(tail) || !tail.every((t) => isString(t) && /^(?:stray|other|parent):/.test(t))) return null;

  let index: StoredDir['index'] = null;
  let others: string[] = [];
  if (v.index !== null) {
    const i = v.index;
    if (!isObject(i) || !isNumbers(i.facts, 4) || !isStrings(i.teamLinks) || !isFailure(i.failure)) return null;
    const targets = i.targets === null ? null : refsOf(i.targets, files);
    if (i.targets !== null && !targets) return null;
    index = { facts: i.facts as StoredFacts, targets, teamLinks: i.teamLinks, failure: i.failure as StoredFailure | null };
    // Links to paths that are not topic files here (see otherTargets): written as paths, not positions.
    if (targets) others = (i.targets as (number | string)[]).filter((t): t is string => typeof t === 'string' && !t.startsWith('..') && t !== '');
  }

  // The memories: every topic file that could be read, in order, with its name, description and kind.
  const count = files.length - notes.reduce((n, note) => (note[3] === null ? n : n + 1), 0);
  if (
    !isStrings(names) ||
    !isStrings(descriptions) ||
    typeof kinds !== 'string' ||
    names.length !== count ||
    descriptions.length !== count ||
    kinds.length !== count
  )
    return null;
  const memories: MemorySummary[] = new Array<MemorySummary>(count);
  let next = 0;
  for (let i = 0, m = 0; i < files.length; i++) {
    if (next < notes.length && notes[next]![0] === i) {
      if (notes[next++]![3] !== null) continue;
    }
    const k = kinds.charCodeAt(m) - KIND_BASE;
    if (!(k >= 0 && k < KINDS)) return null;
    memories[m] = {
      file: files[i]!,
      name: names[m]!,
      description: descriptions[m]!,
      type: TYPES[(k / LAYOUTS.length) | 0]!,
      scope,
      bytes: facts[4 * i]!,
      mtimeMs: facts[4 * i + 1]!,
      layout: LAYOUTS[k % LAYOUTS.length]!,
    };
    m++;
  }

  const summary = summaryOf(v.summary, files);
  if (!summary || !Array.isArray(v.problems) || (v.lastChangeMs !== null && !isNumber(v.lastChangeMs))) return null;
  const problems: Problem[] = new Array<Problem>(v.problems.length);
  for (let i = 0; i < problems.length; i++) {
    const p = problemOf(v.problems[i]);
    if (!p) return null;
    problems[i] = p;
  }
  const result: MemoryDirScan = { memoryDir: dir, exists: true, index: summary, memories, problems, lastChangeMs: v.lastChangeMs };
  return { dir, index, files, facts, notes, tail, others, result };
}
