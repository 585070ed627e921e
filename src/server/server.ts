/**
 * The sync API on a real port (@hono/node-server), with graceful shutdown: stop accepting,
 * let requests in flight finish (up to a grace period), then close the store.
 */
import type { Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { serve } from '@hono/node-server';
import { createApp } from './app.js';
import { clientKey } from './client-address.js';
import { type ServerLimits, resolveLimits } from './limits.js';
import { type Log, silentLog } from './log.js';
import type { TeamStore } from './store.js';

export interface ServerOptions {
  store: TeamStore;
  /** Default 127.0.0.1: exposing the server is a decision (put TLS in front of it). */
  host?: string;
  /** Default 8787; 0 picks a free port. */
  port?: number;
  limits?: Partial<ServerLimits>;
  log?: Log;
  /** How long in-flight requests may take to finish on close (default 10 s). */
  shutdownGraceMs?: number;
  /** Close the store when the server closes (default true). */
  closeStore?: boolean;
  /** Use X-Forwarded-For for per-client limits (see AppOptions.trustProxy). */
  trustProxy?: boolean;
}

export interface RunningServer {
  url: string;
  host: string;
  port: number;
  /** Stop accepting, finish in-flight requests, close the store. Safe to call twice. */
  close: () => Promise<void>;
}

/** Start the sync server; resolves once it is listening. */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  const log = options.log ?? silentLog;
  const app = createApp({ store: options.store, ...(options.limits ? { limits: options.limits } : {}), log, trustProxy: options.trustProxy ?? false });
  const server = await new Promise<Server>((resolve, reject) => {
    const created = serve({ fetch: app.fetch, hostname: host, port: options.port ?? 8787 }) as Server;
    created.once('error', reject);
    created.once('listening', () => {
      created.off('error', reject);
      resolve(created);
    });
  });
  // Slow clients cannot hold a connection open forever (slowloris): headers and whole requests are timed.
  server.headersTimeout = 15_000;
  server.requestTimeout = 60_000;
  capConnections(server, resolveLimits(options.limits), options.trustProxy ?? false, log);
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  log({ level: 'info', msg: 'listening', url, store: options.store.kind });

  let closing: Promise<void> | null = null;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      const grace = options.shutdownGraceMs ?? 10_000;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Keep-alive connections become idle as their last response is sent: close them as they do.
      server.closeIdleConnections();
      const sweep = setInterval(() => server.closeIdleConnections(), 25);
      const timer = setTimeout(() => server.closeAllConnections(), grace);
      await closed;
      clearInterval(sweep);
      clearTimeout(timer);
      if (options.closeStore !== false) await options.store.close();
      log({ level: 'info', msg: 'stopped' });
    })();
    return closing;
  };
  return { url, host, port, close };
}

/** At most one "refusing connections" line per this many ms: a flood must not flood the log too. */
const REFUSAL_LOG_MS = 10_000;

/**
 * Bound the connections (each a file descriptor) an unauthenticated client can hold for up to
 * headersTimeout: past `maxConnections` Node closes a new one on accept ('drop'); past
 * `maxConnectionsPerAddress` from one client it is closed before any byte is read. Behind a
 * proxy (trustProxy) every connection comes from it, so only the overall cap applies.
 */
function capConnections(server: Server, limits: ServerLimits, trustProxy: boolean, log: Log): void {
  let lastLine = -Infinity;
  let refused = 0;
  const refuse = (reason: 'total' | 'per-address', address: string, limit: number): void => {
    refused += 1;
    if (performance.now() - lastLine < REFUSAL_LOG_MS) return;
    lastLine = performance.now();
    log({ level: 'warn', msg: 'refusing connections', reason, address, limit, refused });
    refused = 0;
  };
  server.maxConnections = limits.maxConnections;
  server.on('drop', (data?: { remoteAddress?: string }) => refuse('total', data?.remoteAddress ?? 'unknown', limits.maxConnections));
  if (trustProxy) return;
  const open = new Map<string, number>();
  // Prepended, so a refused socket is closed before the HTTP parser reads from it.
  server.prependListener('connection', (socket: Socket) => {
    const key = clientKey(socket.remoteAddress ?? 'unknown');
    const count = open.get(key) ?? 0;
    if (count >= limits.maxConnectionsPerAddress) {
      socket.destroy();
      refuse('per-address', key, limits.maxConnectionsPerAddress);
      return;
    }
    open.set(key, count + 1);
    socket.once('close', () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left === 0) open.delete(key);
      else open.set(key, left);
    });
  });
}
