/**
 * What the secret scanner (src/main/secrets) reports, as a schema the app contract can carry:
 * the Alerts view lists findings, and "redact" / "allow" send one back. A finding never holds
 * the secret itself — `match` is masked and `fingerprint` is a keyed hash of it.
 */
import * as z from 'zod';

/** One credential found in a text or file. */
export const findingSchema = z.object({
  /** The file as the caller named it (`team/notes.md` in alerts, an absolute path from `scanDir`). */
  file: z.string(),
  /**
   * 1-based line and column (UTF-16 units) of the secret's first character. A secret in the
   * file's name has line 0, and its column is in the path relative to the memory folder.
   */
  line: z.number().int(),
  column: z.number().int(),
  /** `<source>/<kind>`: `memdir/anthropic-key`, `aws/AWSAccessKeyID`, `github/GITHUB_TOKEN`… */
  rule: z.string(),
  /** What was found, for people. */
  title: z.string(),
  /** The secret masked: a star a character (past 32, the count), or a token format's public prefix and stars (`ghp_************`); none of the secret. */
  match: z.string(),
  /** `error`: a provider's exact format; `warning`: a heuristic (generic assignment, bearer). */
  severity: z.enum(['error', 'warning']),
  /** UTF-16 offsets of the secret in the scanned text (for a name: in the relative path): [start, end). */
  range: z.tuple([z.number().int(), z.number().int()]),
  /**
   * 16 hex of an HMAC-SHA256 of the secret under this install's own key (secrets/fingerprint.ts):
   * recognises the same secret later on this machine without storing it, and, unlike a plain hash,
   * gives no weak password away. Empty for a failed scan.
   */
  fingerprint: z.string(),
  /** In the file's text, or in its name (a file or folder name holding a token). Absent in alerts saved before names were scanned: the text. */
  where: z.enum(['content', 'name']).optional(),
});
export type Finding = z.infer<typeof findingSchema>;

/**
 * A finding as a report shows it (\`memdir secrets scan --json\`, an export's refusal): where it is
 * (a secret in a name has no line or column), what it is, masked, and its fingerprint; never its range.
 */
export function reportedFinding(f: Finding) {
  const inName = f.where === 'name';
  return {
    where: inName ? ('name' as const) : ('content' as const),
    line: inName ? null : f.line,
    column: inName ? null : f.column,
    rule: f.rule,
    title: f.title,
    match: f.match,
    severity: f.severity,
    fingerprint: f.fingerprint,
  };
}

/**
 * Where a finding is, in words: "in its name" (a name has no line: a finding there says line 0) or
 * its line, as `line` words it ("line N" by default) — as the Alerts view's Where column says it,
 * the forms acting on it are read, an alert's message (`on line N`) and a refused save's say it.
 */
export function whereFound(f: Pick<Finding, 'where' | 'line'>, line: (n: number) => string = (n) => `line ${n}`): string {
  return f.where === 'name' ? 'in its name' : line(f.line);
}

/**
 * A secret a save would add to a memory (the refusal of a save, \`secret-found\`): what it is,
 * masked, where, and the fingerprint that saves it anyway on purpose.
 */
export const secretOnSaveSchema = z.object({ title: z.string(), match: z.string(), line: z.number().int(), fingerprint: z.string() });
export type SecretOnSave = z.infer<typeof secretOnSaveSchema>;

/** The rule of the finding the scanner reports when scanning itself failed: never allowed. */
export const SCANNER_ERROR_RULE = 'memdir/scanner-error';
