/**
 * YAML of topic-file frontmatter, read the way Claude Code reads it: parse as YAML; if that
 * fails, apply Claude Code's quoting retry (frontmatter-retry.ts) and parse again.
 *
 * Most headers are read by the exact scanner (frontmatter-scanner.ts), so a scan of thousands of
 * files stays close to the cost of reading them; it answers only when it is sure to give what
 * the YAML path gives, and is property-tested against it.
 */
import YAML from 'yaml';
import { quoteProblematicValues } from './frontmatter-retry.js';
import { YAML_FAILS, readFrontmatterFast } from './frontmatter-scanner.js';

/** Parse frontmatter YAML; throws a YAML error with a line number on bad input. */
export function parseFrontmatterYaml(raw: string): unknown {
  const source = raw.includes('\r') ? raw.replace(/\r\n?/g, '\n') : raw;
  const fast = readFrontmatterFast(source);
  // Both parses would fail and the first one's error is reported: one parse says it.
  if (fast === YAML_FAILS) return YAML.parse(source, YAML_OPTIONS);
  if (fast !== undefined) return fast;
  return parseWithRetry(source);
}

// `uniqueKeys: false` reads duplicate keys (last wins) as js-yaml based tools do. `logLevel: 'error'`:
// the library's warnings (an unknown directive or tag) go through process.emitWarning to stderr
// with the file's own text — raw, past every filter — so they are off; errors still throw.
const YAML_OPTIONS = { uniqueKeys: false, prettyErrors: true, logLevel: 'error' } as const;

/** The slow path: YAML, then YAML after the quoting retry; throws the first error if both fail. */
export function parseWithRetry(source: string): unknown {
  return parseYamlWithRetry(source).value;
}

/** {@link parseWithRetry}, saying whether the quoting retry was needed. */
export function parseYamlWithRetry(source: string): { value: unknown; retried: boolean } {
  try {
    return { value: YAML.parse(source, YAML_OPTIONS), retried: false };
  } catch (error) {
    const quoted = quoteProblematicValues(source);
    // Nothing to quote: the same text would fail the same way again (a failing parse costs ~0.5 ms).
    if (quoted === source) throw error;
    try {
      return { value: YAML.parse(quoted, YAML_OPTIONS), retried: true };
    } catch {
      throw error;
    }
  }
}
