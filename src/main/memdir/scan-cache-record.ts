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
 * A fact is written once: the problems a topic file's notes give (its frontmatter issues, say)
 * are written as their number among them and built from the notes on reading (health.ts), and
 * the notes' messages — sentences quoting a description, often not ASCII — go in the text block.
 *
 * Two blocks are shared by the records of a file ({@link Blocks}): every topic file's stat facts,
 * as 64-bit floats, and every memory's name and description and every note's message, as one
 * text. A loaded cache then holds its numbers outside the JavaScript heap and its texts as slices
 * of one string, instead of 40,000 numbers and 20,000 strings the garbage collector would copy twice
 * while the first scan runs (that copying cost a fresh process more than parsing them).
 */
import path from 'node:path';
import { missingFilesOf, missingPointersOf } from '../../shared/index-cut.js';
import type { IndexReach } from '../../shared/index-state.js';
import { MEMORY_TYPES, SCOPES, type Scope } from '../../shared/memory-types.js';
import { FIX_KINDS, PROBLEM_CODES, type Problem } from '../../shared/problems.js';
import type { IndexSummary, MemoryDirScan, MemorySummary } from '../../shared/scan-types.js';
import type { StoredDir, StoredFacts, StoredFailure } from './scan-cache.js';
import { topicOwnProblems } from './health.js';
import { isRecord } from '../../shared/is-record.js';
import type { FrontmatterIssue } from '../../shared/frontmatter.js';
import type { DerivableHint } from '../../shared/not-worth-saving.js';

/** What the records of one file share (see the module comment). */
export interface Blocks {
  /** Four numbers a topic file — size, mtimeMs, ctimeMs, ino — directory after directory. */
  facts: Float64Array;
  /** Directory after directory: each memory's name then description, then the messages of its notes. */
  text: string;
}

/** The blocks as the file holds them: the facts as base64 of little-endian 64-bit floats. */
export interface WrittenBlocks {
  facts: string;
  text: string;
}

/** Collects the blocks while the records of a file are written. */
export class BlockWriter {
  private readonly facts: number[] = [];
  private readonly texts: string[] = [];
  private textLength = 0;

  addFacts(facts: ArrayLike<number>): number {
    const at = this.facts.length;
    for (let i = 0; i < facts.length; i++) this.facts.push(facts[i]!);
    return at;
  }

  addText(text: string): number {
    const at = this.textLength;
    this.texts.push(text);
    this.textLength += text.length;
    return at;
  }

  written(): WrittenBlocks {
    const facts = new Float64Array(this.facts);
    return { facts: Buffer.from(facts.buffer, facts.byteOffset, facts.byteLength).toString('base64'), text: this.texts.join('') };
  }
}

// The file is read on the machine that wrote it; a big-endian one would simply never use it.
const BIG_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 0;

/** The blocks of a file, or null when they are not as {@link BlockWriter} writes them. */
export function readBlocks(facts: unknown, text: unknown): Blocks | null {
  if (typeof facts !== 'string' || typeof text !== 'string' || facts.length % 4 !== 0) return null;
  const bytes = Buffer.from(facts, 'base64');
  // Anything but base64 is skipped by the decoder: then fewer bytes come out than the text holds.
  const padding = facts.endsWith('==') ? 2 : facts.endsWith('=') ? 1 : 0;
  if (bytes.length !== (facts.length / 4) * 3 - padding || bytes.length % 8 !== 0) return null;
  const numbers = new Float64Array(bytes.length / 8);
  new Uint8Array(numbers.buffer).set(bytes);
  if (BIG_ENDIAN) return null;
  for (let i = 0; i < numbers.length; i++) if (!Number.isFinite(numbers[i])) return null;
  return { facts: numbers, text };
}

/** A note of a topic file as written: its position, its issues' codes and lines, its hints' kinds, why it could not be read. */
type WrittenNote = [number, [FrontmatterIssue['code'], number | null][], DerivableHint['kind'][], StoredFailure | null];

