/**
 * The headless host: the built renderer and the same API the Electron shell offers, served on
 * 127.0.0.1 only. Security, because any web page the user visits can try to reach a port on
 * localhost:
 * - a random per-run token is required on every API request (it is in the URL we print);
 * - the Host header must name our loopback address and port (DNS-rebinding defence);
 * - a request carrying an Origin must come from our own origin; no CORS headers are ever sent;
 * - the HTML is served with a strict Content-Security-Policy.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Dispatcher } from '../../api/dispatch.js';

export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  // CodeMirror and React inline style attributes.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
};

export interface HostOptions {
  /**
   * The app's API. A promise while the app is still opening: the page and its scripts are served
   * at once (the browser loads them meanwhile), API requests wait for it (issue 16, bench start).
   */
  dispatcher: Dispatcher | Promise<Dispatcher>;
  /** The built renderer (out/renderer). */
  staticDir: string;
  port?: number;
  /** Fixed token (tests); random otherwise. */
  token?: string;
  /** Largest accepted request body. */
  maxBodyBytes?: number;
}

export interface RunningHost {
  url: string;
  port: number;
  token: string;
  close(): Promise<void>;
}

function send(res: http.ServerResponse, status: number, body: string, type = 'application/json; charset=utf-8', extra: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer', ...extra });
  res.end(body);
}

function sendError(res: http.ServerResponse, status: number, code: string, message: string, extra: Record<string, string> = {}): void {
  send(res, status, JSON.stringify({ ok: false, error: { code, message } }), undefined, extra);
}

function refuseStopping(res: http.ServerResponse): void {
  sendError(res, 503, 'unavailable', 'Memdir is stopping.', { Connection: 'close' });
}

function tokenMatches(given: string | undefined, token: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

export async function startHost(options: HostOptions): Promise<RunningHost> {
  const token = options.token ?? crypto.randomBytes(24).toString('base64url');
  const maxBody = options.maxBodyBytes ?? 8 * 1024 * 1024;
  const staticRoot = path.resolve(options.staticDir);
  // A failed opening answers each API request with its reason; whoever started the host says it too.
  const dispatcher: Promise<Dispatcher | Error> = Promise.resolve(options.dispatcher).catch((error: unknown) =>
    error instanceof Error ? error : new Error(String(error)),
  );
  let port = 0;
  const streams = new Set<http.ServerResponse>();
  let closing = false;

  const server = http.createServer((req, res) => {
    // Stopping: a page still connected asks again on a connection kept alive (its event stream a
    // second after it ended); it is told so, and the connection closes.
    if (closing) return refuseStopping(res);
    const allowedHosts = [`127.0.0.1:${port}`, `localhost:${port}`];
    if (!allowedHosts.includes(req.headers.host ?? ''))
      return sendError(res, 421, 'unauthorized', 'This Memdir host only answers on its own loopback address.');
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedHosts.map((h) => `http://${h}`).includes(origin))
      return sendError(res, 403, 'unauthorized', 'Requests from other web pages are refused.');
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`);

    if (url.pathname.startsWith('/api/')) {
      const auth = req.headers.authorization;
      const given = auth?.startsWith('Bearer ') ? auth.slice(7) : undefined;
      if (!tokenMatches(given, token)) return sendError(res, 401, 'unauthorized', 'Missing or wrong token: open the link Memdir printed when it started.');
      if (url.pathname === '/api/call' && req.method === 'POST') return void handleCall(req, res);
      if (url.pathname === '/api/events' && req.method === 'GET') return void handleEvents(res);
      return sendError(res, 404, 'not-found', 'No such API route.');
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return sendError(res, 405, 'invalid-input', 'Only GET is served here.');
    serveStatic(url.pathname, res);
  });

  async function handleCall(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (!(req.headers['content-type'] ?? '').startsWith('application/json')) return sendError(res, 415, 'invalid-input', 'Send JSON.');
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > maxBody) return sendError(res, 413, 'invalid-input', 'The request is too large.');
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBody) {
        sendError(res, 413, 'invalid-input', 'The request is too large.');
        req.destroy();
        return;
      }
      chunks.push(chunk);
    }
    let body: { name?: unknown; input?: unknown };
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof body;
    } catch {
      return sendError(res, 400, 'invalid-input', 'The request body is not valid JSON.');
    }
    const api = await dispatcher;
    if (api instanceof Error) return sendError(res, 503, 'internal', `Memdir could not start: ${api.message}`);
    const result = await api.call(body?.name, body?.input);
    send(res, 200, JSON.stringify(result));
  }

  async function handleEvents(res: http.ServerResponse): Promise<void> {
    const api = await dispatcher;
    if (api instanceof Error) return sendError(res, 503, 'internal', `Memdir could not start: ${api.message}`);
    if (res.destroyed) return;
    if (closing) return refuseStopping(res);
    // Subscribed before the answer's headers go out: the page reads only once they arrive
    // (renderer/stores/live-stream.ts), so whatever is published after its reads reaches it.
    // Nothing is published in between: the headers follow in this same tick.
    const sub = api.subscribe('events.stream', {}, (event) => res.write(`data: ${JSON.stringify(event)}\n\n`));
    if (!sub.ok) return sendError(res, 500, sub.error.code, sub.error.message);
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
      'X-Content-Type-Options': 'nosniff',
    });
    res.write(': connected\n\n');
    streams.add(res);
    // Comments keep idle connections (and proxies) from timing out.
    const keepAlive = setInterval(() => res.write(': ping\n\n'), 25_000);
    res.on('close', () => {
      clearInterval(keepAlive);
      sub.unsubscribe();
      streams.delete(res);
    });
  }

  function serveStatic(pathname: string, res: http.ServerResponse): void {
    let rel: string;
    try {
      rel = decodeURIComponent(pathname);
    } catch {
      return sendError(res, 400, 'invalid-input', 'Bad path.');
    }
    if (rel === '/' || rel === '') rel = '/index.html';
    const abs = path.resolve(staticRoot, `.${rel}`);
    if (abs !== staticRoot && !abs.startsWith(staticRoot + path.sep)) return sendError(res, 404, 'not-found', 'Not found.');
    let data: Buffer;
    try {
      data = fs.readFileSync(abs);
    } catch {
      // Unknown paths get the app (client-side views), assets 404.
      if (path.extname(rel)) return sendError(res, 404, 'not-found', 'Not found.');
      return serveStatic('/index.html', res);
    }
    const type = TYPES[path.extname(abs)] ?? 'application/octet-stream';
    const headers: Record<string, string> = type.startsWith('text/html')
      ? { 'Content-Security-Policy': CONTENT_SECURITY_POLICY, 'X-Frame-Options': 'DENY' }
      : {};
    res.writeHead(200, {
      'Content-Type': type,
      'Cache-Control': 'no-cache',
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      ...headers,
    });
    res.end(data);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/?token=${token}`,
    port,
    token,
    async close() {
      // Stop listening (which also closes the connections kept alive and idle) and end the event
      // streams. A request already in flight is answered; one asked after it on the same
      // connection hears "Memdir is stopping." and that connection closes (refuseStopping).
      closing = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of streams) s.destroy();
      await closed;
    },
  };
}
