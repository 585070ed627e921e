/** Agent memory (R-AGENT): every agent type's three scopes, each scanned like a memory dir. */
import path from 'node:path';
import { MemdirError } from '../../shared/errors.js';
import { agentMemoryOffSentence } from '../../shared/settings-text.js';
import { listAgentMemories, otherLaunchDirWarnings } from '../agents/index.js';
import { projectLaunchDirs, readEffectiveSettings, scanMemoryDir } from '../memdir/index.js';
import type { Handlers } from './dispatch.js';

export const agentHandlers: Pick<Handlers, 'agents.list'> = {
  async 'agents.list'({ dir, launchDir: asked }, ctx) {
    const project = dir ? await ctx.project(dir) : null;
    const repoRoot = project?.path ?? null;
    // Claude Code keeps project and local agent memory in the directory a session starts in (the
    // main one, whose settings speak for the project, unless another is asked for), not at the canonical key.
    const dirs = project ? projectLaunchDirs(project) : null;
    const launchDirs = dirs ? [...(dirs.main ? [dirs.main] : []), ...dirs.others] : [];
    let launchDir = dirs?.main ?? null;
    if (asked !== undefined && (!dirs || path.resolve(asked) !== path.resolve(launchDir ?? ''))) {
      const found = launchDirs.find((d) => path.resolve(d) === path.resolve(asked));
      if (!found)
        throw new MemdirError(
          'invalid-input',
          `No session of ${dir ? 'this project' : 'a project'} starts in ${asked}, so it keeps no agent memory of this project.`,
        );
      launchDir = found;
    }
    // The settings of that launch directory, or the user's and the environment's alone.
    const settings =
      project && launchDir === dirs?.main
        ? project.settings
        : await readEffectiveSettings(ctx.home, launchDir && repoRoot ? { launchDir, canonicalRoot: repoRoot } : null, ctx.env);
    const { agents, warnings } = await listAgentMemories(ctx.home, launchDir, repoRoot, { memoryBase: settings.memoryBase });
    const off = agentMemoryOffSentence(settings);
    const others = launchDir ? await otherLaunchDirWarnings(launchDir, launchDirs) : [];
    return {
      repoRoot,
      launchDir,
      launchDirs,
      warnings: [...(off ? [{ code: 'auto-memory-off', message: off }] : []), ...warnings, ...others],
      agents: agents.map((a) => ({
        agentType: a.agentType,
        definedIn: a.definedIn,
        scopes: a.scopes.map((s) => ({ ...s, scan: s.exists ? scanMemoryDir(s.memoryDir, { scope: 'private', agent: true }) : null })),
      })),
    };
  },
};
