/**
 * The R-NOTSAVE line counts (shared/not-worth-saving.ts) taken from a file's bytes without
 * decoding the whole body: decoding UTF-8 costs more than reading the file, and a scan must stay
 * near the cost of reading. The bytes are walked as latin1 (one char per byte, ASCII where the
 * text is ASCII); only a line that might be a path or a git line is decoded and tested with the
 * shared regexes; a body with enough code lines to be "mostly code" is walked a second time to
 * weigh its characters (that rule weighs text). Exact for valid UTF-8 — the caller checks validity first — and
 * property-tested against `countDerivable` on the decoded text.
 */
import { type DerivableCounts, GIT_LINE, MIN_CODE_LINES, PATH_LINE } from '../../shared/not-worth-saving.js';

const TAB = 0x09;
const LF = 0x0a;
const VT = 0x0b;
const FF = 0x0c;
const CR = 0x0d;
const SPACE = 0x20;
const SLASH = 0x2f;
const BACKSLASH = 0x5c;

/**
 * How many bytes of JavaScript whitespace (`\s`, what `trim` removes) start at `i`: ASCII
 * blanks, NBSP, the Unicode spaces, the line and paragraph separators and the BOM, in UTF-8.
 */
export function whitespaceAt(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c === SPACE || c === TAB || c === VT || c === FF || c === CR) return 1;
  if (c < 0xc2) return 0;
  const b = s.charCodeAt(i + 1);
  if (c === 0xc2) return b === 0xa0 ? 2 : 0;
  const d = s.charCodeAt(i + 2);
  if (c === 0xe1) return b === 0x9a && d === 0x80 ? 3 : 0;
  if (c === 0xe2) return (b === 0x80 && ((d >= 0x80 && d <= 0x8a) || d === 0xa8 || d === 0xa9 || d === 0xaf)) || (b === 0x81 && d === 0x9f) ? 3 : 0;
  if (c === 0xe3) return b === 0x80 && d === 0x80 ? 3 : 0;
  if (c === 0xef) return b === 0xbb && d === 0xbf ? 3 : 0;
  return 0;
}

function skipWhitespace(s: string, i: number, end: number): number {
  while (i < end) {
    const w = whitespaceAt(s, i);
    if (w === 0) break;
    i += w;
  }
  return i;
}

/** Characters a path may hold before its first separator (PATH_LINE's `[\w.@-]`, `~`, a drive's `:`). */
function isPathChar(c: number): boolean {
  return (
    (c >= 0x30 && c <= 0x39) ||
    (c >= 0x41 && c <= 0x5a) ||
    (c >= 0x61 && c <= 0x7a) ||
    c === 0x5f ||
    c === 0x2e ||
    c === 0x40 ||
    c === 0x2d ||
    c === 0x7e ||
    c === 0x3a
  );
}

/**
 * Whether, from `i`, a run of path characters reaches a `/` or `\` before `end`. A `\` right at
 * the start cannot begin a path (PATH_LINE's prefixes are `/`, `./`, `~/`, `C:\`): LaTeX lines
 * such as `\frac{…}` are common in notes and are not paths.
 */
function reachesSeparator(s: string, i: number, end: number): boolean {
  if (s.charCodeAt(i) === 0x60) i++; // a backtick before the path
  if (s.charCodeAt(i) === BACKSLASH) return false;
  for (; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c === SLASH || c === BACKSLASH) return true;
    if (!isPathChar(c)) return false;
  }
  return false;
}

/** After an optional list marker (`-`, `*`, `+`, `1.`) and whitespace, where the line's first word starts. */
function afterListMarker(s: string, p: number, end: number): number {
  const c = s.charCodeAt(p);
  if (c === 0x2d || c === 0x2a || c === 0x2b) return skipWhitespace(s, p + 1, end);
  let q = p;
  while (q < end && s.charCodeAt(q) >= 0x30 && s.charCodeAt(q) <= 0x39) q++;
  if (q > p && s.charCodeAt(q) === 0x2e) return skipWhitespace(s, q + 1, end);
  return p;
}

/** Whether a line whose first non-blank byte is at `p` could be a PATH_LINE (a superset test). */
function mayBePath(s: string, p: number, end: number): boolean {
  return reachesSeparator(s, p, end) || reachesSeparator(s, afterListMarker(s, p, end), end);
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66);
}

/** Whether a line whose first non-blank byte is at `p` could be a GIT_LINE (a superset test). */
function mayBeGit(s: string, p: number, end: number): boolean {
  let q = p;
  let c = s.charCodeAt(q);
  if (c === 0x2d || c === 0x2a || c === 0x2b) {
    q = skipWhitespace(s, p + 1, end);
    if (q >= end) return false;
    c = s.charCodeAt(q);
  }
  if (c === 0x41) return s.startsWith('Author:', q);
  if (c === 0x44) return s.startsWith('Date:', q);
  // `commit <40 hex>` or `<7 to 12 hex> <subject>`: both start with seven hex digits or `commit`.
  if (!isHex(c) || end - q < 9) return false;
  let run = 1;
  while (run < 7 && isHex(s.charCodeAt(q + run))) run++;
  return run === 7 || s.startsWith('commit', q);
}

/**
 * The non-blank lines of the body being counted, two numbers each: where the text starts (past
 * leading whitespace) and where the line ends (before `\r\n`), negated for a line inside a code
 * fence. Reused from body to body; grown when a body has more lines.
 */
let spans: Int32Array = new Int32Array(4096);

function growSpans(old: Int32Array): Int32Array {
  const grown = new Int32Array(old.length * 2);
  grown.set(old);
  return grown;
}

/**
 * `countDerivable` of the UTF-8 text `bytes[from, end)`, walked through `s`, the same bytes as a
 * latin1 string. The bytes must be valid UTF-8.
 */
