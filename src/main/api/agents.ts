/** Agent memory (R-AGENT): every agent type's three scopes, each scanned like a memory dir. */
import { listProjectAgents } from '../agents/index.js';
import type { Handlers } from './dispatch.js';

export const agentHandlers: Pick<Handlers, 'agents.list'> = {
  async 'agents.list'({ dir, launchDir }, ctx) {
    // The same service as `memdir agents` (src/cli/commands/agents.ts).
    return listProjectAgents(ctx.home, dir ? await ctx.project(dir) : null, { launchDir, env: ctx.env });
  },
};
