/**
 * The client side of the team sync wire contract (src/shared/protocol/sync.ts): conditional GETs of
 * entries and checksums, and conditional PUTs of a delta. Everything from the server is
 * treated as hostile until checked: redirects are refused (the token must never follow one),
 * every answer is read with a byte ceiling (a 1 GB body is cut off at the ceiling, never held),
 * every request has a timeout, and every body is validated against the protocol's schemas.
 * Failures are typed values a person can read (`TeamClientError`), never raw fetch errors.
 */
import { readBodyLimited } from '../../shared/protocol/read-body.js';
import {
  type ChecksumsResponse,
  type CommitResponse,
  type EntriesResponse,
  type ErrorResponse,
  type KeyRecordResponse,
  type MeResponse,
  type PutResponse,
  checksumsResponseSchema,
  commitResponseSchema,
  entriesResponseSchema,
  errorResponseSchema,
  isProtocolEtag,
  keyRecordResponseSchema,
  meResponseSchema,
  putResponseSchema,
} from '../../shared/protocol/sync.js';
import type * as z from 'zod';
import { TEAM_MAX_ENTRIES } from '../../shared/limits.js';
import { firstIssueSentence } from '../../shared/issue-sentence.js';
import { strictUtf8 } from '../../shared/utf8.js';
import { MemdirError } from '../../shared/errors.js';
import { failureWords } from '../../shared/failure-words.js';
import { maskSecretsIn } from '../secrets/index.js';

/** Why a request failed, for code; the message is for people. */
export type TeamClientErrorCode =
  | 'network'
  | 'timeout'
  | 'cancelled'
  | 'unauthorized'
  | 'revoked'
  | 'not-found'
  | 'rate-limited'
  | 'unavailable'
  | 'too-large'
  | 'bad-response'
  | 'redirect'
  | 'server';

export class TeamClientError extends MemdirError<TeamClientErrorCode> {
  override readonly name = 'TeamClientError';
  constructor(
    code: TeamClientErrorCode,
    message: string,
    readonly status: number | null = null,
    /** From Retry-After on 429/503. */
    readonly retryAfterSeconds: number | null = null,
    /** A network failure after the request reached the server's socket: it may have been handled. */
    readonly sent = false,
  ) {
    super(code, message);
  }
}

/** One request as the client saw it (tests and the bench count them; never holds the token). */
export interface RequestRecord {
  method: string;
  path: string;
  status: number;
  /** Response body bytes read. */
  bytesIn: number;
  /** Request body bytes sent. */
  bytesOut: number;
  /** For PUT: how many keys the delta carried. */
  keys?: number;
}

export interface TeamClientOptions {
  /** Base URL of the sync server (`https://sync.example.com`, may carry a path prefix). */
  server: string;
  /** The team, or with scope `personal` the project's id in the personal space. */
  team: string;
  /** `personal`: the routes of a personal space (issue 18); default `team`. */
  scope?: 'team' | 'personal';
  token: string;
  fetch?: typeof fetch;
  /** Per request (default 30 s). */
  timeoutMs?: number;
  /** Largest response body read (default 256 MiB: the server's default team size). */
  maxResponseBytes?: number;
  /** Most entries one pull answer may carry (default TEAM_MAX_ENTRIES); more is refused whole, before any is looked at. */
  maxEntries?: number;
  /** Cancels every request of this client (each call may also bring its own signal). */
  signal?: AbortSignal;
  onRequest?: (record: RequestRecord) => void;
}

/** A conditional GET: 304 carries nothing but the ETag. */
export type Conditional<T> = { status: 304; etag: string } | { status: 200; etag: string; body: T };

/** The answer to a PUT: applied, or one of the refusals the sync engine handles. */
export type PutOutcome = { ok: true; body: PutResponse } | { ok: false; status: number; error: ErrorResponse };

/** The answer to a protocol 2 commit: applied (maybe with per-key conflicts), or a refusal the engine handles. */
export type CommitOutcome = { ok: true; body: CommitResponse } | { ok: false; status: number; error: ErrorResponse };

/**
 * A pull answer as the sync engine reads it: the protocol's, plus entries a wrapping client took
 * out before the engine saw them, with why (personal sync: an entry that does not decrypt).
 */
export type PulledEntries = EntriesResponse & { refused?: { key: string; reason: string; security: boolean }[] };

