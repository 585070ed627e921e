/** Personal sync: account, per-project switch, sync now, conflicts. Thin: PersonalService does the work. */
import type { Handlers } from './dispatch.js';

export const personalHandlers: Pick<
  Handlers,
  | 'personal.status'
  | 'personal.connect'
  | 'personal.disconnect'
  | 'personal.project'
  | 'personal.enable'
  | 'personal.disable'
  | 'personal.sync'
  | 'personal.conflict'
  | 'personal.resolve'
> = {
  async 'personal.status'(_input, ctx) {
    return ctx.personal.status();
  },
  async 'personal.connect'({ server, token, passphrase, allowHttp, acknowledged }, ctx) {
    return ctx.personal.connect({
      server,
      token,
      passphrase,
      ...(allowHttp !== undefined ? { allowHttp } : {}),
      ...(acknowledged !== undefined ? { acknowledged } : {}),
    });
  },
  async 'personal.disconnect'(_input, ctx) {
    return ctx.personal.disconnect();
  },
  async 'personal.project'({ dir }, ctx) {
    return ctx.personal.project(dir);
  },
  async 'personal.enable'({ dir, identity }, ctx) {
    return ctx.personal.enable(dir, identity);
  },
  async 'personal.disable'({ dir }, ctx) {
    return ctx.personal.disable(dir);
  },
  async 'personal.sync'({ dir }, ctx) {
    return ctx.personal.syncNow(dir);
  },
  async 'personal.conflict'({ dir, id }, ctx) {
    return ctx.personal.conflict(dir, id);
  },
  async 'personal.resolve'({ dir, id, take, text, theirsSha, allowSecrets }, ctx) {
    return ctx.personal.resolve(dir, id, take, {
      ...(text !== undefined ? { text } : {}),
      ...(theirsSha !== undefined ? { theirsSha } : {}),
      ...(allowSecrets ? { allowSecrets } : {}),
    });
  },
};
