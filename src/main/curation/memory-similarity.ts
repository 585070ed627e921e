/**
 * How alike two memories are, for the offline consolidation rules: duplicates (exact and near)
 * to merge, contradictions to flag. Lexical and CJK-aware (the recall tokenizer); numbers and
 * dates are kept apart from words, because "Source 3" and "Source 4", or "release 2026-03-12"
 * and "release 2026-03-19", are different facts however alike their words are.
 */
import type { MemoryType } from '../../shared/memory-types.js';
import { tokenize } from '../recall/index.js';
import { findAbsoluteDays } from '../../shared/day-dates.js';

/** English and Chinese negations and prohibitions: the polarity of a statement. */
const NEGATION =
  /\b(?:never|don't|dont|do not|doesn't|does not|didn't|did not|isn't|is not|aren't|are not|won't|will not|no longer|not|avoid|stop|without|no)\b|不要|不用|别|禁止|不能|不可以|避免|没有|不再|不应|勿|无需|不许|不准/i;

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

/** What the pair rule needs of a memory. */
export interface SimilarityInput {
  name: string;
  description: string;
  body: string;
  type: MemoryType | null;
}

/** A memory reduced to what the pair rule compares (work it out once per memory). */
export interface MemoryFingerprint {
  type: MemoryType | null;
  /** The body normalised for the exact test. */
  exact: string;
  /** Words, numbers and polarity of the whole memory: dream's near-duplicate test. */
  features: TextFeatures;
  /** The local ranker's terms of name and description — words and CJK character pairs — numbers and negations out. */
  summary: Set<string>;
  /** Numbers and dates of name and description: "Source 3" is not "Source 4". */
  summaryNumbers: Set<string>;
  /** The ranker's terms of the whole memory (with CJK pairs), for the overlap of two bodies. */
  terms: Set<string>;
}

const TERMS = { stem: true, stopwords: true, cjkBigrams: true } as const;

function termsOf(text: string): Set<string> {
  return new Set(tokenize(text, TERMS).filter((t) => !/^\d+(?:\.\d+)?$/.test(t) && !NEGATION_WORD.test(t)));
}

/** The fingerprint of a memory (see {@link MemoryFingerprint}). */
export function fingerprintOf(m: SimilarityInput): MemoryFingerprint {
  const summaryText = `${m.name}\n${m.description}`;
  return {
    type: m.type,
    exact: normalizeForExact(m.body),
    features: featuresOf(`${summaryText}\n${m.body}`),
    summary: m.description.trim() === '' ? new Set() : termsOf(summaryText),
    summaryNumbers: featuresOf(summaryText).numbers,
    terms: termsOf(`${summaryText}\n${m.body}`),
  };
}

/** 2·|a ∩ b| / (|a| + |b|) (Dice) over the terms not in `common`: like Jaccard, kinder to two short texts that share a few words. */
function dice(a: ReadonlySet<string>, b: ReadonlySet<string>, common: ReadonlySet<string>): number {
  let sizeA = 0;
  let sizeB = 0;
  let both = 0;
  for (const x of a) {
    if (common.has(x)) continue;
    sizeA++;
    if (b.has(x)) both++;
  }
  for (const x of b) if (!common.has(x)) sizeB++;
  return Math.min(sizeA, sizeB) < MIN_SUMMARY_TERMS ? 0 : (2 * both) / (sizeA + sizeB);
}

/**
 * The summary terms too common in a memory directory to tell two memories apart (in more than a
 * tenth of them, once there are 20): "retro" and "PR" in a folder of retros say nothing — the
 * local ranker drops such terms from queries for the same reason.
 */
export function commonSummaryTerms(prints: readonly MemoryFingerprint[]): Set<string> {
  const common = new Set<string>();
  if (prints.length < 20) return common;
  const df = new Map<string, number>();
  for (const p of prints) for (const t of p.summary) df.set(t, (df.get(t) ?? 0) + 1);
  for (const [t, n] of df) if (n > prints.length * 0.1) common.add(t);
  return common;
}

/** How two memories relate: `exact` and `near` are what a dream merges on its own; `similar` is shown for a person to decide. */
export type DuplicateKind = 'exact' | 'near' | 'similar';

/** A likely duplicate when their summaries (name and description) say this much of each other… */
export const SIMILAR_SUMMARY = 0.5;
/** …or their whole texts share this much of their terms (with equal numbers and the same polarity). */
export const SIMILAR_TEXT = 0.6;
/** Below this many telling terms a summary is too short to call anything a duplicate by itself. */
const MIN_SUMMARY_TERMS = 3;
const NOTHING: ReadonlySet<string> = new Set();

/**
 * The one duplicate rule of the app (dream's merge, Health's list, the editor's warning):
 *   - `exact`: the same body, once case, spacing and markdown are folded;
 *   - `near`: the same type, polarity and numbers, and ≥ {@link NEAR_DUPLICATE} of their words shared
 *     (dream merges these by itself);
 *   - `similar`: the same polarity and the same numbers in name and description, and either their
 *     summaries share much (Dice ≥ {@link SIMILAR_SUMMARY}, in the local ranker's terms — words and,
 *     for Chinese, character pairs, so 回答用中文 meets 用中文回答 — less the terms `common` in the
 *     directory, see {@link commonSummaryTerms}) or their whole texts share ≥ {@link SIMILAR_TEXT} of their terms.
 *     On the 11,000 pairs of real memories in shared/fixtures three pass: one rule written twice (in a
 *     feedback and a user memory), and two log templates that differ in one word.
 * `score` is in [0, 1]; `kind` null when they are not duplicates.
 */
export function compareMemories(
  a: MemoryFingerprint,
  b: MemoryFingerprint,
  common: ReadonlySet<string> = NOTHING,
): { kind: DuplicateKind | null; score: number } {
  if (a.exact.length >= 10 && a.exact === b.exact) return { kind: 'exact', score: 1 };
  const words = jaccard(a.features.words, b.features.words);
  const samePolarity = a.features.negated === b.features.negated;
  if (a.type !== null && a.type === b.type && samePolarity && sameSet(a.features.numbers, b.features.numbers) && words >= NEAR_DUPLICATE)
    return { kind: 'near', score: words };
  const summaries = dice(a.summary, b.summary, common);
  const texts = Math.max(words, jaccard(a.terms, b.terms));
  const alike = summaries >= SIMILAR_SUMMARY || texts >= SIMILAR_TEXT;
  const kind = alike && samePolarity && sameSet(a.summaryNumbers, b.summaryNumbers) ? 'similar' : null;
  return { kind, score: Math.max(summaries, texts) };
}
