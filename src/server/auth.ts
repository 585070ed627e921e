/**
 * Authentication for everything under /v1 and /v2 (R-SYNC-SECURITY): a bearer token checked
 * against its stored hash, failed logins counted per client address, requests per token.
 */
import { isIP } from 'node:net';
import type { Context } from 'hono';
import { clientKey } from './client-address.js';
import { type AppEnv, fail } from './http.js';
import type { ServerLimits } from './limits.js';
import { RateLimiter } from './rate-limit.js';
import type { TeamStore } from './store.js';
import { parseToken, tokenMatches } from './tokens.js';

export interface AuthOptions {
  store: TeamStore;
  limits: ServerLimits;
  /** Take the client address from X-Forwarded-For's last entry (see AppOptions.trustProxy). */
  trustProxy?: boolean;
  /** The clock a token's expiry is judged by. */
  now: () => Date;
}

/** The authentication middleware: sets `auth` on the context, or answers 401 / 429 itself. */
export function authenticator(options: AuthOptions): (c: Context<AppEnv>, next: () => Promise<void>) => Promise<Response | void> {
  const { store, limits } = options;
  const perToken = new RateLimiter(limits.rateLimit);
  const authFailures = new RateLimiter(limits.authFailureLimit);

  /** The client's address for the failed-login limit (see AppOptions.trustProxy). */
  const clientAddress = (c: Context<AppEnv>): string => {
    const socket = c.env?.incoming?.socket?.remoteAddress ?? 'local';
    if (!options.trustProxy) return socket;
    // Node joins repeated X-Forwarded-For headers with ", ": the last entry is still the proxy's.
    const appended = c.req.header('x-forwarded-for')?.split(',').at(-1)?.trim() ?? '';
    return isIP(appended) ? appended : socket;
  };

  return async (c, next) => {
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
      const counted = authFailures.take(clientKey(address));
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
    if (stored.expiresAt !== null && Date.parse(stored.expiresAt) <= options.now().getTime())
      return fail(
        c,
        401,
        'token-expired',
        `This token expired on ${stored.expiresAt.slice(0, 10)}; ask your team admin for a new one.`,
        { expiredAt: stored.expiresAt },
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
}
