/** Live sessions and their Session Memory notes (R-SESSION), refreshed while the view is open. */
import { create } from 'zustand';
import { SESSION_INIT_TOKENS, SESSION_MIN_TOKENS, SESSION_MIN_TOOL_CALLS, type SessionStatus } from '../../shared/contract/session.js';
import { call } from '../transport/transport.js';
import { messageOf } from './errors.js';

/**
 * How far a session is from its next note update, 0..1 per threshold (1 = met): tokens toward
 * the first 10,000 of context before the first note, then toward 5,000 of growth; tool calls
 * toward 3, or met when the last response made none (R-SESSION).
 */
export function progressToNext(
  session: Pick<SessionStatus, 'started' | 'contextTokens' | 'tokensSinceUpdate' | 'toolCallsSinceUpdate' | 'lastResponseUsedTools'>,
): { tokens: number; tools: number } {
  return {
    tokens: session.started ? Math.min(1, session.tokensSinceUpdate / SESSION_MIN_TOKENS) : Math.min(1, session.contextTokens / SESSION_INIT_TOKENS),
    tools: session.lastResponseUsedTools ? Math.min(1, session.toolCallsSinceUpdate / SESSION_MIN_TOOL_CALLS) : 1,
  };
}

/** The list with one session replaced (or added), keeping the order. */
export function withSession(sessions: SessionStatus[], session: SessionStatus): SessionStatus[] {
  const at = sessions.findIndex((s) => s.sessionId === session.sessionId);
  if (at < 0) return [session, ...sessions];
  return sessions.map((s, i) => (i === at ? session : s));
}

interface SessionsState {
  sessions: SessionStatus[];
  loaded: boolean;
  error: string | null;
  /** The session whose note is shown. */
  selected: string | null;
  load: () => Promise<void>;
  select: (sessionId: string) => void;
  updateNow: (sessionId: string) => Promise<void>;
}

export const useSessions = create<SessionsState>()((set, get) => ({
  sessions: [],
  loaded: false,
  error: null,
  selected: null,
  async load() {
    try {
      const { sessions } = await call('sessions.list', {});
      const selected = get().selected;
      set({
        sessions,
        loaded: true,
        error: null,
        selected: selected && sessions.some((s) => s.sessionId === selected) ? selected : (sessions[0]?.sessionId ?? null),
      });
    } catch (error) {
      set({ error: messageOf(error), loaded: true });
    }
  },
  select(sessionId) {
    set({ selected: sessionId });
  },
  async updateNow(sessionId) {
    try {
      const { session } = await call('sessions.update', { sessionId });
      set({ sessions: withSession(get().sessions, session), error: null });
    } catch (error) {
      set({ error: messageOf(error) });
    }
  },
}));
