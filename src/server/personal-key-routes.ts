/**
 * The personal space's key record (issue 18, see src/shared/protocol/sync.ts): opaque to the
 * server, set once by the first machine; a personal token only, a team token gets 404.
 */
import type { Hono } from 'hono';
import { keyRecordRequestSchema } from '../shared/protocol/sync.js';
import { type AppEnv, fail, methodNotAllowed, notFound } from './http.js';
import { LONE_SURROGATE, readJsonBody } from './push-body.js';
import type { ServerLimits } from './limits.js';
import type { TeamStore } from './store.js';

const ROUTE_PERSONAL_KEY = '/v1/personal/key';

/** Add GET and PUT /v1/personal/key to `app`. */
export function addPersonalKeyRoutes(app: Hono<AppEnv>, options: { store: TeamStore; limits: ServerLimits }): void {
  const { store, limits } = options;
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
    const parsed = await readJsonBody(c, limits);
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
  app.on(['POST', 'DELETE', 'PATCH'], ROUTE_PERSONAL_KEY, (c) => (c.get('auth').scope === 'personal' ? methodNotAllowed(c, 'GET, PUT') : notFound(c)));
}
