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
import { RETRY_LINE, YAML_SPECIAL_CHARS } from './frontmatter-retry.js';

/** What one value means: a scalar (null for an empty value), a sure YAML error, or "not sure". */
type Meaning = { value: string | null } | 'error' | 'decline';

/** Characters the scanner leaves to YAML: tabs, CR, line separators, BOM, non-printables, lone surrogates. */
const UNSURE_CHARS = /[\t\r\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/** `key:` then nothing, or spaces and a value. Keys are plain identifiers (others go to YAML). */
const KEY_LINE = /^([A-Za-z_][A-Za-z0-9_-]*):(?: +(.*))?$/;
// YAML 1.2 core schema: plain scalars that resolve to null, booleans or numbers, not strings.
const TYPED = /^(?:~|[Nn]ull|NULL|[Tt]rue|TRUE|[Ff]alse|FALSE|[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/;
/** First characters of a plain scalar that YAML rejects outright. */
const REJECTED_START = /^[`@%,]/;
/** First characters that start another kind of node (flow collection, tag, anchor, alias, block scalar, indicator). */
const OTHER_NODE_START = /^[[\]{}!&*|>\-?:]/;

function isBlank(line: string): boolean {
  for (let i = 0; i < line.length; i++) if (line.charCodeAt(i) !== 0x20) return false;
  return true;
}

function indentOf(line: string): number {
  let n = 0;
  while (line.charCodeAt(n) === 0x20) n++;
  return n;
}

/** What follows a closing quote: nothing, or spaces and a comment. */
function endsCleanly(rest: string): boolean {
  const trimmed = rest.replace(/^ +/, '');
  return trimmed === '' || (trimmed.startsWith('#') && trimmed.length < rest.length);
}

const ESCAPES: Record<string, string> = { '\\': '\\', '"': '"', '/': '/', n: '\n', t: '\t', ' ': ' ' };

function doubleQuoted(text: string): Meaning {
  let value = '';
  for (let i = 1; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') return endsCleanly(text.slice(i + 1)) ? { value } : 'decline';
    if (c === '\\') {
      const escaped = ESCAPES[text[i + 1] ?? ''];
      if (escaped === undefined) return 'decline';
      value += escaped;
      i++;
    } else {
      value += c;
    }
  }
  return 'decline'; // unterminated on this line: a multi-line string
}

function singleQuoted(text: string): Meaning {
  let value = '';
  for (let i = 1; i < text.length; i++) {
    const c = text[i]!;
    if (c !== "'") value += c;
    else if (text[i + 1] === "'") {
      value += "'";
      i++;
    } else return endsCleanly(text.slice(i + 1)) ? { value } : 'decline';
  }
  return 'decline';
}

/** What YAML makes of the text after `key: ` (spaces already skipped). */
function yamlValue(text: string): Meaning {
  if (text === '' || isBlank(text) || text.startsWith('#')) return { value: null };
  const first = text[0]!;
  if (first === '"') return doubleQuoted(text);
  if (first === "'") return singleQuoted(text);
  if (REJECTED_START.test(text)) return 'error';
  if (OTHER_NODE_START.test(text)) return 'decline';
  // A comment starts at ` #`; trailing spaces are not part of the value.
  const hash = text.indexOf(' #');
  const value = (hash === -1 ? text : text.slice(0, hash)).replace(/ +$/, '');
  // `a: b: c` and `a: b:` are mappings YAML refuses in this place.
  if (value.includes(': ') || value.endsWith(':')) return 'error';
  if (TYPED.test(value)) return 'decline';
  return { value };
}

/** What the line becomes after Claude Code's quoting retry (only top-level lines are touched). */
function retriedValue(line: string, asYaml: Meaning): Meaning {
  const match = RETRY_LINE.exec(line);
  if (!match) return asYaml;
  const raw = match[2]!;
  if ((raw.startsWith('"') && raw.endsWith('"')) || (raw.startsWith("'") && raw.endsWith("'"))) return asYaml;
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
    const match = KEY_LINE.exec(line.slice(indent));
    if (!match) return 'decline';
    const key = match[1]!;
    if (key === '__proto__' || Object.hasOwn(map, key)) return 'decline';
    const meaning = yamlValue(match[2] ?? '');
    if (meaning === 'decline' || meaning === 'error') return meaning;
    const next = nextContent(lines, j + 1);
    // A deeper line continues this value or nests further: YAML decides.
    if (next !== -1 && indentOf(lines[next]!) > indent) return 'decline';
    map[key] = meaning.value;
    j++;
  }
  return { map, end: j };
}

/**
 * Read frontmatter YAML (line endings already `\n`) exactly as {@link parseWithRetry} would,
 * or return undefined to leave it to the YAML library.
 */
export function scanFrontmatter(source: string): Record<string, unknown> | undefined {
  if (UNSURE_CHARS.test(source)) return undefined;
  const lines = source.split('\n');
  const asYaml: Record<string, unknown> = {};
  const retried: Record<string, unknown> = {};
  let yamlFails = false;
  let retryFails = false;
  let keys = 0;
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (isBlank(line)) {
      i++;
      continue;
    }
    const match = KEY_LINE.exec(line);
    if (!match) return undefined;
    const key = match[1]!;
    if (key === '__proto__' || Object.hasOwn(asYaml, key)) return undefined;
    keys++;
    const rest = match[2] ?? '';
    const next = nextContent(lines, i + 1);
    const opensBlock = next !== -1 && indentOf(lines[next]!) > 0;
    if (opensBlock) {
      // Only `key:` (nothing after it but spaces) opens a nested mapping the scanner knows.
      if (!isBlank(rest)) return undefined;
      const block = nestedBlock(lines, next);
      if (block === 'decline' || block === 'error') return undefined;
      asYaml[key] = block.map;
      const again = retriedValue(line, { value: null });
      // The retry leaves `key:` lines alone (nothing to quote), so the block stays a block.
      if (again === 'error' || again === 'decline' || again.value !== null) return undefined;
      retried[key] = block.map;
      i = block.end;
      continue;
    }
    const meaning = yamlValue(rest);
    if (meaning === 'decline') return undefined;
    const again = retriedValue(line, meaning);
    if (again === 'decline') return undefined;
    if (meaning === 'error') yamlFails = true;
    else asYaml[key] = meaning.value;
    if (again === 'error') retryFails = true;
    else retried[key] = again.value;
    i++;
  }
  if (keys === 0) return undefined;
  if (!yamlFails) return asYaml;
  // YAML certainly fails; the retried text is what counts — unless it fails too (then YAML's error is reported).
  return retryFails ? undefined : retried;
}
