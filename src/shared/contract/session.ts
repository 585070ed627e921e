/**
 * Session Memory (R-SESSION): a note per session, kept in Memdir's data dir, started once the
 * context reaches 10,000 tokens, then updated when it grew by at least 5,000 tokens and either
 * 3 tool calls happened since the last update or the last response made none (and before a
 * compaction); handed back to Claude Code after a compaction or a resume; removed once the
 * session has been idle for Settings → Session Memory's idle time.
 */
import * as z from 'zod';
import { mutation, query } from './define.js';

/** R-SESSION *(fact, Claude Code 2.1.88)*: no note before the context reaches this many tokens. */
export const SESSION_INIT_TOKENS = 10_000;
/** R-SESSION: the context must grow by at least this many tokens since the last update… */
export const SESSION_MIN_TOKENS = 5_000;
/** …and at least this many tool calls must happen since — unless the last response made none. */
export const SESSION_MIN_TOOL_CALLS = 3;

/** A `summary.md` an older Claude Code (2.1.88, behind a flag) wrote for the session. */
export const claudeCodeSummarySchema = z.object({
  /** `projects/<sanitized cwd>/<sessionId>/session-memory/summary.md`. */
  file: z.string(),
  text: z.string(),
  modifiedAt: z.string(),
  /** The file was longer than what is shown. */
  truncated: z.boolean(),
});
export type ClaudeCodeSummary = z.infer<typeof claudeCodeSummarySchema>;

/** One live session as the Live sessions view and `memdir session status` show it. */
export const sessionStatusSchema = z.object({
  sessionId: z.string(),
  /** The project's directory name under `projects/`. */
  project: z.string(),
  /** The project's real path (the transcript's `cwd`), when known. */
  projectPath: z.string().nullable(),
  transcriptPath: z.string(),
  /**
   * Context now, as Claude Code counts it: input + cache read + cache creation + output tokens
   * of the latest response, plus an estimate (characters / 4) of the messages after it.
   */
  contextTokens: z.number(),
  /** The context has reached 10,000 tokens: notes are written from now on. */
  started: z.boolean(),
  tokensSinceUpdate: z.number(),
  toolCallsSinceUpdate: z.number(),
  /** The latest assistant response called tools (when it did not, 3 tool calls are not needed). */
  lastResponseUsedTools: z.boolean(),
  /** The thresholds are met: the next look updates the note. */
  due: z.boolean(),
  /** How far from the next update (0 when that threshold is met). */
  tokensToNext: z.number(),
  toolCallsToNext: z.number(),
  lastActivityAt: z.string().nullable(),
  /** When Claude Code said the session ended (SessionEnd); its note stays for a `--resume`. */
  endedAt: z.string().nullable(),
  lastUpdateAt: z.string().nullable(),
  updates: z.number(),
  /** How the note was last written. */
  method: z.enum(['model', 'offline']).nullable(),
  /** Why the model was not used for the last update, when it was not. */
  fallbackReason: z.string().nullable(),
  /** The note's markdown, when one was written. */
  note: z.string().nullable(),
  noteFile: z.string().nullable(),
  /**
   * What the SessionStart hook hands back to Claude Code (the note under a one-line intro), when
   * there is a note: how many characters (UTF-16 units, as Claude Code counts them), how many the
   * intro and the whole note come to (`wholeChars`, the same as `chars` unless cut), and whether
   * the note was cut to stay within Claude Code's limit (`SESSION_HANDBACK_MAX_CHARS`) (its
   * beginning and its latest lines kept).
   */
  handBack: z.object({ chars: z.number(), wholeChars: z.number(), cut: z.boolean() }).nullable(),
  /** An older Claude Code's own note of this session, where it exists. */
  claudeCodeSummary: claudeCodeSummarySchema.nullable(),
});
export type SessionStatus = z.infer<typeof sessionStatusSchema>;

export const sessionContract = {
  'sessions.list': query(
    'Live sessions with their Session Memory note, counters and distance to the next update.',
    z.object({}),
    z.object({ sessions: z.array(sessionStatusSchema) }),
  ),
  'sessions.update': mutation(
    "Update a session's note now, whatever the thresholds (as a PreCompact hook does).",
    z.object({ sessionId: z.string().min(1).max(200) }),
    z.object({ session: sessionStatusSchema }),
  ),
};
