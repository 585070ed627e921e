/**
 * The sync API on a real port (@hono/node-server), with graceful shutdown: stop accepting,
 * let requests in flight finish (up to a grace period), then close the store.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createApp } from './app.js';
import type { ServerLimits } from './limits.js';
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
