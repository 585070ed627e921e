/**
 * Memdir's own settings (stored by main in `<dataDir>/settings.json`) — not Claude Code's
 * `settings.json`, which src/main/memdir/settings.ts reads. One schema, declared here where the
 * app contract and the renderer can use it too, with a default for every key: a missing file,
 * a missing key or an invalid value all read as the default, and every value that was thrown
 * away is reported as a problem a person can read.
 *
 * Adding a section (extraction, dream, team, …): add one key to `appSettingsSchema` whose
 * schema ends in `.prefault({})` (so its inner `.default()`s apply when the section is absent)
 * and give every leaf a `.default()`. Unknown keys are kept on load and save, so a file written
 * by a newer Memdir survives a round trip through an older one.
 */
import * as z from 'zod';
import { issueSentence } from './issue-sentence.js';
import { isRecord } from './is-record.js';

/** The app theme. */
export const THEMES = ['light', 'dark', 'system'] as const;
export type Theme = (typeof THEMES)[number];

/**
 * Which model provider to use (SPEC §9). `auto`: the Anthropic API when a key is known, else the
 * Claude Code CLI when it is installed, else offline.
 */
export const PROVIDER_CHOICES = ['auto', 'anthropic', 'claude-cli', 'offline'] as const;
export type ProviderChoice = (typeof PROVIDER_CHOICES)[number];

/** Every feature that calls a model; each has its own model id. */
export const MODEL_TASKS = ['recall', 'extract', 'dream', 'session'] as const;
export type ModelTask = (typeof MODEL_TASKS)[number];

/**
 * Default model per task. Recall is a Sonnet-class side query (R-RECALL-SELECT); session notes
 * are frequent and small, so a Haiku-class model. Sonnet 4.5 ids were retired from the SDK's
 * model list in 1.15, hence 4.6.
 */
export const DEFAULT_MODELS: Record<ModelTask, string> = {
  recall: 'claude-sonnet-4-6',
  extract: 'claude-sonnet-4-6',
  dream: 'claude-sonnet-4-6',
  session: 'claude-haiku-4-5',
};

const modelId = (task: ModelTask) => z.string().trim().min(1, 'a model id cannot be empty').default(DEFAULT_MODELS[task]);

const httpUrl = z
  .string()
  .trim()
  .refine((value) => {
    try {
      const url = new URL(value);
      return url.protocol === 'http:' || url.protocol === 'https:';
    } catch {
      return false;
    }
  }, 'must be an http(s) URL such as https://api.anthropic.com');

/** How Memdir reaches a model (SPEC §9). */
export const modelSettingsSchema = z
  .object({
    provider: z.enum(PROVIDER_CHOICES).default('auto'),
    /** An Anthropic-compatible gateway; null = `ANTHROPIC_BASE_URL`, else the Anthropic API. */
    baseURL: httpUrl.nullable().default(null),
    models: z
      .object({
        recall: modelId('recall'),
        extract: modelId('extract'),
        dream: modelId('dream'),
        session: modelId('session'),
      })
      .loose()
      .prefault({}),
    /** Wall-clock budget of one model call, retries included. */
    timeoutMs: z.number().int().min(1_000).max(600_000).default(60_000),
    /** Retries of a rate-limited or failed request (the SDK's `maxRetries`). */
    maxRetries: z.number().int().min(0).max(10).default(2),
    /** The Claude Code executable; null = `claude` found on PATH. */
    claudePath: z.string().trim().min(1).nullable().default(null),
  })
  .loose()
  .prefault({});

/** Recall (SPEC §3). */
export const recallSettingsSchema = z
  .object({
    /** Recall is interactive: a shorter budget than other model calls, then the local ranker. */
    timeoutMs: z.number().int().min(1_000).max(600_000).default(20_000),
    /** Also index memory bodies in the local ranker (off: mirror the selector, which sees frontmatter only). */
    searchBodies: z.boolean().default(false),
  })
  .loose()
  .prefault({});

/** What extraction does with what it finds (SPEC §4): write it, or queue it for the user. */
export const EXTRACTION_MODES = ['apply', 'review'] as const;
export type ExtractionMode = (typeof EXTRACTION_MODES)[number];

/** Extraction after each turn (R-EXTRACT); Claude Code's own settings can still turn it off (R-SETTINGS). */
export const extractionSettingsSchema = z
  .object({
    /** Memdir's automatic extraction on or off (a manual `memdir extract` still runs). */
    enabled: z.boolean().default(true),
    /** `review` (default): proposals wait in the review queue; `apply`: written at once. */
    mode: z.enum(EXTRACTION_MODES).default('review'),
    /** Without hooks: a transcript quiet this long after a final answer has finished its turn. */
    quietSeconds: z.number().int().min(1).max(600).default(5),
    /**
     * Without hooks, when the last answer carries no stop reason (Claude Code often writes
     * `null` while streaming): the turn counts as finished after this much quiet.
     */
    idleCloseSeconds: z.number().int().min(5).max(3_600).default(60),
  })
  .loose()
  .prefault({});

