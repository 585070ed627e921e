/** The recall playground: a query, both methods side by side, "why not this one?". */
import { create } from 'zustand';
import type { ProjectRecallResult, ProviderStatus, RankExplanation } from '../../shared/recall-types.js';
import { call } from '../transport/transport.js';
import { messageOf } from './errors.js';

interface RecallState {
  dir: string | null;
  query: string;
  running: boolean;
  error: string | null;
  model: ProjectRecallResult | null;
  local: ProjectRecallResult | null;
  status: ProviderStatus | null;
  recent: { project: string; query: string; at: string }[];
  explained: RankExplanation | null;
  setQuery: (query: string) => void;
  open: (dir: string) => Promise<void>;
  run: () => Promise<void>;
  explain: (file: string) => Promise<void>;
}

export const useRecall = create<RecallState>()((set, get) => ({
  dir: null,
  query: '',
  running: false,
  error: null,
  model: null,
  local: null,
  status: null,
  recent: [],
  explained: null,
  setQuery(query) {
    set({ query });
  },
  async open(dir) {
    if (get().dir !== dir) set({ dir, model: null, local: null, explained: null, error: null });
    try {
      const [status, recent] = await Promise.all([call('model.status', {}), call('recall.recent', {})]);
      set({ status, recent: recent.queries });
    } catch (error) {
      set({ error: messageOf(error) });
    }
  },
  async run() {
    const { dir, query } = get();
    if (!dir) return;
    if (!query.trim()) {
      set({ error: 'Type what the agent is about to work on.' });
      return;
    }
    set({ running: true, error: null, explained: null });
    try {
      const both = await call('recall.compare', { dir, query });
      set({ model: both.model, local: both.local });
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
