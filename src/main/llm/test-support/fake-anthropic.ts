/**
 * A fake Anthropic Messages API for tests: `node:http` on 127.0.0.1, a random port by default.
 * The real SDK talks to it over real HTTP (SPEC §9: "no test needs the internet"). It is the
 * only stand-in the house style allows — for the model endpoint.
 *
 * Replies are scripted: a queue (`enqueue`), or a function of the request (`setHandler`), with a
 * fallback when neither has one. A reply can be a message (sent as JSON, or as SSE when the
 * request asked to stream, optionally cut short, or cut mid-body when it did not), an API error with the JSON shape the API uses
 * (429, 500, 529 overloaded, …), a malformed body, or a hang. Every request is recorded, body
 * included, so tests can assert what was sent (and what was not).
 *
 * Standalone, for e2e runs:
 *   npx tsx src/main/llm/test-support/fake-anthropic.ts --port 4010 --script replies.json
 * where replies.json holds one {@link FakeReply} or an array of them. It prints
 * `fake-anthropic listening on http://127.0.0.1:4010` when ready. Control endpoints:
 * `POST /__fake/replies` (body: a reply or an array; appended to the queue),
 * `GET /__fake/requests` (what was received), `POST /__fake/reset`.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import tls from 'node:tls';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** A request as received. */
export interface FakeRequest {
  method: string;
  /** Path and query, e.g. `/v1/messages`. */
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The raw body text. */
  rawBody: string;
  /** The body parsed as JSON, or null when it was not JSON. */
  body: Record<string, unknown> | null;
  receivedAt: number;
}

/** Usage numbers of a scripted message (defaults: 100 in, 20 out). */
export interface FakeUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
}

/** A successful answer. Sent as SSE when the request has `stream: true`. */
export interface FakeMessageReply {
  kind: 'message';
  /** Text of a single text block (ignored when `content` is given). */
  text?: string;
  content?: Record<string, unknown>[];
  /** Defaults to the model the request named. */
  model?: string;
  usage?: FakeUsage;
  stopReason?: string;
  delayMs?: number;
  /** Streaming only: send this many SSE events, then end the response (a cut connection). */
  truncateAfterEvents?: number;
  /** Not streaming: announce the whole body, send this many bytes of it, then cut the connection. */
  cutAfterBytes?: number;
}

/** An API error with the API's JSON shape `{"type":"error","error":{"type","message"}}`. */
export interface FakeErrorReply {
  kind: 'error';
  status: number;
  /** Defaults by status: 429 rate_limit_error, 529 overloaded_error, 500 api_error, … */
  type?: string;
  message?: string;
  /** Sent as `retry-after-ms` so the SDK's retries wait this long (tests use ~1 ms). */
  retryAfterMs?: number;
  delayMs?: number;
}

/** A 200 whose body is not the JSON the SDK expects. */
export interface FakeMalformedReply {
  kind: 'malformed';
  body?: string;
  contentType?: string;
  delayMs?: number;
}

/** Never answer (until the client gives up or the server closes). */
export interface FakeHangReply {
  kind: 'hang';
}

/** Any scripted reply. */
export type FakeReply = FakeMessageReply | FakeErrorReply | FakeMalformedReply | FakeHangReply;
/** Compute a reply from the request (and its 0-based index among messages requests). */
export type FakeHandler = (request: FakeRequest, index: number) => FakeReply | Promise<FakeReply>;

/** An answer to a request outside the Messages API (see {@link FakeAnthropicOptions.routes}). */
export interface FakeRouteReply {
  status: number;
  /** JSON unless a string (then sent as is, with `contentType`). */
  body?: unknown;
  contentType?: string;
}
/** Answers another of the API's endpoints, or undefined to leave it unfaked (404). */
export type FakeRoutes = (request: FakeRequest) => FakeRouteReply | undefined | Promise<FakeRouteReply | undefined>;

/** A certificate the fake presents for hosts reached through {@link FakeAnthropic.proxyUrl} (PEM). */
export interface FakeTls {
  cert: string;
  key: string;
}

