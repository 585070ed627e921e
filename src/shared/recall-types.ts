/**
 * What recall decides and how the model connection stands (SPEC §3, §9), declared once as zod
 * schemas: the CLI's JSON, the app contract and the playground all use these shapes.
 */
import * as z from 'zod';

export const PROVIDER_KINDS = ['anthropic', 'claude-cli', 'offline'] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];

/** Tokens of one model call, as the API reports them. */
export const tokenUsageSchema = z.object({ inputTokens: z.number(), outputTokens: z.number(), cacheReadTokens: z.number(), cacheCreationTokens: z.number() });
export type TokenUsage = z.infer<typeof tokenUsageSchema>;

/** One chosen memory: the model's reason, or the local ranker's BM25 score. */
export const recallSelectionSchema = z.object({ file: z.string(), reason: z.string().optional(), score: z.number().optional() });
export type RecallSelection = z.infer<typeof recallSelectionSchema>;

const indexPartSchema = z.object({
  exists: z.boolean(),
  /** Files whose pointers reach the agent, and those past the 200-line / 25 KB cut. */
  loaded: z.array(z.string()),
  cut: z.array(z.string()),
  lines: z.number(),
  bytes: z.number(),
  loadedLines: z.number(),
  loadedBytes: z.number(),
  firstCutLine: z.number().nullable(),
  /** Of `cut`: memories the agent never sees, and pointers to files that do not exist (index-cut.ts). */
  cutMemories: z.array(z.string()),
  cutMissing: z.array(z.string()),
});
/** The index that is always loaded (R-RECALL-INDEX): MEMORY.md alone, as Claude Code 2.1.332 loads no team/MEMORY.md (index-state.ts). */
export const alwaysLoadedSchema = indexPartSchema;
export type AlwaysLoaded = z.infer<typeof alwaysLoadedSchema>;

/**
 * Why each memory was or was not chosen, with the query's words it matched located in its name and
 * description as written (the playground highlights them).
 */
export const recallExplanationSchema = z.object({
  /** Each searchable word of the query: its term, the words the user wrote for it, the synonyms it was also searched as. */
  queryWords: z.array(z.object({ term: z.string(), words: z.array(z.string()), synonyms: z.array(z.string()) })),
  /** Chosen memories first, then the ones that matched something, best first. */
  candidates: z.array(
    z.object({
      file: z.string(),
      name: z.string(),
      description: z.string(),
      /** `chosen`; `outranked` (local: matched, but 5 scored higher); `not-chosen` (the model passed it over); `not-offered` (not in a cut manifest); `already-loaded` (earlier in the session). */
      fate: z.enum(['chosen', 'outranked', 'not-chosen', 'not-offered', 'already-loaded']),
      reason: z.string(),
      rank: z.number().nullable(),
      score: z.number().nullable(),
      /** Query words it matched (as the user wrote them) and the memory's words they met. */
      matched: z.array(z.object({ query: z.string(), memory: z.array(z.string()), synonym: z.boolean() })),
      /** Where those words are in its name and description (UTF-16 offsets). */
      highlights: z.array(z.object({ field: z.enum(['name', 'description']), start: z.number(), end: z.number() })),
    }),
  ),
  /** Memories that share no word with the query. */
  unmatched: z.object({ count: z.number(), files: z.array(z.string()), reason: z.string() }),
});
export type RecallExplanation = z.infer<typeof recallExplanationSchema>;

/** What a recall decided, with everything the CLI and the playground show. */
export const recallResultSchema = z.object({
  method: z.enum(['model', 'local']),
  /** At most 5, best first. */
  selected: z.array(recallSelectionSchema),
  /** Why the model's choice was not used, in plain words. */
  fallbackReason: z.string().optional(),
  latencyMs: z.number(),
  tokens: tokenUsageSchema.optional(),
  /** Estimated cost of the model call (see costNote). */
  costUsd: z.number().nullable().optional(),
  costNote: z.string().optional(),
  model: z.string().optional(),
  provider: z.enum([...PROVIDER_KINDS, 'none']),
  /** The failed model attempt behind a fallback. */
  modelError: z.object({ kind: z.string(), message: z.string(), latencyMs: z.number() }).optional(),
  /** Files the model named that were refused (unknown, duplicate, over the limit of 5). */
  dropped: z.array(z.object({ file: z.string(), reason: z.string() })),
  alwaysLoaded: alwaysLoadedSchema.nullable(),
  /** Plain-language notes: truncated query, pre-filtered manifest, empty descriptions… */
  notes: z.array(z.string()),
  manifest: z.object({ memories: z.number(), sent: z.number(), chars: z.number(), prefiltered: z.boolean() }),
  query: z.object({ chars: z.number(), usedChars: z.number(), truncated: z.boolean() }),
  /** Why each memory was (not) chosen. */
  explanation: recallExplanationSchema.optional(),
});
export type RecallResult = z.infer<typeof recallResultSchema>;

export const projectRecallResultSchema = recallResultSchema.extend({ project: z.object({ key: z.string(), dir: z.string(), memoryDir: z.string() }) });
export type ProjectRecallResult = z.infer<typeof projectRecallResultSchema>;

