import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTeam, issueToken } from '../../server/admin.js';
import { openSqliteStore } from '../../server/sqlite-store.js';
import type { TeamStore } from '../../server/store.js';
import { type TestServer, serverEntries, startTestServer } from '../../main/team/test-support/team-fixture.js';
import type { CliIo } from '../command.js';
import { runCli } from '../main.js';

let root: string;
let home: string;
let dataDir: string;
let store: TeamStore;
let server: TestServer;

beforeAll(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-cli-team-')));
  home = path.join(root, 'claude-home');
  dataDir = path.join(root, 'data');
  await fs.mkdir(path.join(home, 'projects', '-work-app', 'memory', 'team'), { recursive: true });
  await fs.writeFile(path.join(home, 'projects', '-work-app', 'memory', 'team', 'project_api.md'), '---\nname: API\ndescription: v2 cutover\ntype: project\n---\n\nv2 on 2026-04-01.\n');
  store = await openSqliteStore(path.join(root, 'team.sqlite'));
  server = await startTestServer(store, 2);
});
afterAll(async () => {
  await server.server.close();
  await store.close();
  await fs.rm(root, { recursive: true, force: true });
});

async function memdir(args: string[], opts: { stdin?: string; env?: NodeJS.ProcessEnv } = {}): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = {
    out: (t) => (out += t),
    err: (t) => (err += t),
    env: { MEMDIR_DATA_DIR: dataDir, HOME: root, ...opts.env },
    cwd: root,
    ...(opts.stdin !== undefined ? { stdin: Readable.from([opts.stdin]) } : {}),
  };
  const code = await runCli(args, io);
  return { code, out, err };
}

