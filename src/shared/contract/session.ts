/**
 * Session Memory (R-SESSION): a note per live session, kept in Memdir's data dir, updated when
 * the context grew by more than 5,000 tokens and at least 3 tool calls happened since the last
 * update (or before a compaction), removed when the session ends.
 */
import { z } from 'zod';
import { mutation, query } from './define.js';

/** R-SESSION *(fact)*: the context must grow by more than this many tokens… */
export const SESSION_MIN_TOKENS = 5_000;
/** …and at least this many tool calls must happen, before the note is updated again. */
export const SESSION_MIN_TOOL_CALLS = 3;

/** One live session as the Live sessions view and `memdir session status` show it. */
export const sessionStatusSchema = z.object({
  sessionId: z.string(),
  /** The project's directory name under `projects/`. */
  project: z.string(),
  /** The project's real path (the transcript's `cwd`), when known. */
  projectPath: z.string().nullable(),
  transcriptPath: z.string(),
  /** Context now: input + cache read + cache creation of the latest response. */
  contextTokens: z.number(),
  tokensSinceUpdate: z.number(),
  toolCallsSinceUpdate: z.number(),
  /** Both thresholds are met: the next look updates the note. */
  due: z.boolean(),
  /** How far from the next update (0 when that threshold is met). */
  tokensToNext: z.number(),
  toolCallsToNext: z.number(),
  lastActivityAt: z.string().nullable(),
  lastUpdateAt: z.string().nullable(),
  updates: z.number(),
  /** How the note was last written. */
  method: z.enum(['model', 'offline']).nullable(),
  /** Why the model was not used for the last update, when it was not. */
  fallbackReason: z.string().nullable(),
  /** The note's markdown, when one was written. */
  note: z.string().nullable(),
  noteFile: z.string().nullable(),
});
export type SessionStatus = z.infer<typeof sessionStatusSchema>;

export const sessionContract = {
  'sessions.list': query('Live sessions with their Session Memory note, counters and distance to the next update.', z.object({}), z.object({ sessions: z.array(sessionStatusSchema) })),
  'sessions.update': mutation(
    "Update a session's note now, whatever the thresholds (as a PreCompact hook does).",
    z.object({ sessionId: z.string().min(1).max(200) }),
    z.object({ session: sessionStatusSchema }),
  ),
};
