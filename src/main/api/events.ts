/** Events to the renderer and background jobs ("Dream now" is in dream.ts). */
import type { Handlers, Subscribers } from './dispatch.js';

export const eventHandlers: Pick<Handlers, 'jobs.list' | 'jobs.cancel'> = {
  async 'jobs.list'(_input, ctx) {
    return { jobs: ctx.jobs.list() };
  },
  async 'jobs.cancel'({ id }, ctx) {
    return { cancelled: ctx.jobs.cancel(id) };
  },
};

export const subscribers: Subscribers = {
  'events.stream'(_input, ctx, emit) {
    return ctx.events.subscribe(emit);
  },
};
