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
 */
import { RETRY_LINE, YAML_SPECIAL_CHARS, retryKeepsValue } from './frontmatter-retry.js';

/** What one value means: a scalar (null for an empty value), a sure YAML error, or "not sure". */
type Meaning = { value: string | null } | 'error' | 'decline';

/** Characters the scanner leaves to YAML: tabs, CR, line separators, BOM, non-printables. */
const UNSURE_CHARS = /[\t\r\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/;
const SURROGATE = /[\ud800-\udfff]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
// YAML 1.2 core schema: plain scalars that resolve to null, booleans or numbers, not strings.
const TYPED =
  /^(?:~|[Nn]ull|NULL|[Tt]rue|TRUE|[Ff]alse|FALSE|[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/;
const NULL_VALUE: Meaning = { value: null };

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

/**
 * `key:` then nothing, or spaces and a value, from `from`: the key and where the value starts
 * (after the spaces), or null. Keys are plain identifiers; others are left to YAML.
 */
function keyLine(line: string, from: number): { key: string; rest: string } | null {
  if (!isKeyStart(line.charCodeAt(from))) return null;
  let i = from + 1;
  while (isKeyChar(line.charCodeAt(i))) i++;
  if (line.charCodeAt(i) !== COLON) return null;
  const key = line.slice(from, i);
  i++;
  if (i === line.length) return { key, rest: '' };
  if (line.charCodeAt(i) !== SPACE) return null;
  while (line.charCodeAt(i) === SPACE) i++;
  return { key, rest: line.slice(i) };
}

function isBlank(line: string): boolean {
  for (let i = 0; i < line.length; i++) if (line.charCodeAt(i) !== SPACE) return false;
  return true;
}

function indentOf(line: string): number {
  let n = 0;
  while (line.charCodeAt(n) === SPACE) n++;
  return n;
}

/** What follows a closing quote at `from`: nothing, or spaces and a comment. */
function endsCleanly(text: string, from: number): boolean {
  let i = from;
  while (text.charCodeAt(i) === SPACE) i++;
  return i === text.length || (text.charCodeAt(i) === 0x23 && i > from);
}

const ESCAPES: Record<string, string> = { '\\': '\\', '"': '"', '/': '/', n: '\n', t: '\t', ' ': ' ' };

function doubleQuoted(text: string): Meaning {
  let value = '';
  let run = 1;
  for (let i = 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) return endsCleanly(text, i + 1) ? { value: value + text.slice(run, i) } : 'decline';
    if (c === 0x5c) {
      const escaped = ESCAPES[text[i + 1] ?? ''];
      if (escaped === undefined) return 'decline';
      value += text.slice(run, i) + escaped;
      i++;
      run = i + 1;
    }
  }
  return 'decline'; // unterminated on this line: a multi-line string
}

function singleQuoted(text: string): Meaning {
  let value = '';
  let run = 1;
  for (let i = 1; i < text.length; i++) {
    if (text.charCodeAt(i) !== 0x27) continue;
    if (text.charCodeAt(i + 1) === 0x27) {
      value += text.slice(run, i + 1);
      i++;
      run = i + 1;
    } else return endsCleanly(text, i + 1) ? { value: value + text.slice(run, i) } : 'decline';
  }
  return 'decline';
}

/** What YAML makes of the text after `key: ` (spaces already skipped). */
function yamlValue(text: string): Meaning {
  if (text.length === 0) return NULL_VALUE;
  const c = text.charCodeAt(0);
  if (c === 0x23 || c === SPACE) return isBlank(text) || c === 0x23 ? NULL_VALUE : 'decline';
  if (c === 0x22) return doubleQuoted(text);
  if (c === 0x27) return singleQuoted(text);
  const kind = startKind(c);
  if (kind !== 'plain') return kind;
  // A comment starts at ` #`; trailing spaces are not part of the value.
  let end = text.indexOf(' #');
  if (end === -1) end = text.length;
  while (text.charCodeAt(end - 1) === SPACE) end--;
  const value = end === text.length ? text : text.slice(0, end);
  // `a: b: c` and `a: b:` are mappings YAML refuses in this place.
  if (value.charCodeAt(value.length - 1) === COLON || value.includes(': ')) return 'error';
  if (mayBeTyped(c) && TYPED.test(value)) return 'decline';
  return { value };
}

/** What the line becomes after Claude Code's quoting retry (only top-level lines are touched). */
function retriedValue(line: string, asYaml: Meaning): Meaning {
  const match = RETRY_LINE.exec(line);
  if (!match) return asYaml;
  const raw = match[2]!;
  if (retryKeepsValue(raw)) return asYaml;
  // Quoted with `\` and `"` escaped, which double-quoted YAML reads back as the raw text.
  return YAML_SPECIAL_CHARS.test(raw) ? { value: raw } : asYaml;
}

/** The next non-blank line at or after `from`, or -1. */
function nextContent(lines: readonly string[], from: number): number {
  for (let j = from; j < lines.length; j++) if (!isBlank(lines[j]!)) return j;
  return -1;
}

/**
 * Read a nested block (`metadata:` and its indented `key: value` lines) starting at `from`.
 * Returns the mapping and the index after it, or a reason to give up.
 */
function nestedBlock(lines: readonly string[], from: number): { map: Record<string, string | null>; end: number } | 'error' | 'decline' {
  const indent = indentOf(lines[from]!);
  const map: Record<string, string | null> = {};
  const keys: string[] = [];
  let j = from;
  while (j < lines.length) {
    const line = lines[j]!;
    if (isBlank(line)) {
      j++;
      continue;
    }
    const own = indentOf(line);
    if (own === 0) break;
    if (own !== indent) return 'decline';
    const entry = keyLine(line, indent);
    if (!entry || entry.key === '__proto__' || keys.includes(entry.key)) return 'decline';
    const meaning = yamlValue(entry.rest);
    if (meaning === 'decline' || meaning === 'error') return meaning;
    const next = nextContent(lines, j + 1);
    // A deeper line continues this value or nests further: YAML decides.
    if (next !== -1 && indentOf(lines[next]!) > indent) return 'decline';
    keys.push(entry.key);
    map[entry.key] = meaning.value;
    j++;
  }
  return { map, end: j };
}

/**
 * Read frontmatter YAML (line endings already `\n`) exactly as {@link parseWithRetry} would,
 * or return undefined to leave it to the YAML library.
 */
export function scanFrontmatter(source: string): Record<string, unknown> | undefined {
  if (UNSURE_CHARS.test(source) || (SURROGATE.test(source) && LONE_SURROGATE.test(source))) return undefined;
  const lines = source.split('\n');
  const asYaml: Record<string, unknown> = {};
  // Every top-level entry in order, read again through the quoting retry if YAML fails.
  const entries: { key: string; line: string; meaning: Meaning; block: Record<string, string | null> | null }[] = [];
  let yamlFails = false;
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (isBlank(line)) {
      i++;
      continue;
    }
    const entry = keyLine(line, 0);
    if (!entry) return undefined;
    const { key, rest } = entry;
    if (key === '__proto__' || entries.some((e) => e.key === key)) return undefined;
    const next = nextContent(lines, i + 1);
    if (next !== -1 && indentOf(lines[next]!) > 0) {
      // Only `key:` (nothing after it but spaces) opens a nested mapping the scanner knows. The
      // retry never touches such a line (there is nothing to quote), so the block stays a block.
      if (!isBlank(rest)) return undefined;
      const block = nestedBlock(lines, next);
      if (block === 'decline' || block === 'error') return undefined;
      asYaml[key] = block.map;
      entries.push({ key, line, meaning: NULL_VALUE, block: block.map });
      i = block.end;
      continue;
    }
    const meaning = yamlValue(rest);
    if (meaning === 'decline') return undefined;
    if (meaning === 'error') yamlFails = true;
    else asYaml[key] = meaning.value;
    entries.push({ key, line, meaning, block: null });
    i++;
  }
  if (entries.length === 0) return undefined;
  if (!yamlFails) return asYaml;
  // YAML certainly fails; the retried text is what counts — unless it fails too (then YAML's error is reported).
  const retried: Record<string, unknown> = {};
  for (const entry of entries) {
    if (entry.block) {
      retried[entry.key] = entry.block;
      continue;
    }
    const again = retriedValue(entry.line, entry.meaning);
    if (again === 'error' || again === 'decline') return undefined;
    retried[entry.key] = again.value;
  }
  return retried;
}
