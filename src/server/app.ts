/**
 * The team sync HTTP API (R-SYNC, R-SYNC-SECURITY) as a Hono app: routes and shapes in
 * src/shared/protocol/sync.ts. Testable without a port (`app.request()`); `startServer` puts it on one.
 *
 * Security choices:
 *   - a token is bound to one team; a request for any other team — existing or not — gets
 *     the very same 404 as an unknown path, and no other team is ever looked up;
 *   - a personal token (issue 18) reaches only its own user's projects under /v1/personal and
 *     /v2/personal, a team token never does, and neither reaches the other's routes (404);
 *   - every key passes `sanitizePathKey`; one bad key fails the whole PUT, nothing written;
 *   - bodies are refused on Content-Length before reading and counted while reading;
 *   - If-Match is required on PUT (`*` is not accepted: a write must name the version it
 *     is based on), so a stale client can never overwrite a newer push (412).
 */
import { createHash, randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import type { Context } from 'hono';
import { Hono } from 'hono';
import { matchedRoutes } from 'hono/route';
import { foldPathKey, sanitizePathKey } from '../shared/path-key.js';
import { utf8Length } from '../shared/utf8.js';
import { quoteName } from '../shared/visible-text.js';
import { isTeamName } from '../shared/protocol/team-name.js';
import { type ServerLimits, resolveLimits } from './limits.js';
import { type Log, silentLog } from './log.js';
import {
  type CommitResponse,
  type ErrorCode,
  type ErrorResponse,
  PERSONAL_PROJECT_PATTERN,
  PROTOCOLS,
  commitRequestSchema,
  formatEtag,
  keyRecordRequestSchema,
  parseEtag,
  parseEtagList,
} from '../shared/protocol/sync.js';
import { RateLimiter } from './rate-limit.js';
import { readBodyLimited } from '../shared/protocol/read-body.js';
import { type EntryWrite, type PutOutcome, type TeamState, type TeamStore, type TokenScope } from './store.js';
import { parseToken, tokenMatches } from './tokens.js';

export interface AppOptions {
  store: TeamStore;
  limits?: Partial<ServerLimits>;
  log?: Log;
  now?: () => Date;
  /**
   * Behind a load balancer every connection comes from the balancer: take the client address
   * for the failed-login limit from X-Forwarded-For instead — its LAST entry, the one the proxy
   * in front of this server appended (nginx `$proxy_add_x_forwarded_for`, HAProxy `option
   * forwardfor`). Everything before it is whatever the client wrote, so it is never used: a
   * client cannot pick its own address. Set this only with exactly one proxy you run in front.
   */
  trustProxy?: boolean;
}

interface Auth {
  /** The team, or for a personal token its space (`~<user>`). */
  team: string;
  member: string;
  tokenId: string;
  scope: TokenScope;
}

type Env = {
  Variables: { auth: Auth; bytesIn: number };
  Bindings: { incoming?: { socket?: { remoteAddress?: string } } };
};

const ROUTE_ENTRIES = '/v1/teams/:team/entries';
const ROUTE_CHECKSUMS = '/v1/teams/:team/checksums';
const ROUTE_ENTRIES_V2 = '/v2/teams/:team/entries';
const ROUTE_PERSONAL_KEY = '/v1/personal/key';
const ROUTE_PERSONAL_ENTRIES = '/v1/personal/projects/:project/entries';
const ROUTE_PERSONAL_CHECKSUMS = '/v1/personal/projects/:project/checksums';
const ROUTE_PERSONAL_ENTRIES_V2 = '/v2/personal/projects/:project/entries';
const NOT_FOUND: ErrorResponse = { error: 'not-found', message: 'Not found.' };
// Errors that mean "the database is away for a moment", not "the server is broken".
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', '57P01', '57P02', '57P03', '53300', 'SQLITE_BUSY']);
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The space a request reads or writes: its row name in the store and the name its answers carry. */
interface Space {
  name: string;
  label: string;
}

function fail(
  c: Context<Env>,
  status: number,
  error: ErrorCode,
  message: string,
  extra: Partial<ErrorResponse> = {},
  headers: Record<string, string> = {},
): Response {
  const body: ErrorResponse = { error, message, ...extra };
  return c.newResponse(JSON.stringify(body), status as never, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', ...headers });
}

function notFound(c: Context<Env>): Response {
  return fail(c, 404, NOT_FOUND.error, NOT_FOUND.message);
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Weak comparison (If-None-Match): any listed tag, weak or strong, equal to the current one. */
function noneMatch(header: string, etag: string): boolean {
  return parseEtagList(header).some((t) => t.tag === '*' || t.tag === etag);
}

function conditionalHeaders(etag: string): Record<string, string> {
  return { ETag: etag, 'Cache-Control': 'private, no-cache', Vary: 'Authorization' };
}

/** Build the sync API over `store`. */
export function createApp(options: AppOptions): Hono<Env> {
  const { store } = options;
  const limits = resolveLimits(options.limits);
  const log = options.log ?? silentLog;
  const now = options.now ?? (() => new Date());
  const perToken = new RateLimiter(limits.rateLimit);
  const authFailures = new RateLimiter(limits.authFailureLimit);
  const app = new Hono<Env>();

  // One log line per request; the route is the template, never the raw URL (it has the team).
  app.use('*', async (c, next) => {
    const start = performance.now();
    await next();
    const auth = c.get('auth');
    // The handler's template even when a middleware answered first (401, 429); `use` routes are 'ALL'.
    const route =
      matchedRoutes(c)
        .filter((r) => r.method !== 'ALL')
        .at(-1)?.path ?? '(unmatched)';
    // The URL is the client's to fill: a team is logged only when it is a well-formed name.
    const team = /^\/v1\/teams\/([^/]+)\//.exec(c.req.path)?.[1];
    log({
      level: c.res.status >= 500 ? 'error' : 'info',
      msg: 'request',
      method: c.req.method,
      route,
      team: team !== undefined && isTeamName(team) ? team : null,
      member: auth?.member ?? null,
      status: c.res.status,
      ms: Math.round((performance.now() - start) * 10) / 10,
      bytesIn: c.get('bytesIn') ?? 0,
    });
  });

  app.use('*', async (c, next) => {
    await next();
    c.res.headers.set('X-Content-Type-Options', 'nosniff');
  });

  app.onError((error, c) => {
    const code = (error as { code?: string }).code;
    if (code && UNAVAILABLE_CODES.has(code)) {
      log({ level: 'error', msg: 'store unavailable', code });
      return fail(c, 503, 'unavailable', 'The team store is unavailable; try again shortly.', {}, { 'Retry-After': '5' });
    }
    log({ level: 'error', msg: 'internal error', error: error instanceof Error ? `${error.name}: ${error.message}`.slice(0, 500) : 'unknown' });
    return fail(c, 500, 'internal', 'The server failed to handle this request; try again.');
  });

  app.notFound((c) => notFound(c));

  app.get('/healthz', async (c) => {
    try {
      await store.ping();
      return c.json({ ok: true, store: store.kind }, 200, { 'Cache-Control': 'no-store' });
    } catch {
      return c.json({ ok: false, store: store.kind }, 503, { 'Cache-Control': 'no-store' });
    }
  });

  /** The client's address for the failed-login limit (see AppOptions.trustProxy). */
  const clientAddress = (c: Context<Env>): string => {
    const socket = c.env?.incoming?.socket?.remoteAddress ?? 'local';
    if (!options.trustProxy) return socket;
    // Node joins repeated X-Forwarded-For headers with ", ": the last entry is still the proxy's.
    const appended = c.req.header('x-forwarded-for')?.split(',').at(-1)?.trim() ?? '';
    return isIP(appended) ? appended : socket;
  };

  // Authentication for everything under /v1 and /v2.
  const authenticate = async (c: Context<Env>, next: () => Promise<void>): Promise<Response | void> => {
    const address = clientAddress(c);
    const header = c.req.header('authorization') ?? '';
    const bearer = /^Bearer +(\S{1,200})$/i.exec(header)?.[1];
    const unauthorized = (): Response =>
      fail(
        c,
        401,
        'unauthorized',
        'Missing or invalid token: send "Authorization: Bearer <token>" with a token from `memdir server admin issue-token`.',
        {},
        {
          'WWW-Authenticate': 'Bearer realm="memdir"',
        },
      );
    if (!bearer) return unauthorized();
    const parsed = parseToken(bearer);
    if (!parsed) return unauthorized();
    // Every well-formed token is checked (one lookup by primary key), whatever its address did
    // before: failed logins from an address must never lock out a valid token from it — a
    // colleague behind the same NAT, or the same machine (issue 15). Failures are counted per
    // address; past the limit a failing request gets 429 with Retry-After instead of 401, so
    // a client guessing tokens is told to back off and learns nothing more.
    const stored = await store.findToken(parsed.id);
    if (!stored || !tokenMatches(bearer, stored.hash)) {
      const counted = authFailures.take(address);
      if (!counted.ok)
        return fail(c, 429, 'rate-limited', 'Too many failed authentications; wait and retry.', {}, { 'Retry-After': String(counted.retryAfterSeconds) });
      return unauthorized();
    }
    if (stored.revokedAt)
      return fail(
        c,
        401,
        'token-revoked',
        'This token was revoked; ask your team admin for a new one.',
        {},
        { 'WWW-Authenticate': 'Bearer realm="memdir", error="invalid_token"' },
      );
    c.set('auth', { team: stored.team, member: stored.member, tokenId: stored.id, scope: stored.scope });
    const allowed = perToken.take(stored.id);
    if (!allowed.ok) {
      return fail(
        c,
        429,
        'rate-limited',
        `Too many requests; retry in ${allowed.retryAfterSeconds} s.`,
        {},
        { 'Retry-After': String(allowed.retryAfterSeconds) },
      );
    }
    return next();
  };
  app.use('/v1/*', authenticate);
  app.use('/v2/*', authenticate);

  /** A push body, read with its limits and parsed as JSON, or the refusal to answer with. */
  const readJsonBody = async (c: Context<Env>): Promise<unknown> => {
    const type = c.req.header('content-type') ?? '';
    if (!/^application\/json\s*(;|$)/i.test(type)) return fail(c, 415, 'unsupported-media-type', 'Send the delta as Content-Type: application/json.');
    const encoding = c.req.header('content-encoding');
    if (encoding && encoding.toLowerCase() !== 'identity') return fail(c, 415, 'unsupported-media-type', 'Compressed request bodies are not accepted.');
    const tooLarge = (): Response =>
      fail(
        c,
        413,
        'body-too-large',
        `The request body is larger than ${limits.maxBodyBytes} bytes; push in smaller batches.`,
        { limit: limits.maxBodyBytes },
        { Connection: 'close' },
      );
    const declared = c.req.header('content-length');
    if (declared !== undefined && (!/^\d{1,16}$/.test(declared) || Number(declared) > limits.maxBodyBytes)) return tooLarge();
    const body = await readBodyLimited(c.req.raw.body, limits.maxBodyBytes);
    if (!body.ok) {
      if (body.reason === 'too-large') return tooLarge();
      return fail(c, 400, 'invalid-body', 'The request body was cut off.');
    }
    c.set('bytesIn', body.bytes.byteLength);
    let text: string;
    try {
      text = decoder.decode(body.bytes);
    } catch {
      return fail(c, 400, 'invalid-utf8', 'The request body is not valid UTF-8.');
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return fail(c, 400, 'invalid-json', 'The request body is not valid JSON.');
    }
  };

  /** Every key and content of a push checked (one bad key fails the whole push), or the refusal. */
  const checkWrites = (c: Context<Env>, pairs: [string, unknown][]): EntryWrite[] | Response => {
    if (pairs.length > limits.maxKeysPerRequest) {
      return fail(c, 413, 'too-many-keys', `A push may carry at most ${limits.maxKeysPerRequest} keys; split it.`, { limit: limits.maxKeysPerRequest });
    }
    const badKeys: { key: string; code: string; reason: string }[] = [];
    for (const [key] of pairs) {
      const check = sanitizePathKey(key);
      if (!check.ok) badKeys.push({ key: key.slice(0, 300), code: check.code, reason: check.reason });
      else if (utf8Length(key) > limits.maxKeyBytes)
        badKeys.push({ key, code: 'too-long', reason: `The key is longer than this server's ${limits.maxKeyBytes} bytes.` });
    }
    if (badKeys.length > 0) {
      return fail(c, 400, 'invalid-key', `${badKeys.length} key(s) refused; nothing was written.`, { keys: badKeys.slice(0, 50) });
    }
    const writes: EntryWrite[] = [];
    for (const [key, content] of pairs) {
      if (typeof content !== 'string') return fail(c, 400, 'invalid-body', `The content of ${quoteName(key)} is not a string.`, { key });
      const bytes = utf8Length(content);
      if (bytes > limits.maxEntryBytes) {
        return fail(c, 413, 'entry-too-large', `${quoteName(key)} is ${bytes} bytes; an entry may hold at most ${limits.maxEntryBytes}.`, {
          key,
          limit: limits.maxEntryBytes,
        });
      }
      if (LONE_SURROGATE.test(content)) return fail(c, 400, 'invalid-content', `${quoteName(key)} is not valid Unicode text (lone surrogate).`, { key });
      if (content.includes('\0')) return fail(c, 400, 'invalid-content', `${quoteName(key)} contains a null byte: team memory is text, not binary.`, { key });
      writes.push({ key, fold: foldPathKey(key), content, sha256: sha256(content), bytes });
    }
    return writes;
  };

  /** The answer to a store refusal shared by both protocols. */
  const refusal = (c: Context<Env>, outcome: Extract<PutOutcome, { reason: 'team-full' | 'case-conflict' | 'no-team' }>): Response => {
    switch (outcome.reason) {
      case 'no-team':
        return notFound(c);
      case 'team-full':
        return fail(c, 413, 'team-full', `The team memory may hold at most ${outcome.limit} ${outcome.unit === 'bytes' ? 'bytes of content' : 'entries'}.`, {
          limit: outcome.limit,
        });
      case 'case-conflict':
        return fail(
          c,
          409,
          'case-conflict',
          `${quoteName(outcome.key)} differs from ${quoteName(outcome.existing)} only in letter case; they would be one file on macOS and Windows.`,
          { key: outcome.key },
        );
    }
  };

  // The only team a token may see. Anything else is indistinguishable from a team that does not exist.
  const ownTeam = async (c: Context<Env>): Promise<Space | Response> => {
    const team = c.req.param('team');
    const auth = c.get('auth');
    return team !== undefined && auth.scope === 'team' && team === auth.team ? { name: team, label: team } : notFound(c);
  };

  // A project of the caller's personal space, opened (created on first use) by its id.
  const ownProject = async (c: Context<Env>): Promise<Space | Response> => {
    const project = c.req.param('project');
    const auth = c.get('auth');
    if (auth.scope !== 'personal' || project === undefined || !PERSONAL_PROJECT_PATTERN.test(project)) return notFound(c);
    const opened = await store.openPersonalProject(
      auth.team.slice(1),
      project,
      randomBytes(4).toString('hex'),
      now().toISOString(),
      limits.maxProjectsPerSpace,
    );
    if (opened.ok) return { name: opened.space, label: project };
    if (opened.reason === 'full') return fail(c, 409, 'space-full', `Your personal space may hold at most ${opened.limit} projects.`, { limit: opened.limit });
    return notFound(c);
  };

  /** A conditional read of a space: its state, or the answer instead (404, or 304 while the client's ETag is current). */
  const readable = async (c: Context<Env>, space: Space): Promise<TeamState | Response> => {
    const current = await store.teamState(space.name);
    if (!current) return notFound(c);
    const inm = c.req.header('if-none-match');
    if (inm && noneMatch(inm, formatEtag(current))) return c.body(null, 304, conditionalHeaders(formatEtag(current)));
    return current;
  };

  app.get('/v1/me', (c) => {
    const auth = c.get('auth');
    const personal = auth.scope === 'personal';
    // A personal space speaks protocol 2 only.
    const body = {
      team: auth.team,
      member: auth.member,
      tokenId: auth.tokenId,
      protocols: personal ? [2] : PROTOCOLS,
      scope: auth.scope,
      ...(personal ? { user: auth.team.slice(1) } : {}),
    };
    return c.json(body, 200, { 'Cache-Control': 'no-store' });
  });

  /** GET entries of a space (a team, or a project of a personal space): the same answer for both. */
  const getEntries = (spaceOf: (c: Context<Env>) => Promise<Space | Response>) => async (c: Context<Env>) => {
    const space = await spaceOf(c);
    if (space instanceof Response) return space;
    const current = await readable(c, space);
    if (current instanceof Response) return current;
    const since = c.req.query('since');
    const base = since === undefined ? null : parseEtag(since);
    const delta = base !== null && base.epoch === current.epoch && base.version <= current.version;
    const data = await store.readEntries(space.name, delta ? base.version : undefined);
    if (!data) return notFound(c);
    const etag = formatEtag(data.state);
    const entries = Object.fromEntries(
      data.entries
        .sort((a, b) => (a.key < b.key ? -1 : 1))
        .map((e) => [e.key, { content: e.content, sha256: e.sha256, updatedAt: e.updatedAt, updatedBy: e.updatedBy }]),
    );
    return c.json({ team: space.label, version: data.state.version, etag, full: !delta, entries }, 200, conditionalHeaders(etag));
  };

  /** GET checksums of a space. */
  const getChecksums = (spaceOf: (c: Context<Env>) => Promise<Space | Response>) => async (c: Context<Env>) => {
    const space = await spaceOf(c);
    if (space instanceof Response) return space;
    const current = await readable(c, space);
    if (current instanceof Response) return current;
    const data = await store.readChecksums(space.name);
    if (!data) return notFound(c);
    const etag = formatEtag(data.state);
    const checksums = Object.fromEntries(data.checksums.sort((a, b) => (a[0] < b[0] ? -1 : 1)));
    return c.json({ team: space.label, version: data.state.version, etag, checksums }, 200, conditionalHeaders(etag));
  };

  app.get(ROUTE_ENTRIES, getEntries(ownTeam));
  app.get(ROUTE_CHECKSUMS, getChecksums(ownTeam));
  app.get(ROUTE_PERSONAL_ENTRIES, getEntries(ownProject));
  app.get(ROUTE_PERSONAL_CHECKSUMS, getChecksums(ownProject));

  app.put(ROUTE_ENTRIES, async (c) => {
    const owned = await ownTeam(c);
    if (owned instanceof Response) return owned;
    const team = owned.name;
    const auth = c.get('auth');

    const ifMatch = c.req.header('if-match');
    if (!ifMatch || ifMatch.trim() === '' || ifMatch.trim() === '*') {
      return fail(
        c,
        428,
        'precondition-required',
        'A push must send If-Match with the ETag it is based on (from GET entries or checksums); "*" is not accepted.',
      );
    }
    const current = await store.teamState(team);
    if (!current) return notFound(c);
    const stale = (state: TeamState, why: string): Response =>
      fail(c, 412, 'stale', why, { etag: formatEtag(state), version: state.version }, { ETag: formatEtag(state) });
    // Strong comparison, and only our own tags: a weak or foreign tag can never match.
    const base = parseEtagList(ifMatch)
      .filter((t) => !t.weak)
      .map((t) => parseEtag(t.tag))
      .find((t) => t !== null && t.epoch === current.epoch && t.version === current.version);
    // Answer a stale push before reading its body: nothing it says could be applied anyway.
    if (!base) return stale(current, 'The team memory changed since your copy: fetch the checksums, recompute your delta and push again with the new ETag.');

    const parsed = await readJsonBody(c);
    if (parsed instanceof Response) return parsed;
    const shapeError = 'The body must be {"entries": {"<key>.md": "<content>", …}} with string contents.';
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return fail(c, 400, 'invalid-body', shapeError);
    const fields = Object.keys(parsed);
    const raw = (parsed as { entries?: unknown }).entries;
    if (fields.length !== 1 || fields[0] !== 'entries' || typeof raw !== 'object' || raw === null || Array.isArray(raw))
      return fail(c, 400, 'invalid-body', shapeError);
    // Own properties only (JSON.parse makes "__proto__" an ordinary own key, never a prototype).
    const writes = checkWrites(c, Object.entries(raw));
    if (writes instanceof Response) return writes;

    const outcome = await store.putEntries(team, {
      baseVersion: base.version,
      entries: writes,
      member: auth.member,
      at: now().toISOString(),
      maxEntriesPerTeam: limits.maxEntriesPerTeam,
      maxTeamBytes: limits.maxTeamBytes,
    });
    if (!outcome.ok) {
      if (outcome.reason === 'stale')
        return stale(outcome.state, 'Another push landed first: fetch the checksums, recompute your delta and push again with the new ETag.');
      return refusal(c, outcome);
    }
    const etag = formatEtag(outcome.state);
    return c.json({ version: outcome.state.version, etag, changed: outcome.changed, unchanged: outcome.unchanged }, 200, {
      ETag: etag,
      'Cache-Control': 'no-store',
    });
  });

  // Protocol 2: per-key bases, a client-chosen push id (see src/shared/protocol/sync.ts). The same for a team and a personal project.
  const putCommit = (spaceOf: (c: Context<Env>) => Promise<Space | Response>) => async (c: Context<Env>) => {
    const space = await spaceOf(c);
    if (space instanceof Response) return space;
    const team = space.name;
    const auth = c.get('auth');
    const parsed = await readJsonBody(c);
    if (parsed instanceof Response) return parsed;
    const shape = commitRequestSchema.safeParse(parsed);
    if (!shape.success) {
      return fail(
        c,
        400,
        'invalid-body',
        'The body must be {"pushId": "<16–64 letters, digits, - or _>", "entries": {"<key>.md": {"content": "<text>", "base": "<sha256>" | null}, …}}.',
      );
    }
    const writes = checkWrites(
      c,
      Object.entries(shape.data.entries).map(([key, e]) => [key, e.content]),
    );
    if (writes instanceof Response) return writes;
    const outcome = await store.commitEntries(team, {
      pushId: shape.data.pushId,
      entries: writes.map((w) => ({ ...w, base: shape.data.entries[w.key]!.base })),
      member: auth.member,
      at: now().toISOString(),
      maxEntriesPerTeam: limits.maxEntriesPerTeam,
      maxTeamBytes: limits.maxTeamBytes,
    });
    if (!outcome.ok) return refusal(c, outcome);
    const { result } = outcome;
    const etag = formatEtag({ epoch: result.epoch, version: result.version });
    const body: CommitResponse = {
      pushId: result.pushId,
      version: result.version,
      previousVersion: result.previousVersion,
      etag,
      committed: result.committed,
      unchanged: result.unchanged,
      conflicts: result.conflicts,
      replayed: outcome.replayed,
    };
    return c.json(body, 200, { ETag: etag, 'Cache-Control': 'no-store' });
  };
  app.put(ROUTE_ENTRIES_V2, putCommit(ownTeam));
  app.put(ROUTE_PERSONAL_ENTRIES_V2, putCommit(ownProject));

  // The personal space's key record (see src/shared/protocol/sync.ts): opaque to the server, set once.
  app.get(ROUTE_PERSONAL_KEY, async (c) => {
    const auth = c.get('auth');
    if (auth.scope !== 'personal') return notFound(c);
    const record = await store.personalKey(auth.team.slice(1));
    if (record === undefined) return notFound(c);
    return c.json({ keyRecord: record }, 200, { 'Cache-Control': 'no-store' });
  });
  app.put(ROUTE_PERSONAL_KEY, async (c) => {
    const auth = c.get('auth');
    if (auth.scope !== 'personal') return notFound(c);
    const parsed = await readJsonBody(c);
    if (parsed instanceof Response) return parsed;
    const shape = keyRecordRequestSchema.safeParse(parsed);
    if (!shape.success) return fail(c, 400, 'invalid-body', 'The body must be {"keyRecord": "<1 to 4096 characters>"}.');
    if (LONE_SURROGATE.test(shape.data.keyRecord) || shape.data.keyRecord.includes('\0'))
      return fail(c, 400, 'invalid-content', 'The key record is not valid text.');
    const outcome = await store.setPersonalKey(auth.team.slice(1), shape.data.keyRecord);
    if (outcome.ok) return c.json({ keyRecord: outcome.record, created: outcome.created }, 200, { 'Cache-Control': 'no-store' });
    if (outcome.reason === 'no-space') return notFound(c);
    return fail(c, 409, 'key-mismatch', 'This personal space is already encrypted with another key; its key record is not replaced.', {
      keyRecord: outcome.record,
    });
  });

  const methodNotAllowed = (allow: string) => (c: Context<Env>) =>
    fail(c, 405, 'method-not-allowed', `Allowed: ${allow}. There is no delete: retire a team memory by consolidating it.`, {}, { Allow: allow });
  // Only the caller's own space learns which methods exist (never opens a personal project).
  const isOwnTeam = (c: Context<Env>): boolean => c.get('auth').scope === 'team' && c.req.param('team') === c.get('auth').team;
  const isOwnProject = (c: Context<Env>): boolean => c.get('auth').scope === 'personal' && PERSONAL_PROJECT_PATTERN.test(c.req.param('project') ?? '');
  const refuseMethod = (own: (c: Context<Env>) => boolean, allow: string) => (c: Context<Env>) => (own(c) ? methodNotAllowed(allow)(c) : notFound(c));
  app.on(['POST', 'DELETE', 'PATCH'], ROUTE_ENTRIES, refuseMethod(isOwnTeam, 'GET, HEAD, PUT'));
  app.on(['GET', 'POST', 'DELETE', 'PATCH'], ROUTE_ENTRIES_V2, refuseMethod(isOwnTeam, 'PUT'));
  app.on(['POST', 'PUT', 'DELETE', 'PATCH'], ROUTE_CHECKSUMS, refuseMethod(isOwnTeam, 'GET, HEAD'));
  app.on(['POST', 'PUT', 'DELETE', 'PATCH'], ROUTE_PERSONAL_ENTRIES, refuseMethod(isOwnProject, 'GET, HEAD'));
  app.on(['GET', 'POST', 'DELETE', 'PATCH'], ROUTE_PERSONAL_ENTRIES_V2, refuseMethod(isOwnProject, 'PUT'));
  app.on(['POST', 'PUT', 'DELETE', 'PATCH'], ROUTE_PERSONAL_CHECKSUMS, refuseMethod(isOwnProject, 'GET, HEAD'));
  app.on(['POST', 'DELETE', 'PATCH'], ROUTE_PERSONAL_KEY, (c) => (c.get('auth').scope === 'personal' ? methodNotAllowed('GET, PUT')(c) : notFound(c)));

  return app;
}
