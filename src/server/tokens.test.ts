import { describe, expect, it } from 'vitest';
import { generateToken, hashToken, parseToken, tokenMatches } from './tokens.js';

describe('member tokens', () => {
  it('are high-entropy, carry a public id, and are stored only as sha256', () => {
    const a = generateToken();
    const b = generateToken();
    expect(a.token).toMatch(/^mdt_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    expect(a.token).not.toBe(b.token);
    expect(parseToken(a.token)).toEqual({ id: a.id });
    expect(a.hash).toBe(hashToken(a.token));
    expect(a.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('match only their own hash', () => {
    const a = generateToken();
    expect(tokenMatches(a.token, a.hash)).toBe(true);
    expect(tokenMatches(`${a.token.slice(0, -1)}${a.token.endsWith('A') ? 'B' : 'A'}`, a.hash)).toBe(false);
    expect(tokenMatches(a.token, 'not-hex')).toBe(false);
  });

  it('refuses junk before any lookup', () => {
    for (const junk of ['', 'mdt_', 'Bearer x', `mdt_${'g'.repeat(16)}_${'a'.repeat(43)}`, `mdt_${'0'.repeat(16)}_${'a'.repeat(44)}`])
      expect(parseToken(junk)).toBeNull();
  });
});
