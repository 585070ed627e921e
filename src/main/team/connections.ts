/**
 * Which projects share their team memory, and with which server and team: Memdir's own small
 * file `<dataDir>/team/connections.json` (zod-validated), never Claude Code's files. The token
 * is not in it: it lives in the credential store (`team-token-<id>`, encrypted with the
 * Electron shell's safeStorage where available), never in logs, settings or this file.
 *
 * A connection is keyed by the memory directory's real path (`memoryDirKey`), so a project
 * named by its path or by its directory name under `projects/` is the same connection.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { isTeamName } from '../../server/admin.js';
import { memoryDirKey, realpathLoose, writeDataFile } from '../memdir/safe-fs.js';
import type { CredentialStore } from '../settings/credentials.js';
import { normalizeServerUrl } from './team-client.js';

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
});
export type TeamConnection = z.infer<typeof connectionSchema>;

const fileSchema = z.object({ version: z.literal(1), connections: z.array(connectionSchema) });

/** A connection request Memdir refuses, in words. */
export class TeamConfigError extends Error {
  override readonly name = 'TeamConfigError';
}

/** Where team sync keeps its files inside the data dir. */
export function teamDataDir(dataDir: string): string {
  return path.join(dataDir, 'team');
}

/** The state folder of one connection (state, hash cache, conflicts, lock). */
export function connectionDir(dataDir: string, id: string): string {
  return path.join(teamDataDir(dataDir), id);
}

/** The credential name of a connection's token. */
export function tokenCredentialName(id: string): string {
  return `team-token-${id}`;
}

const LOOPBACK = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/**
 * Check a server URL: http(s) only, no credentials, query or fragment in it, and plain http
 * only to this machine unless `allowHttp` (the token would cross the network in clear text).
 */
export function checkServerUrl(server: string, allowHttp = false): string {
  let url: URL;
  try {
    url = new URL(server.trim());
  } catch {
    throw new TeamConfigError(`"${server.slice(0, 200)}" is not a URL; give the sync server's address, e.g. https://memdir.example.com`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TeamConfigError(`The sync server must be an http(s) URL, not ${url.protocol}`);
  if (url.username || url.password) throw new TeamConfigError('Put the token in the token field, not in the URL.');
  if (url.search || url.hash) throw new TeamConfigError('The server URL takes no query or fragment.');
  if (url.protocol === 'http:' && !LOOPBACK.test(url.hostname) && !allowHttp) {
    throw new TeamConfigError(`http://${url.host} would send your token unencrypted; use https (or allow plain http explicitly for a trusted network).`);
  }
  return normalizeServerUrl(url.toString());
}

/** Check a team name the way the server does (it is a URL path segment). */
export function checkTeamName(team: string): string {
  const name = team.trim();
  if (!isTeamName(name)) throw new TeamConfigError(`"${team.slice(0, 80)}" is not a team name: lower-case letters, digits and dashes, e.g. platform-team.`);
  return name;
}

/** The public id of a Memdir token (`mdt_<id>_<secret>`), or null for something else. */
export function tokenIdOf(token: string): string | null {
  return /^mdt_([0-9a-f]{16})_[A-Za-z0-9_-]{43}$/.exec(token.trim())?.[1] ?? null;
}

/** Connections in the data dir (see the file comment). */
export class ConnectionStore {
  private queue: Promise<unknown> = Promise.resolve();
  readonly file: string;

  constructor(readonly dataDir: string) {
    this.file = path.join(teamDataDir(dataDir), 'connections.json');
  }

  async list(): Promise<TeamConnection[]> {
    let text: string;
    try {
      text = await fs.readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw new TeamConfigError(`The team settings ${this.file} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)}).`);
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

  private mutate(change: (list: TeamConnection[]) => TeamConnection[]): Promise<void> {
    const run = this.queue.then(async () => {
      const list = await this.list().catch(() => []);
      await writeDataFile(this.file, `${JSON.stringify({ version: 1, connections: change(list) }, null, 2)}\n`, { mode: 0o600 });
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Add or replace the connection of `connection.memoryDir`. */
  async save(connection: Omit<TeamConnection, 'id' | 'memoryDir'> & { memoryDir: string }): Promise<TeamConnection> {
    const memoryDir = await realpathLoose(connection.memoryDir);
    const full = connectionSchema.parse({ ...connection, memoryDir, id: await memoryDirKey(memoryDir) });
    await this.mutate((list) => [...list.filter((c) => c.id !== full.id), full]);
    return full;
  }

  /** Remove a connection; true when there was one. */
  async remove(id: string): Promise<boolean> {
    let found = false;
    await this.mutate((list) => {
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
