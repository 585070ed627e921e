/**
 * YAML of topic-file frontmatter, read the way Claude Code reads it: parse as YAML; if that
 * fails, apply Claude Code's quoting retry (frontmatter-retry.ts) and parse again.
 *
 * Most headers are read by the exact scanner (frontmatter-scanner.ts), so a scan of thousands of
 * files stays close to the cost of reading them; it answers only when it is sure to give what
 * the YAML path gives, and is property-tested against it.
 */
import YAML from 'yaml';
import { type CommentCut, READ_KEYS } from '../../shared/frontmatter.js';
import { quoteName } from '../../shared/visible-text.js';
import { quoteProblematicValues } from './frontmatter-retry.js';
import { YAML_FAILS, type YamlFailure, readFrontmatterFast } from './frontmatter-scanner.js';

/**
 * Parse frontmatter YAML; throws a YAML error with a line number on bad input. With `cuts`, the
 * name and description values a ` #` comment cut short are added to it (see {@link CommentCut}),
 * found while the header is read: by the scanner, or from the YAML document's nodes.
 */
export function parseFrontmatterYaml(raw: string, cuts?: CommentCut[]): unknown {
  const source = raw.includes('\r') ? raw.replace(/\r\n?/g, '\n') : raw;
  const failed: { failure?: YamlFailure } = {};
  const fast = readFrontmatterFast(source, cuts, failed);
  // Both parses would fail and the first one's error is reported: where the scanner knows its line
  // and code, the library is not asked (a scan meets such a header rarely, and the library's code
  // is then cold: it cost a cold scan more than all the headers the scanner read); else one parse says it.
  if (fast === YAML_FAILS) {
    if (failed.failure) throw yamlErrorAt(source, failed.failure);
    return YAML.parse(source, YAML_OPTIONS);
  }
  if (fast !== undefined) return fast;
  return parseYamlWithRetry(source, cuts).value;
}

/** The error the YAML library throws for `source` whose first error the scanner found (what {@link describeYamlError} reads of it). */
function yamlErrorAt(source: string, failure: YamlFailure): YAML.YAMLParseError {
  let offset = 0;
  for (let line = 1; line < failure.line; line++) offset = source.indexOf('\n', offset) + 1;
  const error = new YAML.YAMLParseError([offset, offset + 1], failure.code, `YAML cannot read line ${failure.line}`);
  error.linePos = [{ line: failure.line, col: 1 }];
  return error;
}

// `uniqueKeys: false` reads duplicate keys (last wins) as js-yaml based tools do. `logLevel: 'error'`:
// the library's warnings (an unknown directive or tag) go through process.emitWarning to stderr
// with the file's own text — raw, past every filter — so they are off; errors still throw.
const YAML_OPTIONS = { uniqueKeys: false, prettyErrors: true, logLevel: 'error' } as const;

/** The slow path: YAML, then YAML after the quoting retry; throws the first error if both fail. */
export function parseWithRetry(source: string): unknown {
  return parseYamlWithRetry(source).value;
}

/** {@link parseWithRetry}, saying whether the quoting retry was needed; with `cuts`, noting the cut values as {@link parseFrontmatterYaml} does. */
export function parseYamlWithRetry(source: string, cuts?: CommentCut[]): { value: unknown; retried: boolean } {
  const { doc, text, retried } = parsedDocument(source);
  if (cuts) commentCutsOf(doc, text, cuts);
  return { value: doc.toJS(YAML_OPTIONS), retried };
}

/**
 * The document `YAML.parse` reads (it is `parseDocument`, then `toJS`), after the quoting retry
 * when the text as written does not parse, with the text it was read from; throws the first error.
 */
function parsedDocument(source: string): { doc: YAML.Document; text: string; retried: boolean } {
  const doc = YAML.parseDocument(source, YAML_OPTIONS);
  if (doc.errors.length === 0) return { doc, text: source, retried: false };
  const quoted = quoteProblematicValues(source);
  // Nothing to quote: the same text would fail the same way again (a failing parse costs ~0.5 ms).
  if (quoted === source) throw doc.errors[0]!;
  const again = YAML.parseDocument(quoted, YAML_OPTIONS);
  if (again.errors.length > 0) throw doc.errors[0]!;
  return { doc: again, text: quoted, retried: true };
}

/** Where recall and the index read a name or description: at the top, or a name under `metadata:` (Claude Code reads no description there). */
const READ_PATHS: readonly string[][] = [...READ_KEYS].flatMap((key) => (key === 'description' ? [[key]] : [[key], ['metadata', key]]));

