/**
 * R-DREAM-PHASES, Consolidate without a model: deterministic rules, the same result every run.
 *   - relative dates → absolute (relative-dates.ts), each anchored at when its text was written:
 *     the transcript line that said it (found by Gather), else the file's frontmatter date
 *     (`modified`, else `created`), else the file's mtime;
 *   - exact and near-duplicate memories merged (private memory only: a team memory deleted
 *     locally comes back with the next pull, SPEC R-SYNC), the keeper's body gaining what the
 *     other said and a list of both sources;
 *   - date-bound facts whose dates have all passed flagged as stale;
 *   - contradictions between memories flagged for the user;
 *   - signal from the transcripts that no memory holds yet listed for the user.
 * Flags change nothing: deciding what is true is the user's (or the model's) call.
 */
import type { DreamFlag } from '../../../shared/contract/dream.js';
import { INDEX_FILE } from '../../../shared/limits.js';
import { indexEntries, parseIndex } from '../../../shared/index-format.js';
import type { MemoryType } from '../../../shared/memory-types.js';
import { tokenize } from '../../recall/index.js';
import { parseTopicFile, serializeTopicFile } from '../../memdir/index.js';
import type { DreamPlan } from './dream-plan.js';
import type { AnchorHit, AnchorQuery, GatheredSignal } from './gather.js';
import { type SnapshotFile, readableTopics } from './memory-snapshot.js';
import {
  type MemoryFingerprint,
  compareMemories,
  composeMerge,
  disagreement,
  featuresOf,
  fingerprintOf,
  jaccard,
  sentencesOf,
  splitTopicText,
} from '../../curation/index.js';
import { findAbsoluteDays, isoDay } from '../../../shared/day-dates.js';
import { absolutizeDates, findRelativeDates, sentenceAround } from './relative-dates.js';

/** Key of an anchor query: which file, which field, where in it. */
function anchorKey(rel: string, field: 'description' | 'body', index: number): string {
  return `${rel}|${field}|${index}`;
}

function salientWords(sentence: string, phrase: string): string[] {
  const rest = sentence.replace(phrase, ' ');
  const words = tokenize(rest, { stem: false, stopwords: true, cjkBigrams: false }).filter((w) => !/^\d+$/.test(w) && w.length >= 2);
  return [...new Set(words)].sort((a, b) => b.length - a.length).slice(0, 6);
}

/** What Gather must look up: every sentence of a memory that holds a relative date. */
export function anchorQueriesOf(topics: readonly SnapshotFile[]): AnchorQuery[] {
  const queries: AnchorQuery[] = [];
  for (const f of topics) {
    if (!f.topic || f.text === null) continue;
    const fields: ['description' | 'body', string][] = [
      ['description', f.topic.meta.description],
      ['body', splitTopicText(f.text).body],
    ];
    for (const [field, text] of fields) {
      for (const p of findRelativeDates(text)) {
        const sentence = sentenceAround(text, p.index, p.end);
        queries.push({
          key: anchorKey(f.rel, field, p.index),
          phrase: p.text,
          words: salientWords(sentence, p.text),
          notAfterMs: f.mtimeMs,
          sessionId: f.topic.meta.originSessionId,
        });
      }
    }
  }
  return queries;
}

