/**
 * R-DREAM-PHASES, Consolidate: relative dates ("yesterday", "昨天", "下周五") mean nothing a month
 * later, so a dream rewrites them as absolute dates, anchored at the moment the text was written.
 *
 * Detection is anchor-free: chrono-node (English and `zh.hans`) finds date expressions, and one
 * counts as relative only when (a) re-reading it against a reference 400 days later gives another
 * date, and (b) it uses relative vocabulary. (b) keeps out expressions that are relative only
 * in chrono's eyes: a bare weekday ("on Monday", "每周五" — recurring, not a date), a month and
 * day without a year ("March 5"). Periods chrono reads as a single day ("last week", "上个月",
 * "明年", which chrono 2.10 does not even parse) are handled here and written as periods
 * ("the week of 2026-02-23", "2026年2月"), never as a made-up day.
 *
 * Code (fenced blocks, inline spans) and URLs are never rewritten. A phrase already followed
 * by an absolute date ("yesterday (2026-03-05)") is left alone, so a second dream changes nothing.
 * Dates are computed and written in the local time zone: that of the person who wrote the text.
 */
import * as chrono from 'chrono-node';
import { isoDay } from '../../../shared/day-dates.js';

/** How precise a resolved date is; decides how it is written. */
export type DateGranularity = 'minute' | 'day' | 'week' | 'month' | 'year';

/** A relative date expression found in a text (anchor-free). */
export interface RelativeDatePhrase {
  /** UTF-16 offsets of the phrase in the text: [index, end). */
  index: number;
  end: number;
  text: string;
  /** Which language's rules found it: decides how the absolute date is written. */
  lang: 'en' | 'zh';
  /** Resolves the phrase against the moment it was written. */
  resolve(anchor: Date): { date: Date; granularity: DateGranularity };
}

/** A phrase resolved and its replacement. */
export interface ResolvedDate {
  index: number;
  end: number;
  text: string;
  replacement: string;
  /** The date as `YYYY-MM-DD` (the first day of a week, month or year). */
  date: string;
  granularity: DateGranularity;
}

const DAY_MS = 86_400_000;
/** The second reference for the relativity test: far enough that every relative phrase moves. */
const SHIFT_MS = 403 * DAY_MS;

const EN_RELATIVE =
  /\b(yesterday|today|tonight|tomorrow|ago|next|last|this|coming|from now|later|in\s+(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|\d+)\s+(?:day|days|week|weeks|month|months))\b/i;
const ZH_RELATIVE = /[昨今明]|前天|后天|天后|天前|周后|周前|[上下这本](?:个)?(?:周|星期|礼拜)/;

const ZH_DIGITS: Record<string, number> = { 零: 0, 一: 1, 二: 2, 两: 2, 三: 3, 四: 4, 五: 5, 六: 6, 七: 7, 八: 8, 九: 9, 十: 10 };

function zhNumber(text: string): number | null {
  if (/^\d+$/.test(text)) return Number(text);
  if (text === '十') return 10;
  if (text.length === 2 && text[0] === '十') return 10 + (ZH_DIGITS[text[1]!] ?? NaN);
  if (text.length === 2 && text[1] === '十') return (ZH_DIGITS[text[0]!] ?? NaN) * 10;
  if (text.length === 3 && text[1] === '十') return (ZH_DIGITS[text[0]!] ?? NaN) * 10 + (ZH_DIGITS[text[2]!] ?? NaN);
  const one = ZH_DIGITS[text];
  return one === undefined ? null : one;
}

function startOfDay(d: Date): Date {
  return new Date(d.getFullYear(), d.getMonth(), d.getDate(), 12);
}

function addDays(d: Date, days: number): Date {
  const out = startOfDay(d);
  out.setDate(out.getDate() + days);
  return out;
}

/** Monday of the week holding `d` (ISO weeks start on Monday, as both languages here count). */
function mondayOf(d: Date): Date {
  const day = (d.getDay() + 6) % 7;
  return addDays(d, -day);
}

function addMonths(d: Date, months: number): Date {
  return new Date(d.getFullYear(), d.getMonth() + months, 1, 12);
}

const pad = (n: number) => String(n).padStart(2, '0');

