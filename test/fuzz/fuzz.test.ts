// A quick round of every fuzz target (test/fuzz/targets.ts); `npm run bench fuzz` runs 10,000+ of each.
import { describe, expect, it } from 'vitest';
import { FUZZ_TARGETS, runFuzzTarget, unclear } from './targets.js';

describe('parsers of outside data never crash, and every rejection is a clear sentence', () => {
  it.each(FUZZ_TARGETS.map((t) => [t.name, t] as const))('%s', async (_name, target) => {
    const report = await runFuzzTarget(target, 150, Date.now() % 100_000);
    expect(report.failure).toBeNull();
    expect(report.crashes).toBe(0);
    expect(report.cases).toBe(150);
    // The generators reach both sides of every parser.
    expect(report.accepted, 'accepted').toBeGreaterThan(0);
    expect(report.rejected, 'rejected').toBeGreaterThan(0);
  });

  it('tells a sentence from a dump', () => {
    expect(unclear('The hook input is not JSON.')).toBeNull();
    expect(unclear('[{"code":"invalid_type","path":["x"]}]')).not.toBeNull();
    expect(unclear('Error: boom\n    at foo (x.js:1:1)')).not.toBeNull();
    expect(unclear('value is [object Object]')).not.toBeNull();
    expect(unclear('')).not.toBeNull();
  });
});
