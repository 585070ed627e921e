/**
 * The views of a text a reader could decode (issue 15, finding 1). A credential hides from
 * patterns written for the plain form when it is written the ways notes really hold it: inside
 * a JSON string (`"-----BEGIN EC PRIVATE KEY-----\nMHc…"`), URL-encoded inside another URL
 * (`…%3Fnext%3D…%3Dghp_…`, where the letter before the token defeats word boundaries), in an
 * HTML comment with no space (`<!--sk-ant-…-->`), as HTML character references (`ghp&#95;…`), in
 * full-width or other look-alike letters (`ｇｈｐ＿…`), split by an invisible character, quoted with
 * `> ` or indented on every line, wrapped onto the next line, or in base64 (a `.env` piped through
 * `base64`: review x2; after a folder or a word in a path, `notes/Z2hw….md`). The scanner runs its rules — the same rules — on the text as written, on
 * `decodedView`, `joinedView` and `base64View` of it, and on `nameView` of a file's path: a token
 * in a file or folder name.
 *
 * Every view keeps, for each of its UTF-16 units, the offset in the original it came from, so a
 * finding in a view is reported (and redacted) where it sits in the original.
 */
import { TOKEN_PREFIX_SOURCE } from './rules.js';

/** A text derived from another, with where each of its units came from. */
export interface TextView {
  text: string;
  /** `origin[i]`: the original offset of unit `i`; `origin[text.length]`: the end of the original. */
  origin: Int32Array;
}

/** A view equal to `text`. */
function identity(text: string): TextView {
  const origin = new Int32Array(text.length + 1);
  for (let i = 0; i <= text.length; i++) origin[i] = i;
  return { text, origin };
}

/**
 * A rewrite driven by one regular expression: each match becomes `replace(match)`, every unit of
 * it from where the match starts; the result still points into the original. (No replacement is
 * longer than its match, so the origins fit in the input's length; they are copied a stretch at
 * a time.)
 */
function rewrite(pattern: RegExp, replace: (match: RegExpExecArray) => string | null): (view: TextView) => TextView {
  return (view) => {
    const { text } = view;
    pattern.lastIndex = 0;
    let m = pattern.exec(text);
    if (m === null) return view;
    const origin = new Int32Array(text.length + 1);
    let out = '';
    let length = 0;
    let at = 0;
    let changed = false;
    for (; m !== null; m = pattern.exec(text)) {
      const replacement = replace(m);
      if (replacement === null) continue;
      origin.set(view.origin.subarray(at, m.index), length);
      length += m.index - at;
      out += text.slice(at, m.index);
      origin.fill(view.origin[m.index]!, length, length + replacement.length);
      length += replacement.length;
      out += replacement;
      at = m.index + m[0].length;
      changed = true;
    }
    if (!changed) return view;
    // The rest, and the end of the original after it.
    origin.set(view.origin.subarray(at, text.length + 1), length);
    length += text.length - at;
    return { text: out + text.slice(at), origin: origin.subarray(0, length + 1) };
  };
}

