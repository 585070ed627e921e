// The wait between two pushes the server refused as stale (412/428) is the policy's: growing, capped,
// jittered — a client that ignored the policy would hammer a busy server or keep the user waiting.
import { describe, expect, it } from 'vitest';
import { backoff } from './push.js';

describe('backoff between retried pushes', () => {
  it('waits half to all of baseMs·2^(attempt−1), never over maxMs', () => {
    const policy = { baseMs: 100, maxMs: 3_000 };
    for (let attempt = 1; attempt <= 8; attempt++) {
      const ceiling = Math.min(3_000, 100 * 2 ** (attempt - 1));
      for (let i = 0; i < 200; i++) {
        const wait = backoff(policy, attempt);
        expect(wait).toBeGreaterThanOrEqual(ceiling / 2);
        expect(wait).toBeLessThanOrEqual(ceiling);
      }
    }
  });

  it('follows the policy it is given, not a default: a test policy of 10–100 ms waits no more than 100 ms', () => {
    const waits = Array.from({ length: 500 }, (_, i) => backoff({ baseMs: 10, maxMs: 100 }, 1 + (i % 6)));
    expect(Math.max(...waits)).toBeLessThanOrEqual(100);
    expect(Math.min(...waits)).toBeGreaterThanOrEqual(5);
  });
});
