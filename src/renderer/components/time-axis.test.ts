import { describe, expect, it } from 'vitest';
import { timeDomain, timeLabels, timeSpace } from './time-axis.js';

const t = (iso: string) => Date.parse(iso) / 1000;
const HOUR = 3600;
const DAY = 86_400;
/** Ticks `incr` apart inside `[min, max]`, as uPlot places them (on multiples of incr, in UTC here). */
const ticks = ([min, max]: [number, number], incr: number) => {
  const out: number[] = [];
  for (let x = Math.ceil(min / incr) * incr; x <= max; x += incr) out.push(x);
  return out;
};

describe('timeDomain', () => {
  it('one point: the day around it, the point in the middle (uPlot alone gave it 1000 days, the point at the edge)', () => {
    const x = t('2026-12-07T14:20:00Z');
    const [min, max] = timeDomain([x])!;
    expect(min).toBeLessThan(x);
    expect(max).toBeGreaterThan(x);
    expect(max - min).toBe(DAY);
    expect((x - min) / (max - min)).toBeCloseTo(0.5);
    const labels = timeLabels(ticks([min, max], 3 * HOUR), 3 * HOUR, 'UTC');
    // The labels around the point name its month (and its year on the first).
    expect(labels[0]).toMatch(/\nDec 7, 2026$/);
    expect(labels.join(' ')).not.toMatch(/2027|2029/);
  });

  it('two points the same day (or the same second): both inside, spread across the chart', () => {
    const a = t('2026-12-07T09:00:00Z');
    const b = t('2026-12-07T17:30:00Z');
    const [min, max] = timeDomain([a, b])!;
    expect(min).toBeLessThan(a);
    expect(max).toBeGreaterThan(b);
    expect((b - a) / (max - min)).toBeGreaterThan(0.9);
    expect(timeLabels(ticks([min, max], HOUR), HOUR, 'UTC')[0]).toMatch(/^\d+ [AP]M\nDec 7, 2026$/);
    const [smin, smax] = timeDomain([a, a + 1])!;
    expect(smin).toBeLessThan(a);
    expect(smax).toBeGreaterThan(a + 1);
    expect(smax - smin).toBeLessThan(60);
  });

  it('points years apart: all inside; month ticks name their month, the year where it turns', () => {
    const xs = [t('2024-03-02T10:00:00Z'), t('2025-07-01T00:00:00Z'), t('2027-01-20T08:00:00Z')];
    const [min, max] = timeDomain(xs)!;
    for (const x of xs) expect(x > min && x < max).toBe(true);
    const month = 30 * DAY;
    const labels = timeLabels([t('2024-12-01T00:00:00Z'), t('2025-01-01T00:00:00Z'), t('2025-02-01T00:00:00Z')], month, 'UTC');
    expect(labels).toEqual(['Dec\n2024', 'Jan\n2025', 'Feb']);
    expect(timeLabels([t('2025-01-01T00:00:00Z'), t('2026-01-01T00:00:00Z')], 365 * DAY, 'UTC')).toEqual(['2025', '2026']);
  });

  it('another time zone: the labels say the viewer’s date, not UTC’s', () => {
    const x = t('2026-12-31T20:00:00Z'); // 1 January 2027, 9 AM in Auckland
    const [min, max] = timeDomain([x])!;
    const inUtc = timeLabels(ticks([min, max], 6 * HOUR), 6 * HOUR, 'UTC');
    const inAuckland = timeLabels(ticks([min, max], 6 * HOUR), 6 * HOUR, 'Pacific/Auckland');
    expect(inUtc[0]).toMatch(/Dec 31, 2026$/);
    expect(inAuckland.join(' ')).toMatch(/Jan 1/);
  });

  it('no points, or only gaps: no domain', () => {
    expect(timeDomain([])).toBeNull();
    expect(timeDomain([null, undefined])).toBeNull();
  });
});

describe('timeSpace', () => {
  // uPlot's steps for a time axis in seconds, up to an hour: it takes the first one at least `space` px wide.
  const STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600];
  // The axis font is 12 px sans: a digit or a capital is about 7 px wide. Second lines (the day)
  // come only where the day turns, far apart: the first lines are the ones side by side.
  const widthOf = (label: string) => label.split('\n')[0]!.length * 7;

  it('a history a few minutes long (a fresh project): the words under the ticks ("5:38:45 PM") do not run into each other', () => {
    for (const [span, plotPx] of [
      [4 * 60, 980],
      [30, 600],
      [40 * 60, 980],
      [3 * HOUR, 700],
    ] as const) {
      const [min, max] = timeDomain([t('2026-12-07T17:38:40Z'), t('2026-12-07T17:38:40Z') + span])!;
      const perSec = plotPx / (max - min);
      const space = timeSpace(min, max, plotPx);
      const incr = STEPS.find((s) => s * perSec >= space) ?? DAY;
      const labels = timeLabels(ticks([min, max], incr), incr, 'UTC');
      const widest = Math.max(...labels.map(widthOf));
      expect(incr * perSec, `${span} s on ${plotPx} px: ticks ${incr} s apart, labels ${labels.join(' | ')}`).toBeGreaterThan(widest + 8);
    }
  });
});
