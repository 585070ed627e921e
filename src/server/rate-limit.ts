/**
 * A token bucket per key (a token id, or a client address for failed logins): `burst`
 * requests at once, refilled continuously at `perSecond`. In memory and per process: with
 * several servers behind a load balancer each enforces its own share, which is enough to stop
 * a runaway client; it is not a quota.
 */
export interface BucketConfig {
  burst: number;
  perSecond: number;
}

/** Buckets held at once: many source addresses (an IPv6 /64 has 2^64) cannot grow memory past it. */
const MAX_KEYS = 10_000;

interface Bucket {
  tokens: number;
  at: number;
}

export class RateLimiter {
  /** In order of last use (a used key moves to the end), so the idle ones are at the front. */
  private readonly buckets = new Map<string, Bucket>();
  /** The one bucket every key shares while MAX_KEYS others are busy: stricter, never looser. */
  private readonly overflow: Bucket;
  /** A bucket untouched this long has refilled completely, whatever it held. */
  private readonly fullAfterMs: number;

  constructor(
    private readonly config: BucketConfig,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.overflow = { tokens: config.burst, at: now() };
    this.fullAfterMs = (config.burst / config.perSecond) * 1000;
  }

  /** Buckets held (for tests: bounded by MAX_KEYS). */
  get size(): number {
    return this.buckets.size;
  }

  /** Spend one token: allowed, or the whole seconds until one is back (for Retry-After). */
  take(key: string): { ok: true } | { ok: false; retryAfterSeconds: number } {
    const t = this.now();
    this.forgetIdle(t);
    let bucket = this.buckets.get(key);
    if (bucket) this.buckets.delete(key);
    else if (this.buckets.size < MAX_KEYS) bucket = { tokens: this.config.burst, at: t };
    if (bucket) this.buckets.set(key, bucket);
    const spent = bucket ?? this.overflow;
    spent.tokens = Math.min(this.config.burst, spent.tokens + ((t - spent.at) / 1000) * this.config.perSecond);
    spent.at = t;
    if (spent.tokens < 1) return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - spent.tokens) / this.config.perSecond)) };
    spent.tokens -= 1;
    return { ok: true };
  }

  /**
   * Drop buckets from the idle end while they have refilled completely: a full bucket carries no
   * information, so the limit is never loosened. Each key is dropped once per use: O(1) amortized.
   */
  private forgetIdle(t: number): void {
    for (const [key, bucket] of this.buckets) {
      const full = t - bucket.at >= this.fullAfterMs || bucket.tokens + ((t - bucket.at) / 1000) * this.config.perSecond >= this.config.burst;
      if (!full) return;
      this.buckets.delete(key);
    }
  }
}
