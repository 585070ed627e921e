/**
 * How alike two memories are, for the offline consolidation rules: duplicates (exact and near)
 * to merge, contradictions to flag. Lexical and CJK-aware (the recall tokenizer); numbers and
 * dates are kept apart from words, because "Source 3" and "Source 4", or "release 2026-03-12"
 * and "release 2026-03-19", are different facts however alike their words are.
 */
import { tokenize } from '../recall/tokenize.js';
import { findAbsoluteDays } from '../dream/relative-dates.js';

/** English and Chinese negations and prohibitions: the polarity of a statement. */
const NEGATION = /\b(?:never|don't|dont|do not|doesn't|does not|didn't|did not|isn't|is not|aren't|are not|won't|will not|no longer|not|avoid|stop|without|no)\b|不要|不用|别|禁止|不能|不可以|避免|没有|不再|不应|勿|无需|不许|不准/i;

const NEGATION_WORD = new RegExp(`^(?:${NEGATION.source})$`, 'i');

/** Words and numbers of a text. */
export interface TextFeatures {
  /** Word tokens (stemmed, stop words out), numbers excluded. */
  words: Set<string>;
  /** Numbers and dates as written, normalised (`2026-03-12`, `3`). */
  numbers: Set<string>;
  negated: boolean;
}

/** Features of a text (see {@link TextFeatures}). */
export function featuresOf(text: string): TextFeatures {
  const numbers = new Set<string>(findAbsoluteDays(text).map((d) => d.day));
  const withoutDays = findAbsoluteDays(text).reduceRight((t, d) => t.slice(0, d.index) + ' ' + t.slice(d.end), text);
  for (const m of withoutDays.matchAll(/\d+(?:\.\d+)?/g)) numbers.add(String(Number(m[0])));
  // Negations decide polarity, not the subject: "never mock X" and "mock X" are about one thing.
  const words = new Set(tokenize(withoutDays).filter((t) => !/^\d+(?:\.\d+)?$/.test(t) && !NEGATION_WORD.test(t)));
  return { words, numbers, negated: NEGATION.test(text) };
}

/** |a ∩ b| / |a ∪ b|; 0 for two empty sets. */
export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 0;
  let both = 0;
  for (const x of a) if (b.has(x)) both++;
  return both / (a.size + b.size - both);
}

/** Same members. */
export function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size !== b.size) return false;
  for (const x of a) if (!b.has(x)) return false;
  return true;
}

/** A body normalised for the exact-duplicate test: case, spacing and markdown punctuation folded. */
export function normalizeForExact(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[*_`>#~-]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Sentences (or lines) of a text, trimmed, empty ones dropped. */
export function sentencesOf(text: string): string[] {
  return text
    .split(/(?<=[.!?。！？；;])\s*|\n+/)
    .map((s) => s.replace(/^[\s*>#-]+/, '').trim())
    .filter((s) => s.length > 0);
}

/** Near-duplicate threshold on word overlap (with equal numbers and the same polarity). */
export const NEAR_DUPLICATE = 0.75;
/** Two statements are about the same thing from this word overlap on. */
export const SAME_SUBJECT = 0.4;

/** Whether two statements about the same subject disagree: polarity, or different dates. */
export function disagreement(a: string, b: string): { why: string } | null {
  const fa = featuresOf(a);
  const fb = featuresOf(b);
  if (fa.words.size < 2 || fb.words.size < 2) return null;
  if (jaccard(fa.words, fb.words) < SAME_SUBJECT) return null;
  if (fa.negated !== fb.negated) return { why: 'one says not to, the other says to' };
  const da = new Set(findAbsoluteDays(a).map((d) => d.day));
  const db = new Set(findAbsoluteDays(b).map((d) => d.day));
  if (da.size > 0 && db.size > 0 && [...da].every((d) => !db.has(d))) return { why: 'they give different dates' };
  return null;
}
