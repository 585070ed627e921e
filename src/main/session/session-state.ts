/**
 * What Session Memory keeps per live session (R-SESSION), in Memdir's data dir:
 * `<dataDir>/session-memory/<sessionId>.json` (counters, facts gathered from the transcript,
 * the reading position) and `session-memory-<sessionId>.md` (the note itself). Both are
 * removed once the session has been idle long enough (a session that ended keeps its note until
 * then, for `claude --resume`): a note is never carried into another session.
 *
 * The reading position lives in the state file itself rather than in the shared cursor store,
 * so counters and position are saved in one atomic write and can never disagree after a crash.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import * as z from 'zod';
import { writeDataFile } from '../core/safe-fs.js';
import type { TranscriptCursor } from '../transcripts/index.js';

/** Session ids become file names: only these characters. */
export const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

const cursorSchema = z.custom<TranscriptCursor>(
  (value) => typeof value === 'object' && value !== null && typeof (value as { offset?: unknown }).offset === 'number',
);

/** Facts the offline note is written from, gathered as the transcript is read (all capped). */
export const sessionFactsSchema = z.object({
  /** The latest prompt the user typed. */
  task: z.string().nullable(),
  /** Files written or edited, oldest first, without repeats. */
  filesChanged: z.array(z.string()),
  /** Failed tool calls: tool, first line of the error, when. */
  errors: z.array(z.object({ tool: z.string(), text: z.string(), at: z.string().nullable() })),
  /** The assistant's latest answer. */
  lastAnswer: z.string().nullable(),
  /** Short lines of what happened since the last update (for the model). */
  recent: z.array(z.string()),
});
export type SessionFacts = z.infer<typeof sessionFactsSchema>;

export const sessionStateSchema = z.object({
  version: z.literal(1),
  sessionId: z.string().regex(SESSION_ID),
  transcriptPath: z.string(),
  /** The project's directory name under `projects/`, and its real path when known. */
  project: z.string(),
  projectPath: z.string().nullable(),
  /** Where the next read starts (complete turns only). */
  cursor: cursorSchema.nullable(),
  /** Tool calls of the complete turns read so far. */
  toolCalls: z.number().int().nonnegative(),
  /** Input + cache + output tokens of the latest response with usage among the complete turns. */
  contextTokens: z.number().int().nonnegative(),
  /** Characters of the messages after that response (counted as chars / 4 tokens). */
  charsAfterUsage: z.number().int().nonnegative().default(0),
  /** Tool calls of the latest assistant response among the complete turns. */
  lastResponseToolCalls: z.number().int().nonnegative().default(0),
  /** The context reached 10,000 tokens once: notes are written from then on (R-SESSION). */
  started: z.boolean().default(false),
  lastActivityAt: z.string().nullable(),
  /** When Claude Code said the session ended (SessionEnd); cleared if it goes on (a resume). */
  endedAt: z.string().nullable().default(null),
  facts: sessionFactsSchema,
  /** The counters when the note was last written (null: never). */
  lastUpdate: z
    .object({
      at: z.string(),
      contextTokens: z.number().int().nonnegative(),
      toolCalls: z.number().int().nonnegative(),
      method: z.enum(['model', 'offline']),
      fallbackReason: z.string().nullable(),
    })
    .nullable(),
  updates: z.number().int().nonnegative(),
});
export type SessionState = z.infer<typeof sessionStateSchema>;

/** A fresh state for a session seen for the first time. */
export function newSessionState(sessionId: string, transcriptPath: string, project: string): SessionState {
  return {
    version: 1,
    sessionId,
    transcriptPath,
    project,
    projectPath: null,
    cursor: null,
    toolCalls: 0,
    contextTokens: 0,
    charsAfterUsage: 0,
    lastResponseToolCalls: 0,
    started: false,
    lastActivityAt: null,
    endedAt: null,
    facts: { task: null, filesChanged: [], errors: [], lastAnswer: null, recent: [] },
    lastUpdate: null,
    updates: 0,
  };
}

/** Session states and notes under `<dataDir>/session-memory/`. */
export class SessionStore {
  readonly dir: string;

  constructor(dataDir: string) {
    this.dir = path.join(dataDir, 'session-memory');
  }

  private stateFile(sessionId: string): string {
    if (!SESSION_ID.test(sessionId)) throw new Error(`"${sessionId}" is not a session id`);
    return path.join(this.dir, `${sessionId}.json`);
  }

  /** `session-memory-<sessionId>.md`. */
  noteFile(sessionId: string): string {
    if (!SESSION_ID.test(sessionId)) throw new Error(`"${sessionId}" is not a session id`);
    return path.join(this.dir, `session-memory-${sessionId}.md`);
  }

  /** The state, or null when there is none or it is unreadable (then it starts over). */
  async load(sessionId: string): Promise<SessionState | null> {
    try {
      const parsed = sessionStateSchema.safeParse(JSON.parse(await fs.readFile(this.stateFile(sessionId), 'utf8')));
      return parsed.success && parsed.data.sessionId === sessionId ? parsed.data : null;
    } catch {
      return null;
    }
  }

  async save(state: SessionState): Promise<void> {
    await writeDataFile(this.stateFile(state.sessionId), `${JSON.stringify(state)}\n`, { mode: 0o600 });
  }

  async readNote(sessionId: string): Promise<string | null> {
    return fs.readFile(this.noteFile(sessionId), 'utf8').catch(() => null);
  }

  async writeNote(sessionId: string, text: string): Promise<void> {
    await writeDataFile(this.noteFile(sessionId), text, { mode: 0o600 });
  }

  /** Forget a session: its note and its state. */
  async remove(sessionId: string): Promise<void> {
    await fs.rm(this.noteFile(sessionId), { force: true });
    await fs.rm(this.stateFile(sessionId), { force: true });
  }

  /** Sessions with a state file. */
  async list(): Promise<string[]> {
    try {
      return (await fs.readdir(this.dir))
        .filter((n) => n.endsWith('.json') && !n.startsWith('.'))
        .map((n) => n.slice(0, -'.json'.length))
        .filter((id) => SESSION_ID.test(id));
    } catch {
      return [];
    }
  }
}
