/** Live sessions and their Session Memory notes (R-SESSION). */
import { RpcError } from '../../shared/contract/define.js';
import type { Handlers } from './dispatch.js';

export const sessionHandlers: Pick<Handlers, 'sessions.list' | 'sessions.update'> = {
  async 'sessions.list'(_input, ctx) {
    return { sessions: await ctx.autoMemory.sessions.listLive() };
  },
  async 'sessions.update'({ sessionId }, ctx) {
    const known = (await ctx.autoMemory.sessions.listLive()).find((s) => s.sessionId === sessionId);
    if (!known) throw new RpcError({ code: 'not-found', message: `Session ${sessionId} is not live any more.` });
    const session = await ctx.autoMemory.sessions.observe(known.transcriptPath, { force: true });
    if (!session) throw new RpcError({ code: 'not-found', message: `The transcript of session ${sessionId} is gone.` });
    return { session };
  },
};
