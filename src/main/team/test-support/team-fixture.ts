/**
 * A real sync server on loopback and real clients around it, for team sync tests: each client
 * has its own home (memory dir with `team/`) and its own data dir, as two machines would.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { createTeam, issueToken } from '../../../server/admin.js';
import { type RunningServer, startServer } from '../../../server/server.js';
import type { TeamStore } from '../../../server/store.js';
import { AlertCenter } from '../alert-center.js';
import { ConnectionStore } from '../connections.js';
import type { RequestRecord } from '../team-client.js';
import { TeamSync, type TeamSyncOptions } from '../team-sync.js';

export interface TestServer {
  server: RunningServer;
  url: string;
  team: string;
  tokens: string[];
}

/** Start the real server on a free port with a team and `members` tokens; limits loose for tests. */
export async function startTestServer(store: TeamStore, members = 2, team = 'platform'): Promise<TestServer> {
  await createTeam(store, team);
  const tokens: string[] = [];
  for (let i = 0; i < members; i++) tokens.push((await issueToken(store, team, `member-${i}`)).token);
  const server = await startServer({ store, port: 0, closeStore: false, limits: { rateLimit: { burst: 100_000, perSecond: 100_000 } } });
  return { server, url: server.url, team, tokens };
}

export interface TestClient {
  name: string;
  root: string;
  memoryDir: string;
  teamDir: string;
  dataDir: string;
  alerts: AlertCenter;
  sync: TeamSync;
  requests: RequestRecord[];
  /** Write a team file as an editor would (outside Memdir). */
  write(key: string, content: string | Buffer): Promise<void>;
  read(key: string): Promise<string | null>;
  /** Every team file on disk, key → content. */
  files(): Promise<Record<string, string>>;
}

/** A client machine under `root/name`, connected to `server` as `token`. */
export async function makeClient(
  root: string,
  name: string,
  server: { url: string; team: string },
  token: string,
  options: Partial<TeamSyncOptions> = {},
): Promise<TestClient> {
  const base = path.join(root, name);
  const memoryDir = path.join(base, 'home', 'projects', '-work-app', 'memory');
  const teamDir = path.join(memoryDir, 'team');
  const dataDir = path.join(base, 'data');
  await fs.mkdir(teamDir, { recursive: true });
  const connection = await new ConnectionStore(dataDir).save({
    memoryDir,
    dir: '-work-app',
    server: server.url,
    team: server.team,
    member: name,
    tokenId: token.slice(4, 20),
    connectedAt: new Date().toISOString(),
    pullIntervalSec: 60,
  });
  const alerts = new AlertCenter(dataDir);
  const requests: RequestRecord[] = [];
  const sync = await TeamSync.open({
    connection,
    token,
    dataDir,
    dir: '-work-app',
    alerts,
    retry: { attempts: 8, baseMs: 5, maxMs: 60 },
    ...options,
    onRequest: (r) => {
      requests.push(r);
      options.onRequest?.(r);
    },
  });
  const client: TestClient = {
    name,
    root: base,
    memoryDir,
    teamDir,
    dataDir,
    alerts,
    sync,
    requests,
    async write(key, content) {
      await fs.mkdir(path.dirname(path.join(teamDir, key)), { recursive: true });
      await fs.writeFile(path.join(teamDir, key), content);
    },
    async read(key) {
      return fs.readFile(path.join(teamDir, key), 'utf8').catch(() => null);
    },
    async files() {
      const out: Record<string, string> = {};
      const walk = async (dir: string, prefix: string): Promise<void> => {
        for (const entry of await fs.readdir(dir, { withFileTypes: true }).catch(() => [])) {
          if (entry.name.startsWith('.')) continue;
          if (entry.isDirectory()) await walk(path.join(dir, entry.name), `${prefix}${entry.name}/`);
          else if (entry.isFile() && entry.name.endsWith('.md')) out[`${prefix}${entry.name}`] = await fs.readFile(path.join(dir, entry.name), 'utf8');
        }
      };
      await walk(teamDir, '');
      return out;
    },
  };
  return client;
}

/** The server's entries as key → content (read with a token, over HTTP). */
export async function serverEntries(url: string, team: string, token: string): Promise<Record<string, string>> {
  const r = await fetch(`${url}/v1/teams/${team}/entries`, { headers: { authorization: `Bearer ${token}` } });
  const body = (await r.json()) as { entries: Record<string, { content: string }> };
  return Object.fromEntries(Object.entries(body.entries).map(([k, v]) => [k, v.content]));
}
