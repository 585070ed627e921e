/**
 * Day dates as memories write them: `YYYY-MM-DD` from a Date, and the absolute days a text names.
 * Shared by the dream's rules (relative dates made absolute, stale-date checks) and curation
 * (similar memories, merges), which both read dates in memory text.
 */

const pad = (n: number): string => String(n).padStart(2, '0');

/** `YYYY-MM-DD` in local time. */
export function isoDay(d: Date): string {
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** Absolute day dates (`YYYY-MM-DD`, `YYYY年M月D日`, `YYYY/MM/DD`) written in a text, with offsets. */
export function findAbsoluteDays(text: string): { index: number; end: number; day: string }[] {
  const out: { index: number; end: number; day: string }[] = [];
  const re = /\b(\d{4})[-/](\d{1,2})[-/](\d{1,2})\b|(\d{4})年(\d{1,2})月(\d{1,2})[日号]/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const y = Number(m[1] ?? m[4]);
    const mo = Number(m[2] ?? m[5]);
    const d = Number(m[3] ?? m[6]);
    if (mo < 1 || mo > 12 || d < 1 || d > 31) continue;
    out.push({ index: m.index, end: m.index + m[0].length, day: `${y}-${pad(mo)}-${pad(d)}` });
  }
  return out;
}
