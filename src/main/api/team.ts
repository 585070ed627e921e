/** Team sync: status, connect, sync now, conflicts, move. Thin: TeamService does the work. */
import type { Handlers } from './dispatch.js';

export const teamHandlers: Pick<
  Handlers,
  'team.status' | 'team.overview' | 'team.connect' | 'team.disconnect' | 'team.sync' | 'team.conflict' | 'team.resolve' | 'team.move'
> = {
  async 'team.status'({ dir }, ctx) {
    return ctx.team.status(dir);
  },
  async 'team.overview'(_input, ctx) {
    return { projects: await ctx.team.overview() };
  },
  async 'team.connect'({ dir, server, team, token, allowHttp, pullIntervalSec }, ctx) {
    return ctx.team.connect(dir, {
      server,
      team,
      token,
      ...(allowHttp !== undefined ? { allowHttp } : {}),
      ...(pullIntervalSec !== undefined ? { pullIntervalSec } : {}),
    });
  },
  async 'team.disconnect'({ dir }, ctx) {
    return { disconnected: await ctx.team.disconnect(dir) };
  },
  async 'team.sync'({ dir }, ctx) {
    return ctx.team.syncNow(dir);
  },
  async 'team.conflict'({ dir, id }, ctx) {
    return ctx.team.conflict(dir, id);
  },
  async 'team.resolve'({ dir, id, take, text, theirsSha, allowSecrets }, ctx) {
    return ctx.team.resolve(dir, id, take, {
      ...(text !== undefined ? { text } : {}),
      ...(theirsSha !== undefined ? { theirsSha } : {}),
      ...(allowSecrets ? { allowSecrets } : {}),
    });
  },
  async 'team.move'({ dir, file, to, allowSecrets }, ctx) {
    return ctx.team.move(dir, file, to, allowSecrets);
  },
};
