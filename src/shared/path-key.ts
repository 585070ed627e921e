/**
 * R-SYNC-SECURITY: the one check every team-memory path key passes, on the client before it
 * writes a pulled file and on the server before it stores a pushed one.
 *
 * A key is the path of a markdown file relative to `memory/team/`, with forward slashes:
 * `MEMORY.md`, `project_api.md`, at most one folder deep (`infra/dns.md`). The rule is strict
 * on purpose: keys come from other machines, and whatever passes here is joined to a local
 * directory on macOS, Linux and Windows alike. So a key is refused — never repaired, because a
 * repaired key would name a different file than its sender meant — when it
 *   - is empty, longer than 200 UTF-8 bytes in all or 128 in one segment, or more than two
 *     segments deep;
 *   - holds a null byte, a control or format character (bidi overrides, zero-width joiners),
 *     a lone surrogate, a backslash, or one of `< > : " | ? * ~` (Windows-reserved, NTFS
 *     streams, 8.3 short-name aliases like `PROJEC~1.MD`), or `#` (a link's anchor);
 *   - holds a percent escape (`%2e`, `%252e`, `%c0%ae`, `%u002e`): keys travel as JSON
 *     strings and are never URL-encoded, so an escape is a bug or an attack — it is decoded
 *     repeatedly only to say which;
 *   - uses look-alikes of `.`, `/` or `\` (full-width `．／`, one-dot leader U+2024, division
 *     slash U+2215, …): anything whose NFKC form changes the dots and separators, plus the
 *     look-alikes NFKC leaves alone;
 *   - is not in Unicode NFC (the form R-KEY uses for paths), so one name has one key;
 *   - is absolute (`/x`, `//server/share`) or starts with a drive letter (`C:`);
 *   - has an empty, `.` or `..` segment, or a segment that starts with a dot (hidden files:
 *     `.git`, Memdir's own temp files) or a space, or ends with a dot or a space (Windows
 *     drops those, so `a.md.` and `a.md` would be one file);
 *   - names a Windows device in any segment, with or without extension (`CON`, `nul.md`,
 *     `COM1`, `LPT¹`, `CONIN$`);
 *   - does not end in `.md` (lower case, non-empty name), or has a folder that does (so a key
 *     can never be both a file and a folder).
 * Keys that differ only in letter case are different keys here but one file on macOS and
 * Windows: `foldPathKey` gives the identity to compare when holding several keys.
 *
 * Errors are values: callers check whole lists of keys from a peer and report every reason.
 *
 * The same rule decides every new memory file name, private ones included (memory-service's
 * `checkNewFileName`): a name that may be written at all may also be shared, as it is.
 */
import { utf8Length } from './utf8.js';
import { quoteName } from './visible-text.js';

/** Limits on a key, in UTF-8 bytes and segments. */
export const PATH_KEY_LIMITS = {
  /** The whole key: leaves room under Windows' 260-character paths for the team dir itself. */
  maxBytes: 200,
  /** One segment: far below the 255-byte name limit, leaving room for temp-file affixes. */
  maxSegmentBytes: 128,
  /** `file.md` or `folder/file.md`: team memory is a flat index plus topic files. */
  maxDepth: 2,
} as const;

/** Why a key was refused; stable codes for programs, the `reason` sentence is for people. */
export type PathKeyProblem =
  | 'empty'
  | 'too-long'
  | 'ill-formed'
  | 'null-byte'
  | 'control-char'
  | 'percent-encoded'
  | 'encoded-traversal'
  | 'unicode-lookalike'
  | 'not-nfc'
  | 'backslash'
  | 'absolute'
  | 'drive-letter'
  | 'forbidden-char'
  | 'empty-segment'
  | 'dot-segment'
  | 'hidden'
  | 'leading-space'
  | 'trailing-dot-or-space'
  | 'reserved-name'
  | 'segment-too-long'
  | 'too-deep'
  | 'folder-named-md'
  | 'not-markdown';

/**
 * The outcome of `sanitizePathKey`: the key unchanged, or why it was refused — `reason` as a
 * whole sentence about the team key, `why` the same without naming it (for callers that do). A
 * `why` says nothing of keys or the team: the memory service words it for a private memory's name too.
 */
