/**
 * A token issued with `memdir server admin issue-token --expires 90d` stops working on that day:
 * a real server on loopback refuses it (401 token-expired) and the client says, in words, for
 * which team, since when, and what to do — not "refused the token".
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { createTeam, issueToken } from '../../server/admin.js';
import { startServer } from '../../server/server.js';
import { openSqliteStore } from '../../server/sqlite-store.js';
import { TeamClient } from './team-client.js';

const root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-token-expiry-')));
afterAll(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

it('an expired token gets "the token for team X expired on …; ask your admin for a new one"; one still valid is served', async () => {
  const store = openSqliteStore(path.join(root, 'team.sqlite'));
  await createTeam(store, 'platform');
  const expired = await issueToken(store, 'platform', 'ann', new Date('2026-01-02T09:00:00.000Z'), 90);
  const valid = await issueToken(store, 'platform', 'bob', new Date(), 90);
  expect(expired.info.expiresAt).toBe('2026-04-02T09:00:00.000Z');
  const server = await startServer({ store, port: 0 });
  try {
    const client = (token: string) => new TeamClient({ server: server.url, team: 'platform', token });
    await expect(client(expired.token).me()).rejects.toMatchObject({
      code: 'revoked',
      message: 'The token for team platform expired on 2026-04-02; ask your admin for a new one and connect again.',
    });
    await expect(client(valid.token).me()).resolves.toMatchObject({ team: 'platform', member: 'bob' });
  } finally {
    await server.close();
  }
});
