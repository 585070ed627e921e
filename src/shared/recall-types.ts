/**
 * What recall decides and how the model connection stands (SPEC §3, §9), declared once as zod
 * schemas: the CLI's JSON, the app contract and the playground all use these shapes.
 */
import { z } from 'zod';

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
});
/** The index that is always loaded (R-RECALL-INDEX), with the team index when there is one. */
export const alwaysLoadedSchema = indexPartSchema.extend({ team: indexPartSchema.optional() });
export type AlwaysLoaded = z.infer<typeof alwaysLoadedSchema>;

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
