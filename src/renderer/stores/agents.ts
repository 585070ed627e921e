/** Sub-agent memory (R-AGENT) for the Agents view: each agent type's user, project and local memory. */
import { create } from 'zustand';
import type * as z from 'zod';
import type { agentsContract } from '../../shared/contract/agents.js';
import { call } from '../transport/transport.js';
import { messageOf } from './errors.js';

export type AgentsResult = z.output<(typeof agentsContract)['agents.list']['output']>;

interface AgentsState {
  /** The project the answer is for (undefined: user level only). */
  dir: string | undefined;
  result: AgentsResult | null;
  error: string | null;
  load: (dir?: string) => Promise<void>;
}

export const useAgents = create<AgentsState>()((set, get) => ({
  dir: undefined,
  result: null,
  error: null,
  async load(dir) {
    if (get().dir !== dir) set({ dir, result: null, error: null });
    try {
      const result = await call('agents.list', dir ? { dir } : {});
      // An answer for a project left meanwhile is dropped.
      if (get().dir === dir) set({ result });
    } catch (error) {
      if (get().dir === dir) set({ error: messageOf(error) });
    }
  },
}));
