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

/** Keep the map bounded: idle buckets that refilled completely carry no information. */
const PRUNE_AT = 10_000;

export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly config: BucketConfig,
    private readonly now: () => number = () => performance.now(),
  ) {}

  private refill(key: string): { tokens: number; at: number } {
    const t = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: this.config.burst, at: t };
    bucket.tokens = Math.min(this.config.burst, bucket.tokens + ((t - bucket.at) / 1000) * this.config.perSecond);
    bucket.at = t;
    return bucket;
  }

  /** Spend one token: allowed, or the whole seconds until one is back (for Retry-After). */
  take(key: string): { ok: true } | { ok: false; retryAfterSeconds: number } {
    const bucket = this.refill(key);
    if (bucket.tokens < 1) return { ok: false, retryAfterSeconds: this.wait(bucket) };
    bucket.tokens -= 1;
    if (!this.buckets.has(key)) {
      if (this.buckets.size >= PRUNE_AT) this.prune();
      this.buckets.set(key, bucket);
    }
    return { ok: true };
  }

  private wait(bucket: { tokens: number }): number {
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.config.perSecond));
  }

  private prune(): void {
    for (const key of [...this.buckets.keys()]) {
      if (this.refill(key).tokens >= this.config.burst) this.buckets.delete(key);
    }
  }
}
