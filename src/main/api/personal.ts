/** Personal sync: account, per-project switch, sync now, conflicts. Thin: PersonalService does the work. */
import { RpcError, type RpcErrorCode } from '../../shared/contract/define.js';
import { PersonalSyncError } from '../personal/personal-account.js';
import type { Handlers } from './dispatch.js';
import { typedTeam } from './team.js';

/** Every PersonalSyncError code as the transport's error (a code without one fails to type-check). */
const PERSONAL_CODES: Record<PersonalSyncError['code'], RpcErrorCode> = {
  'not-connected': 'not-found',
  'needs-acknowledgement': 'invalid-input',
  'not-personal': 'invalid-input',
  'no-identity': 'invalid-input',
  'no-key': 'unauthorized',
  'wrong-passphrase': 'unauthorized',
  'weak-passphrase': 'invalid-input',
  'bad-record': 'conflict',
};

/** Personal sync failures as typed errors; the team sync's (client, paths, config) as team sync maps them. */
async function typedPersonal<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await typedTeam(work);
  } catch (error) {
    if (error instanceof PersonalSyncError) throw new RpcError({ code: PERSONAL_CODES[error.code], message: error.message });
    throw error;
  }
}

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
    return typedPersonal(() => ctx.personal.status());
  },
  async 'personal.connect'({ server, token, passphrase, allowHttp, acknowledged }, ctx) {
    return typedPersonal(() =>
      ctx.personal.connect({
        server,
        token,
        passphrase,
        ...(allowHttp !== undefined ? { allowHttp } : {}),
        ...(acknowledged !== undefined ? { acknowledged } : {}),
      }),
    );
  },
  async 'personal.disconnect'(_input, ctx) {
    return typedPersonal(() => ctx.personal.disconnect());
  },
  async 'personal.project'({ dir }, ctx) {
    return typedPersonal(() => ctx.personal.project(dir));
  },
  async 'personal.enable'({ dir, identity }, ctx) {
    return typedPersonal(() => ctx.personal.enable(dir, identity));
  },
  async 'personal.disable'({ dir }, ctx) {
    return typedPersonal(() => ctx.personal.disable(dir));
  },
  async 'personal.sync'({ dir }, ctx) {
    return typedPersonal(() => ctx.personal.syncNow(dir));
  },
  async 'personal.conflict'({ dir, id }, ctx) {
    return typedPersonal(() => ctx.personal.conflict(dir, id));
  },
  async 'personal.resolve'({ dir, id, take, text, theirsSha }, ctx) {
    return typedPersonal(() =>
      ctx.personal.resolve(dir, id, take, { ...(text !== undefined ? { text } : {}), ...(theirsSha !== undefined ? { theirsSha } : {}) }),
    );
  },
};