/** A directory as written in the file. Arrays of numbers and strings; a few hundred records for 10,000 memories. */
export interface DirRecord {
  dir: string;
  scope: Scope;
  /** MEMORY.md's stat facts, its links (a number: that topic file), its team links, why it could not be read. */
  index: { facts: StoredFacts; targets: (number | string)[] | null; teamLinks: IndexReach; failure: StoredFailure | null } | null;
  files: string[];
  /** Where its files' facts start in the facts block (four numbers a file). */
  factsAt: number;
  /** The notes, their issues' and hints' messages in the text block. */
  notes: WrittenNote[];
  tail: string[];
  /** Its folders' paths and stat facts when it was listed (mtimeMs, ctimeMs, ino), the directory first; null: listed every time. */
  folders: [string, number, number, number][] | null;
  /**
   * Where its memories' names and descriptions start in the text block, and the lengths of its
   * texts there: name, description, memory after memory; then the message of each issue and hint
   * of its notes, note after note.
   */
  textAt: number;
  lengths: number[];
  /** One letter a memory: its type and layout ({@link kindOf}). */
  kinds: string;
  /**
   * The index summary: exists, lines, bytes, chars, loaded, cut (topic files by position), loadedLines, loadedBytes, loadedChars,
   * firstCutLine, reason, cutMemories (by position: they depend on links the record does not hold, and on the main index's for a team).
   */
  summary: unknown[];
  /**
   * code, file, line, message, severity, fix, and the target when there is one; or, for a problem
   * the notes give, its number among them ({@link ownProblemsOf}), increasing.
   */
  problems: (unknown[] | number)[];
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

/** The problems the notes of a directory give, note after note, in the order a scan reports them. */
function ownProblemsOf(notes: StoredDir['notes'], files: readonly string[]): Problem[] {
  const out: Problem[] = [];
  for (const [i, issues, hints, failure] of notes)
    topicOwnProblems(failure ? { file: files[i]!, unreadable: failure } : { file: files[i]!, issues, hints }, out);
  return out;
}

const sameProblem = (a: Problem, b: Problem): boolean =>
  a.code === b.code &&
  a.file === b.file &&
  a.line === b.line &&
  a.message === b.message &&
  a.severity === b.severity &&
  a.fix === b.fix &&
  a.target === b.target &&
  'target' in a === 'target' in b;

/**
 * The record of a directory, or null when its scan is not the one its files give (memories other
 * than its readable topic files in order, say): such a directory is not written down. One holding
 * a memory too large to read whole is such a one (that memory has a read failure and a row): rare
 * enough to be scanned again by each fresh process.
 */
export function writeDirRecord(dir: string, stored: StoredDir, blocks: BlockWriter): DirRecord | null {
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
  if (m !== result.memories.length || facts.length !== 4 * files.length) return null;
  const textAt = blocks.addText('');
  const lengths: number[] = [];
  for (const x of result.memories) {
    blocks.addText(x.name);
    blocks.addText(x.description);
    lengths.push(x.name.length, x.description.length);
  }
  const message = (m: string): void => {
    blocks.addText(m);
    lengths.push(m.length);
  };
  const writtenNotes = notes.map(([i, issues, hints, failure]): WrittenNote => {
    issues.forEach((issue) => message(issue.message));
    hints.forEach((hint) => message(hint.message));
    return [i, issues.map((issue) => [issue.code, issue.line ?? null]), hints.map((hint) => hint.kind), failure];
  });
  const position = new Map(files.map((f, i) => [f, i]));
  const ref = (file: string): number | string => position.get(file) ?? file;
  const { index } = result;
  const own = ownProblemsOf(notes, files);
  let nextOwn = 0;
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
    factsAt: blocks.addFacts(facts),
    notes: writtenNotes,
    tail: stored.tail,
    folders: stored.folders,
    textAt,
    lengths,
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
      index.cutMemories.map(ref),
    ],
    problems: result.problems.map((p) => {
      if (nextOwn < own.length && sameProblem(p, own[nextOwn]!)) return nextOwn++;
      return [p.code, p.file, p.line, p.message, p.severity, p.fix, ...(p.target !== undefined ? [p.target] : [])];
    }),
    lastChangeMs: result.lastChangeMs,
  };
}

// Written out rather than a zod schema: a schema over 10,000 memories costs more than the stats
// the cache saves. What is built from a record passes memoryDirScanSchema (the property test).
export const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
export const isString = (v: unknown): v is string => typeof v === 'string';
const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every(isString);
export const isNumbers = (v: unknown, n: number): v is number[] => Array.isArray(v) && v.length === n && v.every(isNumber);
const isIndex = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
const isFailure = (v: unknown): boolean => v === null || (isRecord(v) && (v.code === 'unreadable' || v.code === 'unsafe-link') && isString(v.reason));
const ISSUE_CODES: readonly FrontmatterIssue['code'][] = ['bad-frontmatter', 'invalid-type', 'cut-by-comment'];
const HINT_KINDS: readonly DerivableHint['kind'][] = ['file-paths', 'code', 'git-log'];
const isIssue = (v: unknown): boolean => Array.isArray(v) && v.length === 2 && oneOf(ISSUE_CODES, v[0]) && (v[1] === null || isIndex(v[1]));
const oneOf = <T>(values: readonly T[], v: unknown): v is T => values.includes(v as T);
// A path relative to the memory directory, as listings give it: `x.md`, `retros/x.md`, never `..`
// (no empty, `.` or `..` segment, no backslash). One regex, no allocation: it runs on every file.
const NOT_RELATIVE = /^$|^\/|\/$|\/\/|\\|(?:^|\/)\.\.?(?:\/|$)/;
// Most names are one segment: a simpler pattern accepts those (the full one cost a fresh process 1 ms on 10,000 names).
const ONE_SEGMENT = /^(?!\.\.?$)[^/\\]+$/;
const isRelativePath = (v: unknown): v is string => isString(v) && (ONE_SEGMENT.test(v) || !NOT_RELATIVE.test(v));

