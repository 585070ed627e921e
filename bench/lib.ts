/**
 * Bench harness: every scenario measures itself against a floor run in the same process and
 * moment (these machines are shared and noisy), so what counts is the ratio. A floor is the
 * fastest plain way to do the same I/O: synchronous `readFileSync`/`lstatSync`/`readdirSync`
 * loops, a bare `split` + `JSON.parse` — never an async loop or a library.
 */
export interface Ratio {
  /** measured / floor (or another dimensionless figure, explained in `note`). */
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

/**
 * A bench scenario. Register it with one line in `scenarios/index.ts`; its targets travel with
 * its ratios, and the final table of `npm run bench` lists every one of them.
 */
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

/** Time a function in milliseconds. */
export async function time(fn: () => unknown): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

export interface Comparison {
  baselineMs: number;
  subjectMs: number;
  /**
   * The median of the per-round ratios, each round's subject over the floor timed right next to
   * it: on a shared machine, load that hits a round hits both of its halves.
   */
  ratio: number;
  /** The lowest and highest per-round ratio (subject ÷ the baseline timed next to it). */
  spread: [number, number];
  rounds: number;
  /**
   * The same ratio in CPU time (user + system) of this process: what the work costs, whatever
   * else the shared machine runs meanwhile. For the record beside the wall-clock ratio.
   */
  cpuRatio: number;
}

/** Wall-clock and CPU milliseconds of one call. */
async function measure(fn: () => unknown): Promise<{ wall: number; cpu: number }> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  await fn();
  const wall = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { wall, cpu: (used.user + used.system) / 1000 };
}

/** Collect garbage left by earlier work (`npm run bench` runs with --expose-gc), so no round pays for another's. */
export function settle(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/**
 * Alternate baseline and subject `rounds` times (after one warm-up each) and return the median
 * of each and of their per-round ratios, so drift in machine load hits both alike. Garbage is collected before each
 * timed call. `prepare` runs untimed before each subject round (to give it a fresh cache, say).
 */
export async function compare(rounds: number, baseline: () => unknown, subject: () => unknown, prepare?: () => unknown): Promise<Comparison> {
  await baseline();
  await prepare?.();
  await subject();
  const b: number[] = [];
  const s: number[] = [];
  const bc: number[] = [];
  const sc: number[] = [];
  const per: number[] = [];
  for (let i = 0; i < rounds; i++) {
    settle();
    const bt = await measure(baseline);
    await prepare?.();
    settle();
    const st = await measure(subject);
    b.push(bt.wall);
    s.push(st.wall);
    bc.push(bt.cpu);
    sc.push(st.cpu);
    per.push(st.wall / bt.wall);
  }
  const baselineMs = median(b);
  const subjectMs = median(s);
  const cpuPer = sc.map((c, i) => c / bc[i]!);
  return { baselineMs, subjectMs, ratio: median(per), spread: [Math.min(...per), Math.max(...per)], rounds, cpuRatio: median(cpuPer) };
}

/** `1.23 (1.1–1.4 over 9 rounds)`: a ratio with its spread, for logs and notes. */
export function spreadNote(c: Comparison): string {
  return `${c.ratio.toFixed(2)} (per round ${c.spread[0].toFixed(2)}–${c.spread[1].toFixed(2)} over ${c.rounds}; in CPU time ${c.cpuRatio.toFixed(2)}); ${c.subjectMs.toFixed(1)} ms vs floor ${c.baselineMs.toFixed(1)} ms`;
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
