/**
 * findRelevantMemories (SPEC R-RECALL-SELECT): send the query and a manifest of every topic
 * file's frontmatter — file, type, name, description, never a body — in one side request to a
 * Sonnet-class model, and load at most 5 of the files it names. The answer is parsed and
 * validated (JSON, at most 5, existing files only, no duplicates); anything that goes wrong —
 * no model, timeout, HTTP error, cancellation, prose, garbage, invented files — falls back to
 * the local ranker, and `fallbackReason` says why in plain words.
 *
 * Degrading on size (issue 4, "thousands of memories"): a manifest longer than
 * `maxManifestChars` does not fit one sensible request. Then the local ranker pre-filters: the
 * manifest holds its best matches (up to `prefilterCandidates`), topped up with the most
 * recently changed memories while room remains, and `notes` says so. The model still chooses;
 * it just chooses among fewer. A query longer than `maxQueryChars` is cut for both methods,
 * with a note.
 */
import * as z from 'zod';
import { RECALL_MAX_SELECTED } from '../../shared/limits.js';
import type { MemoryType, Scope } from '../../shared/memory-types.js';
import type { IndexSummary } from '../../shared/scan-types.js';
import { LlmError, type ModelProvider } from '../llm/index.js';
import { maskSecretsIn } from '../secrets/index.js';
import type { AlwaysLoaded, RecallResult, RecallSelection } from '../../shared/recall-types.js';
import { explainRecall } from './explain-recall.js';
import { LocalRanker } from './local-ranker.js';
import { MemdirError } from '../../shared/errors.js';

/** A memory as the selector sees it: frontmatter only. */
export interface RecallCandidate {
  /** Path relative to the memory dir (`team/…` for team memories). */
  file: string;
  name: string;
  description: string;
  type: MemoryType | null;
  scope?: Scope;
  /** Used to top up a pre-filtered manifest with recent memories. */
  mtimeMs?: number;
}

export type { AlwaysLoaded, RecallResult, RecallSelection } from '../../shared/recall-types.js';

export interface FindRelevantOptions {
  query: string;
  memories: readonly RecallCandidate[];
  /** null or an offline provider: the local ranker. */
  provider: ModelProvider | null;
  /** A ranker already holding `memories` (kept current by the caller); built here when absent. */
  ranker?: LocalRanker;
  /** The memory dir's index summary (from its scan), shown as always loaded. */
  index?: IndexSummary | null;
  /** `local` skips the model (the playground's right-hand column). */
  method?: 'auto' | 'local';
  /** Files already recalled in this session: never chosen again (as Claude Code removes surfaced files). */
  exclude?: readonly string[];
  signal?: AbortSignal;
  timeoutMs?: number;
  model?: string;
  maxManifestChars?: number;
  maxQueryChars?: number;
  prefilterCandidates?: number;
}

/** About 25–35k tokens: a side request that stays quick and cheap. */
export const MAX_MANIFEST_CHARS = 100_000;
/** Longer queries are cut: what matters for selection is in the first paragraphs. */
export const MAX_QUERY_CHARS = 2_000;
/** How many local matches a pre-filtered manifest starts with. */
export const PREFILTER_CANDIDATES = 300;
/** A manifest line never carries more of a description than this. */
const MAX_DESCRIPTION_CHARS = 300;
const MAX_ANSWER_TOKENS = 800;

/** The system prompt of the side request. */
export const RECALL_SYSTEM_PROMPT = `You pick which memory files a coding agent should load before it works on a user's request.
You get the request and a manifest: one line per memory file with its file name, type (user, feedback, project or reference), name and one-line description.
Choose the files whose content would help with this request — at most ${RECALL_MAX_SELECTED}, fewer when fewer are relevant, none when none is. Most relevant first.
Only use file names exactly as they appear in the manifest; never invent one.
Answer with JSON only, no other text: {"selected":[{"file":"<file name from the manifest>","reason":"<why, in a few words>"}]}`;

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** One manifest line: frontmatter only (never the body). */
export function manifestLine(m: RecallCandidate): string {
  return `- ${m.file} | ${m.type ?? 'untyped'} | ${oneLine(m.name, 120) || '(no name)'} | ${oneLine(m.description, MAX_DESCRIPTION_CHARS) || '(no description)'}`;
}

