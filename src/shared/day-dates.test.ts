import { describe, expect, it } from 'vitest';
import { findAbsoluteDays, isoDay } from './day-dates.js';

describe('day dates in memory text', () => {
  it('finds absolute days in both scripts', () => {
    expect(findAbsoluteDays('freeze 2026-03-05, release 2026年3月20日, v1.2.3').map((d) => d.day)).toEqual(['2026-03-05', '2026-03-20']);
  });

  it('writes a day in local time, padded', () => {
    expect(isoDay(new Date(2026, 2, 5, 23, 59))).toBe('2026-03-05');
  });
});