export type PathKeyCheck = { ok: true; key: string } | { ok: false; code: PathKeyProblem; reason: string; why: string };

// C0/C1 controls, format characters (bidi overrides, zero-width), line/paragraph separators.
const CONTROL = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const PERCENT_ESCAPE = /%[0-9A-Fa-f]{2}|%u[0-9A-Fa-f]{4}/;
// Characters that look like a dot, slash or backslash and that NFKC does NOT turn into one.
// (The combining slash overlays U+0337/U+0338 sit outside the class: they attach to the previous character.)
const LOOKALIKES = /[\u2215\u2044\u29F8\u2571\u1735\u2216\u29F5\u29F9\u3002\uFF61\u0701\u2E31\uA4F8]|\u0337|\u0338/u;
// The characters a path's structure hangs on; NFKC or decoding must not add, drop or move any.
const STRUCTURAL = /[./\\:%]/g;
const SEPARATORS = /[./\\:\0]/g;
const FORBIDDEN = /[<>:"|?*~]/;
const RESERVED = /^(?:CON|PRN|AUX|NUL|CLOCK\$|CONIN\$|CONOUT\$|COM[0-9¹²³]|LPT[0-9¹²³])$/i;

function refuse(code: PathKeyProblem, key: string, why: string): PathKeyCheck {
  return { ok: false, code, reason: `Refused team memory key ${show(key)}: ${why}`, why };
}

/** A key quoted for a message: cut so a hostile 10 MB key cannot flood a log or a dialog, nothing invisible. */
function show(key: string): string {
  return quoteName(key);
}

/**
 * Decode UTF-8 bytes leniently, accepting overlong forms (`C0 AE` → `.`): the point is to see
 * what a sloppy decoder on the other side might see.
 */
function lenientUtf8(bytes: number[]): string {
  let out = '';
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    const cont = (k: number): number => (bytes[i + k] ?? 0) & 0x3f;
    if (b < 0x80) out += String.fromCharCode(b);
    else if (b >= 0xc0 && b < 0xe0) {
      out += String.fromCodePoint(((b & 0x1f) << 6) | cont(1));
      i += 1;
    } else if (b >= 0xe0 && b < 0xf0) {
      out += String.fromCodePoint(((b & 0x0f) << 12) | (cont(1) << 6) | cont(2));
      i += 2;
    } else if (b >= 0xf0 && b < 0xf8) {
      const cp = ((b & 0x07) << 18) | (cont(1) << 12) | (cont(2) << 6) | cont(3);
      out += cp <= 0x10ffff ? String.fromCodePoint(cp) : '\uFFFD';
      i += 3;
    } else out += '\uFFFD';
  }
  return out;
}

/** One round of percent-decoding (`%XX` runs as UTF-8, IIS-style `%uXXXX`). */
function percentDecodeOnce(text: string): string {
  return text
    .replace(/%u([0-9A-Fa-f]{4})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
    .replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) =>
      lenientUtf8(
        run
          .slice(1)
          .split('%')
          .map((h) => parseInt(h, 16)),
      ),
    );
}

/** Decode until nothing changes (double and triple encoding), at most a few rounds. */
function percentDecodeFully(text: string): { decoded: string; rounds: number } {
  let decoded = text;
  let rounds = 0;
  while (rounds < 5 && PERCENT_ESCAPE.test(decoded)) {
    decoded = percentDecodeOnce(decoded);
    rounds++;
  }
  return { decoded, rounds };
}

function structure(text: string, chars: RegExp = STRUCTURAL): string {
  return (text.match(chars) ?? []).join('');
}

