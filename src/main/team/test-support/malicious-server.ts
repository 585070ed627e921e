/**
 * A sync server that lies, on loopback (R-SYNC-SECURITY's test double): it speaks enough of
 * the protocol to be believed, then sends hostile keys, checksums that do not match, a body
 * that never ends, a 412 (or any other refusal) for every push, a redirect that would carry the
 * token away, junk, or no answer at all.
 * It counts what it did so tests can assert the client's work stayed bounded.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type Behaviour =
  /** `putEtag`: the ETag its push answers carry in their body; `etag`: the one its entries answers carry (header and body). */
  | { kind: 'entries'; entries: Record<string, { content: string; sha256?: string }>; putEtag?: string; etag?: string }
  | { kind: 'huge-body'; declareLength?: boolean }
  | { kind: 'endless-412' }
  /** An empty team whose every push is answered with `status` and `body`. */
  | { kind: 'refuse-push'; status: number; body: unknown }
  /** Reads each request and never answers it. */
  | { kind: 'hang' }
  | { kind: 'redirect'; to: string }
  | { kind: 'garbage' };

export interface MaliciousServer {
  url: string;
  counts: { requests: number; puts: number; bytesSent: number; authorization: string[] };
  close(): Promise<void>;
}

const EPOCH = 'deadbeef';
const GB = 1024 * 1024 * 1024;

function sha(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Start the lying server with one behaviour. */
export async function startMaliciousServer(behaviour: Behaviour): Promise<MaliciousServer> {
  const counts = { requests: 0, puts: 0, bytesSent: 0, authorization: [] as string[] };
  let version = 1;
  const sockets = new Set<Socket>();
  const send = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
    const text = JSON.stringify(body);
    counts.bytesSent += Buffer.byteLength(text);
    res.writeHead(status, { 'content-type': 'application/json', etag: `"${EPOCH}-${version}"`, ...headers });
    res.end(text);
  };
  const server = http.createServer((req, res) => {
    counts.requests++;
    counts.authorization.push(req.headers.authorization ?? '');
    const url = new URL(req.url ?? '/', 'http://x');
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => answer(req, res, url, Buffer.concat(chunks).toString('utf8')));
  });
  const answer = (req: http.IncomingMessage, res: http.ServerResponse, url: URL, text: string): void => {
    const isEntries = url.pathname.endsWith('/entries');
    const isChecksums = url.pathname.endsWith('/checksums');
    if (url.pathname === '/v1/me') return send(res, 200, { team: 'platform', member: 'victim', tokenId: '0'.repeat(16) });
    // Only the 'entries' server speaks protocol 2; the others are old servers (the client falls back to protocol 1).
    if (url.pathname.startsWith('/v2/') && behaviour.kind !== 'entries') return send(res, 404, { error: 'not-found', message: 'Not found.' });
    switch (behaviour.kind) {
      case 'entries': {
        if (req.method === 'PUT' && url.pathname.startsWith('/v2/')) {
          // Protocol 2: every key "committed".
          counts.puts++;
          const body = JSON.parse(text) as { pushId: string; entries: Record<string, unknown> };
          version++;
          return send(res, 200, {
            pushId: body.pushId,
            version,
            previousVersion: version - 1,
            etag: behaviour.putEtag ?? `"${EPOCH}-${version}"`,
            committed: Object.keys(body.entries),
            unchanged: [],
            conflicts: {},
            replayed: false,
          });
        }
        if (req.method === 'PUT') {
          counts.puts++;
          return send(res, 200, { version: ++version, etag: behaviour.putEtag ?? `"${EPOCH}-${version}"`, changed: [], unchanged: [] });
        }
        const etag = behaviour.etag ?? `"${EPOCH}-${version}"`;
        const entries = Object.fromEntries(
          Object.entries(behaviour.entries).map(([key, e]) => [
            key,
            { content: e.content, sha256: e.sha256 ?? sha(e.content), updatedAt: '2026-01-01T00:00:00Z', updatedBy: 'mallory' },
          ]),
        );
        if (isChecksums)
          return send(
            res,
            200,
            { team: 'platform', version, etag, checksums: Object.fromEntries(Object.entries(entries).map(([k, e]) => [k, e.sha256])) },
            { etag },
          );
        return send(res, 200, { team: 'platform', version, etag, full: true, entries }, { etag });
      }
      case 'huge-body': {
        // A JSON document that never closes: 1 GB of one string, unless the client hangs up first.
        res.writeHead(200, { 'content-type': 'application/json', etag: `"${EPOCH}-1"`, ...(behaviour.declareLength ? { 'content-length': String(GB) } : {}) });
        const prefix = '{"team":"platform","version":1,"etag":"\\"deadbeef-1\\"","full":true,"entries":{"a.md":{"content":"';
        res.write(prefix);
        counts.bytesSent += prefix.length;
        const chunk = Buffer.alloc(64 * 1024, 0x61);
        const pump = (): void => {
          while (counts.bytesSent < GB && !res.destroyed) {
            counts.bytesSent += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          res.end();
        };
        res.on('close', () => undefined);
        pump();
        return;
      }
      case 'endless-412': {
        if (req.method === 'PUT') {
          counts.puts++;
          version++;
          return send(res, 412, { error: 'stale', message: 'Someone else pushed first.', etag: `"${EPOCH}-${version}"`, version });
        }
        // Every look shows one more change by someone else, so the client always has a reason to retry.
        const content = `moved ${version}\n`;
        if (isChecksums) return send(res, 200, { team: 'platform', version, etag: `"${EPOCH}-${version}"`, checksums: { 'other.md': sha(content) } });
        if (isEntries)
          return send(res, 200, {
            team: 'platform',
            version,
            etag: `"${EPOCH}-${version}"`,
            full: !url.searchParams.get('since'),
            entries: { 'other.md': { content, sha256: sha(content), updatedAt: '2026-01-01T00:00:00Z', updatedBy: 'mallory' } },
          });
        return send(res, 404, { error: 'not-found', message: 'Not found.' });
      }
      case 'refuse-push': {
        if (req.method === 'PUT') {
          counts.puts++;
          return send(res, behaviour.status, behaviour.body);
        }
        if (isChecksums) return send(res, 200, { team: 'platform', version, etag: `"${EPOCH}-${version}"`, checksums: {} });
        return send(res, 200, { team: 'platform', version, etag: `"${EPOCH}-${version}"`, full: true, entries: {} });
      }
      case 'hang':
        return;
      case 'redirect':
        res.writeHead(307, { location: `${behaviour.to}${req.url ?? '/'}` });
        return void res.end();
      case 'garbage':
        res.writeHead(200, { 'content-type': 'application/json', etag: `"${EPOCH}-1"` });
        counts.bytesSent += 20;
        return void res.end('{"entries": [1, 2, 3');
    }
  };
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