const EN_MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** How a resolved date is written, in the phrase's language. */
export function formatResolved(date: Date, granularity: DateGranularity, lang: 'en' | 'zh'): string {
  switch (granularity) {
    case 'minute':
      return `${isoDay(date)} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
    case 'day':
      return isoDay(date);
    case 'week':
      return lang === 'zh' ? `${isoDay(date)} 那一周` : `the week of ${isoDay(date)}`;
    case 'month':
      return lang === 'zh' ? `${date.getFullYear()}年${date.getMonth() + 1}月` : `${EN_MONTHS[date.getMonth()]} ${date.getFullYear()}`;
    case 'year':
      return lang === 'zh' ? `${date.getFullYear()}年` : String(date.getFullYear());
  }
}

interface Rule {
  pattern: RegExp;
  lang: 'en' | 'zh';
  resolve: (m: RegExpExecArray, anchor: Date) => { date: Date; granularity: DateGranularity };
}

const period =
  (unit: 'week' | 'month' | 'year', offset: number) =>
  (anchor: Date): { date: Date; granularity: DateGranularity } => {
    if (unit === 'week') return { date: mondayOf(addDays(anchor, offset * 7)), granularity: 'week' };
    if (unit === 'month') return { date: addMonths(anchor, offset), granularity: 'month' };
    return { date: new Date(anchor.getFullYear() + offset, 0, 1, 12), granularity: 'year' };
  };

const EN_OFFSET: Record<string, number> = { last: -1, previous: -1, next: 1, this: 0, coming: 1 };
const ZH_OFFSET: Record<string, number> = { 上: -1, 下: 1, 这: 0, 本: 0 };

/** Phrases chrono misses or reads as a single day; tried before chrono, and they win overlaps. */
const RULES: Rule[] = [
  { pattern: /\b(?:the\s+)?day\s+before\s+yesterday\b/gi, lang: 'en', resolve: (_m, a) => ({ date: addDays(a, -2), granularity: 'day' }) },
  {
    pattern: /\b(last|previous|next|this|coming)\s+(week|month|year)\b/gi,
    lang: 'en',
    resolve: (m, a) => period(m[2]!.toLowerCase() as 'week' | 'month' | 'year', EN_OFFSET[m[1]!.toLowerCase()] ?? 0)(a),
  },
  {
    pattern: /([上下这本])(?:个)?(周|星期|礼拜|月)(?![一二三四五六日天末期\d])/g,
    lang: 'zh',
    resolve: (m, a) => period(m[2] === '月' ? 'month' : 'week', ZH_OFFSET[m[1]!] ?? 0)(a),
  },
  { pattern: /(去|今|明|前|后)年/g, lang: 'zh', resolve: (m, a) => period('year', { 去: -1, 今: 0, 明: 1, 前: -2, 后: 2 }[m[1]!] ?? 0)(a) },
  {
    pattern: /([0-9]+|[一二两三四五六七八九十]{1,3})(?:个)?(周|星期|礼拜)(后|前|以后|之后|以前|之前)/g,
    lang: 'zh',
    resolve: (m, a) => {
      const n = zhNumber(m[1]!) ?? 0;
      return { date: addDays(a, (m[3]!.endsWith('前') ? -7 : 7) * n), granularity: 'day' };
    },
  },
];

/** Spans never rewritten: fenced code, inline code, URLs, and existing absolute dates. */
function protectedSpans(text: string): [number, number][] {
  const spans: [number, number][] = [];
  for (const re of [/```[\s\S]*?(?:```|$)/g, /~~~[\s\S]*?(?:~~~|$)/g, /`[^`\n]*`/g, /\bhttps?:\/\/\S+/g, /\b\d{4}-\d{2}-\d{2}\b/g]) {
    for (let m = re.exec(text); m; m = re.exec(text)) spans.push([m.index, m.index + m[0].length]);
  }
  return spans;
}

function overlaps(a: [number, number], spans: readonly [number, number][]): boolean {
  return spans.some(([s, e]) => a[0] < e && s < a[1]);
}

/** Blanks protected spans out (same length, so offsets stay valid) before parsing. */
function mask(text: string, spans: readonly [number, number][]): string {
  const chars = [...text.split('')];
  for (const [s, e] of spans) for (let i = s; i < e; i++) if (chars[i] !== '\n') chars[i] = ' ';
  return chars.join('');
}

/** Whether an absolute date follows right after (or precedes) the phrase: already converted. */
function alreadyAnchored(text: string, index: number, end: number): boolean {
  return (
    /^\s*[(（]?\s*\d{4}[-/年]\d{1,2}/.test(text.slice(end, end + 16)) ||
    /\d{4}[-/年]\d{1,2}[-/月]\d{1,2}日?\s*[)）]?\s*$/.test(text.slice(Math.max(0, index - 16), index))
  );
}

function chronoPhrases(masked: string, parser: chrono.Chrono, lang: 'en' | 'zh'): RelativeDatePhrase[] {
  // Any fixed reference finds the same phrases; relativity is tested by moving it.
  const refA = new Date(2030, 0, 15, 12);
  const refB = new Date(refA.getTime() + SHIFT_MS);
  const out: RelativeDatePhrase[] = [];
  for (const result of parser.parse(masked, refA)) {
    let index = result.index;
    let phrase = result.text;
    if (lang === 'zh' && /^(?:周|星期|礼拜)[一二三四五六日天]/.test(phrase)) {
      // A bare weekday is recurring or vague; 本周五 / 这周五 (chrono drops the 本) is a date.
      const before = masked[index - 1];
      if (before !== '本' && before !== '这') continue;
      index -= 1;
      phrase = before + phrase;
    }
    if (!(lang === 'en' ? EN_RELATIVE : ZH_RELATIVE).test(phrase)) continue;
    // Quarters are no day; hours and minutes are no date worth writing down.
    if (lang === 'en' && /\b(?:quarter|hour|hours|minute|minutes|min|mins|second|seconds)\b/i.test(phrase)) continue;
    if (lang === 'zh' && /季度|小时|分钟|秒/.test(phrase)) continue;
    const again = parser.parse(phrase, refB)[0];
    if (again && again.start.date().getTime() - result.start.date().getTime() === 0) continue;
    const hasTime = result.start.isCertain('hour');
    out.push({
      index,
      end: index + phrase.length,
      text: phrase,
      lang,
      resolve: (anchor) => {
        const parsed = parser.parse(phrase, anchor)[0];
        const date = parsed ? parsed.start.date() : anchor;
        return { date: hasTime ? date : startOfDay(date), granularity: hasTime ? 'minute' : 'day' };
      },
    });
  }
  return out;
}

/**
 * The relative date phrases of `text`, in order, without overlaps. Anchor-free: each phrase
 * resolves later against the moment its own sentence was written.
 */
export function findRelativeDates(text: string): RelativeDatePhrase[] {
  const spans = protectedSpans(text);
  const masked = mask(text, spans);
  const found: RelativeDatePhrase[] = [];
  for (const rule of RULES) {
    rule.pattern.lastIndex = 0;
    for (let m = rule.pattern.exec(masked); m; m = rule.pattern.exec(masked)) {
      const match = m;
      found.push({ index: m.index, end: m.index + m[0].length, text: m[0], lang: rule.lang, resolve: (anchor) => rule.resolve(match, anchor) });
    }
  }
  const taken = (p: { index: number; end: number }) => found.some((f) => p.index < f.end && f.index < p.end);
  for (const p of [...chronoPhrases(masked, chrono.casual, 'en'), ...chronoPhrases(masked, chrono.zh.hans.casual, 'zh')]) {
    if (!taken(p)) found.push(p);
  }
  return found.filter((p) => !overlaps([p.index, p.end], spans) && !alreadyAnchored(text, p.index, p.end)).sort((a, b) => a.index - b.index);
}

/** The sentence (or line) around `index`: what the transcript search looks for. */
export function sentenceAround(text: string, index: number, end: number): string {
  const stops = /[.!?。！？\n；;]/;
  let s = index;
  while (s > 0 && !stops.test(text[s - 1]!)) s--;
  let e = end;
  while (e < text.length && !stops.test(text[e]!)) e++;
  return text.slice(s, e).trim();
}

/**
 * Rewrites every relative date of `text` as an absolute one. `anchorOf` gives the moment each
 * phrase was written (its sentence is passed, so a caller can look it up in the transcripts).
 */
export function absolutizeDates(text: string, anchorOf: (phrase: RelativeDatePhrase, sentence: string) => Date): { text: string; resolved: ResolvedDate[] } {
  const phrases = findRelativeDates(text);
  if (phrases.length === 0) return { text, resolved: [] };
  const resolved: ResolvedDate[] = [];
  let out = '';
  let last = 0;
  for (const phrase of phrases) {
    const { date, granularity } = phrase.resolve(anchorOf(phrase, sentenceAround(text, phrase.index, phrase.end)));
    const replacement = formatResolved(date, granularity, phrase.lang);
    resolved.push({ index: phrase.index, end: phrase.end, text: phrase.text, replacement, date: isoDay(date), granularity });
    out += text.slice(last, phrase.index) + replacement;
    last = phrase.end;
  }
  return { text: out + text.slice(last), resolved };
}