/** When the text of a file was written, per R-DREAM-PHASES: its frontmatter date, else its mtime. */
export function fileWrittenAt(f: SnapshotFile): { at: Date; from: string } {
  const meta = f.topic?.meta;
  for (const [value, from] of [
    [meta?.modified, 'its frontmatter date (modified)'],
    [meta?.created, 'its frontmatter date (created)'],
  ] as const) {
    if (!value) continue;
    const ms = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T12:00:00` : value);
    if (!Number.isNaN(ms)) return { at: new Date(ms), from };
  }
  return { at: new Date(f.mtimeMs), from: 'the file’s modification time' };
}

/** Options of {@link consolidateWithRules}. */
export interface RulesOptions {
  anchors: ReadonlyMap<string, AnchorHit>;
  signals: readonly GatheredSignal[];
  /** "Now", for stale facts and the merge note. */
  now: Date;
}

/** What the rules did besides staging changes. */
export interface RulesResult {
  flags: DreamFlag[];
  /** Merged-away file → keeper (relative paths), for Prune to retarget pointers. */
  retarget: Map<string, string>;
  /** Files flagged stale (relative paths): Prune loads them last. */
  stale: Set<string>;
  /** Old → new description of files whose description changed (Prune refreshes hooks that mirrored it). */
  descriptions: Map<string, { from: string; to: string }>;
  /** Dates resolved, for the report. */
  dates: { file: string; from: string; to: string; anchor: string }[];
}

/** Relative dates → absolute, in the description and body of every readable topic. */
function fixDates(plan: DreamPlan, opts: RulesOptions, result: RulesResult): void {
  for (const f of readableTopics(plan.snapshot)) {
    const written = fileWrittenAt(f);
    const anchorFor =
      (field: 'description' | 'body') =>
      (phrase: { index: number }): Date => {
        const hit = opts.anchors.get(anchorKey(f.rel, field, phrase.index));
        return hit ? new Date(hit.timeMs) : written.at;
      };
    const describe = (field: 'description' | 'body', index: number): string => {
      const hit = opts.anchors.get(anchorKey(f.rel, field, index));
      return hit ? `said in session ${hit.sessionId} at ${new Date(hit.timeMs).toISOString()}` : `written ${isoDay(written.at)}, from ${written.from}`;
    };
    const oldDescription = f.topic.meta.description;
    const desc = absolutizeDates(oldDescription, anchorFor('description'));
    const { head, body } = splitTopicText(f.text);
    const newBody = absolutizeDates(body, anchorFor('body'));
    if (desc.resolved.length === 0 && newBody.resolved.length === 0) continue;
    let text = head + newBody.text;
    if (desc.resolved.length > 0) {
      if (f.topic.meta.type === null) {
        // Without a valid type the frontmatter cannot be rewritten safely; the body still is.
        desc.resolved.length = 0;
      } else {
        text = serializeTopicFile({ name: f.topic.meta.name, description: desc.text, type: f.topic.meta.type }, newBody.text, f.text);
        result.descriptions.set(f.rel, { from: oldDescription, to: desc.text });
      }
    }
    const all = [...desc.resolved.map((r) => ({ r, field: 'description' as const })), ...newBody.resolved.map((r) => ({ r, field: 'body' as const }))];
    if (all.length === 0) continue;
    for (const { r, field } of all) result.dates.push({ file: f.rel, from: r.text, to: r.replacement, anchor: describe(field, r.index) });
    const said = [...new Set(all.map(({ r, field }) => `"${r.text}" → ${r.replacement} (${describe(field, r.index)})`))].join('; ');
    plan.write(f.rel, text, { kind: 'dates', reason: `Relative dates made absolute: ${said}.` });
  }
}

interface Candidate {
  rel: string;
  name: string;
  type: MemoryType;
  description: string;
  body: string;
  text: string;
  session: string | null;
  indexPos: number;
  fingerprint: MemoryFingerprint;
}

/** Exact and near-duplicate memories of the private scope merged into one. */
function mergeDuplicates(plan: DreamPlan, opts: RulesOptions, result: RulesResult): void {
  const indexText = plan.text(INDEX_FILE);
  const order = new Map<string, number>();
  if (indexText !== null) indexEntries(parseIndex(indexText)).forEach((e, i) => !order.has(e.file) && order.set(e.file, i));
  const candidates: Candidate[] = [];
  for (const rel of plan.topicRels('private')) {
    const text = plan.text(rel);
    const snap = plan.snapshot.files.get(rel);
    if (text === null || (snap && snap.text === null)) continue;
    const topic = parseTopicFile(text, rel);
    if (topic.meta.type === null) continue;
    const body = splitTopicText(text).body;
    candidates.push({
      rel,
      name: topic.meta.name,
      type: topic.meta.type,
      description: topic.meta.description,
      body,
      text,
      session: topic.meta.originSessionId,
      indexPos: order.get(rel) ?? Number.MAX_SAFE_INTEGER,
      fingerprint: fingerprintOf({ name: topic.meta.name, description: topic.meta.description, body, type: topic.meta.type }),
    });
  }
  // Union-find over duplicate pairs.
  const parent = candidates.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
  const how = new Map<string, 'exact' | 'near'>();
  for (let i = 0; i < candidates.length; i++) {
    for (let j = i + 1; j < candidates.length; j++) {
      const a = candidates[i]!;
      const b = candidates[j]!;
      if (a.type !== b.type) continue;
      // The app's one duplicate rule; a dream merges by itself only what it calls exact or near.
      const { kind } = compareMemories(a.fingerprint, b.fingerprint);
      if (kind !== 'exact' && kind !== 'near') continue;
      how.set(`${i}|${j}`, kind);
      parent[find(j)] = find(i);
    }
  }
  const groups = new Map<number, number[]>();
  candidates.forEach((_, i) => groups.set(find(i), [...(groups.get(find(i)) ?? []), i]));
  for (const members of groups.values()) {
    if (members.length < 2) continue;
    const sorted = members
      .map((i) => candidates[i]!)
      .sort((a, b) => a.indexPos - b.indexPos || b.body.length - a.body.length || (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
    const keeper = sorted[0]!;
    const others = sorted.slice(1);
    const kinds = new Set(
      members.flatMap((i) =>
        members
          .filter((j) => j > i)
          .map((j) => how.get(`${i}|${j}`))
          .filter(Boolean),
      ),
    );
    const kind = kinds.has('near') ? 'near-duplicate' : 'exact duplicate';
    const { text, added } = composeMerge(keeper, others, { now: opts.now, by: 'dream' });
    const group = `merge:${keeper.rel}`;
    const names = others.map((o) => o.rel).join(', ');
    plan.write(keeper.rel, text, {
      kind: 'merge',
      group,
      reason: `Merged ${names} into it (${kind}${added > 0 ? `; ${added} paragraph(s) they added kept` : ''}), listing both sources.`,
    });
    for (const other of others) {
      plan.remove(other.rel, {
        kind: 'merge',
        group,
        reason: `${kind === 'exact duplicate' ? 'Exact' : 'Near'} duplicate of ${keeper.rel}, merged into it (its content and source are kept there).`,
      });
      result.retarget.set(other.rel, keeper.rel);
    }
  }
}

/** Words that make a dated sentence about the future (a deadline, a release), so it can pass. */
const FORWARD =
  /\b(?:starts?|starting|until|till|by|due|deadline|releases?|released|cutover|freeze|launch(?:es)?|ships?|shipping|expires?|scheduled|planned|next|upcoming|will|before|after)\b|开始|截止|之前|以前|发布|上线|冻结|到期|计划|下一次|下次|届时|将/i;

/** Date-bound facts whose dates have all passed. */
function flagStale(plan: DreamPlan, opts: RulesOptions, result: RulesResult): void {
  const today = isoDay(opts.now);
  for (const scope of ['private', 'team'] as const) {
    for (const rel of plan.topicRels(scope)) {
      const text = plan.text(rel);
      if (text === null) continue;
      const topic = parseTopicFile(text, rel);
      if (topic.meta.type !== 'project' && topic.meta.type !== 'reference') continue;
      const all = `${topic.meta.description}\n${splitTopicText(text).body}`;
      const days = findAbsoluteDays(all);
      if (days.length === 0) continue;
      const latest = days
        .map((d) => d.day)
        .sort()
        .at(-1)!;
      if (latest >= today) continue;
      const forward = days.find((d) => FORWARD.test(sentenceAround(all, d.index, d.end)));
      if (!forward) continue;
      result.stale.add(rel);
      const sentence = sentenceAround(all, forward.index, forward.end);
      result.flags.push({
        kind: 'stale',
        files: [rel],
        message: `${rel}: "${sentence.slice(0, 160)}" — every date it gives has passed (the latest, ${latest}); check whether it still holds, then update or retire it.`,
      });
    }
  }
}

/** Statements of two memories that disagree. */
function flagContradictions(plan: DreamPlan, result: RulesResult): void {
  const merged = new Set(result.retarget.keys());
  const docs = (['private', 'team'] as const).flatMap((scope) =>
    plan
      .topicRels(scope)
      .filter((rel) => !merged.has(rel))
      .map((rel) => {
        const text = plan.text(rel) ?? '';
        const topic = parseTopicFile(text, rel);
        const all = `${topic.meta.description}\n${splitTopicText(text).body}`;
        return { rel, sentences: sentencesOf(all).filter((s) => !s.startsWith('_Merged') && !s.startsWith('`')), words: featuresOf(all).words };
      }),
  );
  let count = 0;
  for (let i = 0; i < docs.length && count < 20; i++) {
    for (let j = i + 1; j < docs.length && count < 20; j++) {
      const a = docs[i]!;
      const b = docs[j]!;
      if (jaccard(a.words, b.words) < 0.1) continue;
      outer: for (const sa of a.sentences) {
        for (const sb of b.sentences) {
          const d = disagreement(sa, sb);
          if (!d) continue;
          result.flags.push({
            kind: 'contradiction',
            files: [a.rel, b.rel],
            message: `${a.rel} and ${b.rel} may contradict each other (${d.why}): "${sa.slice(0, 140)}" vs "${sb.slice(0, 140)}". Decide which holds and fix the other.`,
          });
          count++;
          break outer;
        }
      }
    }
  }
}

