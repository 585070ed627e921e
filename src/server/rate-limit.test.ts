import { describe, expect, it } from 'vitest';
import { RateLimiter } from './rate-limit.js';

describe('RateLimiter (token bucket)', () => {
  it('allows a burst, then refills at the configured rate, and says how long to wait', () => {
    let now = 0;
    const limiter = new RateLimiter({ burst: 3, perSecond: 2 }, () => now);
    expect([1, 2, 3, 4].map(() => limiter.take('a').ok)).toEqual([true, true, true, false]);
    expect(limiter.take('a')).toEqual({ ok: false, retryAfterSeconds: 1 });
    now = 500; // half a second: one token back
    expect(limiter.take('a').ok).toBe(true);
    expect(limiter.take('a').ok).toBe(false);
    now = 60_000; // refills to the burst, never beyond
    expect([1, 2, 3, 4].map(() => limiter.take('a').ok)).toEqual([true, true, true, false]);
  });

  it('keeps keys apart and reports a slow refill honestly', () => {
    const limiter = new RateLimiter({ burst: 1, perSecond: 0.1 }, () => 0);
    expect(limiter.take('a').ok).toBe(true);
    expect(limiter.take('a')).toEqual({ ok: false, retryAfterSeconds: 10 });
    expect(limiter.take('b').ok).toBe(true);
  });

  it('stays bounded under many distinct keys (idle full buckets are pruned)', () => {
    let now = 0;
    const limiter = new RateLimiter({ burst: 2, perSecond: 100 }, () => now);
    for (let i = 0; i < 25_000; i++) {
      now += 1;
      limiter.take(`ip-${i}`);
    }
    expect((limiter as unknown as { buckets: Map<string, unknown> }).buckets.size).toBeLessThanOrEqual(10_001);
  });
});
