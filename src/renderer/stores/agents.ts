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
  /** The launch directory asked for (undefined: the project's main one). */
  launchDir: string | undefined;
  result: AgentsResult | null;
  error: string | null;
  load: (dir?: string, launchDir?: string) => Promise<void>;
}

export const useAgents = create<AgentsState>()((set, get) => ({
  dir: undefined,
  launchDir: undefined,
  result: null,
  error: null,
  async load(dir, launchDir) {
    if (get().dir !== dir || get().launchDir !== launchDir) set({ dir, launchDir, result: null, error: null });
    const current = () => get().dir === dir && get().launchDir === launchDir;
    try {
      const result = await call('agents.list', dir ? { dir, ...(launchDir ? { launchDir } : {}) } : {});
      // An answer for a project (or launch directory) left meanwhile is dropped.
      if (current()) set({ result });
    } catch (error) {
      if (current()) set({ error: messageOf(error) });
    }
  },
}));
