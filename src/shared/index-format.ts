/**
 * MEMORY.md, the index (SPEC R-INDEX): one pointer per line, `- [Title](file.md) — hook`.
 * Parsing keeps every line — unknown ones verbatim and in order — so a round trip through
 * Memdir never rewrites what it does not understand.
 */
import { type IndexLoad, dropInvisible, lineFate } from './index-load.js';

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
// A target may hold raw spaces when it ends in `.md` (`[My notes](my notes.md)`): CommonMark
// reads no link there, but Claude Code loads MEMORY.md as text and its model reads the file name
// from the line (checked against the real binary: claude-code-interop.test.ts), so Memdir does too.
// The hook is `(?:.*\S)?` rather than a lazy `.*?` before `\s*$`: the same text, in linear time.
const POINTER =
  /^\s*[-*+]\s+\[((?:[^\]\\]|\\.)*)\]\(\s*(?:<([^<>\r\n]+)>|([^)<>\s]+|[^()<>\s][^()<>\r\n]*?\.[mM][dD]))\s*\)\s*(?:(?:—|–|-{1,2}|:)\s*((?:.*\S)?))?\s*$/;
// A bullet that starts the way the canonical pointer does — with a `[Title](` link (not a
// `[[wikilink]]`) or a bare `file.md` — and so is trying to be one.
const TRIES_POINTER = /^\s*[-*+]\s+(?:\[(?!\[)|[^\s`[\]()]+\.md(?:\s|$))/i;
const EXTERNAL = /^[a-z][a-z0-9+.-]*:/i;
// An inline Markdown link (not an image): `[text](target)` or `[text](<target>)`, optional title;
// a `.md` target with raw spaces as the agent reads it (see POINTER).
const LINK = /(!?)\[((?:[^[\]\\]|\\.)*)\]\(\s*(?:<([^<>\r\n]+)>|([^()<>\s]+|[^()<>\s][^()<>\r\n]*?\.[mM][dD]))(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g;

/** Whether a link target names a topic file inside the memory dir (not a URL or an anchor). */
export function isFileTarget(target: string): boolean {
  return !EXTERNAL.test(target) && !target.startsWith('#');
}

/**
 * Normalise a link target to a path relative to the index: `./a.md` → `a.md`, `%20` decoded (the inverse of `encodeTarget`),
 * `a/../b.md` → `b.md`. A `..` that climbs out stays at the front (`retros/../../x.md` → `../x.md`): every reader takes a
 * target starting with `../` for one that leaves the memory folder, and never looks there.
 */
export function normalizeTarget(target: string): string {
  // Nearly every target is already plain (`feedback_sql.md`, `retros/x.md`): nothing to undo.
  if (!/[%\\#]|(?:^|\/)\.{1,2}(?:\/|$)|\/\/|^\/|\/$/.test(target)) return target;
  let value = target.split('#')[0]!.replace(/\\/g, '/');
  try {
    value = decodeURIComponent(value);
  } catch {
    // Keep the raw target: a stray % is a valid file name character.
  }
  const parts: string[] = [];
  for (const part of value.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..' && parts.length > 0 && parts[parts.length - 1] !== '..') parts.pop();
    else parts.push(part);
  }
  return parts.join('/');
}

/** A Markdown link to a `.md` file on a line of the index: what the agent follows (R-HEALTH). */
export interface IndexLink {
  line: number;
  /** The target, normalised as {@link normalizeTarget} does (relative to the index). */
  file: string;
  title: string;
  /**
   * Whether the line points at this file: the link opens the line (`- [T](f.md) …`), maybe after
   * a short lead-in (`- See [T](f.md).`, `- Owner profile: [x](x.md)`, a table cell). A link
   * later in a sentence (`… (see [T](f.md))`) is a cross-reference, not a pointer of its own.
   */
  primary: boolean;
}

// What may come before a line's own link: a bullet or table pipe, then nothing, "See"/"See also"/
// "Read", or a short label ending with a colon.
const LEAD_IN = /^\s*(?:[-*+]\s+|\d{1,9}[.)]\s+|\|\s*)?(?:\*\*|__)?(?:(?:see(?:\s+also)?|read|→|->)\s*|[^.;!?()[\]]{1,40}:\s*)?$/i;

function withoutCodeSpans(raw: string): string {
  // Keep offsets: code spans become spaces, so a `path.md` in backticks is never a link.
  return raw.replace(/(`+)[\s\S]*?\1/g, (span) => ' '.repeat(span.length));
}

function linksOf(raw: string, line: number): IndexLink[] {
  const links: IndexLink[] = [];
  // Every link has `](`; hiding code spans never makes one. Most lines that are not pointers have none.
  if (!raw.includes('](')) return links;
  for (const m of withoutCodeSpans(raw).matchAll(LINK)) {
    if (m[1] === '!') continue;
    const target = m[3] ?? m[4]!;
    if (!isFileTarget(target)) continue;
    const file = normalizeTarget(target);
    if (!/\.md$/i.test(file)) continue;
    links.push({ line, file, title: m[2]!.replace(/\\(.)/g, '$1'), primary: links.length === 0 && LEAD_IN.test(raw.slice(0, m.index)) });
  }
  return links;
}

/**
 * Every link to a `.md` file in the index, line by line, wherever it sits on its line: a
 * canonical pointer, `- See [T](f.md). …`, `- Owner profile: [x](x.md)`, a table cell. The
 * agent follows any of them, so each counts for orphans and dangling links, and the first
 * link of a line for repeated pointers.
 */
export function indexLinks(index: ParsedIndex): IndexLink[] {
  // Scan, health and the team scan all ask for the same parse's links: work them out once.
  const known = linksMemo.get(index);
  if (known) return known;
  const links: IndexLink[] = [];
  for (const l of index.lines) {
    // A canonical pointer with no other link on its line (the common case) needs no second look.
    if (l.kind === 'entry' && l.raw.indexOf('](') === l.raw.lastIndexOf('](')) {
      links.push({ line: l.line, file: l.file, title: l.title, primary: true });
      continue;
    }
    const found = linksOf(l.raw, l.line);
    if (l.kind !== 'entry') {
      for (const k of found) links.push(k);
      continue;
    }
    // A canonical pointer points at its own target (whatever its extension); links in its hook are cross-references.
    links.push({ line: l.line, file: l.file, title: l.title, primary: true });
    found.forEach((k, i) => {
      if (!(i === 0 && k.file === l.file)) links.push({ ...k, primary: false });
    });
  }
  linksMemo.set(index, links);
  return links;
}

const linksMemo = new WeakMap<ParsedIndex, IndexLink[]>();

/** Whether the line's first non-blank character is a bullet (`-`, `*`, `+`): POINTER and TRIES_POINTER both need one. */
function startsWithBullet(raw: string): boolean {
  let i = 0;
  let c = raw.charCodeAt(0);
  // ASCII blanks are looked past here; a line opening with any other space is left to the regexes.
  while (c === 0x20 || (c >= 0x09 && c <= 0x0d)) c = raw.charCodeAt(++i);
  return c === 0x2d || c === 0x2a || c === 0x2b || c > 0x7f;
}

function classify(raw: string, line: number): IndexLine {
  // Headings and prose (most lines that are not pointers) cannot match either pattern.
  if (!startsWithBullet(raw)) return { kind: 'other', line, raw };
  const match = POINTER.exec(raw);
  if (match) {
    const target = match[2] ?? match[3]!;
    if (!isFileTarget(target)) return { kind: 'other', line, raw };
    const title = match[1]!;
    return {
      kind: 'entry',
      line,
      title: title.includes('\\') ? title.replace(/\\(.)/g, '$1') : title,
      file: normalizeTarget(target),
      hook: match[4] ?? '',
      raw,
    };
  }
  // A line that links a memory anywhere (`- See [T](f.md).`) is read by the agent as a pointer:
  // not malformed, whatever its shape. Prose naming files in backticks is prose.
  if (TRIES_POINTER.test(raw) && linksOf(raw, line).length === 0) {
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
  const rawLines = body === '' ? [] : eol === '\r\n' ? body.split(/\r?\n/) : body.split('\n');
  if (finalNewline) rawLines.pop();
  return { lines: rawLines.map((raw, i) => classify(raw, i + 1)), eol, bom, finalNewline };
}

/** Serialise back to text; unchanged lines come out byte for byte as they went in. */
export function serializeIndex(index: ParsedIndex): string {
  const text = index.lines.map((l) => l.raw).join(index.eol);
  const withEnd = index.lines.length > 0 && index.finalNewline ? text + index.eol : text;
  return (index.bom ? '\uFEFF' : '') + withEnd;
}

/**
 * A title or hook as one line of text Claude Code loads as written: line breaks and tabs become
 * spaces, and what it removes at load (control, bidi and other invisible characters) is not written.
 */
function oneLine(text: string): string {
  return dropInvisible(text.replace(/[\t\n\v\f\r\u2028\u2029]+/g, ' '));
}

/**
 * Escape a title for use inside `[...]`: `\`, `]` and `[` — an unescaped `[` makes a CommonMark
 * reader start the link there (`[br[ack\]et](…)` renders as `[br` and a link `ack]et`).
 */
function escapeTitle(title: string): string {
  return oneLine(title).replace(/[\\[\]]/g, '\\$&');
}

/** Claude Code's advice, as a number: "each entry should be one line, under ~150 characters"; a hook longer than this is a candidate for shortening. */
export const LONG_HOOK = 150;

/** A hook cut to at most `max` characters, at a word end when one is near, with an ellipsis. */
export function shortenHook(hook: string, max: number): string {
  const flat = hook.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  let cut = flat.slice(0, max - 1);
  // Never half of a character that takes two UTF-16 units (Claude Code would drop the lone half).
  if (/[\ud800-\udbff]$/.test(cut)) cut = cut.slice(0, -1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).replace(/[\s,;:.—–-]+$/, '')}…`;
}

/**
 * The hook of a pointer Memdir writes (R-INDEX): one line, without what Claude Code removes at
 * load, and — from a long description — cut to {@link LONG_HOOK} characters, so one pointer never
 * takes a large share of the index's 25,000.
 */
export function pointerHook(hook: string): string {
  const line = oneLine(hook).trim();
  return line.length <= LONG_HOOK ? line : shortenHook(line, LONG_HOOK);
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

/** The canonical pointer line for a topic file: every pointer Memdir writes is made here (see {@link pointerHook}, {@link escapeTitle}). */
export function formatIndexEntry(entry: { title: string; file: string; hook?: string }): string {
  const target = encodeTarget(entry.file);
  const hook = pointerHook(entry.hook ?? '');
  return `- [${escapeTitle(entry.title)}](${target})${hook ? ` — ${hook}` : ''}`;
}

function renumber(lines: IndexLine[]): IndexLine[] {
  return lines.map((l, i) => ({ ...l, line: i + 1 }));
}

/**
 * Where a new pointer goes (SPEC R-INDEX): at the end of the index, above its trailing blank lines,
 * so it joins the list rather than floating below it — Claude Code appends there too. 0-based.
 */
export function newPointerPlace(index: ParsedIndex): number {
  let at = index.lines.length;
  while (at > 0 && index.lines[at - 1]!.raw.trim() === '') at--;
  return at;
}

/** The index with the line `raw` inserted before line `at` (0-based; clamped), every line renumbered. */
export function insertIndexLine(index: ParsedIndex, at: number, raw: string): ParsedIndex {
  const lines = [...index.lines];
  lines.splice(Math.max(0, Math.min(at, lines.length)), 0, classify(raw, 0));
  // The index's own ending kept (a restore putting a line back mid-file left one that had no final newline with one); a new index ends its line.
  return { ...index, lines: renumber(lines), finalNewline: index.finalNewline || index.lines.length === 0 };
}

/** Add a pointer where new pointers go ({@link newPointerPlace}). */
export function addIndexEntry(index: ParsedIndex, entry: { title: string; file: string; hook?: string }): ParsedIndex {
  return insertIndexLine(index, newPointerPlace(index), formatIndexEntry(entry));
}

/**
 * Remove every pointer to `file` (or only those on the given lines). The lines above the first one
 * removed are kept as they are, only those below renumbered; nothing to remove: `index` itself. (A
 * bulk delete removes pointers one memory at a time from one index: copying every line each time
 * made 1,000 deletes from 3,000 pointers three million copies.)
 */
export function removeIndexEntries(index: ParsedIndex, file: string, onlyLines?: ReadonlySet<number>): ParsedIndex {
  const removed = (l: IndexLine) => l.kind === 'entry' && l.file === file && (!onlyLines || onlyLines.has(l.line));
  const first = index.lines.findIndex(removed);
  if (first === -1) return index;
  const below = index.lines.slice(first).filter((l) => !removed(l));
  return { ...index, lines: [...index.lines.slice(0, first), ...below.map((l, i) => ({ ...l, line: first + i + 1 }))] };
}

/** Point every pointer at `from` to `to`, keeping title and hook (and the rest of the line). */
export function retargetIndexEntries(index: ParsedIndex, from: string, to: string): ParsedIndex {
  const lines = index.lines.map((l) => (l.kind === 'entry' && l.file === from ? retargetLine(l, to) : l));
  return { ...index, lines };
}

/** POINTER with the spans of its groups. */
const POINTER_SPANS = new RegExp(POINTER.source, 'd');

/**
 * A pointer line pointing at `to` instead, changed only where it names the file: its link target as
 * the user wrote it (`./`, angle brackets; a name the bare form cannot hold goes in brackets), and
 * its title if that was the file's name; the dash and the words around it stay. Written in the
 * canonical form only if that cannot be done.
 */
function retargetLine(entry: IndexEntry, to: string): IndexLine {
  const m = POINTER_SPANS.exec(entry.raw);
  const spans = m?.indices;
  if (m && spans) {
    const angled = m[2] !== undefined;
    const written = angled ? m[2]! : m[3]!;
    const encoded = encodeTarget(to);
    let target = angled && encoded.startsWith('<') ? encoded.slice(1, -1) : encoded;
    if (written.startsWith('./')) target = target.startsWith('<') ? `<./${target.slice(1)}` : `./${target}`;
    const [start, end] = spans[angled ? 2 : 3]!;
    let raw = entry.raw.slice(0, start) + target + entry.raw.slice(end);
    if (entry.title === entry.file || entry.title === written) {
      const [titleStart, titleEnd] = spans[1]!;
      raw = raw.slice(0, titleStart) + escapeTitle(to) + raw.slice(titleEnd);
    }
    const line = classify(raw, entry.line);
    if (line.kind === 'entry' && line.file === to) return line;
  }
  return classify(formatIndexEntry({ title: entry.title, file: to, hook: entry.hook }), entry.line);
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

/**
 * The files the index's lines point at (canonical pointers and `- See [T](f.md)` lines alike),
 * split by whether their line reaches the agent (R-INDEX). Pointers Claude Code strips before
 * the cut (inside the frontmatter or a comment block) are in neither list: the agent never sees
 * them, and they were never meant to be seen.
 */
export function splitLoadedEntries(index: ParsedIndex, load: IndexLoad): { loaded: IndexLink[]; cut: IndexLink[] } {
  const loaded: IndexLink[] = [];
  const cut: IndexLink[] = [];
  for (const link of indexLinks(index)) {
    if (!link.primary) continue;
    const fate = lineFate(load, link.line);
    if (fate === 'loaded') loaded.push(link);
    else if (fate === 'cut') cut.push(link);
  }
  return { loaded, cut };
}
