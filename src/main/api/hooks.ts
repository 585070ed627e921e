/** "Connect to Claude Code": the hooks in the home's settings.json (SPEC §11). */
import { applyHooksChange, planHooksChange, readHooksStatus } from '../hooks/index.js';
import { type AppContext } from '../app/index.js';
import type { Handlers } from './dispatch.js';

async function status(ctx: AppContext) {
  const current = await readHooksStatus(ctx.home, { dataDir: ctx.dataDir });
  const problems = ctx.autoMemory.channelProblem ? [...current.problems, ctx.autoMemory.channelProblem] : current.problems;
  return { ...current, problems };
}

export const hookHandlers: Pick<Handlers, 'hooks.status' | 'hooks.plan' | 'hooks.apply'> = {
  async 'hooks.status'(_input, ctx) {
    return status(ctx);
  },
  async 'hooks.plan'({ action }, ctx) {
    const { before: _before, after: _after, ...plan } = await planHooksChange(ctx.home, action, { dataDir: ctx.dataDir });
    return plan;
  },
  async 'hooks.apply'({ action, baseHash }, ctx) {
    const result = await applyHooksChange(ctx.home, action, baseHash, { dataDir: ctx.dataDir });
    await ctx.autoMemory.refreshHooksConnected();
    return { status: await status(ctx), backup: result.backup };
  },
};
