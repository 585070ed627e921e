import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoTime, minuteUtc } from './iso-time.js';

describe('isoTime', () => {
  it('writes exactly what Date#toISOString writes, for any time', () => {
    fc.assert(
      fc.property(fc.integer({ min: -8.64e15, max: 8.64e15 }), (ms) => {
        expect(isoTime(ms)).toBe(new Date(ms).toISOString());
      }),
      { numRuns: 20_000 },
    );
  });

  it('agrees at the edges: the epoch, leap days, centuries, the last millisecond of 9999, fractions', () => {
    for (const text of [
      '1970-01-01T00:00:00.000Z',
      '2000-02-29T23:59:59.999Z',
      '2100-03-01T00:00:00.001Z',
      '2024-12-31T12:00:00.010Z',
      '9999-12-31T23:59:59.999Z',
    ])
      expect(isoTime(Date.parse(text))).toBe(text);
    for (const ms of [0, 1.5, -1, 253_402_300_800_000, Date.UTC(1900, 1, 28)]) expect(isoTime(ms)).toBe(new Date(ms).toISOString());
    expect(() => isoTime(Number.NaN)).toThrow(RangeError);
  });
});

describe('minuteUtc', () => {
  it('says a time to the minute in UTC, whatever its offset, and leaves text that is no time as it is', () => {
    expect(minuteUtc('2026-12-05T12:30:11+00:00')).toBe('2026-12-05 12:30 UTC');
    expect(minuteUtc('2026-12-05T13:30:59+01:00')).toBe('2026-12-05 12:30 UTC');
    expect(minuteUtc('yesterday')).toBe('yesterday');
  });
});