/** "Why not this one?": how the local ranker saw one memory for a query. */
export const rankExplanationSchema = z.object({
  file: z.string(),
  inIndex: z.boolean(),
  /** 1-based rank among matching memories, or null when it matched nothing. */
  rank: z.number().nullable(),
  score: z.number().nullable(),
  /** Whether it made the cut of 5. */
  selected: z.boolean(),
  queryTerms: z.array(z.string()),
  expandedTerms: z.array(z.string()),
  matchedTerms: z.array(z.string()),
  missingTerms: z.array(z.string()),
  fields: z.array(z.string()),
  memoryTerms: z.array(z.string()),
  cutoffScore: z.number().nullable(),
  summary: z.string(),
});
export type RankExplanation = z.infer<typeof rankExplanationSchema>;

/** The model connection as the app shows it. Offline is a mode, not an error. */
export const providerStatusSchema = z.object({
  state: z.enum(['online', 'offline', 'error']),
  provider: z.enum(PROVIDER_KINDS),
  reason: z.string(),
  endpoint: z.string().optional(),
});
export type ProviderStatus = z.infer<typeof providerStatusSchema>;

const textBlockSchema = z.object({ type: z.literal('text'), text: z.string(), cache_control: z.object({ type: z.literal('ephemeral') }).optional() });

/** Claude Code's recall side request, exactly as sent (or as it would be sent). */
export const selectorRequestSchema = z.object({
  model: z.string(),
  max_tokens: z.number(),
  system: z.array(textBlockSchema),
  messages: z.array(z.object({ role: z.enum(['user', 'assistant']), content: z.array(textBlockSchema) })),
  output_config: z.object({ format: z.object({ type: z.literal('json_schema'), schema: z.record(z.string(), z.unknown()) }) }),
  thinking: z.object({ type: z.literal('disabled') }).optional(),
});
export type SelectorRequestView = z.infer<typeof selectorRequestSchema>;

/**
 * What happened to a Claude Code recall:
 *   `selected` — the request went out and Claude Code would load the files in `selected`;
 *   `nothing`  — nothing to load (the model chose none, only unknown or already surfaced files,
 *                or there was no memory to offer);
 *   `failed`   — the request failed or the answer was unusable: Claude Code then loads nothing;
 *   `skipped`  — Claude Code would not ask at all (a one-word prompt, the session's recall
 *                budget spent, auto memory off);
 *   `not-sent` — Claude Code would ask, but Memdir has no way to send the exact request (no API
 *                key: the CLI provider cannot send it; offline).
 */
export const CLAUDE_CODE_RECALL_OUTCOMES = ['selected', 'nothing', 'failed', 'skipped', 'not-sent'] as const;

/** The playground's (and `memdir recall --claude-code`'s) Claude Code mode. */
export const claudeCodeRecallResultSchema = z.object({
  mode: z.literal('claude-code'),
  /** The Claude Code release whose selector is replicated. */
  claudeCodeVersion: z.string(),
  outcome: z.enum(CLAUDE_CODE_RECALL_OUTCOMES),
  /** Why nothing was selected, skipped or not sent, in words. */
  reason: z.string().optional(),
  /** The files Claude Code would load (at most 5), in the model's order. */
  selected: z.array(z.object({ file: z.string() })),
  /** Names the model gave that Claude Code would not load, and why. */
  dropped: z.array(z.object({ file: z.string(), reason: z.string() })),
  /** The request body (null when Claude Code would not ask). */
  request: selectorRequestSchema.nullable(),
  /** The model's answer text, as it came. */
  answer: z.string().nullable(),
  manifest: z.object({
    /** Topic files Claude Code considers (before the cap). */
    candidates: z.number(),
    /** Those in the manifest (the newest 200 when the session's manifest was built). */
    offered: z.number(),
    chars: z.number(),
    /** When this session's manifest was built: Claude Code keeps it for the whole session. */
    builtAt: z.string().nullable(),
  }),
  /** R-RECALL-SELECT's 200-newest cap, shown like the index cut: what can never be recalled today. */
  neverRecalled: z.object({
    count: z.number(),
    /** Newest first, with their mtime (ISO). */
    files: z.array(z.object({ file: z.string(), mtime: z.string() })),
    /** The mtime a memory needs to be among the 200 newest today (null when everything fits). */
    cutoff: z.string().nullable(),
    remedies: z.array(z.string()),
  }),
  session: z.object({
    id: z.string(),
    /** Queries answered in this session so far (the next query's selector sees them and their answers). */
    turns: z.number(),
    /** Files already loaded in this session, never loaded again. */
    surfaced: z.array(z.string()),
    surfacedChars: z.number(),
    /** The transcript the session was seeded from, if any. */
    transcript: z.string().nullable(),
  }),
  /** Whether Claude Code runs its selector at all for this user. */
  claudeCodeSwitch: z.object({ state: z.enum(['on', 'off', 'unknown']), reason: z.string() }),
  notes: z.array(z.string()),
  latencyMs: z.number(),
  tokens: tokenUsageSchema.optional(),
  costUsd: z.number().nullable().optional(),
  costNote: z.string().optional(),
  /** The model asked (or that would be asked). */
  model: z.string(),
  provider: z.enum([...PROVIDER_KINDS, 'none']),
  project: z.object({ key: z.string(), dir: z.string(), memoryDir: z.string() }),
});
export type ClaudeCodeRecallResult = z.infer<typeof claudeCodeRecallResultSchema>;
