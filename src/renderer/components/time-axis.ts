/**
 * A chart's time axis, as pure functions (no uPlot, no page): the span it covers and the words
 * under its ticks. Times are in seconds (uPlot's default); labels are in the viewer's time zone.
 */

const DAY = 86_400;

/**
 * The span the axis covers: every point, with a little room either side. Changes made seconds
 * apart (a fresh project) spread across the chart rather than stack in one column; a single
 * point (or points at one moment) sits in the middle of the day around it. uPlot's own guess for
 * one point (its min + 86400 / ms, 1000 days with times in seconds) put a December 2026 point at
 * the edge of an axis labelled January 2027 … October 2029.
 */
export function timeDomain(xs: ArrayLike<number | null | undefined>): [number, number] | null {
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i];
    if (typeof x !== 'number' || !Number.isFinite(x)) continue;
    if (x < min) min = x;
    if (x > max) max = x;
  }
  if (min === Infinity) return null;
  if (max === min) return [min - DAY / 2, min + DAY / 2];
  const pad = Math.max(5, (max - min) * 0.04);
  return [min - pad, max + pad];
}

/** Pixels between two ticks at the least. */
const TICK_SPACE = 56;

/**
 * The room uPlot must leave between two ticks of a time axis `plotPx` wide spanning
 * `[min, max]` seconds (its `space`): room for the words {@link timeLabels} writes at the step
 * {@link TICK_SPACE} would give — "5:38:45 PM" under ticks seconds apart, "5:38 PM" minutes
 * apart (at 56 px the words of a history a few minutes long ran into each other). The axis font
 * is 12 px sans: about 7 px a character, and a gap.
 */
export function timeSpace(min: number, max: number, plotPx: number): number {
  const step = (TICK_SPACE * Math.max(1e-9, max - min)) / Math.max(1, plotPx);
  const chars = step < 60 ? '12:38:45 PM'.length : step < 3600 ? '12:38 PM'.length : 0;
  return Math.max(TICK_SPACE, chars * 7 + 14);
}

/** The label parts, one formatter each (a chart draws its axis on every resize). */
function formatters(timeZone?: string) {
  const f = (o: Intl.DateTimeFormatOptions) => new Intl.DateTimeFormat('en-US', { ...o, timeZone });
  return {
    year: f({ year: 'numeric' }),
    month: f({ month: 'short' }),
    day: f({ month: 'short', day: 'numeric' }),
    hour: f({ hour: 'numeric' }),
    minute: f({ hour: 'numeric', minute: '2-digit' }),
    second: f({ hour: 'numeric', minute: '2-digit', second: '2-digit' }),
    parts: f({ year: 'numeric', month: 'numeric', day: 'numeric' }),
  };
}
const LOCAL = formatters();

/**
 * The words under the ticks at `splits` (seconds), `incr` apart: months by name ("Dec", "Jan"),
 * days as "Dec 7", hours as "3 PM". The first tick, and each tick where the year (or, under
 * days, the day) changes, also says which year (day) it is on a second line — so the labels
 * around any point name its month.
 */
export function timeLabels(splits: readonly number[], incr: number, timeZone?: string): string[] {
  const fmt = timeZone === undefined ? LOCAL : formatters(timeZone);
  const ymd = (t: number) => fmt.parts.format(t * 1000);
  const year = (t: number) => fmt.year.format(t * 1000);
  return splits.map((t, i) => {
    const ms = t * 1000;
    const prev = i > 0 ? splits[i - 1]! : null;
    if (incr >= 28 * DAY) {
      const m = incr >= 365 * DAY ? year(t) : fmt.month.format(ms);
      return incr < 365 * DAY && (prev === null || year(prev) !== year(t)) ? `${m}\n${year(t)}` : m;
    }
    if (incr >= DAY) return prev === null || year(prev) !== year(t) ? `${fmt.day.format(ms)}\n${year(t)}` : fmt.day.format(ms);
    const clock = (incr >= 3600 ? fmt.hour : incr >= 60 ? fmt.minute : fmt.second).format(ms);
    if (prev === null) return `${clock}\n${fmt.day.format(ms)}, ${year(t)}`;
    return ymd(prev) !== ymd(t) ? `${clock}\n${fmt.day.format(ms)}` : clock;
  });
}
