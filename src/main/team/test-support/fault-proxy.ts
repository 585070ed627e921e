/**
 * An HTTP proxy on loopback between team clients and a real sync server that misbehaves on
 * purpose (issue 15, fault injection): for a seeded share of requests it
 *   - `cut-before`: drops the connection before the request reaches the server;
 *   - `cut-after`: lets the server handle it, then drops the connection half-way through the
 *     answer's body (the server may have saved a push whose answer is lost);
 *   - `error`: answers 500, 503 or 429 (the last two with Retry-After) without asking the server;
 *   - `delay`: holds the request and the answer for a while, so answers to concurrent requests
 *     come back in another order than the server gave them;
 *   - `duplicate`: sends the request to the server twice and answers with one of the two;
 *   - `replay`: answers a GET with an earlier answer to the same GET (a stale duplicate).
 * It counts what it did, so a run can say how hostile it was, and logs every request with the
 * fault it met, so a run can say which client's requests were hit. A test that needs one exact
 * sequence passes a `script` choosing each request's fault instead of the seeded draw.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export const FAULTS = ['cut-before', 'cut-after', 'error', 'delay', 'duplicate', 'replay'] as const;
export type Fault = (typeof FAULTS)[number];

export interface FaultProxy {
  url: string;
  /** Share of requests that meet a fault (0 turns the proxy into a plain one). */
  rate: number;
  counts: Record<Fault | 'requests', number>;
  /** Every request in the order it arrived, with the fault it met: which member's requests were hit, and how. */
  events: FaultEvent[];
  close(): Promise<void>;
}

/** One request through the proxy. */
export interface FaultEvent {
  n: number;
  /** What the proxy did to it (null: nothing; a `replay` with no earlier answer to replay is nothing). */
  fault: Fault | null;
  method: string;
  path: string;
  authorization: string;
  /** The answer's status and ETag as the proxy had them (null: no answer, e.g. `cut-before`). */
  status: number | null;
  etag: string | null;
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** Deterministic PRNG (mulberry32), so a failing run can be replayed with its seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host']);

/** Start the proxy in front of `upstream` (a base URL), misbehaving for `rate` of the requests. */
export async function startFaultProxy(
  upstream: string,
  options: {
    rate: number;
    seed?: number;
    maxDelayMs?: number;
    /** A scripted fault sequence instead of the seeded draw: the fault for each request (null: none), for tests that need one exact sequence. */
    script?: (request: { n: number; method: string; path: string; authorization: string }) => Fault | null;
  },
): Promise<FaultProxy> {
  const target = new URL(upstream);
  const random = prng(options.seed ?? 1);
  const maxDelay = options.maxDelayMs ?? 60;
  const counts = Object.fromEntries([...FAULTS, 'requests'].map((k) => [k, 0])) as FaultProxy['counts'];
  const seen = new Map<string, Answer>();
  const sockets = new Set<Socket>();
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

  const forward = (req: http.IncomingMessage, body: Buffer): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !HOP.has(k)));
      const out = http.request(
        { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: { ...headers, 'content-length': String(body.length) }, agent },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (d: Buffer) => chunks.push(d));
          res.on('end', () => resolve({ status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(chunks) }));
          res.on('error', reject);
        },
      );
      out.on('error', reject);
      out.end(body);
    });

  const send = (res: http.ServerResponse, answer: Answer, cut = false): void => {
    const headers = Object.fromEntries(Object.entries(answer.headers).filter(([k]) => !HOP.has(k)));
    res.writeHead(answer.status, { ...headers, 'content-length': String(answer.body.length) });
    if (!cut || answer.body.length < 2) {
      if (cut) return void res.socket?.destroy();
      res.end(answer.body);
      return;
    }
    res.write(answer.body.subarray(0, Math.floor(answer.body.length / 2)), () => res.socket?.destroy());
  };

  const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

  const proxy: FaultProxy = {
    url: '',
    rate: options.rate,
    counts,
    events: [],
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        agent.destroy();
        server.close(() => resolve());
      }),
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      void (async () => {
        counts.requests++;
        const body = Buffer.concat(chunks);
        // Any earlier answer of the same route to the same member may be replayed (a stale duplicate).
        const key = `${req.method} ${(req.url ?? '').split('?')[0]} ${req.headers.authorization ?? ''}`;
        const fault: Fault | null = options.script
          ? options.script({ n: counts.requests, method: req.method ?? '', path: req.url ?? '', authorization: req.headers.authorization ?? '' })
          : random() < proxy.rate
            ? FAULTS[Math.floor(random() * FAULTS.length)]!
            : null;
        const event: FaultEvent = {
          n: counts.requests,
          fault: fault === 'replay' && !(req.method === 'GET' && seen.has(key)) ? null : fault,
          method: req.method ?? '',
          path: req.url ?? '',
          authorization: req.headers.authorization ?? '',
          status: null,
          etag: null,
        };
        proxy.events.push(event);
        try {
          if (fault === 'cut-before') {
            counts[fault]++;
            return void req.socket.destroy();
          }
          if (fault === 'error') {
            counts[fault]++;
            const status = [500, 503, 429][Math.floor(random() * 3)]!;
            const text = JSON.stringify(
              status === 500
                ? { error: 'internal', message: 'Injected failure.' }
                : { error: status === 429 ? 'rate-limited' : 'unavailable', message: 'Injected: try again later.' },
            );
            event.status = status;
            return send(res, {
              status,
              headers: { 'content-type': 'application/json', ...(status === 500 ? {} : { 'retry-after': '1' }) },
              body: Buffer.from(text),
            });
          }
          if (fault === 'replay' && req.method === 'GET' && seen.has(key)) {
            counts[fault]++;
            const earlier = seen.get(key)!;
            event.status = earlier.status;
            event.etag = typeof earlier.headers.etag === 'string' ? earlier.headers.etag : null;
            return send(res, earlier);
          }
          if (fault === 'delay') {
            counts[fault]++;
            await sleep(random() * maxDelay);
          }
          let answer = await forward(req, body);
          if (fault === 'duplicate') {
            counts[fault]++;
            const second = await forward(req, body);
            if (random() < 0.5) answer = second;
          }
          if (req.method === 'GET' && answer.status === 200 && !seen.has(key)) seen.set(key, answer);
          if (fault === 'delay') await sleep(random() * maxDelay);
          event.status = answer.status;
          event.etag = typeof answer.headers.etag === 'string' ? answer.headers.etag : null;
          if (fault === 'cut-after') {
            counts[fault]++;
            return send(res, answer, true);
          }
          send(res, answer);
        } catch {
          req.socket.destroy();
        }
      })();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}
