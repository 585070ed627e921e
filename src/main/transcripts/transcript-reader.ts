/**
 * Typed records from a transcript, streamed (SPEC §8): every line becomes either a record or a
 * counted skip with its byte offset — malformed JSON, JSON of the wrong shape, a type we do not
 * know, an oversize line. Nothing here throws on bad input; the read ends with a status that says
 * what happened to the file.
 */
import { type FileIdentity, type LineEvent, type LineReadOptions, type LinesEnd, type LinesStatus, readLineBatches } from './line-reader.js';
import { type TranscriptRecord, parseTranscriptLine } from './records.js';

/** Why a line produced no record. */
export type SkipReason = 'blank' | 'malformed' | 'invalid' | 'unknown-type' | 'oversize';

/** What could be told about an oversize line from its first and last bytes. */
export interface OversizeSniff {
  /** The line's `type`, when it shows in the kept bytes. */
  type: string | null;
  uuid: string | null;
  timestamp: string | null;
  /** For a user line carrying a tool result: the tool call it answers. */
  toolUseId: string | null;
}

/** One line of the transcript: a typed record, or why it was skipped. Offsets are byte offsets. */
export type TranscriptEvent =
  | { kind: 'record'; record: TranscriptRecord; offset: number; end: number }
  | { kind: 'skipped'; reason: SkipReason; offset: number; end: number; type: string | null; detail: string; sniff?: OversizeSniff };

/** A skipped line worth showing someone: where it is and why it was skipped. */
export interface LineProblem {
  offset: number;
  length: number;
  type: string | null;
  detail: string;
}

/** At most this many problems of each kind are kept as samples; the counts are exact. */
export const PROBLEM_SAMPLES = 20;

/** How many lines had one kind of problem, with the first few as examples. */
export interface ProblemTally {
  count: number;
  samples: LineProblem[];
}

/** What a read went through. Memory stays bounded: counts are exact, examples are capped. */
export interface ReadStats {
  /** Bytes covered by complete lines (and an accepted unterminated last line). */
  bytes: number;
  lines: number;
  records: number;
  blank: number;
  malformed: ProblemTally;
  invalid: ProblemTally;
  oversize: ProblemTally;
  /** Lines of a type this reader does not know, by type. */
  unknownTypes: Record<string, number>;
}

/** Stats of a read that has not read anything yet. */
export function emptyReadStats(): ReadStats {
  return {
    bytes: 0,
    lines: 0,
    records: 0,
    blank: 0,
    malformed: { count: 0, samples: [] },
    invalid: { count: 0, samples: [] },
    oversize: { count: 0, samples: [] },
    unknownTypes: {},
  };
}

/** How the read of the file ended (see {@link LinesStatus}). */
export interface TranscriptReadEnd {
  status: LinesStatus;
  /** Just past the last line that was consumed: a cursor may stop here. */
  consumedTo: number;
  /** A last line still being written (no `\n` yet, or not yet valid JSON on a final read). */
  heldBytes: number;
  identity: FileIdentity | null;
  message: string | null;
}

/** The line reader's options (start offset, chunk size, line cap, final, signal). */
export type TranscriptReadOptions = Omit<LineReadOptions, 'onLine'>;

const stringField = (name: string) => new RegExp(`"${name}"\\s*:\\s*"((?:[^"\\\\]|\\\\.)*)"`);
/** The `type` of a transcript line, found in its raw text (the first known record type named). */
export const LINE_TYPE_FIELD = /"type"\s*:\s*"(user|assistant|system|summary|file-history-snapshot|queue-operation)"/;
const UUID_FIELD = stringField('uuid');
const TIMESTAMP_FIELD = stringField('timestamp');
const TOOL_USE_ID_FIELD = stringField('tool_use_id');
const TOOL_RESULT_TYPE = /"type"\s*:\s*"tool_result"/;

/**
 * What an oversize line was, from its first and last 64 KB. Claude Code writes `type` before
 * `message` and `uuid`/`timestamp` after it, so between them the head and the tail usually tell
 * a pasted-image prompt from a huge tool result — enough to keep turn boundaries right.
 */
export function sniffOversize(head: string, tail: string): OversizeSniff {
  const lastMatch = (re: RegExp): string | null => re.exec(tail)?.[1] ?? re.exec(head)?.[1] ?? null;
  const type = LINE_TYPE_FIELD.exec(head)?.[1] ?? LINE_TYPE_FIELD.exec(tail)?.[1] ?? null;
  return {
    type,
    uuid: lastMatch(UUID_FIELD),
    timestamp: lastMatch(TIMESTAMP_FIELD),
    toolUseId: type === 'user' && TOOL_RESULT_TYPE.test(head) ? (TOOL_USE_ID_FIELD.exec(head)?.[1] ?? null) : null,
  };
}

