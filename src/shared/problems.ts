/**
 * Health problems (SPEC R-HEALTH): one vocabulary for the scanner, the CLI and the app.
 */
import * as z from 'zod';

export const PROBLEM_CODES = [
  'dangling-link',
  'orphan',
  'duplicate-pointer',
  'malformed-line',
  'bad-frontmatter',
  'cut-by-comment',
  'invalid-type',
  'over-limit',
  'unreadable',
  'unsafe-link',
  'not-worth-saving',
  'user-in-team',
  'no-index-loaded',
  'read-only-store',
  'outside-store',
  'held-delete',
  'index-built',
] as const;
export type ProblemCode = (typeof PROBLEM_CODES)[number];

/**
 * Each problem kind as a person reads it: the one table of words wherever the app names a kind
 * (the code stays the CLI's and the JSON's name for it).
 */
export const PROBLEM_WORDS: Record<ProblemCode, string> = {
  'dangling-link': 'missing file',
  orphan: 'not in the index',
  'duplicate-pointer': 'listed twice',
  'malformed-line': 'unreadable index line',
  'bad-frontmatter': 'frontmatter missing or broken',
  'cut-by-comment': 'value cut short',
  'invalid-type': 'unknown type',
  'over-limit': 'index too long',
  unreadable: 'cannot be read',
  'unsafe-link': 'points outside',
  'not-worth-saving': 'not worth saving',
  'user-in-team': 'personal memory in team',
  'no-index-loaded': 'no index',
  'read-only-store': 'read-only',
  'outside-store': 'memory kept elsewhere',
  'held-delete': 'deletion held back',
  'index-built': 'index built',
};

/**
 * What a one-click fix does; only fixes that cannot lose anything are offered. `quote-value` edits
 * a topic file (its frontmatter, in place); the others edit MEMORY.md.
 */
export const FIX_KINDS = ['add-to-index', 'drop-pointer', 'dedupe-pointer', 'quote-value'] as const;
export type FixKind = (typeof FIX_KINDS)[number];

export const problemSchema = z.object({
  code: z.enum(PROBLEM_CODES),
  /** Path relative to the memory directory, or null for the directory itself. */
  file: z.string().nullable(),
  /** 1-based line in `file`, where it applies. */
  line: z.number().nullable(),
  /** A sentence a person understands: what is wrong and what it means for them. */
  message: z.string(),
  /** `error`: something is lost or broken; `warning`: worth fixing; `hint`: advice (R-NOTSAVE). */
  severity: z.enum(['error', 'warning', 'hint']),
  fix: z.enum(FIX_KINDS).nullable(),
  /** For problems of an index line: the file the pointer names (what a fix acts on). */
  target: z.string().optional(),
});
export type Problem = z.infer<typeof problemSchema>;

/** A safe fix as the fixing service takes it. */
export interface FixRequest {
  kind: FixKind;
  /** For add-to-index: the orphan topic file; for quote-value: the topic file; for drop/dedupe: the pointer's target file. */
  file: string;
  /** For drop/dedupe: the index line to remove. */
  line?: number | null;
}

/** The fix request for a problem that has a safe fix, or null: the one rule the app, the CLI and the services share. */
export function fixRequestOf(problem: Problem): FixRequest | null {
  if (!problem.fix) return null;
  // Orphan and quoting fixes act on the topic file; pointer fixes on the pointer's target, at its line.
  if (problem.fix === 'add-to-index' || problem.fix === 'quote-value') return problem.file ? { kind: problem.fix, file: problem.file } : null;
  return problem.target && problem.line ? { kind: problem.fix, file: problem.target, line: problem.line } : null;
}

export const SEVERITY_OF: Record<ProblemCode, Problem['severity']> = {
  'dangling-link': 'error',
  orphan: 'warning',
  'duplicate-pointer': 'warning',
  'malformed-line': 'warning',
  'bad-frontmatter': 'warning',
  'cut-by-comment': 'warning',
  'invalid-type': 'warning',
  'over-limit': 'error',
  unreadable: 'error',
  'unsafe-link': 'error',
  'not-worth-saving': 'hint',
  'user-in-team': 'warning',
  'no-index-loaded': 'hint',
  'read-only-store': 'warning',
  'outside-store': 'warning',
  'held-delete': 'hint',
  'index-built': 'hint',
};
