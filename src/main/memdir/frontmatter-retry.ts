/**
 * Claude Code's quoting retry for frontmatter (its `parseFrontmatter`): when the YAML does not
 * parse, every top-level `key: value` line whose value holds a YAML special character and is not
 * already quoted is double-quoted (`\` and `"` escaped), and the text is parsed again. That is
 * how `description: use case: foo` — invalid YAML, common in model-written memories — reads as
 * `use case: foo`. One place for the rule: the YAML path and the scanner both use it.
 */

/** A line the retry may quote: a top-level key of letters, `_` or `-`, whitespace, a value. */
export const RETRY_LINE = /^([a-zA-Z_-]+):\s+(.+)$/;
/** Values holding one of these are quoted by the retry. */
export const YAML_SPECIAL_CHARS = /[{}[\]*&#!|>%@`]|: /;

/** Double-quote plain top-level values that hold YAML special characters. */
export function quoteProblematicValues(source: string): string {
  return source
    .split('\n')
    .map((line) => {
      const match = RETRY_LINE.exec(line);
      if (!match) return line;
      const [, key, value] = match as unknown as [string, string, string];
      if ((value.startsWith('"') && value.endsWith('"')) || (value.startsWith("'") && value.endsWith("'"))) return line;
      if (!YAML_SPECIAL_CHARS.test(value)) return line;
      return `${key}: "${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
    })
    .join('\n');
}
