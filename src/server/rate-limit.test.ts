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

  it('stays bounded under 100k distinct keys at once, and a key limited before the flood stays limited', () => {
    const now = 0; // the flood arrives in one instant: no bucket refills, so none can be dropped as idle
    const limiter = new RateLimiter({ burst: 2, perSecond: 1 }, () => now);
    expect([1, 2, 3].map(() => limiter.take('guesser').ok)).toEqual([true, true, false]);
    for (let i = 0; i < 100_000; i++) limiter.take(`2001:db8::${i.toString(16)}`);
    expect(limiter.size).toBeLessThanOrEqual(10_001);
    expect(limiter.take('guesser').ok).toBe(false);
    // Keys past the bound share one bucket: it is spent, so a newcomer is limited too — never freed.
    expect(limiter.take('newcomer').ok).toBe(false);
  });

  it('forgets buckets once they have refilled, so newcomers get their own again', () => {
    let now = 0;
    const limiter = new RateLimiter({ burst: 2, perSecond: 1 }, () => now);
    for (let i = 0; i < 20_000; i++) limiter.take(`a-${i}`);
    now = 2_001; // every bucket is full again: it carries no information
    expect([1, 2, 3].map(() => limiter.take('newcomer').ok)).toEqual([true, true, false]);
    expect(limiter.size).toBeLessThanOrEqual(2);
  });
});