/** What the sync engine asks of a server: a TeamClient, or a client wrapping one (personal sync encrypts). */
export interface SpaceClient {
  me(opts?: { signal?: AbortSignal }): Promise<MeResponse>;
  entries(opts?: { ifNoneMatch?: string | null; since?: string | null; signal?: AbortSignal }): Promise<Conditional<PulledEntries>>;
  checksums(opts?: { ifNoneMatch?: string | null; signal?: AbortSignal }): Promise<Conditional<ChecksumsResponse>>;
  commit(pushId: string, entries: Record<string, { content: string; base: string | null }>, opts?: { signal?: AbortSignal }): Promise<CommitOutcome>;
  put(ifMatch: string, entries: Record<string, string>, opts?: { signal?: AbortSignal }): Promise<PutOutcome>;
}

export const DEFAULT_MAX_RESPONSE_BYTES = 256 * 1024 * 1024;
/** Network errors that come after the request reached the server (it may have acted on it). */
const SENT = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH']);
const ERROR_BODY_LIMIT = 64 * 1024;
/** Statuses a proxy or gateway answers for a while (busy, restarting): retried, not alerted, even without the protocol's error body. */
const TRANSIENT_STATUSES = new Set([429, 502, 503, 504]);

/** The server URL without a trailing slash. */
export function normalizeServerUrl(server: string): string {
  return server.replace(/\/+$/, '');
}

