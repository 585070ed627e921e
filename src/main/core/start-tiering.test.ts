import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { START_INTERRUPT_BUDGET, V8_INTERRUPT_BUDGET } from './start-tiering.js';

describe('optimizing less while the host starts', () => {
  it('puts back the interrupt budget of the V8 this Node runs, not another version’s (a Node upgrade that changes it fails here)', () => {
    const options = execFileSync(process.execPath, ['--v8-options'], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
    const own = /--interrupt-budget=(\d+)/.exec(options.slice(options.indexOf('  --interrupt-budget ')));
    expect(own, 'node --v8-options names --interrupt-budget and its default').not.toBeNull();
    expect(V8_INTERRUPT_BUDGET).toBe(Number(own![1]));
    expect(START_INTERRUPT_BUDGET).toBeGreaterThan(V8_INTERRUPT_BUDGET);
  });
});
