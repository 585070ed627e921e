/**
 * Personal sync's account and projects (issue 18, item 5): this machine's link to the user's
 * personal space on a Memdir sync server, and which projects' private memory it syncs. The CLI
 * and the app both go through here (and through TeamSync, the team's engine, for each sync).
 *
 *   - the account (`<dataDir>/personal/account.json`): server, user, this machine's name on the
 *     server, the token's public id, the space's key record and key id. The token and the key
 *     derived from the passphrase are in the credential store (`personal-token`, `personal-key`:
 *     the OS keychain in the desktop app, a 0600 file for the command line); the passphrase itself
 *     is never stored.
 *   - the projects (`<dataDir>/personal/connections.json`, the team's ConnectionStore in the
 *     `personal` folder): per memory dir, the project's sync identity (project-key.ts) and the id
 *     the server knows it by (`team`: an HMAC of the identity), with its sync state beside it.
 *
 * Connecting asks the server for the space's key record. None yet: this is the first machine —
 * the passphrase is explained first (losing it loses the synced copy; nobody can recover it), and
 * only an acknowledged, long enough passphrase sets it. One there: the passphrase must open it —
 * a wrong one is refused before anything is stored, written or sent.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import * as z from 'zod';
import { writeDataFile } from '../core/safe-fs.js';
import type { CredentialStore } from '../settings/index.js';
import {
  type AlertCenter,
  checkServerUrl,
  connectionDir,
  ConnectionStore,
  PERSONAL_SPACE,
  TeamClient,
  TeamConfigError,
  type TeamConnection,
  teamDataDir,
  TeamSync,
  type TeamSyncOptions,
  tokenIdOf,
} from '../team/index.js';
import { EncryptedSpaceClient } from './encrypted-client.js';
import { PERSONAL_MAX_ENTRY_BYTES, PersonalKeyError, PersonalKeys, createKey, parseKeyRecord, unlockKey } from './personal-crypto.js';
import type { SyncIdentity } from './project-key.js';
import { PASSPHRASE_WARNING } from '../../shared/personal-sync.js';
import { MemdirError } from '../../shared/errors.js';

/** Credential names. */
export const PERSONAL_TOKEN = 'personal-token';
export const PERSONAL_KEY = 'personal-key';

export { PASSPHRASE_WARNING } from '../../shared/personal-sync.js';

export const accountSchema = z.object({
  version: z.literal(1),
  server: z.string(),
  /** The user whose personal space the token reaches. */
  user: z.string(),
  /** This machine's name on the server (the token's member name). */
  member: z.string(),
  tokenId: z.string(),
  /** The space's key record as the server holds it (public: KDF parameters, salt, check). */
  keyRecord: z.string(),
  /** A fingerprint of the key, the same on every machine that has it. */
  keyId: z.string(),
  connectedAt: z.string(),
});
export type PersonalAccount = z.infer<typeof accountSchema>;

/** A personal sync request Memdir refuses, with a stable code and a sentence. */
export class PersonalSyncError extends MemdirError<
  'not-connected' | 'needs-acknowledgement' | 'not-personal' | 'no-identity' | 'no-key' | 'wrong-passphrase' | 'weak-passphrase' | 'bad-record'
> {
  override readonly name = 'PersonalSyncError';
}

function accountFile(dataDir: string): string {
  return path.join(teamDataDir(dataDir, PERSONAL_SPACE.dataFolder), 'account.json');
}

/** The personal projects of this machine. */
export function personalConnections(dataDir: string): ConnectionStore {
  return new ConnectionStore(dataDir, PERSONAL_SPACE.dataFolder);
}

/** This machine's personal account, or null when it is not connected. */
export async function readAccount(dataDir: string): Promise<PersonalAccount | null> {
  const text = await fs.readFile(accountFile(dataDir), 'utf8').catch(() => null);
  if (text === null) return null;
  try {
    return accountSchema.parse(JSON.parse(text));
  } catch {
    throw new TeamConfigError(`The personal sync settings ${accountFile(dataDir)} are damaged; connect again (memdir personal connect).`);
  }
}

function asKeyError(error: unknown): unknown {
  return error instanceof PersonalKeyError ? new PersonalSyncError(error.code, error.message) : error;
}

export interface ConnectInput {
  dataDir: string;
  credentials: CredentialStore;
  server: string;
  token: string;
  passphrase: string;
  allowHttp?: boolean;
  /** The user has read PASSPHRASE_WARNING (needed only when this sets the space's passphrase). */
  acknowledged?: boolean;
  fetch?: typeof fetch;
}

