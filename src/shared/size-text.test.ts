import { describe, expect, it } from 'vitest';
import { formatCount } from './size-text.js';

describe('formatCount', () => {
  it('writes counts as en-US does, with thousands separators', () => {
    const en = new Intl.NumberFormat('en-US');
    const values = [0, -0, 1, 7, 12, 999, 1000, 1001, 20_000, 999_999, 1_000_000, 123_456_789, -1, -1234, -1_000_000, Number.MAX_SAFE_INTEGER];
    // Every length of number up to 15 digits, spread over its range.
    for (let i = 0; i < 2000; i++) values.push(((i * 2_654_435_761) % 10 ** ((i % 15) + 1)) * (i % 7 === 0 ? -1 : 1));
    for (const n of [...values, 1.5, 1234.5678, -0.25, 2 ** 60, Infinity, NaN]) expect(formatCount(n), String(n)).toBe(en.format(n));
  });
});
