import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { START_INTERRUPT_BUDGET, V8_INTERRUPT_BUDGET, V8_OF_BUDGET } from './start-tiering.js';

describe('optimizing less while the host starts', () => {
  it('puts back the interrupt budget of the V8 this Node runs, not another version’s (a Node upgrade that changes it fails here)', () => {
    const options = execFileSync(process.execPath, ['--v8-options'], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
    const own = /--interrupt-budget=(\d+)/.exec(options.slice(options.indexOf('  --interrupt-budget ')));
    expect(own, 'node --v8-options names --interrupt-budget and its default').not.toBeNull();
    expect(V8_INTERRUPT_BUDGET).toBe(Number(own![1]));
    expect(START_INTERRUPT_BUDGET).toBeGreaterThan(V8_INTERRUPT_BUDGET);
    // The budget is only changed under the V8 it was read from; this Node's must be that one, or the start goes untuned.
    expect(process.versions.v8.startsWith(`${V8_OF_BUDGET}.`), `V8 ${process.versions.v8} is the V8 ${V8_OF_BUDGET} the budget was read from`).toBe(true);
  });
});