/** Notes of topics (issues, hints, failure) by strictly increasing position among `count` files. */
function isNotes(v: unknown, count: number): v is WrittenNote[] {
  if (!Array.isArray(v)) return false;
  let last = -1;
  for (const note of v) {
    if (!Array.isArray(note) || note.length !== 4 || !Number.isInteger(note[0]) || note[0] <= last || note[0] >= count) return false;
    last = note[0] as number;
    const [, issues, hints, failure] = note as unknown[];
    if (!Array.isArray(issues) || !issues.every(isIssue) || !Array.isArray(hints) || !hints.every((k) => oneOf(HINT_KINDS, k)) || !isFailure(failure))
      return false;
  }
  return true;
}

/** Folders as a listing records them: the directory itself first, then subfolders, each with three stat facts. */
function isFolders(v: unknown): v is [string, number, number, number][] {
  if (!Array.isArray(v) || v.length === 0) return false;
  return v.every((f, i) => Array.isArray(f) && f.length === 4 && (i === 0 ? f[0] === '' : f[0] !== '' && isRelativePath(f[0])) && isNumbers(f.slice(1), 3));
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

/** The summary as the record holds it: the pointers to missing files, past the cut and above it, are worked out again on reading (missingPointersOf). */
type StoredSummary = Omit<IndexSummary, 'cutMissing' | 'loadedMissing'>;

function summaryOf(v: unknown, files: readonly string[]): StoredSummary | null {
  if (!Array.isArray(v) || v.length !== 12) return null;
  const [exists, lines, bytes, chars, loadedRefs, cutRefs, loadedLines, loadedBytes, loadedChars, firstCutLine, reason, cutMemoryRefs] = v as unknown[];
  if (typeof exists !== 'boolean' || !isNumber(lines) || !isNumber(bytes) || !isNumber(chars)) return null;
  if (!isNumber(loadedLines) || !isNumber(loadedBytes) || !isNumber(loadedChars)) return null;
  if ((firstCutLine !== null && !isNumber(firstCutLine)) || (reason !== null && !isString(reason))) return null;
  const loaded = refsOf(loadedRefs, files);
  const cut = refsOf(cutRefs, files);
  const cutMemories = refsOf(cutMemoryRefs, files);
  if (!loaded || !cut || !cutMemories) return null;
  return { exists, lines, bytes, chars, loaded, cut, loadedLines, loadedBytes, loadedChars, firstCutLine, reason, cutMemories };
}

/**
 * A directory read back from the file: checked and built into what a scan uses, or null when
 * anything in it is not as {@link writeDirRecord} writes it.
 */
export function readDirRecord(v: unknown, blocks: Blocks): (StoredDir & { dir: string }) | null {
  if (!isRecord(v) || !isString(v.dir) || !path.isAbsolute(v.dir) || !oneOf(SCOPES, v.scope)) return null;
  const { dir, scope, files, factsAt, notes: writtenNotes, tail, folders, textAt, lengths, kinds } = v;
  if (!Array.isArray(files) || !files.every(isRelativePath) || !isNotes(writtenNotes, files.length)) return null;
  if (!isIndex(factsAt) || factsAt + 4 * files.length > blocks.facts.length) return null;
  const facts = blocks.facts.subarray(factsAt, factsAt + 4 * files.length);
  if (!Array.isArray(tail) || !tail.every((t) => isString(t) && /^(?:stray|other|parent|parent-cut):/.test(t))) return null;
  if (folders !== null && !isFolders(folders)) return null;

  let index: StoredDir['index'] = null;
  let others: string[] = [];
  if (v.index !== null) {
    const i = v.index;
    if (!isRecord(i) || !isNumbers(i.facts, 4) || !isFailure(i.failure)) return null;
    const team = i.teamLinks;
    if (!isRecord(team) || !isStrings(team.loaded) || !isStrings(team.cut)) return null;
    const targets = i.targets === null ? null : refsOf(i.targets, files);
    if (i.targets !== null && !targets) return null;
    index = { facts: i.facts as StoredFacts, targets, teamLinks: { loaded: team.loaded, cut: team.cut }, failure: i.failure as StoredFailure | null };
    // Links to paths that are not topic files here (see otherTargets): written as paths, not positions.
    if (targets) others = (i.targets as (number | string)[]).filter((t): t is string => typeof t === 'string' && !t.startsWith('..') && t !== '');
  }

  // The memories: every topic file that could be read, in order, with its name, description and kind.
  let count = files.length;
  let messages = 0;
  for (const [, issues, hints, failure] of writtenNotes) {
    if (failure !== null) count--;
    messages += issues.length + hints.length;
  }
  if (typeof kinds !== 'string' || kinds.length !== count || !Array.isArray(lengths) || lengths.length !== 2 * count + messages || !isIndex(textAt))
    return null;
  let textEnd = textAt;
  for (const n of lengths) {
    if (!isIndex(n)) return null;
    textEnd += n as number;
  }
  if (textEnd > blocks.text.length) return null;
  const { text } = blocks;
  const memories: MemorySummary[] = new Array<MemorySummary>(count);
  let next = 0;
  let at = textAt;
  for (let i = 0, m = 0; i < files.length; i++) {
    if (next < writtenNotes.length && writtenNotes[next]![0] === i) {
      if (writtenNotes[next++]![3] !== null) continue;
    }
    const k = kinds.charCodeAt(m) - KIND_BASE;
    if (!(k >= 0 && k < KINDS)) return null;
    const name = text.slice(at, (at += lengths[2 * m] as number));
    const description = text.slice(at, (at += lengths[2 * m + 1] as number));
    memories[m] = {
      file: files[i]!,
      name,
      description,
      type: TYPES[(k / LAYOUTS.length) | 0]!,
      scope,
      bytes: facts[4 * i]!,
      mtimeMs: facts[4 * i + 1]!,
      layout: LAYOUTS[k % LAYOUTS.length]!,
      // A directory holding a file too large to read whole is never written down (writeDirRecord).
      tooLarge: false,
    };
    m++;
  }

  // The notes' messages follow the memories' texts. (Plain loops: a closure moving `at` would
  // make it a context variable, and the memory loop above slower with it.)
  const notes: StoredDir['notes'] = new Array<StoredDir['notes'][number]>(writtenNotes.length);
  let l = 2 * count;
  for (let n = 0; n < writtenNotes.length; n++) {
    const [i, writtenIssues, hintKinds, failure] = writtenNotes[n]!;
    const issues: FrontmatterIssue[] = new Array<FrontmatterIssue>(writtenIssues.length);
    for (let j = 0; j < writtenIssues.length; j++) {
      const [code, line] = writtenIssues[j]!;
      const message = text.slice(at, (at += lengths[l++] as number));
      issues[j] = line === null ? { code, message } : { code, message, line };
    }
    const hints: DerivableHint[] = new Array<DerivableHint>(hintKinds.length);
    for (let j = 0; j < hintKinds.length; j++) hints[j] = { kind: hintKinds[j]!, message: text.slice(at, (at += lengths[l++] as number)) };
    notes[n] = [i, issues, hints, failure];
  }

  const summary = summaryOf(v.summary, files);
  if (!summary || !Array.isArray(v.problems) || (v.lastChangeMs !== null && !isNumber(v.lastChangeMs))) return null;
  const problems: Problem[] = new Array<Problem>(v.problems.length);
  let own: Problem[] | undefined;
  let lastOwn = -1;
  for (let i = 0; i < problems.length; i++) {
    const written: unknown = v.problems[i];
    if (typeof written === 'number') {
      own ??= ownProblemsOf(notes, files);
      if (!Number.isInteger(written) || written <= lastOwn || written >= own.length) return null;
      lastOwn = written;
      problems[i] = own[written]!;
      continue;
    }
    const p = problemOf(written);
    if (!p) return null;
    problems[i] = p;
  }
  // One rule for every directory: team/MEMORY.md loads nothing, so its `cut` is empty (scan-dir.ts)
  // and so is this. (The record's scope is its first memory's: a team folder with no readable
  // memory reads back as private, and a rule by scope here answered differently for it.)
  // Asked for the pointers above the cut and below it: the problems are walked once.
  let missing: ReadonlySet<string> | undefined;
  const missingOf = () => (missing ??= missingFilesOf(problems));
  const full: IndexSummary = { ...summary, cutMissing: missingPointersOf(summary.cut, missingOf), loadedMissing: missingPointersOf(summary.loaded, missingOf) };
  const result: MemoryDirScan = { memoryDir: dir, exists: true, index: full, memories, problems, lastChangeMs: v.lastChangeMs };
  return { dir, index, files, facts, notes, tail, others, folders, result };
}
