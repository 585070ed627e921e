/**
 * The local ranker (SPEC §3): BM25 (MiniSearch's BM25+) over each memory's name and
 * description — the same frontmatter the model selector sees — plus the words of its file
 * name, CJK-aware (tokenize.ts). Used offline and whenever the model fails. One instance per
 * memory directory, kept current one file at a time (`upsert`/`remove`, or `sync` after a
 * rescan) so a change never rebuilds the index.
 *
 * Beyond plain BM25, each measured on two labelled sets (bench/scenarios/recall.ts) — the first
 * written alongside the ranker, the second paraphrases over real memory directories written
 * without looking at it — and kept only where it helped: stopwords, light English stemming,
 * file-name words, bilingual synonym expansion, CJK character pairs and (weighing a fifth) lone
 * Han characters, field weights, and the lead of each body at a low weight. On the paraphrases
 * those last four took recall@5 from 0.75 to 0.92 while the first set stayed at 0.961 (its MRR
 * fell from 0.88 to 0.84). Query-intent type priors are off. `features` switches each.
 */
import MiniSearch, { type SearchResult } from 'minisearch';
import { RECALL_MAX_SELECTED } from '../../shared/limits.js';
import type { MemoryType } from '../../shared/memory-types.js';
import { EXPANSION_WEIGHT, expandQuery } from './synonyms.js';
import { type TokenizeOptions, isCjk, tokenize } from './tokenize.js';

/** What the ranker needs of a memory (a scan's MemorySummary has all of it but the body). */
export interface RankableMemory {
  /** Path relative to the memory dir; the document id. */
  file: string;
  name: string;
  description: string;
  type: MemoryType | null;
  /** Its lead is indexed (`bodyLead`), all of it with `searchBodies`; absent, only the frontmatter counts. */
  body?: string;
}

/** Switches for each improvement over plain BM25 (all on by default). */
export interface RankerFeatures {
  /** English plural/-ing/-ed folding. */
  stemming: boolean;
  /** CJK character pairs besides segmenter words. */
  cjkBigrams: boolean;
  /** Han characters alone besides segmenter words (繁體 meets 簡體 on 體, 推送 meets 推到 on 推). */
  cjkUnigrams: boolean;
  stopwords: boolean;
  /** name ×2, file-name words ×0.5 (else name, description and file words all ×1). */
  fieldWeights: boolean;
  /** Index the words of the file name (`feedback_no_orm.md` → feedback, no, orm). */
  fileNameField: boolean;
  /** English ↔ Chinese synonym expansion of the query. */
  synonyms: boolean;
  /** Favour memory types the query asks about ("where is…" → reference, "prefer" → user/feedback). */
  typePriors: boolean;
  /** Index the first {@link BODY_LEAD} characters of the body, at a low weight: what a memory says, beyond how it is titled. */
  bodyLead: boolean;
}

/** How much of a body its lead is: the first paragraph or two, where a memory states its fact. */
export const BODY_LEAD = 600;

/**
 * What ships: the features that raised recall@5 on either labelled set without lowering it on
 * the other (bench `recall` keeps every figure). Type priors did not help and are off.
 */
export const DEFAULT_FEATURES: RankerFeatures = {
  stemming: true,
  cjkBigrams: true,
  cjkUnigrams: true,
  stopwords: true,
  fieldWeights: true,
  fileNameField: true,
  synonyms: true,
  typePriors: false,
  bodyLead: true,
};

/**
 * Synonym expansions found in more than this share of memories (and in more than
 * EXPANSION_MIN_DF of them) are skipped: they barely move BM25 (low IDF) yet cost the most to
 * score, and on a large memory dir they made the query p95 miss its 5 ms budget.
 */
const EXPANSION_MAX_DF_SHARE = 0.05;
const EXPANSION_MIN_DF = 50;
/**
 * In a large memory dir (≥ COMMON_TERM_MIN_DOCS) a query word found in more than this share of
 * memories is dropped, as long as another word remains — a corpus-level stopword (Lucene's
 * common-terms query does the same with far lower cut-offs). Its IDF is low, so it barely
 * changes the order, but scoring its thousands of postings dominated query time at 10k.
 */
const COMMON_TERM_MAX_DF_SHARE = 0.1;
const COMMON_TERM_MIN_DOCS = 1_000;

/** Options of a LocalRanker. */
export interface LocalRankerOptions {
  /** Index memory bodies too (off by default: mirror the selector, which sees frontmatter). */
  searchBodies?: boolean;
  features?: Partial<RankerFeatures>;
}

