/** Dreams: gates, Dream now, confirm, history with diffs, revert. Thin: DreamService does the work. */
import { RpcError } from '../../shared/contract/define.js';
import { DreamError } from '../dream/dream-error.js';
import type { Handlers } from './dispatch.js';

/** A DreamError as the typed error the renderer understands; anything else passes through. */
async function typed<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof DreamError) throw new RpcError({ code: error.code, message: error.message });
    throw error;
  }
}

export const dreamHandlers: Pick<Handlers, 'dream.status' | 'dream.overview' | 'dream.now' | 'dream.confirm' | 'dream.list' | 'dream.diff' | 'dream.revert'> = {
  async 'dream.status'({ dir }, ctx) {
    return typed(() => ctx.dreams.status(dir));
  },
  async 'dream.overview'(_input, ctx) {
    return { projects: await ctx.dreams.overview() };
  },
  async 'dream.now'({ dir, allowDeletes }, ctx) {
    return typed(() => ctx.dreams.start(dir, { trigger: 'manual', force: true, ...(allowDeletes ? { allowDeletes } : {}) }));
  },
  async 'dream.confirm'({ id }, ctx) {
    return typed(() => ctx.dreams.confirm(id));
  },
  async 'dream.list'({ dir, limit }, ctx) {
    return typed(async () => ({ dreams: await ctx.dreams.list(dir, limit) }));
  },
  async 'dream.diff'({ id, file }, ctx) {
    return typed(async () => ({ diff: await ctx.dreams.diff(id, file) }));
  },
  async 'dream.revert'({ id, overwriteChanged }, ctx) {
    return typed(() => ctx.dreams.revert(id, overwriteChanged === true));
  },
};
