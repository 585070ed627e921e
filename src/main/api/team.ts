/** Team sync: status, connect, sync now, conflicts, move. Thin: TeamService does the work. */
import { RpcError, type RpcErrorCode } from '../../shared/contract/define.js';
import { MemoryLockError } from '../memdir/safe-fs.js';
import { AlertError } from '../team/alert-center.js';
import { TeamConfigError } from '../team/connections.js';
import { TeamClientError } from '../team/team-client.js';
import { TeamPathError } from '../team/team-paths.js';
import { TeamSyncError } from '../team/team-sync.js';
import type { Handlers } from './dispatch.js';

const CLIENT_CODES: Partial<Record<string, RpcErrorCode>> = {
  unauthorized: 'unauthorized',
  revoked: 'unauthorized',
  'not-found': 'not-found',
  network: 'unavailable',
  timeout: 'unavailable',
  unavailable: 'unavailable',
  'rate-limited': 'busy',
  busy: 'busy',
  conflict: 'conflict',
  'invalid-input': 'invalid-input',
};

/** Team and alert failures as the typed errors the renderer understands; anything else passes through. */
export async function typedTeam<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof TeamConfigError) throw new RpcError({ code: 'invalid-input', message: error.message });
    if (error instanceof TeamPathError) throw new RpcError({ code: 'unsafe-path', message: error.message });
    if (error instanceof AlertError) throw new RpcError({ code: error.code, message: error.message });
    // The team files are shared with other Memdir processes (the CLI): one may hold them a moment.
    if (error instanceof MemoryLockError) throw new RpcError({ code: 'busy', message: error.message });
    if (error instanceof TeamClientError || error instanceof TeamSyncError)
      throw new RpcError({ code: CLIENT_CODES[error.code] ?? 'unavailable', message: error.message });
    throw error;
  }
}

export const teamHandlers: Pick<
  Handlers,
  'team.status' | 'team.overview' | 'team.connect' | 'team.disconnect' | 'team.sync' | 'team.conflict' | 'team.resolve' | 'team.move'
> = {
  async 'team.status'({ dir }, ctx) {
    return typedTeam(() => ctx.team.status(dir));
  },
  async 'team.overview'(_input, ctx) {
    return typedTeam(async () => ({ projects: await ctx.team.overview() }));
  },
  async 'team.connect'({ dir, server, team, token, allowHttp, pullIntervalSec }, ctx) {
    return typedTeam(() =>
      ctx.team.connect(dir, {
        server,
        team,
        token,
        ...(allowHttp !== undefined ? { allowHttp } : {}),
        ...(pullIntervalSec !== undefined ? { pullIntervalSec } : {}),
      }),
    );
  },
  async 'team.disconnect'({ dir }, ctx) {
    return typedTeam(async () => ({ disconnected: await ctx.team.disconnect(dir) }));
  },
  async 'team.sync'({ dir }, ctx) {
    return typedTeam(() => ctx.team.syncNow(dir));
  },
  async 'team.conflict'({ dir, id }, ctx) {
    return typedTeam(() => ctx.team.conflict(dir, id));
  },
  async 'team.resolve'({ dir, id, take, text, theirsSha }, ctx) {
    return typedTeam(() => ctx.team.resolve(dir, id, take, { ...(text !== undefined ? { text } : {}), ...(theirsSha !== undefined ? { theirsSha } : {}) }));
  },
  async 'team.move'({ dir, file, to }, ctx) {
    return typedTeam(() => ctx.team.move(dir, file, to));
  },
};
