/**
 * `new Date(ms).toISOString()` without the Date: the same text (`2026-03-05T14:02:07.123Z`) in
 * about a third of the time. For code that formats times on a path that must cost about one
 * `stat` — the closed dream gate (R-DREAM-GATE), checked after every session and periodically —
 * where building a Date per time was most of the cost (bench `dream-gates`).
 */

/** Milliseconds in a day. */
const DAY_MS = 86_400_000;
/** 10000-01-01T00:00:00Z: from there `toISOString` writes a six-digit, signed year. */
const YEAR_10000_MS = 253_402_300_800_000;

function two(n: number): string {
  return n < 10 ? `0${n}` : `${n}`;
}

/** The ISO 8601 UTC text of an epoch time in milliseconds, exactly as `Date#toISOString` writes it. */
export function isoTime(ms: number): string {
  // Outside 1970–9999 or with a fraction, Date's own rules (signed years, rounding, RangeError).
  if (!(ms >= 0 && ms < YEAR_10000_MS) || ms !== Math.floor(ms)) return new Date(ms).toISOString();
  const days = Math.floor(ms / DAY_MS);
  let rest = ms - days * DAY_MS;
  // Civil date from days since 1970-01-01 (Howard Hinnant's `civil_from_days`).
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const mp = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  const millis = rest - seconds * 1000;
  const year4 = year < 1000 ? `${year}`.padStart(4, '0') : `${year}`;
  return `${year4}-${two(month)}-${two(day)}T${two(hours)}:${two(minutes)}:${two(seconds)}.${millis < 10 ? `00${millis}` : millis < 100 ? `0${millis}` : millis}Z`;
}

/**
 * How long ago, in words a person reads wherever a sentence is shown (the app prints a sentence
 * from main as it is, the CLI too): "just now", "7 min ago", "5 h ago", "3 days ago". Sentences
 * never carry a raw ISO time; the JSON keeps its ISO fields.
 */
export function agoInWords(ageMs: number): string {
  const minutes = Math.round(Math.max(0, ageMs) / 60_000);
  if (minutes < 1) return 'just now';
  if (minutes < 120) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  return hours < 48 ? `${hours} h ago` : `${Math.round(hours / 24)} days ago`;
}

/**
 * A time to the minute, in words a person reads in a sentence (an export finding, a restore's point
 * or refusal): `2026-12-05T12:30:11+00:00` as `2026-12-05 12:30 UTC`; text that is no time as it is.
 */
export function minuteUtc(time: string): string {
  const date = new Date(time);
  return Number.isNaN(date.getTime()) ? time : `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