function checkSegment(key: string, segment: string, isLast: boolean): PathKeyCheck | null {
  if (segment === '') return refuse('empty-segment', key, 'it has an empty segment (a leading, trailing or doubled "/")');
  if (segment === '.' || segment === '..') return refuse('dot-segment', key, `"${segment}" segments are not allowed: a name cannot lead out of its folder`);
  if (segment.startsWith('.')) return refuse('hidden', key, `"${segment}" starts with a dot: hidden names are reserved for tools (.git, temp files)`);
  if (/^\s/u.test(segment)) return refuse('leading-space', key, `"${segment}" starts with a space`);
  if (/[.\s]$/u.test(segment)) return refuse('trailing-dot-or-space', key, `"${segment}" ends with a dot or a space, which Windows silently drops`);
  const base = segment.split('.')[0]!.trimEnd();
  if (RESERVED.test(base)) return refuse('reserved-name', key, `"${segment}" is a reserved device name on Windows`);
  if (utf8Length(segment) > PATH_KEY_LIMITS.maxSegmentBytes) {
    return refuse('segment-too-long', key, `a segment is longer than ${PATH_KEY_LIMITS.maxSegmentBytes} bytes`);
  }
  if (!isLast && segment.toLowerCase().endsWith('.md')) {
    return refuse('folder-named-md', key, `the folder "${segment}" ends in .md, so it could clash with a file of that name`);
  }
  if (isLast && (!segment.endsWith('.md') || segment.length <= 3)) {
    return refuse('not-markdown', key, 'memories are markdown files: the name must end in ".md" (lower case)');
  }
  return null;
}

/**
 * Check a team-memory path key (see the file comment for the rule). Pure and total: any
 * string in, a verdict out, never an exception. An accepted key comes back unchanged.
 */
export function sanitizePathKey(key: string): PathKeyCheck {
  if (typeof key !== 'string' || key.length === 0) return refuse('empty', String(key ?? ''), 'it is empty');
  // Length first, so a huge hostile key costs nothing more than this.
  if (key.length > PATH_KEY_LIMITS.maxBytes || utf8Length(key) > PATH_KEY_LIMITS.maxBytes) {
    return refuse('too-long', key, `it is longer than ${PATH_KEY_LIMITS.maxBytes} bytes`);
  }
  if (LONE_SURROGATE.test(key)) return refuse('ill-formed', key, 'it contains a lone surrogate, which is not valid Unicode text');
  if (key.includes('\0')) return refuse('null-byte', key, 'it contains a null byte');
  if (CONTROL.test(key)) return refuse('control-char', key, 'it contains a control or invisible formatting character');
  if (PERCENT_ESCAPE.test(key)) {
    const { decoded, rounds } = percentDecodeFully(key);
    // Decoding that adds a dot, slash, colon or null byte is an attempt to smuggle structure.
    if (structure(decoded, SEPARATORS) !== structure(key, SEPARATORS)) {
      return refuse('encoded-traversal', key, `it hides path characters behind percent-encoding (decoded ${rounds}× it reads ${show(decoded)})`);
    }
    return refuse('percent-encoded', key, 'it contains a percent escape; names are plain text, never URL-encoded');
  }
  const compat = key.normalize('NFKC');
  if (LOOKALIKES.test(key) || structure(compat) !== structure(key)) {
    return refuse('unicode-lookalike', key, `it uses look-alike dots, slashes or colons (after Unicode NFKC normalisation it reads ${show(compat)})`);
  }
  if (key !== key.normalize('NFC')) return refuse('not-nfc', key, 'it is not in Unicode NFC form; normalise the name to NFC');
  if (key.includes('\\')) return refuse('backslash', key, 'it contains a backslash; use forward slashes');
  if (key.startsWith('/')) return refuse('absolute', key, 'it is an absolute path; a name is relative to its memory folder');
  if (/^[A-Za-z]:/.test(key)) return refuse('drive-letter', key, 'it starts with a drive letter');
  if (key.includes('#'))
    return refuse('forbidden-char', key, 'it contains "#", which a link in MEMORY.md reads as the start of an anchor, so its pointer would name another file');
  const forbidden = FORBIDDEN.exec(key);
  if (forbidden) return refuse('forbidden-char', key, `it contains "${forbidden[0]}", which is not allowed in file names on every system`);
  const segments = key.split('/');
  for (let i = 0; i < segments.length; i++) {
    const problem = checkSegment(key, segments[i]!, i === segments.length - 1);
    if (problem) return problem;
  }
  if (segments.length > PATH_KEY_LIMITS.maxDepth) {
    return refuse('too-deep', key, `it is ${segments.length} levels deep; at most one folder is allowed (folder/file.md)`);
  }
  return { ok: true, key };
}

/**
 * The identity of an accepted key on a case-insensitive file system (macOS, Windows): two keys
 * with the same fold would be one file there, so a store refuses the second.
 */
export function foldPathKey(key: string): string {
  return key.toLowerCase();
}
