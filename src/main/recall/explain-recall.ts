/**
 * Recall that explains itself (issue 14, item 7): for a query and the choice made, every memory's
 * fate in words — chosen (with the model's own reason, or the words it matched), outranked,
 * sharing no words, not offered to the model, already loaded in this session — and the query's
 * words it matched, located in its name and description as they were written (the user's words,
 * never stems), so the playground can highlight them.
 */
import type { RecallExplanation, RecallResult } from '../../shared/recall-types.js';
import { RECALL_MAX_SELECTED } from '../../shared/limits.js';
import type { LocalRanker } from './local-ranker.js';
import { expandQuery } from './synonyms.js';
import { type TermSpan, tokenSpans } from './tokenize.js';

/** A memory as recall saw it. */
interface Candidate {
  file: string;
  name: string;
  description: string;
}

/** At most this many memories are explained one by one; the rest that match nothing are counted. */
const MAX_EXPLAINED = 60;
const MAX_UNMATCHED_LISTED = 60;

function words(text: string, spans: readonly TermSpan[], terms: ReadonlySet<string>): string[] {
  return [...new Set(spans.filter((s) => terms.has(s.term)).map((s) => text.slice(s.start, s.end)))];
}

/** Spans that touch merged into one (数据|库, both matched, read as 数据库). */
function joined(spans: readonly TermSpan[]): TermSpan[] {
  const out: TermSpan[] = [];
  for (const s of [...spans].sort((a, b) => a.start - b.start)) {
    const last = out.at(-1);
    if (last && s.start <= last.end) out[out.length - 1] = { term: last.term, start: last.start, end: Math.max(last.end, s.end) };
    else out.push({ ...s });
  }
  return out;
}