function tally(t: ProblemTally, problem: LineProblem): void {
  t.count++;
  if (t.samples.length < PROBLEM_SAMPLES) t.samples.push(problem);
}

/**
 * Reads one transcript: `batches()` (or `events()`) streams it once, and `stats` and `end` are
 * filled in as it goes. A reader is single-use.
 */
export class TranscriptReader {
  readonly stats: ReadStats = emptyReadStats();
  /** Set when the stream has ended (null while reading, or if the caller stopped early). */
  end: TranscriptReadEnd | null = null;
  /** The file being read, once it is open. */
  identity: FileIdentity | null = null;
  readonly options: TranscriptReadOptions;

  constructor(
    readonly file: string,
    options: TranscriptReadOptions = {},
  ) {
    this.options = {
      ...options,
      onOpen: (identity) => {
        this.identity = identity;
        options.onOpen?.(identity);
      },
    };
  }

  /** Events in file order, a chunk's worth at a time. */
  async *batches(): AsyncGenerator<TranscriptEvent[]> {
    for await (const lines of readLineBatches(this.file, this.options)) {
      const events: TranscriptEvent[] = [];
      for (const line of lines) {
        if (line.kind === 'end') this.setEnd(line);
        else {
          const event = this.toEvent(line);
          if (event) events.push(event);
        }
      }
      if (events.length > 0) yield events;
    }
  }

  /**
   * Hand each event to `onEvent` as soon as its line is split, and yield once per chunk so the
   * caller can pass on what the events produced. The turn reader's path: no line outlives its
   * use (see `onLine` in the line reader).
   */
  async *pump(onEvent: (event: TranscriptEvent) => void): AsyncGenerator<void> {
    const onLine = (line: LineEvent): void => {
      const event = this.toEvent(line);
      if (event) onEvent(event);
    };
    for await (const lines of readLineBatches(this.file, { ...this.options, onLine })) {
      for (const line of lines) if (line.kind === 'end') this.setEnd(line);
      yield;
    }
  }

  private setEnd(line: LinesEnd): void {
    const held = this.heldTail;
    this.end = {
      status: line.status,
      consumedTo: held ? held.offset : line.consumedTo,
      heldBytes: held ? held.length : line.heldBytes,
      identity: line.identity,
      message: line.message,
    };
  }

  /** Events one at a time. */
  async *events(): AsyncGenerator<TranscriptEvent> {
    for await (const batch of this.batches()) yield* batch;
  }

  private toEvent(line: LineEvent): TranscriptEvent | null {
    const { offset, end } = line;
    const length = end - offset;
    if (line.kind === 'oversize') {
      const sniff = sniffOversize(line.head, line.tail);
      const detail = `line of ${length} bytes is over the ${this.options.maxLineBytes ?? 'default'} byte cap`;
      this.count(length);
      tally(this.stats.oversize, { offset, length, type: sniff.type, detail });
      return { kind: 'skipped', reason: 'oversize', offset, end, type: sniff.type, detail, sniff };
    }
    const parsed = parseTranscriptLine(line.text);
    if (line.unterminated && parsed.kind !== 'record') {
      // A final read accepts the last line only when it is a whole record; anything else may be
      // a line still being written, so it stays held rather than counted as garbage.
      this.heldTail = { offset, length };
      return null;
    }
    this.count(length);
    switch (parsed.kind) {
      case 'record':
        this.stats.records++;
        return { kind: 'record', record: parsed.record, offset, end };
      case 'blank':
        this.stats.blank++;
        return { kind: 'skipped', reason: 'blank', offset, end, type: null, detail: 'blank line' };
      case 'malformed':
        tally(this.stats.malformed, { offset, length, type: null, detail: parsed.reason });
        return { kind: 'skipped', reason: 'malformed', offset, end, type: null, detail: parsed.reason };
      case 'invalid':
        tally(this.stats.invalid, { offset, length, type: parsed.type, detail: parsed.reason });
        return { kind: 'skipped', reason: 'invalid', offset, end, type: parsed.type, detail: parsed.reason };
      case 'unknown':
        this.stats.unknownTypes[parsed.type] = (this.stats.unknownTypes[parsed.type] ?? 0) + 1;
        return { kind: 'skipped', reason: 'unknown-type', offset, end, type: parsed.type, detail: `unknown type "${parsed.type}"` };
    }
  }

  /** A final read's last line that was not a whole record: not consumed. */
  private heldTail: { offset: number; length: number } | null = null;

  private count(length: number): void {
    this.stats.lines++;
    this.stats.bytes += length;
  }
}
