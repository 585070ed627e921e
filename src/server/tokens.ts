/**
 * Member tokens: `mdt_<id>_<secret>`. The id (16 hex) is public — it names the token in
 * `memdir server admin list` and `revoke-token` — and lets the server find the one row to
 * check; the secret is 32 random bytes. Only sha256 of the whole token is stored: with 256
 * bits of entropy a slow password hash would add nothing. The hash is compared in constant
 * time. The `mdt_` prefix also lets the secret scanner spot a token pasted into a memory.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const TOKEN = /^mdt_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

/** A fresh token and what the store keeps of it. */
export function generateToken(): { token: string; id: string; hash: string } {
  const id = randomBytes(8).toString('hex');
  const token = `mdt_${id}_${randomBytes(32).toString('base64url')}`;
  return { token, id, hash: hashToken(token) };
}

/** Hex sha256 of a token: the only form in which it is stored. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** The token id when `token` has the right shape, else null (no store lookup for junk). */
export function parseToken(token: string): { id: string } | null {
  const match = TOKEN.exec(token);
  return match ? { id: match[1]! } : null;
}

/** Whether `token` hashes to `storedHash`, in time independent of where they differ. */
export function tokenMatches(token: string, storedHash: string): boolean {
  const presented = Buffer.from(hashToken(token), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return stored.length === presented.length && timingSafeEqual(presented, stored);
}