describe('memdir team', () => {
  it('`memdir team` alone names its subcommands; --help lists them', async () => {
    expect(await memdir(['team'])).toMatchObject({ code: 2, err: expect.stringContaining('name a subcommand (connect, status, sync, disconnect)') });
    const help = await memdir(['team', '--help']);
    expect(help.code).toBe(0);
    for (const sub of ['connect', 'status', 'sync', 'disconnect']) expect(help.out).toContain(`memdir team ${sub} --project P`);
  });

  it('connect refuses a token of another team, an http URL to another host, and a missing token — in one line each', async () => {
    await createTeam(store, 'elsewhere');
    const other = (await issueToken(store, 'elsewhere', 'eve')).token;
    const base = ['team', 'connect', '--project', '-work-app', '--home', home, '--server', server.url, '--team', server.team];
    let r = await memdir([...base, '--token-stdin'], { stdin: `${other}\n` });
    expect(r).toMatchObject({ code: 2, err: 'memdir team connect: this token belongs to team "elsewhere", not "platform"\n' });
    r = await memdir(['team', 'connect', '--project', '-work-app', '--home', home, '--server', 'http://sync.example.com', '--team', 'platform', '--token-stdin'], { stdin: server.tokens[0]! });
    expect(r.code).toBe(2);
    expect(r.err).toContain('unencrypted');
    r = await memdir(base);
    expect(r).toMatchObject({ code: 2, err: expect.stringContaining('no token') });
  });

  it('connect --token-stdin --json: connects, syncs once, never prints or files the token outside the credential store', async () => {
    const r = await memdir(['team', 'connect', '--project', '-work-app', '--home', home, '--server', server.url, '--team', server.team, '--token-stdin', '--json'], { stdin: `${server.tokens[0]}\n` });
    expect(r.code).toBe(0);
    const json = JSON.parse(r.out) as { connection: { team: string; member: string }; sync: { push: { uploaded: string[] }; error: null } };
    expect(json.connection).toMatchObject({ team: 'platform', member: 'member-0' });
    expect(json.sync.push.uploaded).toEqual(['project_api.md']);
    expect(json.sync.error).toBeNull();
    const secret = server.tokens[0]!.slice(21);
    expect(r.out + r.err).not.toContain(secret);
    expect(await fs.readFile(path.join(dataDir, 'team', 'connections.json'), 'utf8')).not.toContain(secret);
    expect(await fs.readFile(path.join(dataDir, 'credentials.json'), 'utf8')).toContain(secret);
    expect((await fs.stat(path.join(dataDir, 'credentials.json'))).mode & 0o077).toBe(0);
  });

  it('sync --json pulls what others pushed; status --json shows what is held back and why', async () => {
    await fetch(`${server.url}/v1/teams/platform/checksums`, { headers: { authorization: `Bearer ${server.tokens[1]}` } }).then(async (res) =>
      fetch(`${server.url}/v1/teams/platform/entries`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${server.tokens[1]}`, 'content-type': 'application/json', 'if-match': res.headers.get('etag')! },
        body: JSON.stringify({ entries: { 'reference_grafana.md': 'Grafana: https://grafana.example/d/api\n' } }),
      }),
    );
    const team = path.join(home, 'projects', '-work-app', 'memory', 'team');
    await fs.writeFile(path.join(team, 'latin1.md'), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    const r = await memdir(['team', 'sync', '--project', '-work-app', '--home', home, '--json']);
    const report = JSON.parse(r.out) as { pull: { status: number; written: string[] }; waiting: { key: string; reason: string }[] };
    expect(report.pull).toMatchObject({ status: 200, written: ['reference_grafana.md'] });
    expect(report.waiting).toEqual([expect.objectContaining({ key: 'latin1.md', reason: 'not-utf8' })]);
    expect(r.code).toBe(1);
    expect(await fs.readFile(path.join(team, 'reference_grafana.md'), 'utf8')).toBe('Grafana: https://grafana.example/d/api\n');

    const status = await memdir(['team', 'status', '--project', '-work-app', '--home', home, '--json']);
    expect(status.code).toBe(1);
    expect(JSON.parse(status.out)).toMatchObject({ connected: true, connection: { team: 'platform' }, waiting: [{ key: 'latin1.md', reason: 'not-utf8' }], conflicts: [] });
    await fs.rm(path.join(team, 'latin1.md'));
    const text = await memdir(['team', 'sync', '--project', '-work-app', '--home', home]);
    expect(text).toMatchObject({ code: 0, out: expect.stringContaining('Pull: nothing new from platform') });
  });

  it('disconnect forgets the connection and the token; the files stay', async () => {
    const r = await memdir(['team', 'disconnect', '--project', '-work-app', '--home', home, '--json']);
    expect(JSON.parse(r.out)).toEqual({ disconnected: true });
    expect(await fs.readFile(path.join(dataDir, 'credentials.json'), 'utf8')).not.toContain(server.tokens[0]!.slice(21));
    expect(await memdir(['team', 'status', '--project', '-work-app', '--home', home])).toMatchObject({ code: 0, out: expect.stringContaining('not connected') });
    expect(Object.keys(await serverEntries(server.url, server.team, server.tokens[0]!)).sort()).toEqual(['project_api.md', 'reference_grafana.md']);
    expect(await fs.readdir(path.join(home, 'projects', '-work-app', 'memory', 'team'))).toContain('project_api.md');
  });

  it('connect to another team afterwards starts the sync state over: a file unchanged since the old team is kept as a conflict', async () => {
    await createTeam(store, 'design');
    const token = (await issueToken(store, 'design', 'dana')).token;
    const checksums = await fetch(`${server.url}/v1/teams/design/checksums`, { headers: { authorization: `Bearer ${token}` } });
    await fetch(`${server.url}/v1/teams/design/entries`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'if-match': checksums.headers.get('etag')! },
      body: JSON.stringify({ entries: { 'project_api.md': 'The design team: v3 on 2026-06-01.\n' } }),
    });
    const r = await memdir(['team', 'connect', '--project', '-work-app', '--home', home, '--server', server.url, '--team', 'design', '--token-stdin', '--json'], { stdin: token });
    // Connected, with a conflict to resolve: exit 1.
    expect(r.code).toBe(1);
    const json = JSON.parse(r.out) as { sync: { pull: { written: string[]; conflicts: string[] }; error: null } };
    expect(json.sync.pull.conflicts).toEqual(['project_api.md']);
    expect(await fs.readFile(path.join(home, 'projects', '-work-app', 'memory', 'team', 'project_api.md'), 'utf8')).toBe('The design team: v3 on 2026-06-01.\n');
    const status = JSON.parse((await memdir(['team', 'status', '--project', '-work-app', '--home', home, '--json'])).out) as { conflicts: { key: string }[] };
    expect(status.conflicts).toEqual([expect.objectContaining({ key: 'project_api.md' })]);
  });
});
