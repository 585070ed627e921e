// The exit of a sync that did not go through, the same for `memdir team sync` and `memdir personal sync`
// (EXIT_CODES_HELP): 1 it ran but something waits for you (a file held back for a secret, a conflict
// left to resolve); 2 the sync failed (the server unreachable, the token refused) — one sentence on
// stderr, never an error code, your changes kept for the next sync. A real server on loopback.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPersonal, createTeam, issuePersonalToken, issueToken, revokeToken } from '../server/admin.js';
import { type RunningServer, startServer } from '../server/server.js';
import { openSqliteStore } from '../server/sqlite-store.js';
import type { TeamStore } from '../server/store.js';
import type { CliIo } from './command.js';
import { runCli } from './main.js';

const PASSPHRASE = 'four words are plenty here';
const SECRET = `ghp_${'Zq8Rv2Tx6Wb4Ny1Lm3Pk5Hj7Qs9Df0Ga2Xc4V'.slice(0, 36)}`;
const INTERNAL = /ECONNREFUSED|ECONNRESET|ENOTFOUND|fetch failed|TypeError|Error:|at .*\.[jt]s:\d+|\b(401|403)\b/;

let root: string;
let store: TeamStore;
let server: RunningServer;
const tokens: Record<string, string> = {};

interface Machine {
  home: string;
  dataDir: string;
  repo: string;
  memoryDir: string;
}

async function machine(name: string): Promise<Machine> {
  const base = path.join(root, name);
  const repo = path.join(base, 'app');
  await fs.mkdir(path.join(repo, '.git'), { recursive: true });
  await fs.writeFile(path.join(repo, '.git', 'config'), `[remote "origin"]\n\turl = git@github.com:ann/app.git\n`);
  const home = path.join(base, 'claude');
  const memoryDir = path.join(home, 'projects', repo.replace(/[^A-Za-z0-9]/g, '-'), 'memory');
  await fs.mkdir(path.join(memoryDir, 'team'), { recursive: true });
  return { home, dataDir: path.join(base, 'data'), repo, memoryDir };
}

async function memdir(m: Machine, args: string[], stdin?: string): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = {
    out: (t) => (out += t),
    err: (t) => (err += t),
    env: { MEMDIR_DATA_DIR: m.dataDir, HOME: root },
    cwd: root,
    ...(stdin !== undefined ? { stdin: Readable.from([stdin]) } : {}),
  };
  const code = await runCli([...args, '--home', m.home], io);
  return { code, out, err };
}

const memory = (name: string, body: string) => `---\nname: ${name}\ndescription: ${name}\ntype: project\n---\n${body}\n`;

/** Each family's sync of machine `m`'s project, and where its files are. */
const families = {
  team: { sync: (m: Machine) => memdir(m, ['team', 'sync', '--project', m.repo]), dir: (m: Machine) => path.join(m.memoryDir, 'team') },
  personal: { sync: (m: Machine) => memdir(m, ['personal', 'sync', '--project', m.repo]), dir: (m: Machine) => m.memoryDir },
} as const;

let laptop: Machine;
let desktop: Machine;

beforeAll(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-sync-exit-')));
  store = await openSqliteStore(path.join(root, 'server.sqlite'));
  await createTeam(store, 'platform');
  await createPersonal(store, 'ann');
  for (const m of ['laptop', 'desktop']) {
    tokens[`team-${m}`] = (await issueToken(store, 'platform', m)).token;
    tokens[`personal-${m}`] = (await issuePersonalToken(store, 'ann', m)).token;
  }
  server = await startServer({ store, port: 0, closeStore: false });
  laptop = await machine('laptop');
  desktop = await machine('desktop');
  for (const [name, m] of [
    ['laptop', laptop],
    ['desktop', desktop],
  ] as const) {
    const team = await memdir(
      m,
      ['team', 'connect', '--project', m.repo, '--server', server.url, '--team', 'platform', '--token-stdin'],
      tokens[`team-${name}`],
    );
    expect(team.code, team.err).toBe(0);
    const personal = await memdir(
      m,
      ['personal', 'connect', '--server', server.url, '--project', m.repo, '--token-stdin', '--passphrase-stdin', '--yes'],
      `${tokens[`personal-${name}`]}\n${PASSPHRASE}\n`,
    );
    expect(personal.code, personal.err).toBe(0);
  }
}, 60_000);

afterAll(async () => {
  await server?.close();
  await store?.close();
  await fs.rm(root, { recursive: true, force: true });
});

describe.each(Object.keys(families) as (keyof typeof families)[])('memdir %s sync: its exit when it did not all go through', (family) => {
  const { sync, dir } = families[family];

  it('1 for a file held back because it holds a secret (it waits for you); 0 again once it is gone', async () => {
    const file = path.join(dir(laptop), `project_${family}_token.md`);
    await fs.writeFile(file, memory('Token', `The deploy token is ${SECRET}.`));
    const held = await sync(laptop);
    expect(held.code, held.err + held.out).toBe(1);
    expect(held.out).toContain('Not uploaded:');
    expect(held.out + held.err).not.toContain(SECRET);
    await fs.rm(file);
    expect((await sync(laptop)).code).toBe(0);
  });

  it('1 for a conflict left to resolve (both machines changed the same lines)', async () => {
    const name = `project_${family}_api.md`;
    await fs.writeFile(path.join(dir(laptop), name), memory('API', 'The API is v1.'));
    expect((await sync(laptop)).code).toBe(0);
    expect((await sync(desktop)).code).toBe(0);
    await fs.writeFile(path.join(dir(laptop), name), memory('API', 'The API is v2.'));
    expect((await sync(laptop)).code).toBe(0);
    await fs.writeFile(path.join(dir(desktop), name), memory('API', 'The API is v3.'));
    const conflict = await sync(desktop);
    expect(conflict.code, conflict.err + conflict.out).toBe(1);
    expect(conflict.out).toContain('Conflict:');
  });
});

describe('a sync that failed exits 2 for both families, with one sentence on stderr and the changes kept', () => {
  it('2 when the token is refused (revoked), saying to connect again', async () => {
    for (const family of ['team', 'personal'] as const) {
      await fs.writeFile(path.join(families[family].dir(laptop), `project_${family}_after_revoke.md`), memory('Later', 'Written after the revoke.'));
      await revokeToken(store, tokens[`${family}-laptop`]!);
      const run = await families[family].sync(laptop);
      expect(run.code, run.err + run.out).toBe(2);
      expect(run.err).toMatch(new RegExp(`^memdir ${family} sync: `));
      expect(run.err.trimEnd().split('\n')).toHaveLength(1);
      expect(run.out).toMatch(/your changes are kept.* and go up once you connect again with a new token/);
      expect(run.out + run.err).not.toMatch(INTERNAL);
    }
  });

  it('2 when the server cannot be reached, in words (never ECONNREFUSED)', async () => {
    await server.close();
    for (const family of ['team', 'personal'] as const) {
      const run = await families[family].sync(desktop);
      expect(run.code, run.err + run.out).toBe(2);
      expect(run.err).toMatch(new RegExp(`^memdir ${family} sync: `));
      expect(run.out + run.err).not.toMatch(INTERNAL);
    }
  });
});
