/**
 * A small exact reader for the frontmatter shapes Claude Code and people write (R-TOPIC): flat
 * `key: value` lines and one level of nesting (`metadata:`), with plain, single- and
 * double-quoted scalars, `#` comments, `:` inside values, URLs, emoji, any script. It gives
 * exactly what the YAML path (`parseWithRetry`: YAML, then Claude Code's quoting retry) gives,
 * or declines — returns `undefined` — whenever it cannot be sure, and the caller falls back to
 * the YAML library. A property test holds it to that on generated headers.
 *
 * It reads every line twice over: what YAML makes of it, and what it becomes after the quoting
 * retry (`description: use case: foo` is invalid YAML; Claude Code quotes such values and parses
 * again). A header whose YAML certainly fails is answered from the retried lines.
 *
 * It runs on every header of a cold scan, so it walks the source by offsets: no split into lines,
 * no string per line, a value cut out only once it is known to be one. A header YAML refuses is
 * walked a second time with the retry applied (a minority: most headers parse as they are).
 */
import { type CommentCut, READ_KEYS } from '../../shared/frontmatter.js';
import { RETRY_LINE, YAML_SPECIAL_CHARS, retryKeepsValue } from './frontmatter-retry.js';

/** A value YAML certainly refuses. */
const ERROR: unique symbol = Symbol('error');
/** A value the scanner is not sure about: the YAML library decides. */
const DECLINE: unique symbol = Symbol('decline');
/** What one value means: a scalar (null for an empty value), a sure YAML error, or "not sure". */
type Meaning = string | null | typeof ERROR | typeof DECLINE;

/**
 * Characters the scanner leaves to YAML: tabs, CR, line separators, BOM, non-printables — written
 * as the complement of what it reads (LF, printable ASCII, U+00A0 on without U+2028/2029, U+FEFF,
 * U+FFFE/FFFF): the regex runs over every header, and a class of the common ranges is decided sooner.
 */
