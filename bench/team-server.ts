/**
 * A real team sync server for the bench (SQLite, its own process, as it runs for real) and the
 * client side of a no-op sync: shared by the `sync` and `scale` scenarios.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTeam, issueToken } from '../src/server/admin.js';
import { openSqliteStore } from '../src/server/sqlite-store.js';
import { startServerProcess } from '../src/server/test-support/server-process.js';
import { ConnectionStore } from '../src/main/team/connections.js';
import type { RequestRecord } from '../src/main/team/team-client.js';
import { TeamSync } from '../src/main/team/team-sync.js';

const MEMDIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src/cli/memdir.ts');

export interface BenchServer {
  url: string;
  /** A token per team, created before the server started. */
  tokens: Record<string, string>;
  stop(): Promise<void>;
}

/** Start `memdir server` on loopback (port 0) with these teams, one member each. */
export async function startBenchServer(root: string, teams: readonly string[]): Promise<BenchServer> {
  const db = path.join(root, 'team.sqlite');
  const store = await openSqliteStore(db);
  const tokens: Record<string, string> = {};
  for (const team of teams) {
    await createTeam(store, team);
    tokens[team] = (await issueToken(store, team, 'bench')).token;
  }
  await store.close();
  // The most the server accepts (per token, per second): the bench measures the client, never the limiter.
  const server = await startServerProcess(['--import', 'tsx', MEMDIR], db, { rate: 100_000 });
  return { url: server.url, tokens, stop: () => server.stop() };
}

/** Connect `memoryDir`'s team folder to `team` on the bench server. */
export async function openBenchSync(
  server: BenchServer,
  team: string,
  memoryDir: string,
  dataDir: string,
  onRequest?: (r: RequestRecord) => void,
): Promise<TeamSync> {
  const token = server.tokens[team]!;
  const connection = await new ConnectionStore(dataDir).save({
    memoryDir,
    dir: path.basename(path.dirname(memoryDir)),
    server: server.url,
    team,
    member: 'bench',
    tokenId: token.slice(4, 20),
    connectedAt: new Date().toISOString(),
    pullIntervalSec: 60,
  });
  return TeamSync.open({ connection, token, dataDir, ...(onRequest ? { onRequest } : {}) });
}

/** The floor of any change detection: list the folder and lstat every file in it, nothing else. */
export function statAll(dir: string): number {
  let n = 0;
  const base = dir + path.sep;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.')) continue;
    const st = fs.lstatSync(base + entry.name, { throwIfNoEntry: false });
    if (st?.isFile()) n++;
  }
  return n;
}
