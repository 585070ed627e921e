/**
 * The team sync HTTP API (R-SYNC, R-SYNC-SECURITY) as a Hono app: routes and shapes in
 * src/shared/protocol/sync.ts. Testable without a port (`app.request()`); `startServer` puts it on one.
 *
 * The rooms: authentication (auth.ts), the shared answers (http.ts), a push's body
 * (push-body.ts), the entries of a space (entries-routes.ts), the personal key
 * (personal-key-routes.ts). This file composes them, in order, with logging and errors.
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
import { Hono } from 'hono';
import { matchedRoutes } from 'hono/route';
import { PROTOCOLS } from '../shared/protocol/sync.js';
import { isTeamName } from '../shared/protocol/team-name.js';
import { authenticator } from './auth.js';
import { addEntriesRoutes } from './entries-routes.js';
import { type AppEnv, fail, notFound } from './http.js';
import { type ServerLimits, resolveLimits } from './limits.js';
import { type Log, silentLog } from './log.js';
import { addPersonalKeyRoutes } from './personal-key-routes.js';
import type { TeamStore } from './store.js';

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

// Errors that mean "the database is away for a moment", not "the server is broken".
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', '57P01', '57P02', '57P03', '53300', 'SQLITE_BUSY']);

/** Build the sync API over `store`. */
export function createApp(options: AppOptions): Hono<AppEnv> {
  const { store } = options;
  const limits = resolveLimits(options.limits);
  const log = options.log ?? silentLog;
  const now = options.now ?? (() => new Date());
  const app = new Hono<AppEnv>();

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
    const team = /^\/v[12]\/teams\/([^/]+)\//.exec(c.req.path)?.[1];
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

  // Anyone may ask, without a token: it says whether the store answers and nothing more (not
  // which database runs behind it — the operator knows, a stranger need not). No client reads more.
  app.get('/healthz', async (c) => {
    try {
      await store.ping();
      return c.json({ ok: true }, 200, { 'Cache-Control': 'no-store' });
    } catch {
      return c.json({ ok: false }, 503, { 'Cache-Control': 'no-store' });
    }
  });

  // Authentication for everything under /v1 and /v2.
  const authenticate = authenticator({ store, limits, trustProxy: options.trustProxy, now });
  app.use('/v1/*', authenticate);
  app.use('/v2/*', authenticate);

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

  addEntriesRoutes(app, { store, limits, now });
  addPersonalKeyRoutes(app, { store, limits });

  return app;
}
