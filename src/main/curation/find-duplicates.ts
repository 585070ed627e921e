/**
 * Near-duplicate memories of a memory directory (issue 14: the same fact said twice, in English
 * or Chinese), by the app's one rule (`compareMemories`): listed in Health side by side, and
 * checked while a memory is edited. No model needed; pairs are found through the terms they
 * share, so a directory of thousands is not compared all against all.
 */
import path from 'node:path';
import fs from 'node:fs';
import type { MemorySummary } from '../../shared/scan-types.js';
import { parseTopicFile, readMemoryText } from '../memdir/index.js';
import { type DuplicateKind, type MemoryFingerprint, type SimilarityInput, commonSummaryTerms, compareMemories, fingerprintOf } from './memory-similarity.js';
import { splitTopicText } from './merge-memories.js';

/** A memory with its text, as the finder reads it. */
export interface DuplicateMemory extends SimilarityInput {
  file: string;
  /** The whole file (a merge checks it did not change since it was shown). */
  text: string;
  mtimeMs: number;
}

/** Two memories that say the same thing. */
export interface DuplicatePair {
  /** The two files, the one to keep first (the older, else the longer). */
  files: [string, string];
  kind: DuplicateKind;
  score: number;
}

/** Terms found in more memories than this share are too common to suggest a pair. */
const COMMON_SHARE = 0.05;
const COMMON_MIN = 20;
const COMMON_MAX = 100;

/** Read the topic files of a scan (bodies included) for the finder; unreadable ones are left out. */
export function readDuplicateMemories(memoryDir: string, memories: readonly MemorySummary[]): DuplicateMemory[] {
  const out: DuplicateMemory[] = [];
  for (const m of memories) {
    const abs = path.join(memoryDir, m.file);
    const isLink = fs.lstatSync(abs, { throwIfNoEntry: false })?.isSymbolicLink() ?? false;
    const outcome = readMemoryText(memoryDir, abs, isLink);
    if (!outcome.ok) continue;
    const topic = parseTopicFile(outcome.text, m.file);
    out.push({
      file: m.file,
      name: topic.meta.name,
      description: topic.meta.description,
      type: topic.meta.type,
      body: splitTopicText(outcome.text).body,
      text: outcome.text,
      mtimeMs: m.mtimeMs,
    });
  }
  return out;
}

/** Every pair of duplicates among `memories`, most alike first. */
export function findDuplicatePairs(memories: readonly DuplicateMemory[]): DuplicatePair[] {
  const prints = memories.map((m) => fingerprintOf(m));
  const postings = new Map<string, number[]>();
  prints.forEach((p, i) => {
    for (const t of new Set([...p.terms, ...p.summary])) {
      const list = postings.get(t);
      if (list) list.push(i);
      else postings.set(t, [i]);
    }
  });
  const limit = Math.min(COMMON_MAX, Math.max(COMMON_MIN, memories.length * COMMON_SHARE));
  const seen = new Set<number>();
  const candidates: [number, number][] = [];
  const consider = (i: number, j: number) => {
    const key = i * memories.length + j;
    if (seen.has(key)) return;
    seen.add(key);
    candidates.push([i, j]);
  };
  for (const list of postings.values()) {
    if (list.length < 2 || list.length > limit) continue;
    for (let x = 0; x < list.length; x++) for (let y = x + 1; y < list.length; y++) consider(list[x]!, list[y]!);
  }
  // Exact copies share every term, however common.
  const byBody = new Map<string, number[]>();
  prints.forEach((p, i) => p.exact.length >= 10 && byBody.set(p.exact, [...(byBody.get(p.exact) ?? []), i]));
  for (const list of byBody.values()) for (let x = 0; x < list.length; x++) for (let y = x + 1; y < list.length; y++) consider(list[x]!, list[y]!);

  const common = commonSummaryTerms(prints);
  const pairs: DuplicatePair[] = [];
  for (const [i, j] of candidates) {
    const { kind, score } = compareMemories(prints[i]!, prints[j]!, common);
    if (!kind) continue;
    const a = memories[i]!;
    const b = memories[j]!;
    const aFirst = a.mtimeMs !== b.mtimeMs ? a.mtimeMs < b.mtimeMs : a.body.length !== b.body.length ? a.body.length > b.body.length : a.file < b.file;
    pairs.push({ files: aFirst ? [a.file, b.file] : [b.file, a.file], kind, score });
  }
  const rank = { exact: 0, near: 1, similar: 2 } as const;
  return pairs.sort((x, y) => rank[x.kind] - rank[y.kind] || y.score - x.score || (x.files[0] < y.files[0] ? -1 : 1));
}

/** A memory that a draft repeats. */
export interface SimilarMemory {
  file: string;
  name: string;
  description: string;
  kind: DuplicateKind;
  score: number;
}

/** The memories a draft (new or edited) would repeat, most alike first; `self` is left out. */
export function findSimilar(
  draft: SimilarityInput,
  memories: readonly (SimilarityInput & { file: string })[],
  self: string | null = null,
  fingerprints?: ReadonlyMap<string, MemoryFingerprint>,
): SimilarMemory[] {
  const mine = fingerprintOf(draft);
  const prints = memories.map((m) => fingerprints?.get(m.file) ?? fingerprintOf(m));
  const common = commonSummaryTerms(prints);
  const out: SimilarMemory[] = [];
  for (const [i, m] of memories.entries()) {
    if (m.file === self) continue;
    const { kind, score } = compareMemories(mine, prints[i]!, common);
    if (kind) out.push({ file: m.file, name: m.name, description: m.description, kind, score });
  }
  return out.sort((a, b) => b.score - a.score).slice(0, 5);
}
