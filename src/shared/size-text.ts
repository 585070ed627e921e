/**
 * Sizes and limits in words (issue 14, "limits as sentences"): every size limit reaches a person
 * as a sentence naming the value and the limit — "This memory is 2.1 MB; a memory can be at most
 * 1 MB" — never a validator's wording. One formatter, so the app, the CLI and the scan agree.
 */
import { TOPIC_MAX_BYTES } from './limits.js';
import { utf8Length } from './utf8.js';

// One formatter for every count: `toLocaleString` builds a new one per call, which the dashboard
// paid hundreds of times on its first paint (issue 16). Built on first use, for the rare count
// that is not a whole number: building it costs the page ~25 ms at start (ICU's number data).
let countFormat: Intl.NumberFormat | null = null;

/** A whole number with thousands separators: 20000 → "20,000" (as en-US `Intl.NumberFormat`). */
export function formatCount(n: number): string {
  if (Number.isSafeInteger(n) && !Object.is(n, -0)) {
    const digits = String(Math.abs(n));
    let grouped = digits.slice(0, digits.length % 3 || 3);
    for (let i = grouped.length; i < digits.length; i += 3) grouped += `,${digits.slice(i, i + 3)}`;
    return n < 0 ? `-${grouped}` : grouped;
  }
  countFormat ??= new Intl.NumberFormat('en-US');
  return countFormat.format(n);
}

/** Decimal units (a memory limit of 1,000,000 bytes reads "1 MB"); one decimal, ".0" dropped. */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`;
  const [value, unit] = bytes < 1_000_000 ? [bytes / 1000, 'KB'] : [bytes / 1_000_000, 'MB'];
  return `${value.toFixed(1).replace(/\.0$/, '')} ${unit}`;
}

/**
 * A size and its limit, formatted so the two never read the same while one is over the other
 * ("1 MB; at most 1 MB" would be nonsense): when rounding hides the difference, exact bytes.
 */
export function formatBytesAgainst(bytes: number, limit: number): [string, string] {
  const shown = formatBytes(bytes);
  const max = formatBytes(limit);
  return shown === max && bytes !== limit ? [`${formatCount(bytes)} bytes`, `${formatCount(limit)} bytes`] : [shown, max];
}

/** "a", "a and b", "a, b and c" (or with `or`: "a, b or c", for what did not happen to any of them). */
export function listInWords(items: readonly string[], conjunction: 'and' | 'or' = 'and'): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} ${conjunction} ${items.at(-1)!}`;
}

/** Lines of a file in quotes, the first three of them: `the lines "a", "b", "c" and 2 more`. */
export function quotedLines(lines: readonly string[]): string {
  const shown = lines.slice(0, 3).map((l) => `"${l.trim()}"`);
  const more = lines.length - shown.length;
  return `${lines.length === 1 ? 'the line' : 'the lines'} ${listInWords(more > 0 ? [...shown, `${more} more`] : shown)}`;
}

/** "1 memory", "3 memories". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}

/**
 * Why a memory of this many bytes cannot be written, or null when it fits. A memory larger than
 * TOPIC_MAX_BYTES would be reported unreadable by every scan, so no writer may produce one.
 */
export function memoryTooLarge(bytes: number): string | null {
  if (bytes <= TOPIC_MAX_BYTES) return null;
  const [size, limit] = formatBytesAgainst(bytes, TOPIC_MAX_BYTES);
  return `This memory is ${size}; a memory can be at most ${limit}.`;
}

/** {@link memoryTooLarge} for a text (its UTF-8 size, as written to disk). */
export function memoryTextTooLarge(text: string): string | null {
  // Cheap first: a string of at most a third of the limit in UTF-16 units cannot be over it.
  return text.length * 3 <= TOPIC_MAX_BYTES ? null : memoryTooLarge(utf8Length(text));
}
