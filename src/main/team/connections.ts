/**
 * Which projects share their team memory, and with which server and team: Memdir's own small
 * file `<dataDir>/team/connections.json` (zod-validated), never Claude Code's files. The token
 * is not in it: it lives in the credential store (`team-token-<id>`, encrypted with the
 * Electron shell's safeStorage where available), never in logs, settings or this file.
 *
 * A connection is keyed by the memory directory's real path (`memoryDirKey`), so a project
 * named by its path or by its directory name under `projects/` is the same connection.
 *
 * The app and the CLI both change the file: every read-modify-write holds Memdir's lock on it
 * (across processes) and replaces it atomically, so neither loses the other's connection.
 */
import { failureWords } from '../../shared/failure-words.js';
import fs from 'node:fs/promises';
import { BlockList, isIP } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import * as z from 'zod';
import { isTeamName } from '../../shared/protocol/team-name.js';
import { memoryDirKey, realpathDeepestExisting, withMemoryLock } from '../core/memory-lock.js';
import { writeDataFile } from '../core/safe-fs.js';
import type { CredentialStore } from '../settings/index.js';
import { StateFile, lockSyncState } from './sync-state.js';
import { normalizeServerUrl } from './team-client.js';
import { maskSecretsIn } from '../secrets/index.js';
import { MemdirError, type MemdirErrorOptions } from '../../shared/errors.js';

/** How often the app pulls when nothing else prompts it (seconds). */
export const DEFAULT_PULL_INTERVAL_SEC = 60;

export const connectionSchema = z.object({
  /** `memoryDirKey(memoryDir)`: names the token and the state folder. */
  id: z.string().regex(/^[0-9a-f]{16}$/),
  /** Real path of the project's memory directory (team memory is its `team/`). */
  memoryDir: z.string(),
  /** The project's directory name under `projects/`, when known (the app's handle). */
  dir: z.string().nullable(),
  server: z.string(),
  team: z.string(),
  /** The member the token belongs to (from the server's /v1/me at connect). */
  member: z.string(),
  /** The token's public id (`mdt_<id>_…`): shown, never the secret. */
  tokenId: z.string(),
  connectedAt: z.string(),
  pullIntervalSec: z.number().int().min(5).max(86_400).default(DEFAULT_PULL_INTERVAL_SEC),
  /** Personal sync (issue 18): the project identity this memory is synced under, and where it came from; `team` is then the project's id on the server. */
  identity: z.object({ id: z.string(), source: z.string(), detail: z.string() }).optional(),
});
export type TeamConnection = z.infer<typeof connectionSchema>;

const fileSchema = z.object({ version: z.literal(1), connections: z.array(connectionSchema) });

/** Who is acting, for "allowed by" records: this machine's user, and the member they sync as when connected. */
export function actingAs(connection: TeamConnection | null): string {
  let user: string;
  try {
    user = os.userInfo().username || 'unknown';
  } catch {
    user = 'unknown';
  }
  return connection ? `${user} (${connection.member})` : user;
}

/** A connection request Memdir refuses, in words. */
export class TeamConfigError extends MemdirError<'invalid-input'> {
  override readonly name = 'TeamConfigError';
  constructor(message: string, options?: MemdirErrorOptions) {
    super('invalid-input', message, options);
  }
}

/** Where team sync (or, with `folder`, another space: sync-space.ts) keeps its files inside the data dir. */
export function teamDataDir(dataDir: string, folder = 'team'): string {
  return path.join(dataDir, folder);
}

/** The state folder of one connection (state, hash cache, conflicts, lock). */
export function connectionDir(dataDir: string, id: string, folder = 'team'): string {
  return path.join(teamDataDir(dataDir, folder), id);
}

/** The credential name of a connection's token. */
export function tokenCredentialName(id: string): string {
  return `team-token-${id}`;
}

/** This machine's addresses: 127.0.0.0/8 and ::1; an IPv4-mapped one (`::ffff:127.0.0.1`) is checked as its IPv4 address. */
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/**
 * Whether a host names this machine (plain http to it never crosses the network): `localhost`
 * or a loopback address in any form the URL parser accepts (`127.0.0.2`, `[::1]`, `[::ffff:127.0.0.1]`).
 * The one rule for both ends: the client's server URL, and the address `memdir server` listens on.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (host === 'localhost' || host === 'localhost.') return true;
  const family = isIP(host);
  return family !== 0 && LOOPBACK.check(host, family === 6 ? 'ipv6' : 'ipv4');
}

/**
 * Check a server URL: http(s) only, no credentials, query or fragment in it, and plain http
 * only to this machine unless `allowHttp` (the token would cross the network in clear text).
 */
export async function checkServerUrl(server: string, allowHttp = false): Promise<string> {
  let url: URL;
  try {
    url = new URL(server.trim());
  } catch {
    throw new TeamConfigError(`"${await quotedBack(server, 200)}" is not a URL; give the sync server's address, e.g. https://memdir.example.com`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TeamConfigError(`The sync server must be an http(s) URL, not ${url.protocol}`);
  if (url.username || url.password) throw new TeamConfigError('Put the token in the token field, not in the URL.');
  if (url.search || url.hash) throw new TeamConfigError('The server URL takes no query or fragment.');
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname) && !allowHttp) {
    throw new TeamConfigError(`http://${url.host} would send your token unencrypted; use https (or allow plain http explicitly for a trusted network).`, {
      overruledBy: 'allowHttp',
    });
  }
  return normalizeServerUrl(url.toString());
}

