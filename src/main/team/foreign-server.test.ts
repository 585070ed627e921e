/**
 * A wrong address: a server that is not a Memdir team server (a plain web server answering 404
 * on the team routes, or an HTML page with 200) is named for what it is — an address that does
 * not answer as a Memdir team server — never reported as "no team" or a team with no memories;
 * the connect stores nothing and a sync pulls, pushes and deletes nothing. The same for a 401 or
 * a 503 without the protocol's error body (a proxy, another server): only a Memdir server's own
 * answer is worded as a refused token or a Memdir server unavailable for a moment. Whatever the
 * server says in its own words is quoted with every secret in it masked (a server echoing the
 * token it was sent, or a secret-bearing file name).
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
import { makeClient, startTestServer } from './test-support/team-fixture.js';
import { openSqliteStore } from '../../server/sqlite-store.js';

const TOKEN = `mdt_${'0'.repeat(16)}_${'A'.repeat(43)}`;
let root: string;
const servers: http.Server[] = [];

/** A server answering every request with `status` and `body` (JSON when an object). */
async function startAnswering(status: number, body: string | object, headers: Record<string, string> = {}): Promise<string> {
  const server = http.createServer((req, res) => {
    req.resume();
    const json = typeof body !== 'string';
    res.writeHead(status, { 'content-type': json ? 'application/json' : 'text/html', ...headers }).end(json ? JSON.stringify(body) : body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

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

describe('a 401 or a 503 from something that is not a Memdir team server (a proxy, another server)', () => {
  it.each([
    [401, '<html><body><h1>401 Authorization Required</h1><hr>nginx</body></html>', { 'www-authenticate': 'Basic realm="intranet"' }],
    [401, '', {}],
    [503, '<html><body><h1>503 Service Temporarily Unavailable</h1></body></html>', { 'retry-after': '30' }],
  ] as const)('%i with no Memdir error: the address does not answer as a Memdir team server, never a refused token', async (status, body, headers) => {
    const url = await startAnswering(status, body, headers);
    const dataDir = path.join(root, `connect-${status}-${body.length}`);
    const connections = new ConnectionStore(dataDir);
    const credentials = new FileCredentialStore(dataDir);
    const memoryDir = path.join(root, `home-${status}-${body.length}`, 'projects', '-work-app', 'memory');
    const error = await connectTeam(
      { memoryDir, dir: '-work-app', server: url, team: 'platform', token: TOKEN, allowHttp: true },
      { connections, credentials },
    ).catch((e: unknown) => e as Error);
    expect((error as Error).message).toMatch(NOT_MEMDIR);
    expect((error as Error).message).not.toMatch(/refused the token|unavailable for a moment/);
    expect(await connections.list()).toEqual([]);

    const client = await makeClient(root, `sync-${status}-${body.length}`, { url, team: 'platform' }, TOKEN);
    const report = await client.sync.sync();
    expect(report.error?.message).toMatch(NOT_MEMDIR);
    expect(report.error?.message).not.toMatch(/refused the token|unavailable for a moment/);
    // A 503 is also what a proxy says while the Memdir server behind it restarts (retried, not alerted): said too.
    if (status === 503) expect(report.error?.message).toContain('a proxy in front of a restarting server answers so too');
    else expect(report.error?.message).not.toContain('restarting');
  });

  it("a Memdir server's own 401 and 503 keep their words", async () => {
    const refused = await startAnswering(401, { error: 'unauthorized', message: 'Missing or invalid token.' });
    const client = await makeClient(root, 'memdir-401', { url: refused, team: 'platform' }, TOKEN);
    expect((await client.sync.sync()).error?.message).toMatch(/^The sync server refused the token \(Missing or invalid token\.\)/);
    const busy = await startAnswering(503, { error: 'unavailable', message: 'The team store is unavailable; try again shortly.' }, { 'retry-after': '5' });
    const other = await makeClient(root, 'memdir-503', { url: busy, team: 'platform' }, TOKEN);
    const report = await other.sync.sync();
    expect(report.error).toMatchObject({ code: 'unavailable' });
    expect(report.error?.message).toMatch(/^The sync server is unavailable for a moment/);
  });
});

describe("the server's own words, quoted back", () => {
  const secretName = ['deploy-', 'ghp_', 'Qe4Rt8Yq', 'Nz2Kx7Lp', 'Dm4Hc9Vs', 'Fj1Ga6Ne', 'u3Tb', '.md'].join('');
  const token = ['ghp_', 'Qe4Rt8Yq', 'Nz2Kx7Lp', 'Dm4Hc9Vs', 'Fj1Ga6Ne', 'u3Tb'].join('');

  it.each([
    [401, { error: 'unauthorized', message: `No token matches for ${token}.` }],
    [500, { error: 'internal', message: `Could not store team/${secretName}: disk full.` }],
    [503, { error: 'unavailable', message: `Busy writing ${secretName}.` }],
  ] as const)('%i: a secret the server echoes is masked in the sync error, the alert and the connect refusal', async (status, body) => {
    const url = await startAnswering(status, body);
    const client = await makeClient(root, `echo-${status}`, { url, team: 'platform' }, TOKEN);
    const report = await client.sync.sync();
    expect(report.error?.message).toMatch(/^The sync server/);
    expect(report.error?.message).not.toContain(token);
    expect(JSON.stringify(await client.alerts.list())).not.toContain(token);

    const dataDir = path.join(root, `echo-connect-${status}`);
    const error = await connectTeam(
      {
        memoryDir: path.join(root, `echo-home-${status}`, 'projects', '-work-app', 'memory'),
        dir: '-work-app',
        server: url,
        team: 'platform',
        token: TOKEN,
        allowHttp: true,
      },
      { connections: new ConnectionStore(dataDir), credentials: new FileCredentialStore(dataDir) },
    ).catch((e: unknown) => e as Error);
    expect((error as Error).message).toMatch(/^The sync server/);
    expect((error as Error).message).not.toContain(token);
  });
});

describe('a real Memdir server at an address with a path after it (http://host:port/v1)', () => {
  it('connect names the address, not the team: every path there is unknown, the team included', async () => {
    const store = await openSqliteStore(path.join(root, 'path-prefix.sqlite'));
    const server = await startTestServer(store, 1);
    try {
      for (const suffix of ['/v1', '/memdir/']) {
        const dataDir = path.join(root, `path-prefix-${suffix.length}`);
        const connections = new ConnectionStore(dataDir);
        const credentials = new FileCredentialStore(dataDir);
        const error = await connectTeam(
          {
            memoryDir: path.join(root, `path-prefix-home-${suffix.length}`, 'projects', '-work-app', 'memory'),
            dir: '-work-app',
            server: server.url + suffix,
            team: 'platform',
            token: server.tokens[0]!,
            allowHttp: true,
          },
          { connections, credentials },
        ).catch((e: unknown) => e as Error);
        // The team and token are right: the sentence must not send the user to check them.
        expect((error as Error).message).not.toMatch(/no team|team name is wrong|another team/);
        expect((error as Error).message).toMatch(/check the address/);
        expect(await connections.list()).toEqual([]);
        expect(await credentials.list()).toEqual([]);
      }
    } finally {
      await server.server.close();
      await store.close();
    }
  });
});