function mb(bytes: number): string {
  return `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;
}

export class TeamClient implements SpaceClient {
  private readonly base: string;
  private readonly fetchImpl: typeof fetch;
  private readonly timeoutMs: number;
  readonly maxResponseBytes: number;

  constructor(private readonly options: TeamClientOptions) {
    this.base = normalizeServerUrl(options.server);
    this.fetchImpl = options.fetch ?? fetch;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  }

  private teamPath(what: 'entries' | 'checksums', version = 1): string {
    if (this.options.scope === 'personal') return `/v${version}/personal/projects/${encodeURIComponent(this.options.team)}/${what}`;
    return `/v${version}/teams/${encodeURIComponent(this.options.team)}/${what}`;
  }

  /**
   * One request: headers with the token, a timeout, no redirects, the body read with a
   * ceiling, cancelled at once when `signal` aborts (error `cancelled`). Resolves with status,
   * headers and body bytes; rejects only with TeamClientError.
   */
  private async request(
    method: string,
    pathAndQuery: string,
    init: { headers?: Record<string, string>; body?: string; limit?: number; keys?: number; signal?: AbortSignal } = {},
  ): Promise<{ status: number; headers: Headers; bytes: Uint8Array }> {
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new TeamClientError('timeout', `The sync server did not answer within ${Math.round(this.timeoutMs / 1000)} s.`)),
      this.timeoutMs,
    );
    const signals = [this.options.signal, init.signal].filter((s): s is AbortSignal => s !== undefined);
    const outer = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
    const onOuterAbort = (): void => controller.abort(new TeamClientError('cancelled', 'The sync was cancelled.'));
    if (outer?.aborted) onOuterAbort();
    outer?.addEventListener('abort', onOuterAbort, { once: true });
    const body = init.body;
    const bytesOut = body === undefined ? 0 : Buffer.byteLength(body);
    const limit = init.limit ?? this.maxResponseBytes;
    try {
      let response: Response;
      try {
        response = await this.fetchImpl(`${this.base}${pathAndQuery}`, {
          method,
          headers: {
            authorization: `Bearer ${this.options.token}`,
            accept: 'application/json',
            ...(body !== undefined ? { 'content-type': 'application/json; charset=utf-8' } : {}),
            ...init.headers,
          },
          ...(body !== undefined ? { body } : {}),
          // A redirect would carry the token to wherever the server points: never follow one.
          redirect: 'manual',
          signal: controller.signal,
        });
      } catch (error) {
        throw this.networkError(error, controller.signal);
      }
      if (response.status >= 300 && response.status < 400 && response.status !== 304) {
        await response.body?.cancel().catch(() => undefined);
        throw new TeamClientError(
          'redirect',
          `The sync server answered with a redirect (${response.status}${response.headers.get('location') ? ` to ${response.headers.get('location')!.slice(0, 200)}` : ''}); Memdir does not follow redirects with your token. Use the final server URL.`,
          response.status,
        );
      }
      const declared = Number(response.headers.get('content-length') ?? NaN);
      if (Number.isFinite(declared) && declared > limit) {
        await response.body?.cancel().catch(() => undefined);
        this.record(method, pathAndQuery, response.status, 0, bytesOut, init.keys);
        throw new TeamClientError(
          'too-large',
          `The sync server announced a ${mb(declared)} answer, more than the ${mb(limit)} Memdir reads; nothing was written.`,
          response.status,
        );
      }
      const bytes = await this.readLimited(response, limit, controller, method, pathAndQuery, bytesOut, init.keys);
      this.record(method, pathAndQuery, response.status, bytes.byteLength, bytesOut, init.keys);
      return { status: response.status, headers: response.headers, bytes };
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onOuterAbort);
    }
  }

  private record(method: string, pathAndQuery: string, status: number, bytesIn: number, bytesOut: number, keys?: number): void {
    this.options.onRequest?.({ method, path: pathAndQuery, status, bytesIn, bytesOut, ...(keys !== undefined ? { keys } : {}) });
  }

  private async readLimited(
    response: Response,
    limit: number,
    controller: AbortController,
    method: string,
    pathAndQuery: string,
    bytesOut: number,
    keys?: number,
  ): Promise<Uint8Array> {
    const outcome = await readBodyLimited(response.body, limit);
    if (outcome.ok) return outcome.bytes;
    if (outcome.reason === 'aborted') throw this.networkError(outcome.error, controller.signal);
    // It stopped reading; drop the connection too: the rest is never pulled into memory.
    controller.abort(new TeamClientError('too-large', 'too large'));
    this.record(method, pathAndQuery, response.status, outcome.received, bytesOut, keys);
    throw new TeamClientError(
      'too-large',
      `The sync server sent more than ${mb(limit)}, the most Memdir reads in one answer; it stopped reading and wrote nothing.`,
      response.status,
    );
  }

  private networkError(error: unknown, signal: AbortSignal): TeamClientError {
    if (error instanceof TeamClientError) return error;
    if (signal.aborted && signal.reason instanceof TeamClientError) {
      const reason = signal.reason;
      // A timeout after connecting: the request may have been handled.
      return reason.code === 'timeout' ? new TeamClientError('timeout', reason.message, null, null, true) : reason;
    }
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const code = cause?.code ?? (error as { code?: string }).code;
    const said = code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
    const words = failureWords(error);
    // These come after the server was reached (a socket closed mid-request, an answer cut off):
    // it may have acted on the request. Anything else never got there.
    if ((code && SENT.has(code)) || said === 'terminated')
      return new TeamClientError('network', `The connection to the sync server at ${this.base} was lost (${words}).`, null, null, true);
    return new TeamClientError('network', `Cannot reach the sync server at ${this.base}: ${words}.`);
  }

  /**
   * The one sentence for an address that is not a Memdir team server (a wrong URL: any web
   * server answers 404 or a page): said as such, never as "no team" or an empty team.
   */
  private notATeamServer(
    detail: string,
    status: number | null,
    code: 'bad-response' | 'unavailable' = 'bad-response',
    retryAfterSeconds: number | null = null,
  ): TeamClientError {
    return new TeamClientError(
      code,
      `${this.base} does not answer as a Memdir team server (${detail}): check the address. Memdir pulled, pushed and stored nothing.`,
      status,
      retryAfterSeconds,
    );
  }

  private parseJson<T>(bytes: Uint8Array, schema: z.ZodType<T>, what: string, precheck?: (value: unknown) => void): T {
    let value: unknown;
    try {
      const text = strictUtf8(bytes);
      if (text === null) throw new Error('not UTF-8');
      value = JSON.parse(text);
    } catch {
      // Every answer of a Memdir server is JSON: anything else (a web page) is another server.
      const page = /^\s*</.test(Buffer.from(bytes.subarray(0, 512)).toString('utf8'));
      throw this.notATeamServer(`its ${what} is not valid UTF-8 JSON${page ? ' but a web page' : ''}`, 200);
    }
    precheck?.(value);
    const parsed = schema.safeParse(value);
    if (!parsed.success)
      throw new TeamClientError(
        'bad-response',
        `The sync server's ${what} does not follow the protocol (${firstIssueSentence(parsed.error.issues)}); nothing was written.`,
      );
    return parsed.data;
  }

  /**
   * A refusal in the protocol's form (null for anything else), its own words — `message`, each
   * key's `reason` — with every secret in them masked: this is where the server's words come in,
   * and a server may echo the token it was sent or a secret-bearing file name into every sync
   * error, alert and log that quotes them. Keys stay as sent (the push matches them to its batch;
   * they are masked where shown, delta.ts `shownKey`).
   */
  private async errorBody(bytes: Uint8Array): Promise<ErrorResponse | null> {
    let parsed;
    try {
      const text = strictUtf8(bytes);
      if (text === null) return null;
      parsed = errorResponseSchema.safeParse(JSON.parse(text));
    } catch {
      return null;
    }
    if (!parsed.success) return null;
    const error = parsed.data;
    error.message = await maskSecretsIn(error.message);
    if (error.keys) error.keys = await Promise.all(error.keys.map(async (k) => ({ ...k, reason: await maskSecretsIn(k.reason) })));
    return error;
  }

  /**
   * A failed answer as a TeamClientError with the sentence that fits. A Memdir server's every
   * refusal carries the protocol's error body; one without it — a 401 or 503 of a proxy, any other
   * web server's 404 — is named as an address that does not answer as a Memdir team server, never
   * as a refused token or a Memdir server unavailable for a moment. A gateway's 429/502/503/504
   * stays transient (the scheduler retries, no alert): the server behind it may be restarting.
   */
  private async failure(status: number, headers: Headers, bytes: Uint8Array): Promise<TeamClientError> {
    const error = await this.errorBody(bytes);
    const retry = Number(headers.get('retry-after') ?? NaN);
    const retryAfter = Number.isFinite(retry) && retry >= 0 ? Math.min(retry, 3600) : null;
    if (!error) {
      const passing = TRANSIENT_STATUSES.has(status);
      // A gateway answers so while the Memdir server behind it restarts: said, as the sync retries it.
      const detail = `it answered ${status} with no Memdir error${passing ? '; a proxy in front of a restarting server answers so too' : ''}`;
      return this.notATeamServer(detail, status, passing ? 'unavailable' : 'bad-response', passing ? retryAfter : null);
    }
    const said = ` (${error.message.slice(0, 300)})`;
    // An expired token needs what a revoked one needs — a new one from the admin — so it shares the code.
    if (status === 401 && error.error === 'token-expired') {
      const on = /^\d{4}-\d{2}-\d{2}/.exec(error.expiredAt ?? '')?.[0] ?? 'an earlier day';
      const whose = this.options.scope === 'personal' ? 'your personal space' : `team ${this.options.team}`;
      return new TeamClientError('revoked', `The token for ${whose} expired on ${on}; ask your admin for a new one and connect again.`, status);
    }
    if (status === 401 && error.error === 'token-revoked')
      return new TeamClientError('revoked', 'The sync server says this token was revoked; ask your team admin for a new one and connect again.', status);
    if (status === 401)
      return new TeamClientError('unauthorized', `The sync server refused the token${said}. Check it, or ask your team admin for a new one.`, status);
    if (status === 404) {
      if (this.options.scope === 'personal')
        return new TeamClientError(
          'not-found',
          'The sync server has no personal space for this token: it is a team token, or the server does not know personal spaces (update it).',
          status,
        );
      return new TeamClientError(
        'not-found',
        `The sync server has no team "${this.options.team}" for this token: the team name is wrong, or the token belongs to another team.`,
        status,
      );
    }
    if (status === 429)
      return new TeamClientError(
        'rate-limited',
        `The sync server is rate-limiting this token; the next try waits ${retryAfter ?? 5} s.`,
        status,
        retryAfter ?? 5,
      );
    if (status === 503) return new TeamClientError('unavailable', `The sync server is unavailable for a moment${said}.`, status, retryAfter);
    return new TeamClientError('server', `The sync server answered ${status}${said}.`, status);
  }

  /**
   * The ETag an answer carries (header first, else body), checked: it is stored and sent back
   * in If-None-Match and If-Match, so one with CR/LF or in any other form would be replayed
   * into every later request (issue 15, poisoned ETag). Refused, never stored.
   */
  private etagOf(headers: Headers, body: { etag: string } | undefined, what: string, after = 'nothing was written'): string {
    const etag = headers.get('etag') ?? body?.etag;
    if (!etag) throw new TeamClientError('bad-response', 'The sync server sent no ETag; it does not look like a Memdir sync server.');
    for (const tag of [etag, body?.etag]) {
      if (typeof tag === 'string' && !isProtocolEtag(tag)) {
        throw new TeamClientError(
          'bad-response',
          // Not quoted: the server's bytes would be kept with the sync's last error and shown (issue 15: never stored).
          `The sync server sent an invalid ETag with its ${what}${/[\r\n]/.test(tag) ? ' (it holds a line break)' : ''}; Memdir did not store it and ${after}.`,
        );
      }
    }
    return etag;
  }

  /** A pull answer with more entries than a team may hold is refused whole (nothing of it is looked at, written or stored). */
  private checkEntryCount(value: unknown): void {
    const entries = (value as { entries?: unknown } | null)?.entries;
    if (typeof entries !== 'object' || entries === null) return;
    const limit = this.options.maxEntries ?? TEAM_MAX_ENTRIES;
    let count = 0;
    for (const key in entries) if (Object.hasOwn(entries, key)) count++;
    if (count > limit) {
      throw new TeamClientError(
        'too-large',
        `The sync server sent ${count.toLocaleString('en')} entries, more than the ${limit.toLocaleString('en')} a team may hold; Memdir took none of them and wrote nothing.`,
      );
    }
  }

  /** Who the token belongs to (GET /v1/me): connect checks the team (or the personal scope) with it. */
  async me(opts: { signal?: AbortSignal } = {}): Promise<MeResponse> {
    const r = await this.request('GET', '/v1/me', { limit: ERROR_BODY_LIMIT, signal: opts.signal });
    // /v1/me is there for every token on a Memdir server's own address, whatever its team: a 404
    // in the protocol's form means a server reached at a path it does not serve (`…/v1`, say),
    // never a wrong team — the user is sent to the address, not to the team name or the token.
    if (r.status === 404 && (await this.errorBody(r.bytes)))
      throw new TeamClientError(
        'bad-response',
        `${this.base} answers as a Memdir sync server but serves nothing at that path: check the address (the server's own, with no path after it, e.g. ${new URL(this.base).origin}). Memdir pulled, pushed and stored nothing.`,
        404,
      );
    if (r.status !== 200) throw await this.failure(r.status, r.headers, r.bytes);
    return this.parseJson(r.bytes, meResponseSchema, 'answer to /v1/me');
  }

  /** The key record of this token's personal space (null: none set yet). */
  async personalKey(opts: { signal?: AbortSignal } = {}): Promise<string | null> {
    const r = await this.request('GET', '/v1/personal/key', { limit: ERROR_BODY_LIMIT, signal: opts.signal });
    if (r.status !== 200) throw await this.failure(r.status, r.headers, r.bytes);
    return this.parseJson(r.bytes, keyRecordResponseSchema, 'key record').keyRecord;
  }

  /** Set the personal space's key record once: the stored record back, or `mismatch` with the one already there. */
  async setPersonalKey(
    record: string,
    opts: { signal?: AbortSignal } = {},
  ): Promise<{ ok: true; body: KeyRecordResponse } | { ok: false; reason: 'mismatch'; keyRecord: string }> {
    const r = await this.request('PUT', '/v1/personal/key', { body: JSON.stringify({ keyRecord: record }), limit: ERROR_BODY_LIMIT, signal: opts.signal });
    if (r.status === 200) return { ok: true, body: this.parseJson(r.bytes, keyRecordResponseSchema, 'key record') };
    const error = r.status === 409 ? await this.errorBody(r.bytes) : null;
    if (error?.error === 'key-mismatch' && error.keyRecord !== undefined) return { ok: false, reason: 'mismatch', keyRecord: error.keyRecord };
    throw await this.failure(r.status, r.headers, r.bytes);
  }

  /** GET entries: all, or those newer than `since`; 304 when `ifNoneMatch` is current. */
  async entries(opts: { ifNoneMatch?: string | null; since?: string | null; signal?: AbortSignal } = {}): Promise<Conditional<EntriesResponse>> {
    const query = opts.since ? `?since=${encodeURIComponent(opts.since)}` : '';
    const r = await this.request('GET', `${this.teamPath('entries')}${query}`, {
      headers: opts.ifNoneMatch ? { 'if-none-match': opts.ifNoneMatch } : {},
      signal: opts.signal,
    });
    if (r.status === 304)
      return { status: 304, etag: r.headers.has('etag') ? this.etagOf(r.headers, undefined, '"not modified" answer') : (opts.ifNoneMatch ?? '') };
    if (r.status !== 200) throw await this.failure(r.status, r.headers, r.bytes);
    const body = this.parseJson(r.bytes, entriesResponseSchema, 'list of entries', (value) => this.checkEntryCount(value));
    return { status: 200, etag: this.etagOf(r.headers, body, 'list of entries'), body };
  }

  /** GET checksums (sha256 per key) with the current ETag. */
  async checksums(opts: { ifNoneMatch?: string | null; signal?: AbortSignal } = {}): Promise<Conditional<ChecksumsResponse>> {
    const r = await this.request('GET', this.teamPath('checksums'), {
      headers: opts.ifNoneMatch ? { 'if-none-match': opts.ifNoneMatch } : {},
      signal: opts.signal,
    });
    if (r.status === 304)
      return { status: 304, etag: r.headers.has('etag') ? this.etagOf(r.headers, undefined, '"not modified" answer') : (opts.ifNoneMatch ?? '') };
    if (r.status !== 200) throw await this.failure(r.status, r.headers, r.bytes);
    const body = this.parseJson(r.bytes, checksumsResponseSchema, 'list of checksums');
    return { status: 200, etag: this.etagOf(r.headers, body, 'list of checksums'), body };
  }

  /**
   * Protocol 2: commit `entries` (per key the content and the hash of the server version it is
   * based on) under the client-chosen `pushId`. Refusals the engine acts on (400, 409, 413) come
   * back as values, and so does 404 (`unsupported`: a server that only speaks protocol 1 — or a
   * team this token cannot see, which the caller tells apart with `me`). A connection lost after
   * the request was sent rejects with `network` or `timeout` and `sent: true`: the push may have
   * been saved.
   */
  async commit(pushId: string, entries: Record<string, { content: string; base: string | null }>, opts: { signal?: AbortSignal } = {}): Promise<CommitOutcome> {
    const keys = Object.keys(entries).length;
    const r = await this.request('PUT', this.teamPath('entries', 2), {
      body: JSON.stringify({ pushId, entries }),
      limit: ERROR_BODY_LIMIT + 256 * keys,
      keys,
      signal: opts.signal,
    });
    if (r.status === 200) {
      const body = this.parseJson(r.bytes, commitResponseSchema, 'answer to the push');
      this.etagOf(new Headers(), body, 'answer to the push', 'the push may have been saved: the next sync confirms it');
      if (body.pushId !== pushId)
        throw new TeamClientError('bad-response', 'The sync server answered the push with the result of another push; the next sync asks again.');
      return { ok: true, body };
    }
    if ([400, 404, 405, 409, 413].includes(r.status)) {
      const error = await this.errorBody(r.bytes);
      if (!error && (r.status === 404 || r.status === 405)) throw await this.failure(r.status, r.headers, r.bytes);
      if (!error)
        throw new TeamClientError('bad-response', `The sync server refused the push (${r.status}) without saying why in the protocol's form.`, r.status);
      return { ok: false, status: r.status, error };
    }
    throw await this.failure(r.status, r.headers, r.bytes);
  }

  /**
   * PUT a delta based on `ifMatch`. Refusals the engine can act on (412 stale, 400 invalid-key,
   * 409 case-conflict, 413 limits, 428) come back as values; anything else throws.
   */
  async put(ifMatch: string, entries: Record<string, string>, opts: { signal?: AbortSignal } = {}): Promise<PutOutcome> {
    const keys = Object.keys(entries).length;
    const r = await this.request('PUT', this.teamPath('entries'), {
      headers: { 'if-match': ifMatch },
      body: JSON.stringify({ entries }),
      limit: ERROR_BODY_LIMIT,
      keys,
      signal: opts.signal,
    });
    if (r.status === 200) {
      const body = this.parseJson(r.bytes, putResponseSchema, 'answer to the push');
      // Only the body's ETag is kept from a push answer.
      this.etagOf(new Headers(), body, 'answer to the push', 'the push may have been saved: the next sync confirms it');
      return { ok: true, body };
    }
    if ([400, 409, 412, 413, 428].includes(r.status)) {
      const error = await this.errorBody(r.bytes);
      if (!error)
        throw new TeamClientError('bad-response', `The sync server refused the push (${r.status}) without saying why in the protocol's form.`, r.status);
      if (r.status === 412 && !error.etag) error.etag = r.headers.get('etag') ?? undefined;
      if (error.etag !== undefined && !isProtocolEtag(error.etag)) delete error.etag;
      return { ok: false, status: r.status, error };
    }
    throw await this.failure(r.status, r.headers, r.bytes);
  }
}