export function countDerivableBytes(s: string, bytes: Buffer, from: number, end: number): DerivableCounts {
  let content = 0;
  let codeLines = 0;
  let pathLines = 0;
  let gitLines = 0;
  let inFence = false;
  // The next `/` and `\` at or after the current line: most lines have neither.
  let slash = s.indexOf('/', from);
  let backslash = s.indexOf('\\', from);
  let pos = from;
  for (;;) {
    let nl = s.indexOf('\n', pos);
    const last = nl === -1 || nl >= end;
    if (last) nl = end;
    // `split(/\r?\n/)`: a CR right before the LF belongs to the line break.
    const lineEnd = !last && nl > pos && s.charCodeAt(nl - 1) === CR ? nl - 1 : nl;
    let p = pos;
    // (Reading past the end would make V8 give up its fast code for this loop.)
    let c = p < lineEnd ? s.charCodeAt(p) : LF;
    // Most lines start with a letter: only look for whitespace where some can be.
    if (c <= SPACE || c === 0xc2 || c === 0xe1 || c === 0xe2 || c === 0xe3 || c === 0xef) {
      p = skipWhitespace(s, pos, lineEnd);
      c = p < lineEnd ? s.charCodeAt(p) : LF;
    }
    if (p < lineEnd) {
      // The line for the weighing: where its text starts and ends, negative when it is code.
      if (2 * content + 2 > spans.length) spans = growSpans(spans);
      spans[2 * content] = p;
      spans[2 * content + 1] = lineEnd;
      content++;
      // FENCE: `^\s*(```|~~~)`.
      if ((c === 0x60 || c === 0x7e) && lineEnd - p >= 3 && (s.startsWith('```', p) || s.startsWith('~~~', p))) inFence = !inFence;
      else if (inFence) {
        codeLines++;
        spans[2 * content - 1] = -lineEnd;
      }
      let line: string | null = null;
      if (((slash !== -1 && slash < lineEnd) || (backslash !== -1 && backslash < lineEnd)) && mayBePath(s, p, lineEnd)) {
        line = bytes.toString('utf8', pos, lineEnd);
        if (PATH_LINE.test(line)) pathLines++;
      }
      // GIT_LINE starts (after a list marker) with a hex digit, `commit`, `Author:` or `Date:`.
      if ((isHex(c) || c === 0x41 || c === 0x44 || c === 0x2d || c === 0x2a || c === 0x2b) && mayBeGit(s, p, lineEnd)) {
        line ??= bytes.toString('utf8', pos, lineEnd);
        if (GIT_LINE.test(line)) gitLines++;
      }
    }
    if (last) break;
    pos = nl + 1;
    if (slash !== -1 && slash < pos) slash = s.indexOf('/', pos);
    if (backslash !== -1 && backslash < pos) backslash = s.indexOf('\\', pos);
  }
  // Enough code to judge "mostly code" by amount of text: the lines written down above are weighed.
  const chars = codeLines >= MIN_CODE_LINES ? derivableCharsOfSpans(s, content) : { codeChars: 0, contentChars: 0 };
  return { content, codeLines, pathLines, gitLines, codeChars: chars.codeChars, contentChars: chars.contentChars };
}

/** How many bytes of JavaScript whitespace end right before `i`, not reaching back past `from`. */
function whitespaceBefore(s: string, i: number, from: number): number {
  const c = s.charCodeAt(i - 1);
  if (c === SPACE || c === TAB || c === VT || c === FF || c === CR) return 1;
  // Only the last byte of a multi-byte character (0x80–0xBF) can end a wider space.
  if (c < 0x80 || c > 0xbf) return 0;
  if (i - 2 >= from && whitespaceAt(s, i - 2) === 2) return 2;
  if (i - 3 >= from && whitespaceAt(s, i - 3) === 3) return 3;
  return 0;
}

const WIDE = /[\u0080-\u00ff]/g;

/** Where the next byte past ASCII is at or after `from` (bytes as latin1), or -1. */
function nextWide(s: string, from: number): number {
  WIDE.lastIndex = from;
  return WIDE.test(s) ? WIDE.lastIndex - 1 : -1;
}

/** UTF-16 units of the UTF-8 bytes `[from, end)` of `s`: one per character, two past U+FFFF. */
function utf16Units(s: string, from: number, end: number): number {
  let units = end - from;
  for (let i = from; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0xc0) units--;
    else if (c >= 0xf0) units++;
  }
  return units;
}

/**
 * `derivableChars` of the lines `countDerivableBytes` wrote down in `spans` (the others are blank
 * and weigh nothing), without decoding: each trimmed of JavaScript whitespace at its end, its
 * characters counted in UTF-16 units. The fences are where the first walk found them: a fence
 * line is non-blank and starts with its backticks in both walks (`\r` is whitespace to both).
 */
function derivableCharsOfSpans(s: string, count: number): { codeChars: number; contentChars: number } {
  let codeChars = 0;
  let contentChars = 0;
  // The next byte past ASCII: a line before it is one UTF-16 unit per byte, nothing to count.
  let wide = count > 0 ? nextWide(s, spans[0]!) : -1;
  for (let i = 0; i < count; i++) {
    const p = spans[2 * i]!;
    const stored = spans[2 * i + 1]!;
    let q = stored < 0 ? -stored : stored;
    for (let w = whitespaceBefore(s, q, p); w > 0; w = whitespaceBefore(s, q, p)) q -= w;
    if (wide !== -1 && wide < p) wide = nextWide(s, p);
    const units = wide === -1 || wide >= q ? q - p : utf16Units(s, p, q);
    contentChars += units;
    if (stored < 0) codeChars += units;
  }
  return { codeChars, contentChars };
}
