/**
 * A wrong address: a server that is not a Memdir team server (a plain web server answering 404
 * on the team routes, or an HTML page with 200) is named for what it is — an address that does
 * not answer as a Memdir team server — never reported as "no team" or a team with no memories;
 * the connect stores nothing and a sync pulls, pushes and deletes nothing.
 */
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionStore } from './connections.js';
import { connectTeam } from './connect-team.js';
import { FileCredentialStore } from '../settings/index.js';
import { makeClient } from './test-support/team-fixture.js';

const TOKEN = `mdt_${'0'.repeat(16)}_${'A'.repeat(43)}`;
let root: string;
const servers: http.Server[] = [];

async function startForeign(kind: '404' | 'html'): Promise<string> {
  const server = http.createServer((req, res) => {
    req.resume();
    if (kind === '404') res.writeHead(404, { 'content-type': 'text/plain' }).end('Cannot GET ' + (req.url ?? '/'));
    else res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><html><body><h1>Welcome to our intranet</h1></body></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-foreign-server-')));
});
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  await fs.rm(root, { recursive: true, force: true });
});

const NOT_MEMDIR = /^http:\/\/127\.0\.0\.1:\d+ does not answer as a Memdir team server \(.+\): check the address\./;

describe.each(['404', 'html'] as const)('an address that is not a Memdir team server (%s)', (kind) => {
  it('connect says the address does not answer as a Memdir team server, and stores nothing', async () => {
    const url = await startForeign(kind);
    const dataDir = path.join(root, `connect-${kind}`);
    const connections = new ConnectionStore(dataDir);
    const credentials = new FileCredentialStore(dataDir);
    const memoryDir = path.join(root, `home-${kind}`, 'projects', '-work-app', 'memory');
    const error = await connectTeam(
      { memoryDir, dir: '-work-app', server: url, team: 'platform', token: TOKEN, allowHttp: true },
      { connections, credentials },
    ).catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(NOT_MEMDIR);
    expect((error as Error).message).not.toMatch(/no team|team name is wrong/);
    expect(await connections.list()).toEqual([]);
    expect(await credentials.list()).toEqual([]);
  });

  it('a sync of a connection now pointing there pulls, pushes and deletes nothing, and says why', async () => {
    const url = await startForeign(kind);
    const client = await makeClient(root, `sync-${kind}`, { url, team: 'platform' }, TOKEN);
    await client.write('mine.md', '---\nname: Mine\ndescription: d\ntype: project\n---\n\nkept\n');
    const report = await client.sync.sync();
    expect(report.error?.message).toMatch(NOT_MEMDIR);
    expect(report.error?.message).not.toMatch(/no team|team name is wrong/);
    expect(client.requests.filter((r) => r.method !== 'GET')).toEqual([]);
    expect(await fs.readdir(client.teamDir)).toEqual(['mine.md']);
    expect(await client.read('mine.md')).toContain('kept');
  });
});
