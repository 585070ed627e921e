/**
 * A cheap search through transcripts for the dream's Gather phase (R-DREAM-PHASES: "grep, not
 * full reads"): patterns are tested on each line's raw JSON text, and only matching lines have
 * their timestamp and type picked out — nothing is parsed, so it runs at the speed of decoding.
 * Memory stays constant like the reader's: one chunk, one line (oversize lines are skipped).
 *
 * Patterns see the JSON text as written: quotes and newlines inside strings appear escaped (`\"`,
 * `\n`); non-ASCII text (Chinese included) appears as itself.
 */
import { type LineReadOptions, readLineBatches } from './line-reader.js';
import { LINE_TYPE_FIELD } from './transcript-reader.js';

/** A line that matched, with what the dream's Gather phase needs to weigh it. */
export interface SignalMatch {
  /** Byte range of the line. */
  offset: number;
  end: number;
  /** The line's top-level `timestamp` as written, or null. */
  timestamp: string | null;
  /** That timestamp in milliseconds since the epoch; null when absent or unparsable. */
  time: number | null;
  /** The line's record type, when it names a known one. */
  type: string | null;
  /** Indexes (into the given patterns) of every pattern that matched. */
  patterns: number[];
  /** Up to 160 characters either side of the first match. */
  excerpt: string;
  /** The whole raw line. */
  line: string;
}

/** Where to read from and how, like the line reader; plus a time filter. */
export interface SignalGrepOptions extends Omit<LineReadOptions, 'onOpen' | 'onLine'> {
  /** Skip matching lines whose timestamp is before this (lines without one are kept). */
  since?: Date;
}

const EXCERPT_CHARS = 160;
const TIMESTAMP_KEY = '"timestamp"';
const TIMESTAMP_VALUE = /\s*:\s*"([^"\\]*)"/y;

/**
 * The line's own timestamp. Claude Code writes it after `message`, so the last one in the line is
 * taken: an earlier one may sit in a nested object (a snapshot, a tool's input).
 */
export function rawTimestamp(line: string): string | null {
  for (let at = line.lastIndexOf(TIMESTAMP_KEY); at !== -1; at = at === 0 ? -1 : line.lastIndexOf(TIMESTAMP_KEY, at - 1)) {
    TIMESTAMP_VALUE.lastIndex = at + TIMESTAMP_KEY.length;
    const match = TIMESTAMP_VALUE.exec(line);
    if (match) return match[1]!;
  }
  return null;
}

/** Lines of `file` matching any of `patterns`, in file order. Stops quietly on a vanished file. */
export async function* grepTranscript(file: string, patterns: readonly RegExp[], options: SignalGrepOptions = {}): AsyncGenerator<SignalMatch> {
  const since = options.since?.getTime();
  for await (const batch of readLineBatches(file, options)) {
    for (const event of batch) {
      if (event.kind !== 'line') continue;
      const text = event.text;
      let first: RegExpExecArray | null = null;
      const matched: number[] = [];
      for (let i = 0; i < patterns.length; i++) {
        const pattern = patterns[i]!;
        // A /g or /y pattern remembers where it stopped; every line starts afresh.
        pattern.lastIndex = 0;
        const match = pattern.exec(text);
        if (!match) continue;
        matched.push(i);
        if (!first || match.index < first.index) first = match;
      }
      if (!first) continue;
      const timestamp = rawTimestamp(text);
      const parsedTime = timestamp === null ? Number.NaN : Date.parse(timestamp);
      const time = Number.isNaN(parsedTime) ? null : parsedTime;
      if (since !== undefined && time !== null && time < since) continue;
      const excerpt = text.slice(Math.max(0, first.index - EXCERPT_CHARS), first.index + first[0].length + EXCERPT_CHARS);
      yield { offset: event.offset, end: event.end, timestamp, time, type: LINE_TYPE_FIELD.exec(text)?.[1] ?? null, patterns: matched, excerpt, line: text };
    }
  }
}
