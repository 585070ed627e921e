/**
 * YAML of topic-file frontmatter, read the way Claude Code reads it: parse as YAML; if that
 * fails, double-quote the values of plain `key: value` lines that hold YAML special characters
 * (`description: use case: foo` is common in model-written memories) and parse again.
 *
 * Most memories carry a handful of `key: plain text` lines; those are read by a small exact
 * parser so a scan of thousands of files stays close to the cost of reading them. The fast
 * path accepts only lines whose meaning is certain, and is property-tested against the slow one.
 */
import YAML from 'yaml';

const RETRY_KEY = /^[a-zA-Z_-]+$/;
const KEY_LINE = /^([A-Za-z_][A-Za-z0-9_-]*):(?:[ \t]+(.*))?$/;
const NESTED_LINE = /^( {2,})([A-Za-z_][A-Za-z0-9_-]*):(?:[ \t]+(.*))?$/;
// Plain scalars that YAML would read as something other than the same string.
const NOT_PLAIN_START = /^[-?:,[\]{}#&*!|>'"%@`~\s]/;
const TYPED = /^(?:(?:true|false|yes|no|on|off|null|y|n|[-+]?\.inf|\.nan)$|[-+]?\.?\d)/i;

function plainScalar(value: string | undefined): string | null | undefined {
  // undefined: not representable on the fast path; null: empty value (YAML null).
  if (value === undefined) return null;
  const trimmed = value.replace(/[ \t]+$/, '');
  if (trimmed === '') return null;
  if (NOT_PLAIN_START.test(trimmed)) return undefined;
  if (TYPED.test(trimmed)) return undefined;
  if (trimmed.includes(' #') || trimmed.endsWith(':')) return undefined;
  if (/[\t\u0000-\u0008\u000b-\u001f\u007f\ufeff]/.test(trimmed)) return undefined;
  return trimmed;
}

/** Parse simple frontmatter without the YAML library, or return undefined to use it. */
export function parseSimpleFrontmatter(source: string): Record<string, unknown> | undefined {
  const result: Record<string, unknown> = {};
  let nested: Record<string, unknown> | null = null;
  let nestedIndent = 0;
  const lines = source.split('\n');
  for (let i = 0; i < lines.length; i++) {
    // Line endings are normalised by the caller; a stray \r is left to the YAML library.
    const line = lines[i]!;
    if (/^[ \t]*$/.test(line)) continue;
    const inner = NESTED_LINE.exec(line);
    if (inner) {
      if (!nested || (nestedIndent !== 0 && inner[1]!.length !== nestedIndent)) return undefined;
      nestedIndent = inner[1]!.length;
      const value = plainScalar(inner[3]);
      // The quoting retry never touches indented lines, so `: ` there stays an error.
      if (value === undefined || value?.includes(': ') || Object.hasOwn(nested, inner[2]!)) return undefined;
      nested[inner[2]!] = value;
      continue;
    }
    const top = KEY_LINE.exec(line);
    if (!top) return undefined;
    const key = top[1]!;
    if (Object.hasOwn(result, key) || key === '__proto__') return undefined;
    if (top[2] === undefined || /^[ \t]*$/.test(top[2])) {
      // `key:` alone opens a nested mapping if indented lines follow; otherwise it is null.
      const next = lines[i + 1];
      if (next !== undefined && NESTED_LINE.test(next)) {
        nested = {};
        nestedIndent = 0;
        result[key] = nested;
        continue;
      }
      nested = null;
      result[key] = null;
      continue;
    }
    nested = null;
    const value = plainScalar(top[2]);
    if (value === undefined) return undefined;
    // `a: b: c` is a YAML error that Claude Code's quoting retry turns into "b: c" — but only
    // for keys its retry recognises.
    if (value !== null && value.includes(': ') && !RETRY_KEY.test(key)) return undefined;
    result[key] = value;
  }
  return result;
}

/** Parse frontmatter YAML; throws a YAML error with a line number on bad input. */
export function parseFrontmatterYaml(raw: string): unknown {
  const source = raw.replace(/\r\n?/g, '\n');
  const simple = parseSimpleFrontmatter(source);
  if (simple !== undefined) return simple;
  return parseWithRetry(source);
}

// Claude Code's quoting retry: which values it quotes, and how.
const YAML_SPECIAL_CHARS = /[{}[\]*&#!|>%@`]|: /;

/** Double-quote plain top-level values that hold YAML special characters. */
export function quoteProblematicValues(source: string): string {
  return source
    .split('\n')
    .map((line) => {
      const match = /^([a-zA-Z_-]+):\s+(.+)$/.exec(line);
      if (!match) return line;
      const [, key, value] = match as unknown as [string, string, string];
      if ((value.startsWith('"') && value.endsWith('"')) || (value.startsWith("'") && value.endsWith("'"))) return line;
      if (!YAML_SPECIAL_CHARS.test(value)) return line;
      return `${key}: "${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
    })
    .join('\n');
}

// `uniqueKeys: false` reads duplicate keys (last wins) as js-yaml based tools do. `logLevel: 'error'`:
// the library's warnings (an unknown directive or tag) go through process.emitWarning to stderr
// with the file's own text — raw, past every filter — so they are off; errors still throw.
const YAML_OPTIONS = { uniqueKeys: false, prettyErrors: true, logLevel: 'error' } as const;

/** The slow path: YAML, then YAML after the quoting retry; throws the first error if both fail. */
export function parseWithRetry(source: string): unknown {
  try {
    return YAML.parse(source, YAML_OPTIONS);
  } catch (error) {
    try {
      return YAML.parse(quoteProblematicValues(source), YAML_OPTIONS);
    } catch {
      throw error;
    }
  }
}
