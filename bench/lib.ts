/**
 * Bench harness: every scenario measures itself against a baseline run in the same process
 * and moment (these machines are shared and noisy), so what counts is the ratio.
 */
export interface Ratio {
  /** measured / baseline (or another dimensionless figure, explained in `note`). */
  value: number;
  /** The target. */
  target: number;
  /** Whether lower or higher is better. */
  better: 'lower' | 'higher';
  note?: string;
}

export interface ScenarioResult {
  ratios: Record<string, Ratio>;
  /** Absolute figures behind the ratios (ms, MB, counts…). */
  figures: Record<string, number | string>;
}

export interface Scenario {
  name: string;
  description: string;
  run: (log: (line: string) => void) => Promise<ScenarioResult>;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** Time an async function in milliseconds. */
export async function time(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/**
 * Alternate baseline and subject `rounds` times (after one warm-up each) and return the
 * median of each, so drift in machine load hits both alike.
 */
export async function compare(rounds: number, baseline: () => Promise<unknown>, subject: () => Promise<unknown>): Promise<{ baselineMs: number; subjectMs: number; ratio: number }> {
  await baseline();
  await subject();
  const b: number[] = [];
  const s: number[] = [];
  for (let i = 0; i < rounds; i++) {
    b.push(await time(baseline));
    s.push(await time(subject));
  }
  const baselineMs = median(b);
  const subjectMs = median(s);
  return { baselineMs, subjectMs, ratio: subjectMs / baselineMs };
}

export function meets(r: Ratio): boolean {
  return r.better === 'lower' ? r.value <= r.target : r.value >= r.target;
}

export function round(n: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

/** Deterministic PRNG (mulberry32): small, seeded, good enough for generated bench data. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
