import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { V8_INTERRUPT_BUDGET, V8_OF_BUDGET, budgetFlags } from './start-tiering.js';

const thisV8 = process.versions.v8.startsWith(`${V8_OF_BUDGET}.`);

describe('optimizing less while the host starts', () => {
  it('changes nothing under a V8 whose own budget it does not know (another Node), and puts back its own under the one it does', () => {
    expect(budgetFlags('12.4.254.21-node.33')).toBeNull();
    expect(budgetFlags('11.30.1.0')).toBeNull();
    const flags = budgetFlags('11.3.244.8-node.38');
    expect(flags?.started).toBe(`--interrupt-budget=${V8_INTERRUPT_BUDGET}`);
    expect(Number(/\d+$/.exec(flags!.start)![0])).toBeGreaterThan(V8_INTERRUPT_BUDGET);
  });

  // Under another V8 nothing is changed (above), so there is nothing to check against its options.
  it.skipIf(!thisV8)(
    `puts back the interrupt budget of the V8 ${V8_OF_BUDGET} this Node runs (skipped under another V8, where the budget is left alone)`,
    () => {
      const options = execFileSync(process.execPath, ['--v8-options'], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
      const own = /--interrupt-budget=(\d+)/.exec(options.slice(options.indexOf('  --interrupt-budget ')));
      expect(own, 'node --v8-options names --interrupt-budget and its default').not.toBeNull();
      expect(V8_INTERRUPT_BUDGET).toBe(Number(own![1]));
    },
  );
});