/**
 * Connect this machine to the user's personal space (see the file comment). Returns the account
 * and whether this set the space's passphrase. Projects already synced here are moved to the
 * ids the (maybe new) key gives them.
 */
export async function connectAccount(input: ConnectInput): Promise<{ account: PersonalAccount; created: boolean }> {
  const server = await checkServerUrl(input.server, input.allowHttp === true);
  const token = input.token.trim();
  const tokenId = tokenIdOf(token);
  if (!tokenId) throw new TeamConfigError('That is not a Memdir token (they look like mdt_…, from `memdir server admin issue-token <you> --personal`).');
  const client = new TeamClient({ server, team: '', token, scope: 'personal', timeoutMs: 15_000, ...(input.fetch ? { fetch: input.fetch } : {}) });
  const me = await client.me();
  if (me.scope !== 'personal' || !me.user) {
    throw new PersonalSyncError(
      'not-personal',
      `This is a token of team "${me.team}"; personal sync needs a token of your personal space (memdir server admin issue-token <you> --personal).`,
    );
  }
  let master: Buffer;
  let recordText = await client.personalKey();
  let created = false;
  try {
    if (recordText === null) {
      if (!input.acknowledged)
        throw new PersonalSyncError('needs-acknowledgement', `This personal space has no passphrase yet: yours will be set now. ${PASSPHRASE_WARNING}`);
      const fresh = await createKey(input.passphrase);
      const set = await client.setPersonalKey(fresh.text);
      if (set.ok) {
        master = fresh.master;
        recordText = fresh.text;
        created = set.body.created === true;
      } else {
        // Another machine set it a moment ago: this passphrase must open that one.
        recordText = set.keyRecord;
        master = await unlockKey(input.passphrase, parseKeyRecord(recordText));
      }
    } else {
      master = await unlockKey(input.passphrase, parseKeyRecord(recordText));
    }
  } catch (error) {
    throw asKeyError(error);
  }
  const keys = new PersonalKeys(master);
  const account: PersonalAccount = {
    version: 1,
    server,
    user: me.user,
    member: me.member,
    tokenId,
    keyRecord: recordText,
    keyId: keys.keyId,
    connectedAt: new Date().toISOString(),
  };
  // Nothing is stored before the passphrase was proven right.
  await input.credentials.set(PERSONAL_TOKEN, token);
  await input.credentials.set(PERSONAL_KEY, master.toString('base64url'));
  await writeDataFile(accountFile(input.dataDir), `${JSON.stringify(account, null, 2)}\n`, { mode: 0o600 });
  const store = personalConnections(input.dataDir);
  for (const c of await store.list().catch(() => [])) {
    if (!c.identity) continue;
    const team = keys.projectId(c.identity.id);
    // Another server or key: the sync state starts over (ConnectionStore), so a difference becomes a conflict, never a loss.
    if (c.team !== team || c.server !== server || c.tokenId !== tokenId) await store.save({ ...c, server, team, member: me.member, tokenId });
  }
  return { account, created };
}

/** The account and its key, ready to sync: from the credential store, or from MEMDIR_PERSONAL_TOKEN and MEMDIR_PASSPHRASE for this run. */
export async function unlockAccount(
  dataDir: string,
  credentials: CredentialStore,
  env: NodeJS.ProcessEnv = {},
): Promise<{ account: PersonalAccount; token: string; keys: PersonalKeys }> {
  const account = await readAccount(dataDir);
  if (!account)
    throw new PersonalSyncError(
      'not-connected',
      'Personal sync is not set up on this machine: connect it first (memdir personal connect --server URL --token-stdin).',
    );
  const token = env.MEMDIR_PERSONAL_TOKEN?.trim() || (await credentials.get(PERSONAL_TOKEN).catch(() => null));
  let master: Buffer | null = null;
  if (env.MEMDIR_PASSPHRASE) {
    try {
      master = await unlockKey(env.MEMDIR_PASSPHRASE, parseKeyRecord(account.keyRecord));
    } catch (error) {
      throw asKeyError(error);
    }
  } else {
    const stored = await credentials.get(PERSONAL_KEY).catch(() => null);
    if (stored) master = Buffer.from(stored, 'base64url');
  }
  if (!token || !master) {
    throw new PersonalSyncError(
      'no-key',
      `The personal sync ${token ? 'key' : 'token'} is not stored here (or cannot be decrypted here): connect again, or set MEMDIR_PERSONAL_TOKEN and MEMDIR_PASSPHRASE for this run.`,
    );
  }
  try {
    return { account, token, keys: new PersonalKeys(master) };
  } catch (error) {
    throw asKeyError(error);
  }
}

