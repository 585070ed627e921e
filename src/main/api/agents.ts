/** Agent memory (R-AGENT): every agent type's three scopes, each scanned like a memory dir. */
import { listAgentMemories } from '../agents/index.js';
import { scanMemoryDir } from '../memdir/index.js';
import type { Handlers } from './dispatch.js';

export const agentHandlers: Pick<Handlers, 'agents.list'> = {
  async 'agents.list'({ dir }, ctx) {
    const repoRoot = dir ? (await ctx.project(dir)).path : null;
    const { agents, warnings } = await listAgentMemories(ctx.home, repoRoot);
    return {
      repoRoot,
      warnings,
      agents: agents.map((a) => ({
        agentType: a.agentType,
        definedIn: a.definedIn,
        scopes: a.scopes.map((s) => ({ ...s, scan: s.exists ? scanMemoryDir(s.memoryDir, { scope: 'private', agent: true }) : null })),
      })),
    };
  },
};
