/** Dreams: gates, Dream now, confirm, history with diffs, revert. Thin: DreamService does the work. */
import type { Handlers } from './dispatch.js';

export const dreamHandlers: Pick<Handlers, 'dream.status' | 'dream.overview' | 'dream.now' | 'dream.confirm' | 'dream.list' | 'dream.diff' | 'dream.revert'> = {
  async 'dream.status'({ dir }, ctx) {
    return ctx.dreams.status(dir);
  },
  async 'dream.overview'(_input, ctx) {
    return { projects: await ctx.dreams.overview() };
  },
  async 'dream.now'({ dir, allowDeletes }, ctx) {
    return ctx.dreams.start(dir, { trigger: 'manual', force: true, ...(allowDeletes ? { allowDeletes } : {}) });
  },
  async 'dream.confirm'({ id }, ctx) {
    return ctx.dreams.confirm(id);
  },
  async 'dream.list'({ dir, limit }, ctx) {
    return { dreams: await ctx.dreams.list(dir, limit) };
  },
  async 'dream.diff'({ id, file }, ctx) {
    return { diff: await ctx.dreams.diff(id, file) };
  },
  async 'dream.revert'({ id, overwriteChanged }, ctx) {
    return ctx.dreams.revert(id, overwriteChanged === true);
  },
};