/**
 * The name and description values of `doc` (read from `text`) that a comment cuts short: plain
 * scalars on one line with ` #` after them on that line. The file's quoting retry never leaves one
 * at the top (it quotes values holding `#`), so the retried document has only nested ones.
 */
export function commentCutsOf(doc: YAML.Document, text: string, cuts: CommentCut[]): void {
  for (const path of READ_PATHS) {
    const node = doc.getIn(path, true);
    if (!YAML.isScalar(node) || node.type !== YAML.Scalar.PLAIN || typeof node.value !== 'string' || !node.range) continue;
    const [start, valueEnd] = node.range;
    let end = text.indexOf('\n', valueEnd);
    if (end === -1) end = text.length;
    if (!/^[ \t]+#/.test(text.slice(valueEnd, end)) || text.slice(start, valueEnd).includes('\n')) continue;
    let line = 1;
    for (let i = text.indexOf('\n'); i !== -1 && i < start; i = text.indexOf('\n', i + 1)) line++;
    cuts.push({ path, line, read: node.value, written: text.slice(start, end).replace(/[ \t\r]+$/, '') });
  }
}

const NOT_A_PAIR = 'this is not a "key: value" line, or it is indented where nothing goes on; fix the line or remove it';

/** `key: value` on a line of frontmatter: the key and the value as written. */
const KEY_LINE = /^\s*([^\s#:'"][^:]*?):(?:\s+(.*))?$/;

/**
 * Why frontmatter YAML does not parse, as a person can act on it: `line <n>: <what is wrong there;
 * what to do>`, the line counted in the file, never the parser's own words. One place for the
 * wording, so Health, lint and the editor's refusal say the same thing about the same block.
 * `firstLine` is the file's line the YAML text starts on: 1 for a block read with its `---` line's
 * end (as a scan reads it), 2 for the text between the fences (what a person repairs).
 */
export function describeYamlError(error: unknown, yaml: string, firstLine: number): string {
  const lines = yaml.split(/\r\n?|\n/);
  const yamlError = error instanceof YAML.YAMLError ? error : null;
  let at = yamlError?.linePos?.[0].line ?? 1;
  const entry = (n: number) => KEY_LINE.exec(lines[n - 1] ?? '');
  const valueOf = (n: number) => entry(n)?.[2] ?? '';
  const named = (n: number) => {
    const key = entry(n)?.[1];
    return key ? `the value of ${quoteName(key, 40)}` : 'the value';
  };
  let what: string;
  switch (yamlError?.code) {
    case 'MISSING_CHAR':
      if (/quote/i.test(yamlError.message)) {
        // Reported where the text ends: the quote opened on the nearest line above whose value starts with one.
        let open = Math.min(at, lines.length);
        while (open > 1 && !/^["']/.test(valueOf(open))) open--;
        if (/^["']/.test(valueOf(open))) at = open;
        what = `the quote that opens ${named(at)} is never closed; close it, or take the quotes away`;
      } else what = `a [ or { is never closed; close it, or put the value in quotes`;
      break;
    case 'UNEXPECTED_TOKEN':
      what = /^["']/.test(valueOf(at))
        ? `${named(at)} goes on after its closing quote; put the whole value in quotes`
        : 'this is not a "key: value" line; put the value in quotes, or remove the line';
      break;
    case 'BLOCK_AS_IMPLICIT_KEY':
      what = valueOf(at).includes(': ')
        ? `${named(at)} holds ": ", which YAML reads as the start of another key; put the value in quotes`
        : `the next line is indented, so YAML reads it as more of ${named(at)}; take the indent away`;
      break;
    case 'TAB_AS_INDENT':
      what = 'a tab indents the line, and YAML allows only spaces';
      break;
    case 'BAD_SCALAR_START':
      what = `${named(at)} starts with a character YAML reserves; put the value in quotes`;
      break;
    case 'BAD_INDENT':
      if (/^Flow (?:sequence|mapping)/.test(yamlError.message)) {
        // Reported where the list or map should have ended: it opened on the nearest line above whose value starts with [ or {.
        let open = Math.min(at, lines.length);
        while (open > 1 && !/^[[{]/.test(valueOf(open))) open--;
        if (/^[[{]/.test(valueOf(open))) at = open;
        what = `the ${valueOf(at).startsWith('{') ? '{' : '['} that opens ${named(at)} is never closed; close it, or put the value in quotes`;
      } else what = NOT_A_PAIR;
      break;
    case 'MULTILINE_IMPLICIT_KEY':
      what = NOT_A_PAIR;
      break;
    default:
      what = 'YAML cannot read this line; put its value in quotes, or remove it';
  }
  return `line ${at + firstLine - 1}: ${what}`;
}
