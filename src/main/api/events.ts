/** Events to the renderer, and the "Dream now" entry (answered by the dream service once it exists). */
import type { Handlers, Subscribers } from './dispatch.js';

export const eventHandlers: Pick<Handlers, 'dream.now' | 'jobs.list' | 'jobs.cancel'> = {
  async 'jobs.list'(_input, ctx) {
    return { jobs: ctx.jobs.list() };
  },
  async 'jobs.cancel'({ id }, ctx) {
    return { cancelled: ctx.jobs.cancel(id) };
  },
  async 'dream.now'({ dir }, ctx) {
    await ctx.project(dir);
    return { started: false, jobId: null, reason: 'Dreaming is not available in this build yet.' };
  },
};

export const subscribers: Subscribers = {
  'events.stream'(_input, ctx, emit) {
    return ctx.events.subscribe(emit);
  },
};
