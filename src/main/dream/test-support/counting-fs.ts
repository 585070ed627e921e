/**
 * A DreamFs that forwards every call to the real file system and counts it, so a test can say
 * "this check made exactly one stat" about real disk work — not a mock: results and errors are
 * the real ones.
 */
import type { DreamFs } from '../dream-fs.js';
import { nodeDreamFs } from '../dream-fs.js';

/** The counting fs, its per-method counts, and the paths each call touched. */
export interface CountingFs {
  fs: DreamFs;
  counts: Record<string, number>;
  calls: { method: string; path: string }[];
  total(): number;
  reset(): void;
}

/** Wraps `base` (default: the real fs) with call counting. */
export function createCountingFs(base: DreamFs = nodeDreamFs): CountingFs {
  const counts: Record<string, number> = {};
  const calls: { method: string; path: string }[] = [];
  const wrapped = {} as Record<string, unknown>;
  for (const [method, fn] of Object.entries(base) as [string, (...args: unknown[]) => Promise<unknown>][]) {
    wrapped[method] = (...args: unknown[]) => {
      counts[method] = (counts[method] ?? 0) + 1;
      calls.push({ method, path: String(args[0]) });
      return fn(...args);
    };
  }
  return {
    fs: wrapped as unknown as DreamFs,
    counts,
    calls,
    total: () => calls.length,
    reset: () => {
      calls.length = 0;
      for (const key of Object.keys(counts)) delete counts[key];
    },
  };
}
