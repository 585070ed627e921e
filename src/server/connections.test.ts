import fs from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { LogRecord } from './log.js';
import { openStore } from './open-store.js';
import { type RunningServer, type ServerOptions, startServer } from './server.js';
import type { TeamStore } from './store.js';

let tmp = '';
let store: TeamStore;
const running: RunningServer[] = [];
const sockets: net.Socket[] = [];
beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-connections-'));
  store = await openStore(path.join(tmp, 'team-sync.sqlite'));
});
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await Promise.all(running.splice(0).map((s) => s.close()));
});
afterAll(async () => {
  await store.close();
  await fs.rm(tmp, { recursive: true, force: true });
});

async function start(options: Partial<ServerOptions> = {}): Promise<RunningServer> {
  const server = await startServer({ store, port: 0, closeStore: false, shutdownGraceMs: 100, ...options });
  running.push(server);
  return server;
}

/** A socket from `from` (any 127.x address is this machine) that sends nothing: what a client hoarding connections holds. */
function idleSocket(port: number, from: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1', localAddress: from }, () => resolve(socket));
    socket.on('error', reject);
    sockets.push(socket);
  });
}

/** Whether the server closes `socket` of its own accord within `ms`. */
function closedWithin(socket: net.Socket, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    if (socket.destroyed) return resolve(true);
    const timer = setTimeout(() => resolve(false), ms);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
    socket.on('error', () => undefined);
  });
}

/** GET /healthz from `from`, as an honest client: the status, or the error's code when the connection was refused. */
function healthz(port: number, from: string): Promise<number | string> {
  return new Promise((resolve) => {
    const request = http.get({ host: '127.0.0.1', port, path: '/healthz', localAddress: from, agent: false }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    request.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
  });
}

describe('connections per client address and in all (an unauthenticated client cannot exhaust file descriptors)', () => {
  it('refuses a client address past its share at once, and keeps serving everyone else', async () => {
    const logs: LogRecord[] = [];
    const server = await start({ limits: { maxConnectionsPerAddress: 5 }, log: (r) => logs.push(r) });
    const hoarded = await Promise.all(Array.from({ length: 5 }, () => idleSocket(server.port, '127.0.0.1')));
    const extra = await idleSocket(server.port, '127.0.0.1');
    expect(await closedWithin(extra, 2_000)).toBe(true);
    expect(await healthz(server.port, '127.0.0.2')).toBe(200);
    // The refused address is back once its own connections close.
    for (const s of hoarded) s.destroy();
    await new Promise((r) => setTimeout(r, 100));
    expect(await healthz(server.port, '127.0.0.1')).toBe(200);
    const line = logs.find((r) => r.msg === 'refusing connections');
    expect(line).toMatchObject({ level: 'warn', reason: 'per-address', address: '127.0.0.1', limit: 5 });
  });

  it('refuses connections past the overall cap cheaply, and serves again once some close', async () => {
    const logs: LogRecord[] = [];
    const server = await start({ limits: { maxConnections: 4, maxConnectionsPerAddress: 100 }, log: (r) => logs.push(r) });
    const hoarded = await Promise.all(['127.0.0.3', '127.0.0.4', '127.0.0.5', '127.0.0.6'].map((a) => idleSocket(server.port, a)));
    const extra = await idleSocket(server.port, '127.0.0.7');
    expect(await closedWithin(extra, 2_000)).toBe(true);
    hoarded[0]!.destroy();
    await new Promise((r) => setTimeout(r, 100));
    expect(await healthz(server.port, '127.0.0.2')).toBe(200);
    expect(logs.find((r) => r.msg === 'refusing connections')).toMatchObject({ level: 'warn', reason: 'total', limit: 4 });
  });

  it('with --trust-proxy every connection comes from the proxy: no cap per address, the overall one still holds', async () => {
    const server = await start({ trustProxy: true, limits: { maxConnections: 8, maxConnectionsPerAddress: 2 } });
    await Promise.all(Array.from({ length: 6 }, () => idleSocket(server.port, '127.0.0.1')));
    expect(await healthz(server.port, '127.0.0.1')).toBe(200);
    await Promise.all([idleSocket(server.port, '127.0.0.1'), idleSocket(server.port, '127.0.0.1')]);
    expect(await closedWithin(await idleSocket(server.port, '127.0.0.1'), 2_000)).toBe(true);
  });
});