// Zero-width and bidi formatting characters, soft hyphen, word joiner, BOM: invisible, so a
// reader copying the token never sees them, but they break every pattern.
const INVISIBLE = /[\u00AD\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]+/g;
// HTML comment markers: `<!--sk-ant-…-->` puts dashes right against the token.
const COMMENT_MARKER = /<!--|-->/g;
// JSON string escapes (also what most languages' string literals use).
const JSON_ESCAPE = /\\(?:u([0-9A-Fa-f]{4})|([nrtbf"\\/]))/g;
const JSON_SIMPLE: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f', '"': '"', '\\': '\\', '/': '/' };
// Percent escapes of ASCII characters: credentials are ASCII, and each escape maps to one unit.
const PERCENT_ESCAPE = /%([0-7][0-9A-Fa-f])/g;
// HTML character references (a page or a rendered note pasted back: `ghp&#95;…`, `&#x67;hp_…`,
// `ghp&lowbar;…`): numeric ones (the `;` is optional, as browsers read them), and the named ones
// of the ASCII punctuation a credential or a URL holds. Each decodes to at most two units.
const HTML_ENTITY = /&#(?:[xX]([0-9A-Fa-f]{1,6})|([0-9]{1,7}));?|&([A-Za-z]{2,8});/g;
const HTML_NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  lowbar: '_',
  UnderBar: '_',
  period: '.',
  colon: ':',
  sol: '/',
  bsol: '\\',
  equals: '=',
  plus: '+',
  num: '#',
  percnt: '%',
  quest: '?',
  commat: '@',
  excl: '!',
  dollar: '$',
  ast: '*',
  Hat: '^',
  tilde: '~',
  grave: '`',
  lpar: '(',
  rpar: ')',
  semi: ';',
  comma: ',',
  verbar: '|',
  vert: '|',
  lsqb: '[',
  rsqb: ']',
  lcub: '{',
  rcub: '}',
  minus: '-',
};
// What a quoted or indented line starts with: indentation and `>` quote markers, nested or not.
const LINE_PREFIX = /(^|\n)([ \t]*(?:>[ \t]?)+[ \t]*|[ \t]+)/g;
// Multi-line formats, the only ones a per-line prefix can hide.
const MULTI_LINE_HINT = /PRIVATE KEY|service_account/;
// A token a terminal or an editor wrapped: a line that ends in a provider's token prefix and part
// of its body, and the next line (after its quote marker or indentation) that goes on with the body.
// Only the line break goes; every rule still judges the joined token by its exact format. The
// prefixes are the rules' own (rules.ts `prefix`, PRESET_FORMATS): a new format's prefix is joined too.
// …and a URL's credentials wrapped the same way (`https://deploy:pass` / `word@host`, or `…pass@` /
// `host`): a line that ends inside a URL's `user:password` (no space, `/` or `@` yet; not a port,
// `https://host:8080`), and the next that goes on up to its `@`; or a line that ends right after
// that `@`, and the next that starts with the host. The URL rules judge the joined URL as any other.
// …and a Slack webhook wrapped anywhere after its host (at a `/`, as editors break URLs:
// `…/services/T0ABC/` and `B0DEF/…` on the next line): its path is the key, and a next line that
// goes on with a letter or digit is joined; the Slack rules judge the joined URL.
// Each lookbehind is tried only where a line ends (the lookahead first), so a long line costs one pass.
const SLACK_HOOK_PATH = String.raw`hooks\.slack\.com\/[A-Za-z0-9/+_-]{0,200}`;
const URL_USER = String.raw`\b[A-Za-z][A-Za-z0-9+.-]{1,20}:\/\/[^\s:@/?#'"<>]{0,100}:`;
const LINE_GOES_ON = String.raw`\r?\n[ \t]*(?:>[ \t]?)*[ \t]*`;
const SPLIT_TOKEN = new RegExp(
  String.raw`(?=\r?\n)(?:` +
    [
      String.raw`(?<=${TOKEN_PREFIX_SOURCE}[A-Za-z0-9_.-]{0,200})${LINE_GOES_ON}(?=[A-Za-z0-9_-]{4})`,
      String.raw`(?<=${URL_USER}[^\s@/?#'"]{0,200})(?<!:[0-9]{1,5})${LINE_GOES_ON}(?=[^\s@/?#'"]{1,200}@[^\s/?#'"<>:]{1,253})`,
      String.raw`(?<=${URL_USER}[^\s@/?#'"]{1,200}@)${LINE_GOES_ON}(?=[A-Za-z0-9][A-Za-z0-9.-]{0,252})`,
      String.raw`(?<=${SLACK_HOOK_PATH})${LINE_GOES_ON}(?=[A-Za-z0-9])`,
    ].join('|') +
    ')',
  'g',
);

// Whether any of the above could apply (a line prefix only matters to a multi-line format).
const ANY_ENCODING =
  /[\u00AD\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]|<!--|-->|\\[nrtbf"\\/u]|%[0-7][0-9A-Fa-f]|&#|&[A-Za-z]{2,8};|PRIVATE KEY|service_account/;
const NON_ASCII = /[^\x00-\x7F]/;
/** Whether a character of `text` reads as another in its compatibility form (full-width letters): an em dash, a Chinese word or an accent does not. */
const hasCompatibilityForms = (text: string): boolean => NON_ASCII.test(text) && text.normalize('NFKC') !== text;
const SPLIT_HINT = new RegExp(String.raw`${TOKEN_PREFIX_SOURCE}[A-Za-z0-9_.-]{0,200}\r?\n|:\/\/[^\s/:@]{0,100}:[^\s@/]{0,200}@?\r?\n|${SLACK_HOOK_PATH}\r?\n`);

const removeInvisible = rewrite(INVISIBLE, () => '');
const blankCommentMarkers = rewrite(COMMENT_MARKER, (m) => ' '.repeat(m[0].length));
const unescapeJson = rewrite(JSON_ESCAPE, (m) => (m[1] !== undefined ? String.fromCharCode(parseInt(m[1], 16)) : JSON_SIMPLE[m[2]!]!));
const decodePercent = rewrite(PERCENT_ESCAPE, (m) => String.fromCharCode(parseInt(m[1]!, 16)));
const decodeHtmlEntities = rewrite(HTML_ENTITY, (m) => {
  if (m[3] !== undefined) return HTML_NAMED[m[3]] ?? null;
  const code = m[1] !== undefined ? parseInt(m[1], 16) : parseInt(m[2]!, 10);
  return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : null;
});
const stripLinePrefixes = rewrite(LINE_PREFIX, (m) => m[1]!);
const joinSplitTokens = rewrite(SPLIT_TOKEN, () => '');

/**
 * The text with every character that has a compatibility form replaced by it (NFKC, one code
 * point at a time): full-width `ｇｈｐ＿…`, mathematical `𝐠𝐡𝐩`, circled, super- and subscript
 * letters and digits read as the ASCII a rule knows. For scanning only: each unit of a character's
 * form points at the character, so a finding is masked where it stands as written. ASCII (most
 * of every memory) is passed over a stretch at a time.
 */
function compatibilityForms(view: TextView): TextView {
  const { text } = view;
  const origin: number[] = [];
  let out = '';
  let at = 0;
  let changed = false;
  for (let i = 0; i < text.length; ) {
    const code = text.codePointAt(i)!;
    const width = code > 0xffff ? 2 : 1;
    if (code < 0x80) {
      i++;
      continue;
    }
    const char = text.slice(i, i + width);
    const form = char.normalize('NFKC');
    if (form !== char) {
      for (let k = at; k < i; k++) origin.push(view.origin[k]!);
      out += text.slice(at, i);
      for (let k = 0; k < form.length; k++) origin.push(view.origin[i]!);
      out += form;
      at = i + width;
      changed = true;
    }
    i += width;
  }
  if (!changed) return view;
  for (let k = at; k <= text.length; k++) origin.push(view.origin[k]!);
  return { text: out + text.slice(at), origin: Int32Array.from(origin) };
}

/** Decoding rounds: `%253D` is `%3D` once decoded, `=` twice; a JSON string inside a URL and back. */
const MAX_ROUNDS = 3;

/**
 * The text as a reader would decode it: invisible characters removed, comment markers blanked,
 * characters read in their compatibility form (full-width letters), JSON escapes, percent escapes
 * and HTML character references undone (repeatedly, for nested encodings), and — where a
 * multi-line format (a PEM block, a service-account JSON) is present — quote markers and
 * indentation stripped from every line. Null when that is the text as written (the common
 * case: most memories hold none of these, and cost one scan).
 */
export function decodedView(text: string): TextView | null {
  // Most memories hold none of these: one test, no allocation.
  if (!ANY_ENCODING.test(text) && !hasCompatibilityForms(text)) return null;
  let view = blankCommentMarkers(compatibilityForms(removeInvisible(identity(text))));
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const before = view.text;
    view = decodeHtmlEntities(decodePercent(unescapeJson(view)));
    if (view.text === before) break;
  }
  if (MULTI_LINE_HINT.test(view.text)) view = stripLinePrefixes(view);
  return view.text === text ? null : view;
}

// Where a name may be cut into words: a token in a name sits between such separators.
const NAME_SEPARATOR = /[-_. +]/g;
/** The shortest stretch worth scanning: no credential format is shorter. */
const MIN_NAME_TOKEN = 8;
/** Separators of one path component beyond which only whole suffixes and prefixes are tried. */
const MAX_CUTS = 16;

/**
 * A file's relative path as lines of text to scan: every path component, and every stretch of it
 * between two separators (`reference_ghp_….md` → `ghp_…`, `ghp_…md`, …), so a token is seen
 * with a word boundary on each side however the name wraps it. Each line maps back to where it
 * sits in `rel`. Names are short (at most a few hundred characters): the stretches stay few.
 */
export function nameView(rel: string): TextView {
  let text = '';
  const origin: number[] = [];
  const line = (start: number, end: number): void => {
    if (end - start < MIN_NAME_TOKEN) return;
    for (let i = start; i < end; i++) origin.push(i);
    origin.push(end);
    text += `${rel.slice(start, end)}\n`;
  };
  let offset = 0;
  for (const component of rel.split('/')) {
    const starts = [0];
    const ends: number[] = [];
    for (const m of component.matchAll(NAME_SEPARATOR)) {
      ends.push(m.index);
      starts.push(m.index + 1);
    }
    ends.push(component.length);
    if (starts.length > MAX_CUTS) {
      for (const s of starts) line(offset + s, offset + component.length);
      for (const e of ends) line(offset, offset + e);
    } else {
      for (const s of starts) for (const e of ends) if (e > s) line(offset + s, offset + e);
    }
    offset += component.length + 1;
  }
  origin.push(rel.length);
  return { text, origin: Int32Array.from(origin) };
}

/** The range in the original of `[start, end)` in `view`. */
export function originalRange(view: TextView, start: number, end: number): [number, number] {
  const from = view.origin[start]!;
  // The end of the last unit: where the next unit came from, unless that lies before (a new line of a name view).
  const next = view.origin[end]!;
  const last = view.origin[Math.max(start, end - 1)]!;
  return [from, next > last ? next : last + 1];
}

/**
 * The text with every line break inside a wrapped token taken out (SPLIT_TOKEN), or null when no
 * line ends in a token's prefix. A token whole on its line is whole in the text as written too: a
 * finding there is the one that counts (the scanner ranks this view's below it).
 */
export function joinedView(text: string): TextView | null {
  if (!SPLIT_HINT.test(text)) return null;
  const view = joinSplitTokens(identity(text));
  return view.text === text ? null : view;
}

// A run of base64 as `base64` prints it: at least MIN_BASE64 characters, on one line or wrapped
// over several (each but the last a full line), `=` padding at its end; or of base64url (RFC 4648
// §5: `-` and `_` for `+` and `/`, padding usually left out), as JWT parts, URL-safe tokens and
// `basenc --base64url` write it. Not inside a longer word, but right after an `=`: a value is where
// people keep base64 (`GH_B64=…` in a .env, `?auth=…` in a URL), and base64 holds `=` only at its end.
// Node's base64 decoder reads both alphabets (a run mixing them decodes to bytes that are no text,
// and is left out as binary is).
const BASE64_RUN = /(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{16,}(?:\r?\n[A-Za-z0-9+/_-]{4,})*={0,2}(?![A-Za-z0-9+/=_-])/g;
/** The same on one line. */
const BASE64_LINE = /(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{16,}={0,2}(?![A-Za-z0-9+/=_-])/g;
/** The shortest run worth decoding: 24 bytes, below which no credential format (nor a `.env` line with one) fits. */
const MIN_BASE64 = 32;
/** How much of what a run decodes to must be printable text for it to be text that was encoded. */
const PRINTABLE_SHARE = 0.95;

/** How many times a run that is no text is tried again after one of its first `/`, `_` or `-` (see {@link base64View}). */
const MAX_BASE64_RESTARTS = 4;

/**
 * The text that long base64 (or base64url) runs of `text` decode to, where it is text (review x2:
 * a `.env` piped through `base64` and pasted): each run that decodes to (nearly) only printable ASCII, on
 * its own line, every decoded character pointing at the base64 character its bits start in, so a finding in it is located — and masked — in the base64 as written.
 * Binary (an image, a hash) is left out. Null when there is no such run (most memories).
 *
 * A run is cut where its lines stop being full (a wrapped run's every line but the last has one
 * length, a multiple of 4), and a piece that is no text is tried again from after each of its
 * first few `/`, `_` and `-`: base64 in a path or a file name sits after a folder or a word
 * (`notes/Z2hw….md`, `reference_Z2hw….md`), characters of the alphabet that put every group of
 * four out of step. With `lines: 'single'` (a name view: one stretch of a name a line) no run
 * goes on onto the next line.
 */
export function base64View(text: string, lines: 'wrapped' | 'single' = 'wrapped'): TextView | null {
  let out = '';
  const origin: number[] = [];
  /** Decode the base64 characters at `at` (offsets in `text`) if they are text; whether they were. */
  const decode = (at: number[], end: number): boolean => {
    if (at.length < MIN_BASE64) return false;
    const bytes = Buffer.from(at.map((i) => text[i]).join(''), 'base64');
    let printable = 0;
    for (const b of bytes) if ((b >= 0x20 && b < 0x7f) || b === 0x09 || b === 0x0a || b === 0x0d) printable++;
    if (printable < bytes.length * PRINTABLE_SHARE) return false;
    for (let i = 0; i < bytes.length; i++) {
      const b = bytes[i]!;
      out += b < 0x80 ? String.fromCharCode(b) : '?';
      // Byte i of a group of three starts in character i of its group of four.
      origin.push(at[Math.floor(i / 3) * 4 + (i % 3)]!);
    }
    out += '\n';
    origin.push(end);
    return true;
  };
  const piece = (at: number[], end: number): void => {
    if (decode(at, end)) return;
    let restarts = 0;
    for (let k = 0; k < at.length && restarts < MAX_BASE64_RESTARTS; k++) {
      const c = text[at[k]!];
      if (c !== '/' && c !== '_' && c !== '-') continue;
      restarts++;
      if (decode(at.slice(k + 1), end)) return;
    }
  };
  for (const m of text.matchAll(lines === 'single' ? BASE64_LINE : BASE64_RUN)) {
    // Fewer characters than MIN_BASE64, line breaks and all: no piece of it can decode (a path, a long word).
    if (m[0].length < MIN_BASE64) continue;
    // Where each base64 character sits in `text`, line breaks left out, a piece at a time.
    let at: number[] = [];
    let full = -1;
    let lineLength = 0;
    for (let i = 0; i <= m[0].length; i++) {
      const c = m[0][i];
      if (c !== undefined && c !== '\n' && c !== '\r') {
        at.push(m.index + i);
        lineLength++;
        continue;
      }
      if (c === '\r') continue;
      // A line ends: the piece goes on only if every line so far had one full length.
      if (c === undefined || (full !== -1 && lineLength !== full) || lineLength % 4 !== 0) {
        piece(at, m.index + i);
        at = [];
        full = -1;
      } else if (full === -1) full = lineLength;
      lineLength = 0;
    }
  }
  if (out === '') return null;
  origin.push(text.length);
  return { text: out, origin: Int32Array.from(origin) };
}
