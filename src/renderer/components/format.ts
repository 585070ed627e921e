/** Small display helpers: relative and exact times (plurals are `plural`, shared with main and the CLI). Pure, tested without a browser. */
import { plural } from '../../shared/size-text.js';

// One formatter each: `toLocale…String` builds a new one per call, and a list formats a date per row.
const DAY_FORMAT = new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'short', day: 'numeric' });
const MOMENT_FORMAT = new Intl.DateTimeFormat(undefined, {
  weekday: 'short',
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  // 24-hour, whatever the locale's habit: the CLI and history print times that way.
  hourCycle: 'h23',
});
/** As `toLocale…String` says it, "Invalid Date" included (the formatter would throw). */
const formatDate = (format: Intl.DateTimeFormat, ms: number): string => {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? String(date) : format.format(date);
};

/** How long ago, in words a person says: "just now", "1 minute ago", "3 hours ago", "yesterday", "5 days ago", then the date. */
export function ago(ms: number | null, now = Date.now()): string {
  if (ms === null || !Number.isFinite(ms)) return '—';
  const s = Math.round((now - ms) / 1000);
  if (s < -60) return `in ${plural(Math.round(-s / 60), 'minute')}`;
  if (s < 60) return 'just now';
  if (s < 3600) return `${plural(Math.round(s / 60), 'minute')} ago`;
  if (s < 86_400) return `${plural(Math.round(s / 3600), 'hour')} ago`;
  const days = Math.round(s / 86_400);
  if (days === 1) return 'yesterday';
  if (days < 30) return `${days} days ago`;
  return formatDate(DAY_FORMAT, ms);
}

/** The exact local time of a moment, 24-hour: "Thu, Dec 3, 2026, 17:42:07". */
export function exactTime(ms: number): string {
  return formatDate(MOMENT_FORMAT, ms);
}

/** An ISO string (or epoch ms) as milliseconds; null when it is not a time. */
export function toMs(value: string | number | null | undefined): number | null {
  if (value === null || value === undefined) return null;
  const ms = typeof value === 'number' ? value : Date.parse(value);
  return Number.isNaN(ms) ? null : ms;
}

/** A moment as the exact local time (never a raw ISO string; an unreadable value is shown as it came). */
export function when(iso: string): string {
  const ms = toMs(iso);
  return ms === null ? iso : exactTime(ms);
}