/** Session Memory (R-SESSION): one note per live session in Memdir's data dir. */
export const sessionSettingsSchema = z
  .object({
    enabled: z.boolean().default(true),
    /** A session quiet this long is over: its note is removed. */
    idleMinutes: z.number().int().min(5).max(10_080).default(240),
  })
  .loose()
  .prefault({});

/** Dream (SPEC §5): the gates' thresholds, the removal limit, and the model loop's bounds. */
export const dreamSettingsSchema = z
  .object({
    /** R-DREAM-GATE time gate: hours since the last consolidation. */
    minHours: z
      .number()
      .min(0)
      .max(24 * 365)
      .default(24),
    /** R-DREAM-GATE session gate: sessions touched since the last consolidation. */
    minSessions: z.number().int().min(0).max(100_000).default(5),
    /** The share of memories a dream may remove without the user's confirmation (0..1). */
    maxDeleteShare: z.number().min(0).max(1).default(0.25),
    /** Model loop: at most this many model calls per dream. */
    maxTurns: z.number().int().min(1).max(100).default(12),
    /** Model loop: at most this many tool calls per dream. */
    maxToolCalls: z.number().int().min(1).max(1_000).default(60),
    /** Model loop: total tokens (in + out) one dream may spend; it stops and keeps what it has. */
    maxTokens: z.number().int().min(1_000).max(5_000_000).default(200_000),
    /** How often the app's scheduler checks the gates of every project (they are cheap). */
    checkEveryMinutes: z.number().int().min(1).max(1_440).default(5),
  })
  .loose()
  .prefault({});

/**
 * Where the user keeps their projects (issue 18): folders looked into, shallowly, for the new
 * place of a project whose memory was orphaned by a move or a rename.
 */
export const workspaceSettingsSchema = z
  .object({
    folders: z.array(z.string().trim().min(1, 'a workspace folder cannot be empty').max(4096)).max(50).default([]),
  })
  .loose()
  .prefault({});

/** Every Memdir setting. Add sections here (see the file comment). */
export const appSettingsSchema = z
  .object({
    theme: z.enum(THEMES).default('system'),
    model: modelSettingsSchema,
    recall: recallSettingsSchema,
    dream: dreamSettingsSchema,
    extraction: extractionSettingsSchema,
    session: sessionSettingsSchema,
    workspaces: workspaceSettingsSchema,
  })
  .loose();

/** Every Memdir setting, with defaults filled in. */
export type AppSettings = z.output<typeof appSettingsSchema>;

/** A deep partial of the settings, for updates from the settings view. */
export type AppSettingsPatch = {
  [K in keyof AppSettings]?: AppSettings[K] extends object ? Partial<AppSettings[K]> & Record<string, unknown> : AppSettings[K];
};

/** All defaults. */
export function defaultAppSettings(): AppSettings {
  return appSettingsSchema.parse({});
}

/** Remove the value at `at` so its default applies; false when there was nothing to remove. */
function dropAt(root: Record<string, unknown>, at: readonly PropertyKey[]): boolean {
  let node: unknown = root;
  for (let i = 0; i < at.length - 1; i++) {
    if (!isRecord(node) && !Array.isArray(node)) return false;
    node = (node as Record<PropertyKey, unknown>)[at[i] as string];
  }
  const last = at[at.length - 1];
  if (last === undefined) return false;
  if (Array.isArray(node)) {
    // An invalid element of a list: the list as a whole goes back to its default.
    return dropAt(root, at.slice(0, -1));
  }
  if (!isRecord(node) || !(String(last) in node)) return false;
  delete node[String(last)];
  return true;
}

/**
 * Validate raw settings (parsed JSON). Invalid values are replaced by their defaults and named
 * in `problems`; unknown keys are kept. Pure: no disk.
 */
export function parseAppSettings(raw: unknown): { settings: AppSettings; problems: string[] } {
  const problems: string[] = [];
  if (raw !== undefined && !isRecord(raw)) {
    problems.push('The settings file does not hold a JSON object; every setting is at its default.');
    raw = {};
  }
  const value = structuredClone((raw ?? {}) as Record<string, unknown>);
  // Each round drops the values zod rejected; a handful of rounds covers nested sections.
  for (let round = 0; round < 20; round++) {
    const result = appSettingsSchema.safeParse(value);
    if (result.success) return { settings: result.data, problems };
    let dropped = false;
    for (const issue of result.error.issues) {
      if (dropAt(value, issue.path)) {
        dropped = true;
        problems.push(`Setting ${issueSentence(issue)}; using the default.`);
      }
    }
    if (!dropped) break;
  }
  problems.push('The settings could not be read; every setting is at its default.');
  return { settings: defaultAppSettings(), problems };
}