function ordinal(n: number): string {
  const tail = n % 100 >= 11 && n % 100 <= 13 ? 'th' : (({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[n % 10] ?? 'th');
  return `${n}${tail}`;
}

/** The explanation of `result` (see the file comment). `offered`: the files the model saw (null: all of them). */
export function explainRecall(input: {
  query: string;
  candidates: readonly Candidate[];
  ranker: LocalRanker;
  result: RecallResult;
  offered: ReadonlySet<string> | null;
  excluded: ReadonlySet<string>;
}): RecallExplanation {
  const { query, ranker, result } = input;
  const options = ranker.tokenizeOptions;
  const { terms, expanded } = ranker.analyzeQuery(query);
  const ranked = ranker.search(query, { limit: Number.MAX_SAFE_INTEGER }).filter((r) => !input.excluded.has(r.file));
  const byFile = new Map(ranked.map((r, i) => [r.file, { ...r, rank: i + 1 }]));
  const cutoff = ranked[Math.min(RECALL_MAX_SELECTED, ranked.length) - 1]?.score ?? null;
  const chosen = new Map(result.selected.map((s) => [s.file, s]));

  // Each query word, and the memory words it can meet (itself, its stem, its synonyms).
  const querySpans = tokenSpans(query, options);
  const expansionsOf = new Map(terms.map((t) => [t, new Set([t, ...expandQuery(t, [t], options).filter((e) => expanded.includes(e))])]));
  const queryWords = terms.map((term) => ({
    term,
    words: words(query, querySpans, new Set([term])),
    synonyms: [...(expansionsOf.get(term) ?? [])].filter((e) => e !== term),
  }));

  const explained: RecallExplanation['candidates'] = [];
  const unmatched: string[] = [];
  const ordered = [...input.candidates].sort((a, b) => {
    const ra = chosen.has(a.file) ? -1 : (byFile.get(a.file)?.rank ?? Number.MAX_SAFE_INTEGER);
    const rb = chosen.has(b.file) ? -1 : (byFile.get(b.file)?.rank ?? Number.MAX_SAFE_INTEGER);
    return ra - rb;
  });
  for (const c of ordered) {
    const hit = byFile.get(c.file);
    const matchedTerms = new Set(hit?.matchedTerms ?? []);
    const pick = chosen.get(c.file);
    if (!hit && !pick && !input.excluded.has(c.file)) {
      unmatched.push(c.file);
      continue;
    }
    if (explained.length >= MAX_EXPLAINED && !pick) {
      if (!hit) unmatched.push(c.file);
      continue;
    }
    const nameSpans = tokenSpans(c.name, options).filter((s) => matchedTerms.has(s.term));
    const descriptionSpans = tokenSpans(c.description, options).filter((s) => matchedTerms.has(s.term));
    const matched = queryWords
      .filter((q) => [...(expansionsOf.get(q.term) ?? [q.term])].some((t) => matchedTerms.has(t)))
      .map((q) => {
        const own = [...(expansionsOf.get(q.term) ?? [q.term])].filter((t) => matchedTerms.has(t));
        const inField = (spans: TermSpan[], text: string) => joined(spans.filter((s) => own.includes(s.term))).map((s) => text.slice(s.start, s.end));
        const memoryWords = [...new Set([...inField(nameSpans, c.name), ...inField(descriptionSpans, c.description)])];
        const elsewhere = hit?.fields.includes('body') ? '(the start of its text)' : '(its file name)';
        return { query: q.words.join(' / ') || q.term, memory: memoryWords.length > 0 ? memoryWords : [elsewhere], synonym: !own.includes(q.term) };
      });
    const matchedText = matched.map((m) => `“${m.query}”${m.synonym ? ' (as a synonym)' : ''}`).join(', ');
    let fate: RecallExplanation['candidates'][number]['fate'];
    let reason: string;
    if (pick) {
      fate = 'chosen';
      reason =
        result.method === 'model'
          ? pick.reason
            ? `The model chose it: ${pick.reason}`
            : 'The model chose it, without saying why.'
          : `Chosen by the local ranker (rank ${hit?.rank ?? '?'}, score ${hit ? hit.score.toFixed(2) : '—'})${matched.length ? `: it matches ${matchedText}` : ''}.`;
    } else if (input.excluded.has(c.file)) {
      fate = 'already-loaded';
      reason = 'Excluded: it was already recalled earlier in this session, and a session never loads a memory twice.';
    } else if (result.method === 'model' && input.offered && !input.offered.has(c.file)) {
      fate = 'not-offered';
      reason = 'Not in the manifest the model saw: the manifest was too long and was cut to the best local matches and the most recently changed memories.';
    } else if (result.method === 'model') {
      fate = 'not-chosen';
      reason = `The model did not choose it. The local ranker ${hit ? `ranks it ${ordinal(hit.rank)}${matched.length ? `, matching ${matchedText}` : ''}` : 'finds no word of the query in it'}.`;
    } else {
      fate = 'outranked';
      reason = `Outranked: it ranks ${ordinal(hit!.rank)} (score ${hit!.score.toFixed(2)}${cutoff !== null ? ` against ${cutoff.toFixed(2)} for the ${ordinal(Math.min(RECALL_MAX_SELECTED, ranked.length))}` : ''}); only ${RECALL_MAX_SELECTED} are loaded.${matched.length ? ` It matches ${matchedText}.` : ''}`;
    }
    explained.push({
      file: c.file,
      name: c.name,
      description: c.description,
      fate,
      reason,
      rank: hit?.rank ?? null,
      score: hit ? hit.score : null,
      matched,
      highlights: [
        ...joined(nameSpans).map((s) => ({ field: 'name' as const, start: s.start, end: s.end })),
        ...joined(descriptionSpans).map((s) => ({ field: 'description' as const, start: s.start, end: s.end })),
      ],
    });
  }
  return {
    queryWords,
    candidates: explained,
    unmatched: {
      count: unmatched.length,
      files: unmatched.slice(0, MAX_UNMATCHED_LISTED),
      reason:
        terms.length + expanded.length === 0
          ? 'The query has no searchable words.'
          : `${unmatched.length === 1 ? 'It shares' : 'They share'} no word of the query (nor a synonym) in name, description, file name or the start of the text: below the local ranker's threshold of one shared word.`,
    },
  };
}
