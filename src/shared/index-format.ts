/**
 * MEMORY.md, the index (SPEC R-INDEX): one pointer per line, `- [Title](file.md) — hook`.
 * Parsing keeps every line — unknown ones verbatim and in order — so a round trip through
 * Memdir never rewrites what it does not understand.
 */
import { INDEX_MAX_BYTES, INDEX_MAX_LINES } from './limits.js';
import { utf8Length } from './utf8.js';

/** A pointer to a topic file. `file` is the link target as written (relative to the index). */
export interface IndexEntry {
  kind: 'entry';
  /** 1-based line number in the file. */
  line: number;
  title: string;
  file: string;
  hook: string;
  raw: string;
}
/** A line that is not a pointer and does not try to be one (headings, prose, blank lines). */
export interface IndexOther {
  kind: 'other';
  line: number;
  raw: string;
}
/** A line that looks like a pointer but cannot be read as one. */
export interface IndexMalformed {
  kind: 'malformed';
  line: number;
  raw: string;
  reason: string;
}
export type IndexLine = IndexEntry | IndexOther | IndexMalformed;

export interface ParsedIndex {
  lines: IndexLine[];
  /** Line ending found in the file, kept on write. */
  eol: '\n' | '\r\n';
  bom: boolean;
  /** Whether the file ended with a line ending. */
  finalNewline: boolean;
}

// `- [Title](target) — hook`, with *, + or - bullets and —, –, -, : as hook separators.
const POINTER = /^\s*[-*+]\s+\[((?:[^\]\\]|\\.)*)\]\(\s*(?:<([^<>\r\n]+)>|([^)<>\s]+))\s*\)\s*(?:(?:—|–|-{1,2}|:)\s*(.*?))?\s*$/;
const LOOKS_LIKE_POINTER = /^\s*[-*+]\s+.*(\[[^\]]*\]\(|\.md\b)/i;
const EXTERNAL = /^[a-z][a-z0-9+.-]*:/i;

/** Whether a link target names a topic file inside the memory dir (not a URL or an anchor). */
export function isFileTarget(target: string): boolean {
  return !EXTERNAL.test(target) && !target.startsWith('#');
}

/** Normalise a link target to a path relative to the index: `./a.md` → `a.md`, `%20` decoded (the inverse of `encodeTarget`). */
export function normalizeTarget(target: string): string {
  let value = target.split('#')[0]!.replace(/\\/g, '/');
  try {
    value = decodeURIComponent(value);
  } catch {
    // Keep the raw target: a stray % is a valid file name character.
  }
  const parts: string[] = [];
  for (const part of value.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.push('..');
    else parts.push(part);
  }
  return parts.join('/');
}

function classify(raw: string, line: number): IndexLine {
  const match = POINTER.exec(raw);
  if (match) {
    const target = match[2] ?? match[3]!;
    if (!isFileTarget(target)) return { kind: 'other', line, raw };
    return { kind: 'entry', line, title: match[1]!.replace(/\\(.)/g, '$1'), file: normalizeTarget(target), hook: match[4] ?? '', raw };
  }
  if (LOOKS_LIKE_POINTER.test(raw)) {
    const reason = /\[[^\]]*\]\([^)]*$/.test(raw)
      ? 'the link is not closed with ")"'
      : /\]\(/.test(raw)
        ? 'the link is not in the form [Title](file.md)'
        : 'it mentions a .md file without a [Title](file.md) link';
    return { kind: 'malformed', line, raw, reason };
  }
  return { kind: 'other', line, raw };
}

/** Parse MEMORY.md text (BOM and CRLF tolerated). */
export function parseIndex(text: string): ParsedIndex {
  const bom = text.startsWith('\uFEFF');
  const body = bom ? text.slice(1) : text;
  const eol = body.includes('\r\n') ? '\r\n' : '\n';
  const finalNewline = body.endsWith('\n');
  const rawLines = body === '' ? [] : body.split(/\r?\n/);
  if (finalNewline) rawLines.pop();
  return { lines: rawLines.map((raw, i) => classify(raw, i + 1)), eol, bom, finalNewline };
}