/** Sync a project's private memory with the personal space under `identity` (another identity starts its sync state over). */
export async function enableProject(
  dataDir: string,
  credentials: CredentialStore,
  project: { memoryDir: string; dir: string | null; identity: SyncIdentity; pullIntervalSec?: number },
  env: NodeJS.ProcessEnv = {},
): Promise<TeamConnection> {
  const { account, keys } = await unlockAccount(dataDir, credentials, env);
  const store = personalConnections(dataDir);
  const previous = await store.forMemoryDir(project.memoryDir);
  return store.save({
    memoryDir: project.memoryDir,
    dir: project.dir,
    server: account.server,
    team: keys.projectId(project.identity.id),
    member: account.member,
    tokenId: account.tokenId,
    connectedAt: new Date().toISOString(),
    pullIntervalSec: project.pullIntervalSec ?? previous?.pullIntervalSec ?? 60,
    identity: project.identity,
  });
}

/** Stop syncing one project (its files, history and conflicts stay); true when it was synced. */
export async function disableProject(dataDir: string, memoryDir: string): Promise<boolean> {
  const store = personalConnections(dataDir);
  const connection = await store.forMemoryDir(memoryDir);
  return connection ? store.remove(connection.id) : false;
}

/** Disconnect this machine: the account, its token and key are forgotten, every project stops syncing; memories, history and conflicts stay. */
export async function disconnectAccount(dataDir: string, credentials: CredentialStore | null): Promise<{ disconnected: boolean; projects: number }> {
  const account = await readAccount(dataDir).catch(() => null);
  const store = personalConnections(dataDir);
  const projects = await store.list().catch(() => []);
  for (const c of projects) await store.remove(c.id);
  await credentials?.delete(PERSONAL_TOKEN).catch(() => undefined);
  await credentials?.delete(PERSONAL_KEY).catch(() => undefined);
  await fs.rm(accountFile(dataDir), { force: true });
  return { disconnected: account !== null, projects: projects.length };
}

/** The sync client of one personal project: the team's engine on the private memory, through the encrypting client. */
export async function openPersonalSync(
  connection: TeamConnection,
  opts: { dataDir: string; credentials: CredentialStore; env?: NodeJS.ProcessEnv; alerts?: AlertCenter | null; fetch?: typeof fetch } & Partial<
    Pick<TeamSyncOptions, 'retry' | 'onWrite' | 'onRequest' | 'timeoutMs' | 'maxResponseBytes' | 'maxPullEntries'>
  >,
): Promise<TeamSync> {
  const { account, token, keys } = await unlockAccount(opts.dataDir, opts.credentials, opts.env);
  if (!connection.identity || keys.projectId(connection.identity.id) !== connection.team) {
    throw new PersonalSyncError(
      'no-key',
      `${connection.dir ?? connection.memoryDir} was set up for personal sync with another key; turn it on again (memdir personal connect --project …).`,
    );
  }
  const record = parseKeyRecord(account.keyRecord);
  // The engine builds the HTTP client (the personal routes, this sync's timeout and read limits); this wraps it in encryption.
  const client = (inner: TeamClient): EncryptedSpaceClient =>
    new EncryptedSpaceClient({
      inner,
      keys,
      project: connection.team,
      record,
      stateDir: connectionDir(opts.dataDir, connection.id, PERSONAL_SPACE.dataFolder),
    });
  return TeamSync.open({
    connection,
    token,
    dataDir: opts.dataDir,
    dir: connection.dir,
    alerts: opts.alerts ?? null,
    space: PERSONAL_SPACE,
    client,
    protocol: 2,
    maxEntryBytes: PERSONAL_MAX_ENTRY_BYTES,
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
    ...(opts.timeoutMs ? { timeoutMs: opts.timeoutMs } : {}),
    ...(opts.maxResponseBytes ? { maxResponseBytes: opts.maxResponseBytes } : {}),
    ...(opts.maxPullEntries ? { maxPullEntries: opts.maxPullEntries } : {}),
    ...(opts.retry ? { retry: opts.retry } : {}),
    ...(opts.onWrite ? { onWrite: opts.onWrite } : {}),
    ...(opts.onRequest ? { onRequest: opts.onRequest } : {}),
  });
}

/** The sync client of a personal project for what needs no server and no key: status, conflicts, keeping the other machine's version. */
export async function openPersonalSyncLocal(connection: TeamConnection, dataDir: string): Promise<TeamSync> {
  return TeamSync.open({ connection, token: '', dataDir, dir: connection.dir, space: PERSONAL_SPACE, protocol: 2, maxEntryBytes: PERSONAL_MAX_ENTRY_BYTES });
}