const UNSURE_CHARS = /[^\n\x20-\x7e\xa0-\u2027\u202a-\ufefe\uff00-\ufffd]/;
const SURROGATE = /[\ud800-\udfff]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
// YAML 1.2 core schema: plain scalars that resolve to null, booleans or numbers, not strings.
const TYPED =
  /^(?:~|[Nn]ull|NULL|[Tt]rue|TRUE|[Ff]alse|FALSE|[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/;

const SPACE = 0x20;
const COLON = 0x3a;

/** The first characters a TYPED scalar can have: `~`, n, N, t, T, f, F, digits, `+`, `-`, `.`. */
function mayBeTyped(c: number): boolean {
  return (
    c === 0x7e ||
    c === 0x6e ||
    c === 0x4e ||
    c === 0x74 ||
    c === 0x54 ||
    c === 0x66 ||
    c === 0x46 ||
    (c >= 0x30 && c <= 0x39) ||
    c === 0x2b ||
    c === 0x2d ||
    c === 0x2e
  );
}

/** What a plain scalar starting with this character is: fine, a sure error, or another kind of node. */
function startKind(c: number): 'plain' | 'error' | 'decline' {
  switch (c) {
    case 0x60: // ` and @ are reserved; % starts a directive; , is a flow indicator
    case 0x40:
    case 0x25:
    case 0x2c:
      return 'error';
    case 0x5b: // [ ] { } flow collections, ! tag, & anchor, * alias, | > block scalars, - ? : indicators
    case 0x5d:
    case 0x7b:
    case 0x7d:
    case 0x21:
    case 0x26:
    case 0x2a:
    case 0x7c:
    case 0x3e:
    case 0x2d:
    case 0x3f:
    case 0x3a:
      return 'decline';
    default:
      return 'plain';
  }
}

function isKeyStart(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;
}

function isKeyChar(c: number): boolean {
  return isKeyStart(c) || (c >= 0x30 && c <= 0x39) || c === 0x2d;
}

/** Where the line starting at `from` ends (its `\n`, or the end of the source). */
function lineEnd(source: string, from: number): number {
  const nl = source.indexOf('\n', from);
  return nl === -1 ? source.length : nl;
}

/** Whether `[from, end)` holds nothing but spaces. */
function isBlank(source: string, from: number, end: number): boolean {
  for (let i = from; i < end; i++) if (source.charCodeAt(i) !== SPACE) return false;
  return true;
}

function indentAt(source: string, from: number): number {
  let i = from;
  while (source.charCodeAt(i) === SPACE) i++;
  return i - from;
}

/** Where the next line holding more than spaces starts, at or after `from`; -1 when none does. */
function nextContent(source: string, from: number): number {
  let pos = from;
  while (pos <= source.length) {
    const end = lineEnd(source, pos);
    if (!isBlank(source, pos, end)) return pos;
    pos = end + 1;
  }
  return -1;
}

/**
 * A `key:` at `from`, then the end of the line or spaces and a value: where its colon is (the key
 * is `[from, colon)`), or -1. Keys are plain identifiers; others are left to YAML.
 */
function keyColon(source: string, from: number, end: number): number {
  if (!isKeyStart(source.charCodeAt(from))) return -1;
  let i = from + 1;
  while (isKeyChar(source.charCodeAt(i))) i++;
  if (source.charCodeAt(i) !== COLON) return -1;
  return i + 1 === end || source.charCodeAt(i + 1) === SPACE ? i : -1;
}

/** Where a key's value starts: past the colon and the spaces after it (the line's end when there is none). */
function valueStart(source: string, colon: number): number {
  let i = colon + 1;
  while (source.charCodeAt(i) === SPACE) i++;
  return i;
}

/** What follows a closing quote at `from`, up to `end`: nothing, or spaces and a comment. */
function endsCleanly(source: string, from: number, end: number): boolean {
  let i = from;
  while (i < end && source.charCodeAt(i) === SPACE) i++;
  return i === end || (source.charCodeAt(i) === 0x23 && i > from);
}

/** The character a double-quoted escape `\c` stands for, among the ones the scanner knows; '' otherwise. */
function escaped(c: number): string {
  switch (c) {
    case 0x5c:
      return '\\';
    case 0x22:
      return '"';
    case 0x2f:
      return '/';
    case 0x6e:
      return '\n';
    case 0x74:
      return '\t';
    case SPACE:
      return ' ';
    default:
      return '';
  }
}

function doubleQuoted(source: string, start: number, end: number): Meaning {
  let value = '';
  let run = start + 1;
  for (let i = start + 1; i < end; i++) {
    const c = source.charCodeAt(i);
    // Anything but spaces and a comment after the closing quote is an error wherever the line stands.
    if (c === 0x22) return endsCleanly(source, i + 1, end) ? value + source.slice(run, i) : ERROR;
    if (c === 0x5c) {
      const e = i + 1 < end ? escaped(source.charCodeAt(i + 1)) : '';
      if (e === '') return DECLINE;
      value += source.slice(run, i) + e;
      i++;
      run = i + 1;
    }
  }
  return DECLINE; // unterminated on this line: a multi-line string
}

function singleQuoted(source: string, start: number, end: number): Meaning {
  let value = '';
  let run = start + 1;
  for (let i = start + 1; i < end; i++) {
    if (source.charCodeAt(i) !== 0x27) continue;
    if (i + 1 < end && source.charCodeAt(i + 1) === 0x27) {
      value += source.slice(run, i + 1);
      i++;
      run = i + 1;
    } else return endsCleanly(source, i + 1, end) ? value + source.slice(run, i) : ERROR;
  }
  return DECLINE;
}

/** What YAML makes of the value `[start, end)` (the spaces after `key:` already skipped). */
function yamlValue(source: string, start: number, end: number): Meaning {
  if (start === end) return null;
  const c = source.charCodeAt(start);
  if (c === 0x23) return null;
  if (c === 0x22) return doubleQuoted(source, start, end);
  if (c === 0x27) return singleQuoted(source, start, end);
  const kind = startKind(c);
  if (kind !== 'plain') return kind === 'error' ? ERROR : DECLINE;
  // A comment starts at ` #`; trailing spaces are not part of the value.
  let stop = source.indexOf(' #', start);
  if (stop === -1 || stop > end) stop = end;
  while (source.charCodeAt(stop - 1) === SPACE) stop--;
  const value = source.slice(start, stop);
  // `a: b: c` and `a: b:` are mappings YAML refuses in this place.
  if (value.charCodeAt(value.length - 1) === COLON || value.includes(': ')) return ERROR;
  if (mayBeTyped(c) && TYPED.test(value)) return DECLINE;
  return value;
}

/** What the line becomes after Claude Code's quoting retry (only top-level lines are touched). */
function retriedValue(line: string, asYaml: Meaning): Meaning {
  const match = RETRY_LINE.exec(line);
  if (!match) return asYaml;
  const raw = match[2]!;
  if (retryKeepsValue(raw)) return asYaml;
  // Quoted with `\` and `"` escaped, which double-quoted YAML reads back as the raw text.
  return YAML_SPECIAL_CHARS.test(raw) ? raw : asYaml;
}

/**
 * Note a name or description read shorter than it was written, `[start, end)` with the spaces after
 * `key:` skipped: a plain scalar is read as written up to ` #`, so a shorter one was cut by a comment. A
 * quoted value (or one the quoting retry quoted, read whole) is never noted. Costs a comparison
 * per value; the line is counted only for a cut.
 */
function noteCut(source: string, start: number, end: number, path: string[], meaning: string, cuts: CommentCut[]): void {
  const c = source.charCodeAt(start);
  if (c === 0x22 || c === 0x27) return;
  let stop = end;
  while (stop > start && source.charCodeAt(stop - 1) === SPACE) stop--;
  if (start + meaning.length >= stop) return;
  // Only the values recall and the index read count: a name or description at the top, a name under `metadata:`.
  const key = path[path.length - 1]!;
  if (!READ_KEYS.has(key) || (path.length > 1 && (path[0] !== 'metadata' || key === 'description'))) return;
  let line = 1;
  for (let i = source.indexOf('\n'); i !== -1 && i < start; i = source.indexOf('\n', i + 1)) line++;
  cuts.push({ path, line, read: meaning, written: source.slice(start, stop) });
}

/**
 * A nested block (`metadata:` and its indented `key: value` lines) whose first line starts at
 * `from`: the mapping and where the first line after it starts, or why not.
 */
function nestedBlock(
  source: string,
  from: number,
  parent: string,
  cuts: CommentCut[] | undefined,
): { map: Record<string, string | null>; next: number } | typeof ERROR | typeof DECLINE {
  const indent = indentAt(source, from);
  const map: Record<string, string | null> = {};
  const keys: string[] = [];
  let pos = from;
  while (pos <= source.length) {
    const end = lineEnd(source, pos);
    if (isBlank(source, pos, end)) {
      pos = end + 1;
      continue;
    }
    const own = indentAt(source, pos);
    if (own === 0) break;
    if (own !== indent) return DECLINE;
    const colon = keyColon(source, pos + indent, end);
    if (colon === -1) return DECLINE;
    const key = source.slice(pos + indent, colon);
    if (key === '__proto__' || keys.includes(key)) return DECLINE;
    const start = valueStart(source, colon);
    const meaning = yamlValue(source, start, end);
    if (meaning === DECLINE || meaning === ERROR) return meaning;
    if (cuts && typeof meaning === 'string') noteCut(source, start, end, [parent, key], meaning, cuts);
    // A deeper line continues this value or nests further: YAML decides.
    const next = nextContent(source, end + 1);
    if (next !== -1 && indentAt(source, next) > indent) return DECLINE;
    keys.push(key);
    map[key] = meaning;
    pos = end + 1;
  }
  return { map, next: pos };
}

/**
 * The header's top-level entries read as YAML reads them (`retry` false: ERROR when a value is a
 * sure YAML error), or as they read after the quoting retry (`retry` true); undefined to decline.
 * Values a comment cut short go to `cuts`.
 */
function readEntries(
  source: string,
  retry: boolean,
  cuts: CommentCut[] | undefined,
  failed: { failure?: YamlFailure } | undefined,
): Record<string, unknown> | undefined | typeof ERROR {
  const record: Record<string, unknown> = {};
  const keys: string[] = [];
  let fails = false;
  let pos = 0;
  while (pos <= source.length) {
    const end = lineEnd(source, pos);
    if (isBlank(source, pos, end)) {
      pos = end + 1;
      continue;
    }
    const colon = keyColon(source, pos, end);
    if (colon === -1) return undefined;
    const key = source.slice(pos, colon);
    if (key === '__proto__' || keys.includes(key)) return undefined;
    keys.push(key);
    const start = valueStart(source, colon);
    const next = nextContent(source, end + 1);
    if (next !== -1 && indentAt(source, next) > 0) {
      // Only `key:` (nothing after it but spaces) opens a nested mapping the scanner knows. The
      // retry never touches such a line (there is nothing to quote), so the block stays a block.
      if (start !== end) return undefined;
      const block = nestedBlock(source, next, key, cuts);
      if (block === DECLINE || block === ERROR) return undefined;
      record[key] = block.map;
      pos = block.next;
      continue;
    }
    const asYaml = yamlValue(source, start, end);
    if (asYaml === DECLINE) return undefined;
    const meaning = retry ? retriedValue(source.slice(pos, end), asYaml) : asYaml;
    if (meaning === DECLINE) return undefined;
    if (meaning === ERROR) {
      // YAML certainly fails; the retried text is what counts — unless this line, left as it was, fails it too.
      if (retry) return ERROR;
      // The library reads some errors before others, whatever their lines: named only when every
      // refused line is of the one kind the scanner is sure of, and then by the first of them.
      if (failed) {
        const code = errorCodeOf(source, start, end);
        if (!fails) failed.failure = code ? { line: lineOf(source, pos), code } : undefined;
        else if (!code) failed.failure = undefined;
      }
      fails = true;
    } else {
      record[key] = meaning;
      // A value the retry quoted is read whole.
      if (cuts && typeof meaning === 'string' && meaning === asYaml) noteCut(source, start, end, [key], meaning, cuts);
    }
    pos = end + 1;
  }
  if (keys.length === 0) return undefined;
  return fails ? ERROR : record;
}

/** The 1-based line of `source` that the offset `at` is on. */
function lineOf(source: string, at: number): number {
  let line = 1;
  for (let i = source.indexOf('\n'); i !== -1 && i < at; i = source.indexOf('\n', i + 1)) line++;
  return line;
}

/** Where the quoted value starting at `start` closes on its line (`\"` escaped in double quotes, `''` in single ones), or `end`. */
function closingQuote(source: string, start: number, end: number): number {
  const quote = source.charCodeAt(start);
  for (let i = start + 1; i < end; i++) {
    const c = source.charCodeAt(i);
    if (quote === 0x22 && c === 0x5c) i++;
    else if (c === quote) {
      if (quote === 0x27 && source.charCodeAt(i + 1) === 0x27) i++;
      else return i;
    }
  }
  return end;
}

/** Whether a plain scalar may start at `i`: not a quote, a comment, an indicator or a reserved character, which the library reads first. */
function plainStart(source: string, i: number): boolean {
  const c = source.charCodeAt(i);
  return c !== 0x23 && c !== 0x22 && c !== 0x27 && startKind(c) === 'plain';
}

/**
 * Whether the text `[from, end)` reads as plain scalars only: one starting at `from`, and one after
 * each `: ` (a mapping YAML refuses in this place, not a token read sooner), no comment.
 */
function plainNodes(source: string, from: number, end: number): boolean {
  if (!plainStart(source, from)) return false;
  const comment = source.indexOf(' #', from);
  if (comment !== -1 && comment < end) return false;
  for (let colon = source.indexOf(': ', from); colon !== -1 && colon < end; colon = source.indexOf(': ', colon + 1)) {
    let next = colon + 2;
    while (next < end && source.charCodeAt(next) === SPACE) next++;
    if (next < end && !plainStart(source, next)) return false;
  }
  return true;
}

/**
 * The code the YAML library gives the value `[start, end)` that {@link yamlValue} calls a sure
 * error, when the scanner is sure of it: a quoted value going on after its closing quote with a
 * plain scalar and no `:` (what the quoting retry leaves as it is, so nearly every header that
 * fails both ways), or plain scalars holding `: ` (a mapping where a scalar must be). Null for the
 * rest — a `:` after a quote may make the value a key, a quote, comment or indicator may fail
 * sooner in the library's reading — and the library is asked.
 */
function errorCodeOf(source: string, start: number, end: number): YamlFailure['code'] | null {
  const c = source.charCodeAt(start);
  if (c !== 0x22 && c !== 0x27) return plainNodes(source, start, end) ? 'BLOCK_AS_IMPLICIT_KEY' : null;
  const after = closingQuote(source, start, end) + 1;
  if (source.charCodeAt(after) !== SPACE) return null;
  const colon = source.indexOf(':', after);
  return (colon === -1 || colon >= end) && plainNodes(source, after + 1, end) ? 'UNEXPECTED_TOKEN' : null;
}

/**
 * Where and why the YAML library refuses a header {@link readFrontmatterFast} answers
 * {@link YAML_FAILS} for: the line of its first error (1-based, in the source) and the library's
 * code for it. Property-tested against the library's own first error.
 */
export interface YamlFailure {
  line: number;
  code: 'UNEXPECTED_TOKEN' | 'BLOCK_AS_IMPLICIT_KEY';
}

/** The scanner's answer when the YAML path certainly fails both ways (YAML, then the quoting retry). */
export const YAML_FAILS: unique symbol = Symbol('yaml fails');

/**
 * Read frontmatter YAML (line endings already `\n`) exactly as {@link parseWithRetry} would: the
 * data, {@link YAML_FAILS} when it certainly throws (a line YAML refuses that the retry leaves as
 * it is; then `failed.failure` says where and how the library's first error is, when the scanner
 * is sure of it), or undefined to leave it to the YAML library.
 * With `cuts`, the names and descriptions of the data a ` #` comment cut short are added to it (R-HEALTH):
 * the scanner sees each raw line as it reads it, so this costs no second pass.
 */
export function readFrontmatterFast(
  source: string,
  cuts?: CommentCut[],
  failed?: { failure?: YamlFailure },
): Record<string, unknown> | typeof YAML_FAILS | undefined {
  if (UNSURE_CHARS.test(source) || (SURROGATE.test(source) && LONE_SURROGATE.test(source))) return undefined;
  // What a reading noted is dropped when that reading is not the answer (no allocation per header).
  const mark = cuts?.length ?? 0;
  let data = readEntries(source, false, cuts, failed);
  if (data === ERROR) {
    // The retried lines are what counts, not what the first reading noted.
    if (cuts) cuts.length = mark;
    data = readEntries(source, true, cuts, undefined);
  }
  if (cuts && (data === undefined || data === ERROR)) cuts.length = mark;
  if (failed && data !== ERROR) failed.failure = undefined;
  return data === ERROR ? YAML_FAILS : data;
}

/** {@link readFrontmatterFast}'s data, or undefined whenever it has none to give. */
export function scanFrontmatter(source: string): Record<string, unknown> | undefined {
  const fast = readFrontmatterFast(source);
  return fast === YAML_FAILS ? undefined : fast;
}
