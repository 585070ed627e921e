/**
 * Machines of one user around a real sync server on loopback, for personal sync tests: each has
 * its own home, its own data dir and its own checkout of the project at its own path, as two
 * computers would (issue 18: "the same memory under different paths").
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { createPersonal, issuePersonalToken } from '../../../server/admin.js';
import { type RunningServer, startServer } from '../../../server/server.js';
import type { TeamStore } from '../../../server/store.js';
import { sanitizeDirName } from '../../../shared/sanitize.js';
import { FileCredentialStore } from '../../settings/credentials.js';
import { AlertCenter } from '../../team/alert-center.js';
import type { TeamSync } from '../../team/team-sync.js';
import { connectAccount, enableProject, openPersonalSync, personalConnections } from '../personal-account.js';
import { identifyByRepository } from '../project-key.js';

export interface PersonalServer {
  server: RunningServer;
  url: string;
  /** Tokens of the user's machines, by machine name. */
  tokens: Record<string, string>;
}

/** The real server with alice's personal space and a token for each of `machines`; limits loose for tests. */
export async function startPersonalServer(store: TeamStore, machines: string[]): Promise<PersonalServer> {
  await createPersonal(store, 'alice');
  const tokens: Record<string, string> = {};
  for (const m of machines) tokens[m] = (await issuePersonalToken(store, 'alice', m)).token;
  const server = await startServer({ store, port: 0, closeStore: false, limits: { rateLimit: { burst: 100_000, perSecond: 100_000 } } });
  return { server, url: server.url, tokens };
}

export interface Machine {
  name: string;
  /** The project's checkout on this machine. */
  repo: string;
  memoryDir: string;
  dataDir: string;
  credentials: FileCredentialStore;
  alerts: AlertCenter;
  /** Write a memory file as an editor (or Claude Code) would. */
  write(rel: string, content: string): Promise<void>;
  read(rel: string): Promise<string | null>;
  /** Every `*.md` under the memory dir (team/ included), rel → content. */
  files(): Promise<Record<string, string>>;
  connect(passphrase: string, acknowledged?: boolean): ReturnType<typeof connectAccount>;
  /** Turn personal sync on for the project (identity from its remote), then open its sync client. */
  enable(): Promise<TeamSync>;
  open(): Promise<TeamSync>;
}

/** A machine under `root/name` with a checkout at `root/name/<checkout>` whose origin is `remote`. */
export async function makeMachine(
  root: string,
  name: string,
  server: Pick<PersonalServer, 'url' | 'tokens'>,
  checkout: string,
  remote: string,
): Promise<Machine> {
  const base = path.join(root, name);
  const repo = path.join(base, checkout);
  await fs.mkdir(path.join(repo, '.git'), { recursive: true });
  await fs.writeFile(
    path.join(repo, '.git', 'config'),
    `[core]\n\trepositoryformatversion = 0\n[remote "origin"]\n\turl = ${remote}\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n`,
  );
  const memoryDir = path.join(base, 'home', 'projects', sanitizeDirName(repo), 'memory');
  await fs.mkdir(memoryDir, { recursive: true });
  const dataDir = path.join(base, 'data');
  const credentials = new FileCredentialStore(dataDir);
  const alerts = new AlertCenter(dataDir);
  // The connection as stored now (a reconnect with another key moves it to another project id).
  const open = async () =>
    openPersonalSync((await personalConnections(dataDir).forMemoryDir(memoryDir))!, {
      dataDir,
      credentials,
      alerts,
      retry: { attempts: 8, baseMs: 5, maxMs: 60 },
    });
  const machine: Machine = {
    name,
    repo,
    memoryDir,
    dataDir,
    credentials,
    alerts,
    async write(rel, content) {
      await fs.mkdir(path.dirname(path.join(memoryDir, rel)), { recursive: true });
      await fs.writeFile(path.join(memoryDir, rel), content);
    },
    async read(rel) {
      return fs.readFile(path.join(memoryDir, rel), 'utf8').catch(() => null);
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
      await walk(memoryDir, '');
      return out;
    },
    connect(passphrase, acknowledged = true) {
      return connectAccount({ dataDir, credentials, server: server.url, token: server.tokens[name]!, passphrase, acknowledged });
    },
    async enable() {
      const identity = await identifyByRepository(repo);
      if (!identity) throw new Error(`no identity for ${repo}`);
      await enableProject(dataDir, credentials, { memoryDir, dir: path.basename(path.dirname(memoryDir)), identity });
      return open();
    },
    open,
  };
  return machine;
}