/** Check a team name the way the server does (it is a URL path segment). */
export async function checkTeamName(team: string): Promise<string> {
  const name = team.trim();
  if (!isTeamName(name))
    throw new TeamConfigError(`"${await quotedBack(team, 80)}" is not a team name: lower-case letters, digits and dashes, e.g. platform-team.`);
  return name;
}

/**
 * What a person typed into the wrong field, as a refusal quotes it: its first `max` characters, a
 * secret in it masked (a token pasted as the server or the team ends up in terminal and CI logs,
 * and in the app's Connect form).
 */
async function quotedBack(value: string, max: number): Promise<string> {
  return [...(await maskSecretsIn(value))].slice(0, max).join('');
}

/** The public id of a Memdir token (`mdt_<id>_<secret>`), or null for something else. */
export function tokenIdOf(token: string): string | null {
  return /^mdt_([0-9a-f]{16})_[A-Za-z0-9_-]{43}$/.exec(token.trim())?.[1] ?? null;
}

/** Which server and team a connection's sync state describes (`target.json` beside `state.json`). */
const targetSchema = z.object({ server: z.string(), team: z.string() });
type SyncTarget = z.infer<typeof targetSchema>;

/** Run `fn` holding the sync lock of a connection's state folder, so no sync in any process is midway. */
async function withSyncLock<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  const release = await lockSyncState(dir);
  try {
    return await fn();
  } finally {
    await release();
  }
}

/**
 * R-SYNC: a connection's sync state (ETag, the server's checksums, the hashes both sides last
 * agreed on) describes one server and team. Connected to another, it would read "unchanged
 * since we agreed" for files the new team never saw, and a pull would overwrite them without
 * a conflict. So when the server or team changes, the state starts over (its conflicts stay):
 * every file that differs from the new team's version becomes a conflict, never a loss. The
 * target is recorded beside the state, so a disconnect followed by a connect elsewhere counts too.
 */
async function adoptSyncState(dataDir: string, folder: string, id: string, target: SyncTarget, previous: TeamConnection | undefined): Promise<void> {
  const dir = connectionDir(dataDir, id, folder);
  const file = path.join(dir, 'target.json');
  const recorded = targetSchema.safeParse(
    await fs
      .readFile(file, 'utf8')
      .then((text) => JSON.parse(text) as unknown)
      .catch(() => null),
  );
  const before = recorded.success ? recorded.data : previous;
  if (before && before.server === target.server && before.team === target.team) return;
  if (before) {
    await withSyncLock(dir, async () => {
      const stateFile = new StateFile(dir);
      const state = await stateFile.load();
      await stateFile.save({ ...state, etag: null, server: {}, base: {} });
    });
  }
  await writeDataFile(file, `${JSON.stringify({ server: target.server, team: target.team })}\n`, { mode: 0o600 });
}

/** Connections in the data dir (see the file comment); `folder` names the space's folder there (`team`, `personal`). */
export class ConnectionStore {
  readonly file: string;

  constructor(
    readonly dataDir: string,
    readonly folder = 'team',
  ) {
    this.file = path.join(teamDataDir(dataDir, folder), 'connections.json');
  }

  async list(): Promise<TeamConnection[]> {
    let text: string;
    try {
      text = await fs.readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw new TeamConfigError(`The team settings ${this.file} cannot be read (${failureWords(error)}).`);
    }
    try {
      return fileSchema.parse(JSON.parse(text)).connections;
    } catch {
      throw new TeamConfigError(`The team settings ${this.file} are damaged; connect the projects again (the file is replaced on the next connect).`);
    }
  }

  /** The connection of a memory dir, or null. */
  async forMemoryDir(memoryDir: string): Promise<TeamConnection | null> {
    const id = await memoryDirKey(memoryDir);
    return (await this.list().catch(() => [])).find((c) => c.id === id) ?? null;
  }

  /** Read, change and write the file under Memdir's cross-process lock on it. */
  private mutate(change: (list: TeamConnection[]) => Promise<TeamConnection[]>): Promise<void> {
    return withMemoryLock(
      this.file,
      async () => {
        const list = await this.list().catch(() => []);
        await writeDataFile(this.file, `${JSON.stringify({ version: 1, connections: await change(list) }, null, 2)}\n`, { mode: 0o600 });
      },
      { dataDir: this.dataDir },
    );
  }

  /** Add or replace the connection of `connection.memoryDir` (another server or team: see `adoptSyncState`). */
  async save(connection: Omit<TeamConnection, 'id' | 'memoryDir'> & { memoryDir: string }): Promise<TeamConnection> {
    const memoryDir = await realpathDeepestExisting(connection.memoryDir);
    const full = connectionSchema.parse({ ...connection, memoryDir, id: await memoryDirKey(memoryDir) });
    await this.mutate(async (list) => {
      await adoptSyncState(
        this.dataDir,
        this.folder,
        full.id,
        full,
        list.find((c) => c.id === full.id),
      );
      return [...list.filter((c) => c.id !== full.id), full];
    });
    return full;
  }

  /** Remove a connection; true when there was one. */
  async remove(id: string): Promise<boolean> {
    let found = false;
    await this.mutate(async (list) => {
      found = list.some((c) => c.id === id);
      return list.filter((c) => c.id !== id);
    });
    return found;
  }
}

/**
 * The token of a connection: `MEMDIR_TEAM_TOKEN` for this run when set (CI, a one-off CLI
 * run), else the credential store. Null when there is none or it cannot be decrypted here.
 */
export async function readToken(connection: TeamConnection, credentials: CredentialStore, env: NodeJS.ProcessEnv = {}): Promise<string | null> {
  const fromEnv = env.MEMDIR_TEAM_TOKEN?.trim();
  if (fromEnv) return fromEnv;
  return credentials.get(tokenCredentialName(connection.id)).catch(() => null);
}