/** Options of startFakeAnthropic(). */
export interface FakeAnthropicOptions {
  /** 0 (default) = a free port. */
  port?: number;
  host?: string;
  /** Replies to queue up front. */
  replies?: FakeReply[];
  /** Used when the queue is empty and no handler is set; default: a message saying "ok". */
  fallback?: FakeReply;
  /** The API's other endpoints (Claude Code's memory stores, its policy); unanswered ones get the API's 404. */
  routes?: FakeRoutes;
  /**
   * Also be an HTTPS proxy (`proxyUrl`): a `CONNECT` to any host is answered by this same fake,
   * over TLS with this certificate. For a client that reaches a host it will not take from
   * `ANTHROPIC_BASE_URL` (Claude Code's memory and policy calls go to api.anthropic.com): give it
   * `HTTPS_PROXY` and trust the certificate (`NODE_EXTRA_CA_CERTS`).
   */
  tls?: FakeTls;
}

/** A running fake server. */
export interface FakeAnthropic {
  /** Base URL to give the SDK (`baseURL`), e.g. `http://127.0.0.1:43121`. */
  readonly url: string;
  readonly port: number;
  /** With `tls`: the URL to give a client as `HTTPS_PROXY`; null without. */
  readonly proxyUrl: string | null;
  /** Every request received, oldest first (control endpoints excluded). */
  readonly requests: FakeRequest[];
  /** Requests to `POST /v1/messages` only. */
  messageRequests(): FakeRequest[];
  /** Append replies to the queue (consumed one per messages request). */
  enqueue(...replies: FakeReply[]): void;
  /** Answer with a function of the request instead of the queue (null: back to the queue). */
  setHandler(handler: FakeHandler | null): void;
  /** Clear queue, handler and recorded requests. */
  reset(): void;
  close(): Promise<void>;
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

const ERROR_MESSAGES: Record<string, string> = {
  rate_limit_error: 'Number of request tokens has exceeded your per-minute rate limit.',
  overloaded_error: 'Overloaded',
  api_error: 'Internal server error',
  authentication_error: 'invalid x-api-key',
};

function requestId(): string {
  return `req_fake_${randomBytes(8).toString('hex')}`;
}

function messageBody(reply: FakeMessageReply, request: FakeRequest): Record<string, unknown> {
  const requestedModel = typeof request.body?.model === 'string' ? request.body.model : 'claude-fake';
  return {
    id: `msg_fake_${randomBytes(6).toString('hex')}`,
    type: 'message',
    role: 'assistant',
    model: reply.model ?? requestedModel,
    content: reply.content ?? [{ type: 'text', text: reply.text ?? 'ok' }],
    stop_reason: reply.stopReason ?? 'end_turn',
    stop_sequence: null,
    usage: {
      input_tokens: 100,
      output_tokens: 20,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
      ...reply.usage,
    },
  };
}

/** The SSE events the API sends for one message. */
function streamEvents(message: Record<string, unknown>): { event: string; data: unknown }[] {
  const usage = message.usage as Record<string, number>;
  const content = message.content as Record<string, unknown>[];
  const events: { event: string; data: unknown }[] = [
    { event: 'message_start', data: { type: 'message_start', message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } } } },
  ];
  content.forEach((block, index) => {
    if (block.type === 'text') {
      const text = String(block.text ?? '');
      events.push({ event: 'content_block_start', data: { type: 'content_block_start', index, content_block: { type: 'text', text: '' } } });
      // Several deltas, as the API sends, so a cut can fall mid-text.
      const step = Math.max(1, Math.ceil(text.length / 4));
      for (let i = 0; i < text.length; i += step) {
        events.push({
          event: 'content_block_delta',
          data: { type: 'content_block_delta', index, delta: { type: 'text_delta', text: text.slice(i, i + step) } },
        });
      }
    } else {
      events.push({ event: 'content_block_start', data: { type: 'content_block_start', index, content_block: { ...block, input: {} } } });
      events.push({
        event: 'content_block_delta',
        data: { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input ?? {}) } },
      });
    }
    events.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
  });
  events.push({
    event: 'message_delta',
    data: { type: 'message_delta', delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } },
  });
  events.push({ event: 'message_stop', data: { type: 'message_stop' } });
  return events;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function readBody(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function sendJson(res: http.ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'request-id': requestId(), ...headers });
  res.end(body);
}

