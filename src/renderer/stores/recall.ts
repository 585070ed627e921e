/**
 * The recall playground: a query, in one of two modes — Claude Code's exact recall (with its
 * session: earlier queries and already loaded files carry over until "New session"), or Memdir's
 * explained recall (model and local ranker side by side, "why not this one?").
 */
import { create } from 'zustand';
import type { ClaudeCodeRecallResult, ProjectRecallResult, ProviderStatus, RankExplanation } from '../../shared/recall-types.js';
import { call } from '../transport/transport.js';
import { messageOf } from './errors.js';

/** Which recall the playground runs. */
export type RecallMode = 'claude-code' | 'memdir';

interface RecallState {
  dir: string | null;
  mode: RecallMode;
  query: string;
  running: boolean;
  error: string | null;
  model: ProjectRecallResult | null;
  local: ProjectRecallResult | null;
  claudeCode: ClaudeCodeRecallResult | null;
  /** The Claude Code session the next query continues (null: a new one). */
  session: string | null;
  /** Memdir explained's session: files recalled by earlier queries, never chosen again until New session. */
  recalled: string[];
  status: ProviderStatus | null;
  recent: { project: string; query: string; at: string }[];
  explained: RankExplanation | null;
  setQuery: (query: string) => void;
  setMode: (mode: RecallMode) => void;
  /** Forget the Claude Code session: the next query starts a new one. */
  newSession: () => void;
  open: (dir: string) => Promise<void>;
  run: () => Promise<void>;
  explain: (file: string) => Promise<void>;
}

/** What a new project (or a new session) starts from: no results, no session. */
function resetFor(dir: string): Pick<RecallState, 'dir' | 'model' | 'local' | 'claudeCode' | 'session' | 'recalled' | 'explained' | 'error'> {
  return { dir, model: null, local: null, claudeCode: null, session: null, recalled: [], explained: null, error: null };
}

export const useRecall = create<RecallState>()((set, get) => ({
  dir: null,
  mode: 'claude-code',
  query: '',
  running: false,
  error: null,
  model: null,
  local: null,
  claudeCode: null,
  session: null,
  recalled: [],
  status: null,
  recent: [],
  explained: null,
  setQuery(query) {
    set({ query });
  },
  setMode(mode) {
    set({ mode, error: null });
  },
  newSession() {
    set({ session: null, claudeCode: null, recalled: [], model: null, local: null });
  },
  async open(dir) {
    if (get().dir !== dir) set(resetFor(dir));
    try {
      const [status, recent] = await Promise.all([call('model.status', {}), call('recall.recent', {})]);
      set({ status, recent: recent.queries });
    } catch (error) {
      set({ error: messageOf(error) });
    }
  },
  async run() {
    const { dir, query, mode, session } = get();
    if (!dir) return;
    if (!query.trim()) {
      set({ error: 'Type what the agent is about to work on.' });
      return;
    }
    set({ running: true, error: null, explained: null });
    try {
      if (mode === 'claude-code') {
        const result = await call('recall.claudeCode', { dir, query, session });
        // A reply for a project the user has left is dropped.
        if (get().dir === dir) set({ claudeCode: result, session: result.session.id });
      } else {
        const { recalled } = get();
        const both = await call('recall.compare', { dir, query, ...(recalled.length > 0 ? { exclude: recalled } : {}) });
        // What the model column chose (the ranker's, when it fell back) counts as loaded for the rest of the session.
        if (get().dir === dir) set({ model: both.model, local: both.local, recalled: [...new Set([...recalled, ...both.model.selected.map((s) => s.file)])] });
      }
      const recent = await call('recall.recent', {});
      set({ recent: recent.queries });
    } catch (error) {
      set({ error: messageOf(error) });
    } finally {
      set({ running: false });
    }
  },
  async explain(file) {
    const { dir, query } = get();
    if (!dir) return;
    try {
      set({ explained: await call('recall.explain', { dir, query, file }) });
    } catch (error) {
      set({ error: messageOf(error) });
    }
  },
}));
