/** Agent memory (R-AGENT): every agent type's three scopes, each scanned like a memory dir. */
import { agentMemoryOffSentence } from '../../shared/settings-text.js';
import { listAgentMemories, otherLaunchDirWarnings } from '../agents/index.js';
import { projectLaunchDirs, readEffectiveSettings, scanMemoryDir } from '../memdir/index.js';
import type { Handlers } from './dispatch.js';

export const agentHandlers: Pick<Handlers, 'agents.list'> = {
  async 'agents.list'({ dir }, ctx) {
    const project = dir ? await ctx.project(dir) : null;
    const repoRoot = project?.path ?? null;
    // Claude Code keeps project and local agent memory in the launch directory (its sessions'
    // main one, whose settings are read too), not at the canonical key.
    const dirs = project ? projectLaunchDirs(project) : null;
    const launchDir = dirs?.main ?? null;
    // The settings of the project's launch directory, or the user's and the environment's alone.
    const settings = project?.settings ?? (await readEffectiveSettings(ctx.home, null, ctx.env));
    const { agents, warnings } = await listAgentMemories(ctx.home, launchDir, repoRoot, { memoryBase: settings.memoryBase });
    const off = agentMemoryOffSentence(settings);
    const others = dirs && launchDir ? await otherLaunchDirWarnings(launchDir, dirs.others) : [];
    return {
      repoRoot,
      launchDir,
      warnings: [...(off ? [{ code: 'auto-memory-off', message: off }] : []), ...warnings, ...others],
      agents: agents.map((a) => ({
        agentType: a.agentType,
        definedIn: a.definedIn,
        scopes: a.scopes.map((s) => ({ ...s, scan: s.exists ? scanMemoryDir(s.memoryDir, { scope: 'private', agent: true }) : null })),
      })),
    };
  },
};