/** Start a fake server; close it with `close()` (tests: in afterEach). */
export async function startFakeAnthropic(options: FakeAnthropicOptions = {}): Promise<FakeAnthropic> {
  const queue: FakeReply[] = [...(options.replies ?? [])];
  const requests: FakeRequest[] = [];
  const fallback: FakeReply = options.fallback ?? { kind: 'message', text: 'ok' };
  let handler: FakeHandler | null = null;
  let messageCount = 0;

  async function answer(reply: FakeReply, request: FakeRequest, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (reply.kind === 'hang') return;
    if (reply.delayMs) await sleep(reply.delayMs);
    if (res.destroyed || req.socket.destroyed) return;
    if (reply.kind === 'error') {
      const type = reply.type ?? ERROR_TYPES[reply.status] ?? (reply.status >= 500 ? 'api_error' : 'invalid_request_error');
      const headers: Record<string, string> = reply.retryAfterMs !== undefined ? { 'retry-after-ms': String(reply.retryAfterMs) } : {};
      sendJson(
        res,
        reply.status,
        { type: 'error', error: { type, message: reply.message ?? ERROR_MESSAGES[type] ?? 'error' }, request_id: requestId() },
        headers,
      );
      return;
    }
    if (reply.kind === 'malformed') {
      const body = reply.body ?? '{"id": "msg_1", "type": "message", "content": [';
      res.writeHead(200, { 'content-type': reply.contentType ?? 'application/json', 'content-length': Buffer.byteLength(body), 'request-id': requestId() });
      res.end(body);
      return;
    }
    const message = messageBody(reply, request);
    if (request.body?.stream !== true) {
      if (reply.cutAfterBytes === undefined) return sendJson(res, 200, message);
      const body = Buffer.from(JSON.stringify(message));
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length, 'request-id': requestId() });
      res.write(body.subarray(0, reply.cutAfterBytes));
      // Flushed first, so the client has read part of the answer when the connection goes.
      await sleep(20);
      res.destroy();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': requestId() });
    const events = streamEvents(message);
    const limit = reply.truncateAfterEvents ?? events.length;
    for (const { event, data } of events.slice(0, limit)) {
      if (res.destroyed) return;
      res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    }
    res.end();
  }

  async function control(req: http.IncomingMessage, res: http.ServerResponse, raw: string): Promise<void> {
    const url = req.url ?? '';
    if (req.method === 'GET' && url.startsWith('/__fake/requests')) return sendJson(res, 200, requests);
    if (req.method === 'POST' && url.startsWith('/__fake/reset')) {
      fake.reset();
      return sendJson(res, 200, { ok: true });
    }
    if (req.method === 'POST' && url.startsWith('/__fake/replies')) {
      try {
        const parsed = JSON.parse(raw) as FakeReply | FakeReply[];
        fake.enqueue(...(Array.isArray(parsed) ? parsed : [parsed]));
        return sendJson(res, 200, { queued: queue.length });
      } catch {
        return sendJson(res, 400, { error: 'body must be a reply or an array of replies (JSON)' });
      }
    }
    return sendJson(res, 404, { error: 'unknown control endpoint' });
  }

  const server = http.createServer((req, res) => {
    void (async () => {
      const rawBody = await readBody(req);
      if ((req.url ?? '').startsWith('/__fake/')) return control(req, res, rawBody);
      let body: Record<string, unknown> | null = null;
      try {
        const parsed: unknown = JSON.parse(rawBody);
        if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
      } catch {
        body = null;
      }
      const request: FakeRequest = { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, rawBody, body, receivedAt: Date.now() };
      requests.push(request);
      const route = request.path.split('?')[0];
      if (request.method === 'POST' && route === '/v1/messages/count_tokens') {
        return sendJson(res, 200, { input_tokens: Math.ceil(rawBody.length / 4) });
      }
      const routed = route === '/v1/messages' ? undefined : await options.routes?.(request);
      if (routed) {
        if (typeof routed.body === 'string' || routed.body === undefined) {
          res.writeHead(routed.status, { 'content-type': routed.contentType ?? 'application/json', 'request-id': requestId() });
          res.end(routed.body ?? '');
          return;
        }
        return sendJson(res, routed.status, routed.body);
      }
      if (request.method !== 'POST' || route !== '/v1/messages') {
        return sendJson(res, 404, {
          type: 'error',
          error: { type: 'not_found_error', message: `${request.method} ${route} is not faked` },
          request_id: requestId(),
        });
      }
      const index = messageCount++;
      const reply = handler ? await handler(request, index) : (queue.shift() ?? fallback);
      await answer(reply, request, req, res);
    })().catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { type: 'error', error: { type: 'api_error', message: `fake server failed: ${String(error)}` } });
      else res.destroy();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host ?? '127.0.0.1';
  if (options.tls) {
    const context = tls.createSecureContext(options.tls);
    // A CONNECT tunnel ends here: its TLS is taken off and what is inside served as any request.
    server.on('connect', (req: http.IncomingMessage, socket: Socket) => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      const secure = new tls.TLSSocket(socket, { isServer: true, secureContext: context });
      secure.on('error', () => socket.destroy());
      server.emit('connection', secure);
    });
  }

  const fake: FakeAnthropic = {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    proxyUrl: options.tls ? `http://${host.includes(':') ? `[${host}]` : host}:${port}` : null,
    requests,
    messageRequests: () => requests.filter((r) => r.method === 'POST' && r.path.split('?')[0] === '/v1/messages'),
    enqueue: (...replies) => {
      queue.push(...replies);
    },
    setHandler: (next) => {
      handler = next;
    },
    reset: () => {
      queue.length = 0;
      requests.length = 0;
      handler = null;
      messageCount = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        // Hanging replies keep sockets open: end them, or close() would wait forever.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return fake;
}

/**
 * A self-signed certificate for `host` (default api.anthropic.com), made with openssl into `dir`,
 * for {@link FakeAnthropicOptions.tls}; a client trusts it through `NODE_EXTRA_CA_CERTS=certFile`.
 * Without openssl: why not.
 */
export function makeFakeCertificate(dir: string, host = 'api.anthropic.com'): (FakeTls & { certFile: string }) | { reason: string } {
  const certFile = path.join(dir, 'fake-cert.pem');
  const keyFile = path.join(dir, 'fake-key.pem');
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        keyFile,
        '-out',
        certFile,
        '-days',
        '1',
        '-subj',
        `/CN=${host}`,
        '-addext',
        `subjectAltName=DNS:${host}`,
      ],
      { stdio: 'ignore' },
    );
  } catch (error) {
    return { reason: `openssl could not make a certificate for the fake ${host} (${String(error)})` };
  }
  return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8'), certFile };
}

/** A message reply whose text is `value` as JSON: the usual answer of a JSON-speaking task. */
export function jsonReply(value: unknown, extra: Omit<FakeMessageReply, 'kind' | 'text'> = {}): FakeMessageReply {
  return { kind: 'message', text: JSON.stringify(value), ...extra };
}

async function main(argv: string[]): Promise<void> {
  const arg = (name: string): string | undefined => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const scriptFile = arg('script');
  const replies: FakeReply[] = [];
  if (scriptFile) {
    const parsed = JSON.parse(await fs.readFile(scriptFile, 'utf8')) as FakeReply | FakeReply[];
    replies.push(...(Array.isArray(parsed) ? parsed : [parsed]));
  }
  const fake = await startFakeAnthropic({ port: Number(arg('port') ?? 0), host: arg('host') ?? '127.0.0.1', replies });
  process.stdout.write(`fake-anthropic listening on ${fake.url}\n`);
  const stop = () => void fake.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`fake-anthropic: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(2);
  });
}