/** One ranked memory. */
export interface RankedMemory {
  file: string;
  /** BM25 score (with boosts), to three decimals; comparable within one query only. */
  score: number;
  /** Query terms (or their expansions) found in this memory. */
  matchedTerms: string[];
  /** Fields they were found in. */
  fields: string[];
}

/** "Why not this one?": how a given memory fared for a query. */
import type { RankExplanation } from '../../shared/recall-types.js';

export type { RankExplanation };

interface Doc {
  id: string;
  name: string;
  description: string;
  fileWords: string;
  body: string;
  type: MemoryType | null;
}

/** Words of a file name: no extension, no type prefix, split on separators and camelCase. */
export function fileNameWords(file: string): string {
  const base = (file.split('/').pop() ?? file).replace(/\.md$/i, '');
  return base
    .replace(/^(user|feedback|project|reference)[_-]/i, '')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/[_\-.]+/g, ' ');
}

const INTENTS: { type: MemoryType; cues: RegExp }[] = [
  { type: 'reference', cues: /\b(where|link|url|dashboard|docs?|wiki|runbook|board|page|channel|find)\b|在哪|链接|地址|文档|看板|仪表盘|频道|入口|网址/i },
  { type: 'user', cues: /\b(i am|i'm|my role|who am i|my background|my experience|about me|prefer|preference)\b|我是|我的|背景|角色|偏好|喜欢|习惯/i },
  {
    type: 'feedback',
    cues: /\b(should|shouldn't|never|always|avoid|don't|rule|convention|style|allowed|prefer)\b|不要|别|必须|总是|应该|规则|规范|风格|可以用|能不能|允许/i,
  },
  {
    type: 'project',
    cues: /\b(deadline|when|decided|decision|why|status|launch|freeze|milestone|plan)\b|截止|决定|为什么|计划|上线|发布|冻结|里程碑|进度|状态/i,
  },
];
const TYPE_PRIOR = 1.3;
/** A lone Han character says less than a word: it counts this much. */
const UNIGRAM_WEIGHT = 0.2;

const SEP = '\u0001';

/** A BM25 index over one memory directory's frontmatter. */
export class LocalRanker {
  readonly features: RankerFeatures;
  readonly searchBodies: boolean;
  /** How this ranker tokenises (explanations locate matched words with the same options). */
  readonly tokenizeOptions: TokenizeOptions;
  private readonly index: MiniSearch<Doc>;
  /** What each indexed memory looked like, to skip unchanged ones in `sync`. */
  private readonly signatures = new Map<string, string>();
  private readonly docs = new Map<string, Doc>();
  /** Terms of each indexed memory, and how many memories hold each term (for expansion pruning). */
  private readonly docTerms = new Map<string, string[]>();
  private readonly docFreq = new Map<string, number>();
  /** Tokens computed in toDoc(), handed to MiniSearch's tokenize() so no text is split twice. */
  private readonly pendingTokens = new Map<string, string[]>();

  constructor(options: LocalRankerOptions = {}) {
    this.features = { ...DEFAULT_FEATURES, ...options.features };
    this.searchBodies = options.searchBodies ?? false;
    this.tokenizeOptions = {
      stem: this.features.stemming,
      cjkBigrams: this.features.cjkBigrams,
      cjkUnigrams: this.features.cjkUnigrams,
      stopwords: this.features.stopwords,
    };
    this.index = this.createIndex();
  }

  private createIndex(): MiniSearch<Doc> {
    const fields = ['name', 'description'];
    if (this.features.fileNameField) fields.push('fileWords');
    if (this.searchBodies || this.features.bodyLead) fields.push('body');
    const options = this.tokenizeOptions;
    return new MiniSearch<Doc>({
      fields,
      // Stored fields are copied into every result: only the type priors need them.
      storeFields: this.features.typePriors ? ['type'] : [],
      tokenize: (text) => this.pendingTokens.get(text) ?? tokenize(text, options),
      // Terms come out of tokenize() already normalised.
      processTerm: (term) => term,
      searchOptions: {
        // Queries arrive as pre-tokenised terms joined by SEP (see search()).
        tokenize: (text) => text.split(SEP).filter(Boolean),
        processTerm: (term) => term,
        combineWith: 'OR',
      },
    });
  }

  /** Number of memories indexed. */
  get size(): number {
    return this.docs.size;
  }

  has(file: string): boolean {
    return this.docs.has(file);
  }

  private toDoc(memory: RankableMemory): Doc {
    return {
      id: memory.file,
      name: memory.name ?? '',
      description: memory.description ?? '',
      fileWords: this.features.fileNameField ? fileNameWords(memory.file) : '',
      body: this.searchBodies ? (memory.body ?? '') : this.features.bodyLead ? (memory.body ?? '').trimStart().slice(0, BODY_LEAD) : '',
      type: memory.type,
    };
  }

  /** Tokenise a document's fields once: for MiniSearch (via pendingTokens) and for docFreq. */
  private prepare(doc: Doc): void {
    const terms = new Set<string>();
    for (const text of [doc.name, doc.description, doc.fileWords, doc.body]) {
      if (!text) continue;
      let tokens = this.pendingTokens.get(text);
      if (!tokens) {
        tokens = tokenize(text, this.tokenizeOptions);
        this.pendingTokens.set(text, tokens);
      }
      for (const t of tokens) terms.add(t);
    }
    this.forgetTerms(doc.id);
    const list = [...terms];
    this.docTerms.set(doc.id, list);
    for (const t of list) this.docFreq.set(t, (this.docFreq.get(t) ?? 0) + 1);
  }

  private forgetTerms(id: string): void {
    for (const t of this.docTerms.get(id) ?? []) {
      const n = (this.docFreq.get(t) ?? 1) - 1;
      if (n <= 0) this.docFreq.delete(t);
      else this.docFreq.set(t, n);
    }
    this.docTerms.delete(id);
  }

  private signature(memory: RankableMemory): string {
    return JSON.stringify([memory.name, memory.description, memory.type, this.searchBodies || this.features.bodyLead ? (memory.body ?? '') : '']);
  }

  /** Index many memories at once (a fresh ranker). */
  addAll(memories: readonly RankableMemory[]): void {
    const fresh: Doc[] = [];
    const known: RankableMemory[] = [];
    for (const memory of memories) {
      if (this.docs.has(memory.file)) {
        known.push(memory);
        continue;
      }
      const doc = this.toDoc(memory);
      this.prepare(doc);
      this.docs.set(doc.id, doc);
      this.signatures.set(doc.id, this.signature(memory));
      fresh.push(doc);
    }
    try {
      this.index.addAll(fresh);
    } finally {
      this.pendingTokens.clear();
    }
    for (const memory of known) this.upsert(memory);
  }

  /** Add one memory or replace its previous version (a file was created or changed). */
  upsert(memory: RankableMemory): void {
    const doc = this.toDoc(memory);
    this.prepare(doc);
    try {
      if (this.docs.has(doc.id)) this.index.replace(doc);
      else this.index.add(doc);
    } finally {
      this.pendingTokens.clear();
    }
    this.docs.set(doc.id, doc);
    this.signatures.set(doc.id, this.signature(memory));
  }

  /** Forget one memory (its file was deleted). */
  remove(file: string): void {
    if (!this.docs.has(file)) return;
    // discard() needs no copy of the old document and cleans up lazily (auto-vacuum).
    this.index.discard(file);
    this.forgetTerms(file);
    this.docs.delete(file);
    this.signatures.delete(file);
  }

  /**
   * Bring the index in line with a fresh list (after a rescan): only memories that are new,
   * changed or gone are touched.
   */
  sync(memories: readonly RankableMemory[]): { added: number; updated: number; removed: number } {
    const seen = new Set<string>();
    let added = 0;
    let updated = 0;
    for (const memory of memories) {
      seen.add(memory.file);
      const previous = this.signatures.get(memory.file);
      if (previous === undefined) added++;
      else if (previous !== this.signature(memory)) updated++;
      else continue;
      this.upsert(memory);
    }
    let removed = 0;
    for (const file of [...this.docs.keys()]) {
      if (!seen.has(file)) {
        this.remove(file);
        removed++;
      }
    }
    return { added, updated, removed };
  }

  /** Query terms and their synonym expansions, as this ranker would search them. */
  analyzeQuery(query: string): { terms: string[]; expanded: string[] } {
    let terms = [...new Set(tokenize(query, this.tokenizeOptions))];
    if (this.docs.size >= COMMON_TERM_MIN_DOCS) {
      const limit = this.docs.size * COMMON_TERM_MAX_DF_SHARE;
      const specific = terms.filter((t) => (this.docFreq.get(t) ?? 0) <= limit);
      if (specific.length > 0) terms = specific;
    }
    if (!this.features.synonyms) return { terms, expanded: [] };
    const maxDf = Math.max(EXPANSION_MIN_DF, this.docs.size * EXPANSION_MAX_DF_SHARE);
    // Expansions no memory holds cost nothing but clutter the explanation; common ones are skipped (see above).
    // Synonyms are whole words: never split into lone characters.
    const expanded = expandQuery(query, terms, { ...this.tokenizeOptions, cjkUnigrams: false }).filter((t) => {
      const df = this.docFreq.get(t) ?? 0;
      return df > 0 && df <= maxDf;
    });
    return { terms, expanded };
  }

  private rawSearch(query: string): { results: SearchResult[]; terms: string[]; expanded: string[] } {
    const { terms, expanded } = this.analyzeQuery(query);
    if (terms.length === 0 && expanded.length === 0) return { results: [], terms, expanded };
    const expandedSet = new Set(expanded);
    const intents = this.features.typePriors ? new Set(INTENTS.filter((i) => i.cues.test(query)).map((i) => i.type)) : new Set<MemoryType>();
    const fieldBoost = this.features.fieldWeights ? { name: 2, description: 1, fileWords: 0.5, body: 0.3 } : { name: 1, description: 1, fileWords: 1, body: 1 };
    const results = this.index.search([...terms, ...expanded].join(SEP), {
      boost: fieldBoost,
      boostTerm: (term) => (expandedSet.has(term) ? EXPANSION_WEIGHT : this.features.cjkUnigrams && term.length === 1 && isCjk(term) ? UNIGRAM_WEIGHT : 1),
      ...(intents.size > 0
        ? { boostDocument: (_id: unknown, _term: string, stored?: Record<string, unknown>) => (intents.has(stored?.type as MemoryType) ? TYPE_PRIOR : 1) }
        : {}),
    });
    // One score everywhere it is shown or reported: the list, the explanation and its sentences
    // each rounded the raw score their own way and could print 81.08 and 81.07 for one memory.
    for (const r of results) r.score = Math.round(r.score * 1000) / 1000;
    return { results, terms, expanded };
  }

  /** The best `limit` memories for a query (default 5, R-RECALL-SELECT); [] for an empty query. */
  search(query: string, options: { limit?: number } = {}): RankedMemory[] {
    const limit = options.limit ?? RECALL_MAX_SELECTED;
    return this.rawSearch(query)
      .results.slice(0, limit)
      .map((r) => ({
        file: String(r.id),
        score: r.score,
        matchedTerms: Object.keys(r.match),
        fields: [...new Set(Object.values(r.match).flat())],
      }));
  }

  /** "Why not this one?" for `file` and `query`. */
  explain(query: string, file: string, options: { limit?: number } = {}): RankExplanation {
    const limit = options.limit ?? RECALL_MAX_SELECTED;
    const { results, terms, expanded } = this.rawSearch(query);
    const doc = this.docs.get(file);
    const memoryTerms = doc
      ? [...new Set([doc.name, doc.description, this.features.fileNameField ? doc.fileWords : ''].flatMap((t) => tokenize(t, this.tokenizeOptions)))]
      : [];
    const position = results.findIndex((r) => r.id === file);
    const hit = position >= 0 ? results[position]! : null;
    const matchedRaw = new Set(hit ? Object.keys(hit.match) : []);
    // An expansion found in the memory counts for the query word it came from.
    const matched = terms.filter(
      (t) => matchedRaw.has(t) || (expanded.some((e) => matchedRaw.has(e)) && expandQuery(t, [t], this.tokenizeOptions).some((e) => matchedRaw.has(e))),
    );
    const missing = terms.filter((t) => !matched.includes(t));
    const cutoff = results.length > 0 ? (results[Math.min(limit, results.length) - 1]?.score ?? null) : null;
    const rank = position >= 0 ? position + 1 : null;
    let summary: string;
    if (!doc) summary = `${file} is not in the index: it has no readable frontmatter, or it is not in this memory directory.`;
    else if (terms.length === 0 && expanded.length === 0) summary = 'The query has no searchable words.';
    else if (!hit) {
      summary = `${file} shares no words with the query${doc.description.trim() === '' ? ' — its description is empty, so only its name and file name can match' : ''}. Its words: ${memoryTerms.slice(0, 12).join(', ') || '(none)'}.`;
    } else if (rank !== null && rank <= limit)
      summary = `${file} is selected at rank ${rank} (score ${hit.score.toFixed(2)}), matching ${[...matchedRaw].join(', ')}.`;
    else {
      summary = `${file} ranks ${rank} of ${results.length} (score ${hit.score.toFixed(2)} vs ${cutoff?.toFixed(2) ?? '—'} for the last selected): it matches ${[...matchedRaw].join(', ')} but not ${missing.join(', ') || 'enough of the rest'}.`;
    }
    return {
      file,
      inIndex: doc !== undefined,
      rank,
      score: hit?.score ?? null,
      selected: rank !== null && rank <= limit,
      queryTerms: terms,
      expandedTerms: expanded,
      matchedTerms: matched,
      missingTerms: missing,
      fields: hit ? [...new Set(Object.values(hit.match).flat())] : [],
      memoryTerms,
      cutoffScore: cutoff,
      summary,
    };
  }
}