const SIGNAL_FILLER = new Set([
  'remember',
  'rememb',
  'heads',
  'note',
  'noted',
  'please',
  'always',
  'never',
  'prefer',
  'want',
  'like',
  'keep',
  'mind',
  '记住',
  '以后',
  '希望',
  '喜欢',
]);

/** Signal from the transcripts that no memory covers yet. */
function flagNewSignal(plan: DreamPlan, opts: RulesOptions, result: RulesResult): void {
  const memories = (['private', 'team'] as const).flatMap((scope) => plan.topicRels(scope).map((rel) => featuresOf(plan.text(rel) ?? '').words));
  let shown = 0;
  for (const s of opts.signals) {
    if (shown >= 10) break;
    if (s.role !== 'user' || s.categories.every((c) => c === 'date' || c === 'reference')) continue;
    // The date phrases and filler of a request ("remember that…") say nothing about the subject.
    const plain = findRelativeDates(s.text).reduceRight((t, p) => t.slice(0, p.index) + ' ' + t.slice(p.end), s.text);
    const words = new Set([...featuresOf(plain).words].filter((w) => !SIGNAL_FILLER.has(w)));
    if (words.size < 3) continue;
    const covered = Math.max(0, ...memories.map((m) => [...words].filter((w) => m.has(w)).length / words.size));
    if (covered >= 0.5) continue;
    shown++;
    result.flags.push({
      kind: 'signal',
      files: [],
      message: `[${s.categories.join(', ')}] ${s.time ? `${s.time.slice(0, 10)} ` : ''}session ${s.sessionId}: "${s.text.slice(0, 200)}" — not in any memory yet.`,
    });
  }
}

/** Runs the offline rules on the plan (staging their changes) and returns their flags. */
export function consolidateWithRules(plan: DreamPlan, opts: RulesOptions): RulesResult {
  const result: RulesResult = { flags: [], retarget: new Map(), stale: new Set(), descriptions: new Map(), dates: [] };
  fixDates(plan, opts, result);
  mergeDuplicates(plan, opts, result);
  flagStale(plan, opts, result);
  flagContradictions(plan, result);
  flagNewSignal(plan, opts, result);
  return result;
}

/** Flags only (stale and contradictions), for the state a model left: the user sees both either way. */
export function flagsOnly(plan: DreamPlan, now: Date): Pick<RulesResult, 'flags' | 'stale'> {
  const result: RulesResult = { flags: [], retarget: new Map(), stale: new Set(), descriptions: new Map(), dates: [] };
  flagStale(plan, { anchors: new Map(), signals: [], now }, result);
  flagContradictions(plan, result);
  return { flags: result.flags, stale: result.stale };
}
