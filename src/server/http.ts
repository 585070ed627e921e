/**
 * What every route of the sync API shares: the request's context type, the error answer (a
 * stable code and a sentence, src/shared/protocol/sync.ts) and the conditional-GET headers.
 */
import type { Context } from 'hono';
import { type ErrorCode, type ErrorResponse, parseEtagList } from '../shared/protocol/sync.js';
import type { TokenScope } from './store.js';

/** Who a request is, set by the authentication middleware (auth.ts). */
export interface Auth {
  /** The team, or for a personal token its space (`~<user>`). */
  team: string;
  member: string;
  tokenId: string;
  scope: TokenScope;
}

/** The Hono environment of the sync API: the caller and the bytes its body held, and Node's socket. */
export type AppEnv = {
  Variables: { auth: Auth; bytesIn: number };
  Bindings: { incoming?: { socket?: { remoteAddress?: string } } };
};

const NOT_FOUND: ErrorResponse = { error: 'not-found', message: 'Not found.' };

/** An error answer: JSON `{error, message, …extra}`, never cached. */
export function fail(
  c: Context<AppEnv>,
  status: number,
  error: ErrorCode,
  message: string,
  extra: Partial<ErrorResponse> = {},
  headers: Record<string, string> = {},
): Response {
  const body: ErrorResponse = { error, message, ...extra };
  return c.newResponse(JSON.stringify(body), status as never, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', ...headers });
}

/** The one 404: an unknown path, another team's and a team that does not exist all get it. */
export function notFound(c: Context<AppEnv>): Response {
  return fail(c, 404, NOT_FOUND.error, NOT_FOUND.message);
}

/** Weak comparison (If-None-Match): any listed tag, weak or strong, equal to the current one. */
export function noneMatch(header: string, etag: string): boolean {
  return parseEtagList(header).some((t) => t.tag === '*' || t.tag === etag);
}

/** The headers of a conditional answer (200 or 304) carrying `etag`. */
export function conditionalHeaders(etag: string): Record<string, string> {
  return { ETag: etag, 'Cache-Control': 'private, no-cache', Vary: 'Authorization' };
}

/** 405 with the methods a route takes (there is no delete in this protocol). */
export function methodNotAllowed(c: Context<AppEnv>, allow: string): Response {
  return fail(c, 405, 'method-not-allowed', `Allowed: ${allow}. There is no delete: retire a team memory by consolidating it.`, {}, { Allow: allow });
}
