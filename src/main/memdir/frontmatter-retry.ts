/**
 * Claude Code's quoting retry for frontmatter (its `parseFrontmatter`, 2.1.332): when the YAML
 * does not parse, every top-level `key: value` line whose value holds a YAML special character and
 * is not already quoted (nor a flow list that parses as one) is double-quoted (`\\` and `"`
 * escaped), leading tabs become two spaces each, and the text is parsed again. That is how
 * `description: use case: foo` — invalid YAML, common in model-written memories — reads as
 * `use case: foo`. One place for the rule: Memdir's YAML path, its scanner and the replica of
 * Claude Code's recall scan all take it from here.
 */
import YAML from 'yaml';

/** A line the retry may quote: a top-level key of letters, `_` or `-`, whitespace, a value. */
export const RETRY_LINE = /^([a-zA-Z_-]+):\s+(\S.*)$/;
/** Values holding one of these are quoted by the retry. */
export const YAML_SPECIAL_CHARS = /[{}[\]*&#!|>%@`]|: /;

/** Whether the retry leaves this value as it is: already quoted, or a flow list that parses as a list. */
export function retryKeepsValue(value: string): boolean {
  if ((value.startsWith('"') && value.endsWith('"')) || (value.startsWith("'") && value.endsWith("'"))) return true;
  if (value.startsWith('[') && value.endsWith(']')) {
    try {
      return Array.isArray(YAML.parse(value, { logLevel: 'error' }));
    } catch {
      // Not a list after all: quoted like any other value.
    }
  }
  return false;
}

/** The text the retry parses: risky top-level values double-quoted, leading tabs made spaces. */
export function quoteProblematicValues(source: string): string {
  return source
    .split('\n')
    .map((line) => {
      const match = RETRY_LINE.exec(line);
      if (!match) return line;
      const [, key, value] = match as unknown as [string, string, string];
      if (retryKeepsValue(value) || !YAML_SPECIAL_CHARS.test(value)) return line;
      return `${key}: "${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
    })
    .join('\n')
    .replace(/^\t+/gm, (tabs) => '  '.repeat(tabs.length));
}