/** The user message of the side request. */
export function buildRecallPrompt(query: string, manifestLines: readonly string[]): string {
  return `<request>\n${query}\n</request>\n\n<manifest>\n${manifestLines.join('\n')}\n</manifest>`;
}

const answerSchema = z.union([
  z.object({ selected: z.array(z.union([z.string(), z.object({ file: z.string(), reason: z.string().optional() }).loose()])) }).loose(),
  z.array(z.union([z.string(), z.object({ file: z.string(), reason: z.string().optional() }).loose()])),
]);

/** Why a model answer could not be used. */
export class SelectionError extends MemdirError<'bad-model-answer'> {
  override readonly name = 'SelectionError';
  constructor(message: string) {
    super('bad-model-answer', message);
  }
}

/**
 * Parse and validate the model's answer against the known files. Throws SelectionError with a
 * plain reason when the answer is unusable as a whole.
 */
export function parseSelection(
  text: string,
  known: readonly RecallCandidate[],
  options: { stopReason?: string | null } = {},
): { selected: RecallSelection[]; dropped: { file: string; reason: string }[] } {
  let body = text.trim();
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(body);
  if (fenced) body = fenced[1]!.trim();
  const start = body.search(/[[{]/);
  if (start < 0) {
    throw new SelectionError(body ? `The model answered in prose instead of JSON ("${oneLine(body, 80)}").` : 'The model gave an empty answer.');
  }
  const end = Math.max(body.lastIndexOf('}'), body.lastIndexOf(']'));
  let raw: unknown;
  try {
    raw = JSON.parse(body.slice(start, end + 1));
  } catch {
    throw new SelectionError(
      options.stopReason === 'max_tokens' ? "The model's answer was cut off before its JSON was complete." : "The model's answer was not valid JSON.",
    );
  }
  const parsed = answerSchema.safeParse(raw);
  if (!parsed.success) throw new SelectionError('The model answered JSON of the wrong shape (expected {"selected":[{"file","reason"}]}).');
  const entries = (Array.isArray(parsed.data) ? parsed.data : parsed.data.selected).map((e) => (typeof e === 'string' ? { file: e } : e));

  const byFile = new Map(known.map((m) => [m.file, m]));
  const byLower = new Map(known.map((m) => [m.file.toLowerCase(), m]));
  const byName = new Map<string, RecallCandidate>();
  for (const m of known) if (m.name && !byName.has(m.name.toLowerCase())) byName.set(m.name.toLowerCase(), m);
  const resolve = (file: string): RecallCandidate | undefined => {
    const f = file.trim().replace(/^\.\//, '');
    return byFile.get(f) ?? byLower.get(f.toLowerCase()) ?? byLower.get(`${f.toLowerCase()}.md`) ?? byName.get(f.toLowerCase());
  };

  const selected: RecallSelection[] = [];
  const dropped: { file: string; reason: string }[] = [];
  const seen = new Set<string>();
  for (const entry of entries) {
    const match = resolve(entry.file);
    if (!match) dropped.push({ file: entry.file, reason: 'no such memory file' });
    else if (seen.has(match.file)) dropped.push({ file: entry.file, reason: 'named twice' });
    else if (selected.length >= RECALL_MAX_SELECTED) dropped.push({ file: match.file, reason: `over the limit of ${RECALL_MAX_SELECTED}` });
    else {
      seen.add(match.file);
      selected.push({ file: match.file, ...(entry.reason ? { reason: oneLine(entry.reason, 300) } : {}) });
    }
  }
  if (selected.length === 0 && dropped.some((d) => d.reason === 'no such memory file')) {
    throw new SelectionError(
      `The model named only files that do not exist (${dropped
        .map((d) => d.file)
        .slice(0, 5)
        .join(', ')}).`,
    );
  }
  return { selected, dropped };
}

function alwaysLoadedOf(index: IndexSummary | null | undefined): AlwaysLoaded | null {
  if (!index) return null;
  return {
    exists: index.exists,
    loaded: index.loaded,
    cut: index.cut,
    lines: index.lines,
    bytes: index.bytes,
    loadedLines: index.loadedLines,
    loadedBytes: index.loadedBytes,
    firstCutLine: index.firstCutLine,
    cutMemories: index.cutMemories,
    cutMissing: index.cutMissing,
  };
}

const thousands = (n: number) => n.toLocaleString('en');

/** Choose the memories for a query: the model when one is reachable, else the local ranker — and say why each was or was not chosen. */
export async function findRelevantMemories(options: FindRelevantOptions): Promise<RecallResult> {
  const excluded = new Set(options.exclude ?? []);
  const chose = await choose({ ...options, memories: excluded.size > 0 ? options.memories.filter((m) => !excluded.has(m.file)) : options.memories }, excluded);
  if (!chose.ranker || !chose.query) return chose.result;
  return {
    ...chose.result,
    explanation: explainRecall({
      query: chose.query,
      candidates: options.memories,
      ranker: chose.ranker,
      result: chose.result,
      offered: chose.offered,
      excluded,
    }),
  };
}

interface Choice {
  result: RecallResult;
  /** The query as used, the ranker that scored it, and the files the model saw (null: all). */
  query: string;
  ranker: LocalRanker | null;
  offered: ReadonlySet<string> | null;
}

async function choose(options: FindRelevantOptions, excluded: ReadonlySet<string>): Promise<Choice> {
  const started = performance.now();
  const notes: string[] = [];
  const maxQuery = options.maxQueryChars ?? MAX_QUERY_CHARS;
  const trimmed = options.query.trim();
  const truncated = trimmed.length > maxQuery;
  const query = truncated ? trimmed.slice(0, maxQuery) : trimmed;
  if (truncated) notes.push(`The query is ${thousands(trimmed.length)} characters long; only the first ${thousands(maxQuery)} were used.`);
  const memories = options.memories;
  const base = {
    alwaysLoaded: alwaysLoadedOf(options.index),
    query: { chars: trimmed.length, usedChars: query.length, truncated },
    dropped: [] as { file: string; reason: string }[],
  };
  let offered: ReadonlySet<string> | null = null;
  const done = (result: RecallResult, ranker: LocalRanker | null): Choice => ({ result, query, ranker, offered });
  const finishLocal = (extra: Partial<RecallResult>, ranker: LocalRanker | null): Choice => {
    const hits =
      ranker && query
        ? ranker
            .search(query, { limit: RECALL_MAX_SELECTED + excluded.size })
            .filter((h) => !excluded.has(h.file))
            .slice(0, RECALL_MAX_SELECTED)
        : [];
    return done(
      {
        method: 'local',
        selected: hits.map((h) => ({ file: h.file, score: h.score })),
        latencyMs: performance.now() - started,
        provider: options.provider?.kind ?? 'none',
        notes,
        manifest: { memories: memories.length, sent: 0, chars: 0, prefiltered: false },
        ...base,
        ...extra,
      },
      ranker,
    );
  };

  if (query === '') {
    notes.push('The query is empty: there is nothing to look for, so no memory is selected and no model is asked.');
    return finishLocal({}, null);
  }
  if (memories.length === 0) {
    notes.push('This memory directory has no topic files: nothing to select beyond the index.');
    return finishLocal({}, null);
  }

  const empties = memories.filter((m) => m.description.trim() === '').length;
  if (empties > 0)
    notes.push(
      `${empties === 1 ? '1 memory has' : `${empties} memories have`} no description: only the name and file name can match ${empties === 1 ? 'it' : 'them'}.`,
    );

  let ranker = options.ranker;
  if (!ranker) {
    ranker = new LocalRanker();
    ranker.addAll(memories);
  }

  const provider = options.provider;
  if (options.method === 'local') return finishLocal({}, ranker);
  if (!provider || provider.kind === 'offline') {
    const status = provider ? await provider.status() : null;
    if (status?.state === 'error') return finishLocal({ fallbackReason: status.reason }, ranker);
    notes.push(status?.reason ?? 'No model is configured: the local ranker chose.');
    return finishLocal({}, ranker);
  }

  // The manifest: every memory, unless that is too long for one request (see the file comment).
  const maxChars = options.maxManifestChars ?? MAX_MANIFEST_CHARS;
  const lines = memories.map(manifestLine);
  const total = lines.reduce((n, l) => n + l.length + 1, 0);
  let sent: RecallCandidate[] = [...memories];
  let sentLines = lines;
  let prefiltered = false;
  if (total > maxChars) {
    prefiltered = true;
    const byFile = new Map(memories.map((m, i) => [m.file, i]));
    const picked: number[] = [];
    const taken = new Set<number>();
    let chars = 0;
    const take = (i: number): boolean => {
      if (taken.has(i)) return true;
      if (chars + lines[i]!.length + 1 > maxChars) return false;
      taken.add(i);
      picked.push(i);
      chars += lines[i]!.length + 1;
      return true;
    };
    const localHits = ranker.search(query, { limit: options.prefilterCandidates ?? PREFILTER_CANDIDATES });
    for (const hit of localHits) {
      const i = byFile.get(hit.file);
      if (i !== undefined && !take(i)) break;
    }
    const fromRanker = picked.length;
    const recent = memories.map((m, i) => ({ i, t: m.mtimeMs ?? 0 })).sort((a, b) => b.t - a.t);
    for (const { i } of recent) if (!take(i)) break;
    sent = picked.map((i) => memories[i]!);
    sentLines = picked.map((i) => lines[i]!);
    offered = new Set(sent.map((m) => m.file));
    notes.push(
      `The manifest of ${thousands(memories.length)} memories (${thousands(total)} characters) is too long for one request; the model saw ${thousands(sent.length)}: the ${thousands(fromRanker)} best local matches and ${thousands(sent.length - fromRanker)} most recently changed.`,
    );
  }
  const manifest = { memories: memories.length, sent: sent.length, chars: sentLines.reduce((n, l) => n + l.length + 1, 0), prefiltered };

  const attemptStarted = performance.now();
  try {
    const answer = await provider.complete({
      task: 'recall',
      system: RECALL_SYSTEM_PROMPT,
      messages: [{ role: 'user', content: buildRecallPrompt(query, sentLines) }],
      maxTokens: MAX_ANSWER_TOKENS,
      temperature: 0,
      ...(options.model ? { model: options.model } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    });
    const spent = { tokens: answer.usage, costUsd: answer.costUsd, costNote: answer.costNote, model: answer.model };
    try {
      const parsed = parseSelection(answer.text, memories, { stopReason: answer.stopReason });
      const { selected } = parsed;
      // What the model named is its words: a secret it read in a memory is masked before it is shown.
      const dropped = await Promise.all(parsed.dropped.map(async (d) => ({ file: await maskSecretsIn(d.file), reason: await maskSecretsIn(d.reason) })));
      if (dropped.length > 0)
        notes.push(
          `Refused ${dropped.length === 1 ? 'one file' : `${dropped.length} files`} the model named: ${dropped.map((d) => `${d.file} (${d.reason})`).join(', ')}.`,
        );
      return done(
        {
          method: 'model',
          selected,
          latencyMs: performance.now() - started,
          ...spent,
          provider: provider.kind,
          notes,
          manifest,
          ...base,
          dropped,
        },
        ranker,
      );
    } catch (error) {
      if (!(error instanceof SelectionError)) throw error;
      // The reason quotes the model's words: a secret it read in a memory is masked there too.
      const message = await maskSecretsIn(error.message);
      // The model was paid for: keep its tokens and cost on the result even though we fall back.
      return finishLocal(
        {
          fallbackReason: message,
          ...spent,
          provider: provider.kind,
          manifest,
          modelError: { kind: 'bad-answer', message, latencyMs: performance.now() - attemptStarted },
        },
        ranker,
      );
    }
  } catch (error) {
    const message =
      error instanceof LlmError ? error.message : `The model call failed: ${provider.redact(error instanceof Error ? error.message : String(error))}`;
    const kind = error instanceof LlmError ? error.kind : 'error';
    return finishLocal(
      { fallbackReason: message, provider: provider.kind, manifest, modelError: { kind, message, latencyMs: performance.now() - attemptStarted } },
      ranker,
    );
  }
}

/** The playground's two columns: the model's choice and the local ranker's, for one query. */
export async function compareRecallMethods(options: FindRelevantOptions): Promise<{ model: RecallResult; local: RecallResult }> {
  const [model, local] = await Promise.all([findRelevantMemories({ ...options, method: 'auto' }), findRelevantMemories({ ...options, method: 'local' })]);
  return { model, local };
}