/** Serialise back to text; unchanged lines come out byte for byte as they went in. */
export function serializeIndex(index: ParsedIndex): string {
  const text = index.lines.map((l) => l.raw).join(index.eol);
  const withEnd = index.lines.length > 0 && index.finalNewline ? text + index.eol : text;
  return (index.bom ? '\uFEFF' : '') + withEnd;
}

/** Escape a title for use inside `[...]`. */
function escapeTitle(title: string): string {
  return title.replace(/[\\\]]/g, '\\$&').replace(/[\r\n]+/g, ' ');
}

// What a link target cannot hold as it is: `%` (decoded on reading), `#` (an anchor), `?` (a
// query), `\` (read as `/`), `:` (`c:x.md` reads as a URL scheme), `<` `>`, controls, line breaks.
const TARGET_ESCAPE = /[%#?\\:<>\u0000-\u001f\u007f]/g;

/**
 * The link target for a topic file: the one encoding rule that `normalizeTarget` undoes, so a
 * pointer Memdir writes always reads back as the file it names — whatever the file is called
 * (a name with `%41` or `#` written by another program would otherwise read as another file,
 * and `lint --fix` would add its pointer again on every run). Spaces and parentheses are kept
 * readable inside `<…>`.
 */
export function encodeTarget(file: string): string {
  const escaped = file.replace(TARGET_ESCAPE, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
  return /[\s()]/.test(escaped) ? `<${escaped}>` : escaped;
}

/** The canonical pointer line for a topic file. */
export function formatIndexEntry(entry: { title: string; file: string; hook?: string }): string {
  const target = encodeTarget(entry.file);
  const hook = (entry.hook ?? '').replace(/[\r\n]+/g, ' ').trim();
  return `- [${escapeTitle(entry.title)}](${target})${hook ? ` — ${hook}` : ''}`;
}

function renumber(lines: IndexLine[]): IndexLine[] {
  return lines.map((l, i) => ({ ...l, line: i + 1 }));
}

/** Append a pointer (kept at the end: Claude Code appends there too). */
export function addIndexEntry(index: ParsedIndex, entry: { title: string; file: string; hook?: string }): ParsedIndex {
  const raw = formatIndexEntry(entry);
  const lines = [...index.lines];
  // Drop trailing blank lines so the new pointer joins the list rather than floating below it.
  let tail = 0;
  while (lines.length > 0 && lines[lines.length - 1]!.raw.trim() === '') {
    lines.pop();
    tail++;
  }
  lines.push(classify(raw, lines.length + 1));
  for (let i = 0; i < tail; i++) lines.push({ kind: 'other', line: 0, raw: '' });
  return { ...index, lines: renumber(lines), finalNewline: true };
}

/** Remove every pointer to `file` (or only those on the given lines). */
export function removeIndexEntries(index: ParsedIndex, file: string, onlyLines?: ReadonlySet<number>): ParsedIndex {
  const lines = index.lines.filter((l) => !(l.kind === 'entry' && l.file === file && (!onlyLines || onlyLines.has(l.line))));
  return { ...index, lines: renumber(lines) };
}

/** Point every pointer at `from` to `to`, keeping title and hook (and the rest of the line). */
export function retargetIndexEntries(index: ParsedIndex, from: string, to: string): ParsedIndex {
  const lines = index.lines.map((l) =>
    l.kind === 'entry' && l.file === from ? classify(formatIndexEntry({ title: l.title, file: to, hook: l.hook }), l.line) : l,
  );
  return { ...index, lines };
}

/** Replace the title and hook of the pointers to `file`. */
export function updateIndexEntry(index: ParsedIndex, file: string, update: { title: string; hook: string }): ParsedIndex {
  const lines = index.lines.map((l) =>
    l.kind === 'entry' && l.file === file ? classify(formatIndexEntry({ title: update.title, file, hook: update.hook }), l.line) : l,
  );
  return { ...index, lines };
}

export function indexEntries(index: ParsedIndex): IndexEntry[] {
  return index.lines.filter((l): l is IndexEntry => l.kind === 'entry');
}

/** What of MEMORY.md reaches the agent (R-INDEX), replicating Claude Code's truncation. */
export interface IndexLoad {
  /** Lines counted the way Claude Code counts them (after trimming leading/trailing blank space). */
  lines: number;
  /** UTF-8 bytes of the trimmed content. */
  bytes: number;
  /** The first 1-based file line that does not fully reach the agent; null when all of it does. */
  firstCutLine: number | null;
  /** Lines and bytes that do reach the agent. */
  loadedLines: number;
  loadedBytes: number;
  overLines: boolean;
  overBytes: boolean;
}

/**
 * Replicates Claude Code's `truncateEntrypointContent`: trim, keep the first 200 lines, then if
 * that is over 25,000 bytes, cut at the last newline inside the limit. Bytes are UTF-8 bytes.
 */
export function computeIndexLoad(text: string): IndexLoad {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const start = body.length - body.trimStart().length;
  const trimmed = body.trim();
  const leadingLines = countNewlines(body, 0, start);
  const bytes = utf8Length(trimmed);
  if (trimmed === '') {
    return { lines: 0, bytes: 0, firstCutLine: null, loadedLines: 0, loadedBytes: 0, overLines: false, overBytes: false };
  }
  const lineStarts = [0];
  for (let i = trimmed.indexOf('\n'); i !== -1; i = trimmed.indexOf('\n', i + 1)) lineStarts.push(i + 1);
  const lines = lineStarts.length;
  const overLines = lines > INDEX_MAX_LINES;
  const overBytes = bytes > INDEX_MAX_BYTES;
  let keptLines = Math.min(lines, INDEX_MAX_LINES);
  // End (exclusive, in UTF-16 units) of the kept text before the byte cut.
  let keptEnd = keptLines < lines ? lineStarts[keptLines]! - 1 : trimmed.length;
  let keptBytes = utf8Length(trimmed, 0, keptEnd);
  let partial = false;
  if (keptBytes > INDEX_MAX_BYTES) {
    // Last line break whose offset is within the byte limit.
    let cutLine = 0;
    for (let l = 1; l < keptLines; l++) {
      const newlineAt = lineStarts[l]! - 1;
      if (utf8Length(trimmed, 0, newlineAt) <= INDEX_MAX_BYTES) cutLine = l;
      else break;
    }
    if (cutLine > 0) {
      keptLines = cutLine;
      keptEnd = lineStarts[cutLine]! - 1;
    } else {
      // No newline inside the limit: Claude Code cuts mid-line; that line does not fully arrive.
      keptLines = 0;
      partial = true;
      keptEnd = byteOffsetToIndex(trimmed, INDEX_MAX_BYTES);
    }
    keptBytes = utf8Length(trimmed, 0, keptEnd);
  }
  const cut = keptLines < lines || partial;
  return {
    lines,
    bytes,
    firstCutLine: cut ? leadingLines + keptLines + 1 : null,
    loadedLines: keptLines,
    loadedBytes: keptBytes,
    overLines,
    overBytes,
  };
}

function countNewlines(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
}

function byteOffsetToIndex(text: string, maxBytes: number): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const size = utf8Length(text, i, Math.min(text.length, i + 2) === i + 2 && isHighSurrogate(text.charCodeAt(i)) ? i + 2 : i + 1);
    if (bytes + size > maxBytes) return i;
    bytes += size;
    if (size === 4) i++;
  }
  return text.length;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** Entries split by whether they reach the agent. */
export function splitLoadedEntries(index: ParsedIndex, load: IndexLoad): { loaded: IndexEntry[]; cut: IndexEntry[] } {
  const loaded: IndexEntry[] = [];
  const cut: IndexEntry[] = [];
  for (const entry of indexEntries(index)) {
    if (load.firstCutLine !== null && entry.line >= load.firstCutLine) cut.push(entry);
    else loaded.push(entry);
  }
  return { loaded, cut };
}
