/**
 * Reading a transcript as turns: the records of a {@link TranscriptReader} assembled into turns
 * ({@link TurnAssembler}, where the rules of a turn are), with what to do about the last one.
 */
import type { FileIdentity } from './line-reader.js';
import { type ReadStats, type TranscriptReadEnd, type TranscriptReadOptions, TranscriptReader } from './transcript-reader.js';
import { TurnAssembler } from './turn-assembler.js';
import type { Turn, TurnLimits } from './turn-types.js';

/** What to do with the turn still open when the file ends. */
export type TrailingTurnPolicy =
  /** Leave it open (`complete: false`): the agent may still be working. */
  | 'never'
  /** Close it when its last message is the assistant's and every tool call has its result. */
  | 'if-answered'
  /** Close it whatever its state (the session is over). */
  | 'always';

/** Reading options plus how turns are assembled and what happens to the last one. */
export interface TurnReadOptions extends TranscriptReadOptions {
  /** Default: `sidechain` for sub-agent transcripts (`…/subagents/agent-*.jsonl`), else `main`. */
  chain?: 'main' | 'sidechain';
  limits?: Partial<TurnLimits>;
  /** Default `never`. */
  closeTrailingTurn?: TrailingTurnPolicy;
  /** Also yield the turn still open at the end (`complete: false`). Default true. */
  includeOpenTurn?: boolean;
}

const SUBAGENT_FILE = /[\\/]subagents[\\/]agent-[^\\/]+\.jsonl$/;

/** Whether a path is a sub-agent transcript (`<sessionId>/subagents/agent-<id>.jsonl`). */
export function isSubagentTranscriptPath(file: string): boolean {
  return SUBAGENT_FILE.test(file);
}

/**
 * Streams the turns of a transcript in file order: complete ones as they close, then the turn
 * still open at the end (unless the policy closes it, or `includeOpenTurn` is false). `stats`,
 * `end` and `completedTo` are filled in as it goes; stopping early (break) closes the file.
 */
export class TurnStream implements AsyncIterable<Turn> {
  private readonly reader: TranscriptReader;
  private readonly assembler: TurnAssembler;

  constructor(
    readonly file: string,
    private readonly options: TurnReadOptions = {},
  ) {
    this.reader = new TranscriptReader(file, options);
    this.assembler = new TurnAssembler({
      chain: options.chain ?? (isSubagentTranscriptPath(file) ? 'sidechain' : 'main'),
      startOffset: options.from ?? 0,
      limits: options.limits,
    });
    this.yieldedTo = options.from ?? 0;
  }

  get stats(): ReadStats {
    return this.reader.stats;
  }

  get end(): TranscriptReadEnd | null {
    return this.reader.end;
  }

  /** The file being read, once it is open. */
  get identity(): FileIdentity | null {
    return this.reader.identity;
  }

  /** Just past the last complete turn yielded so far (where a cursor may be placed). */
  get completedTo(): number {
    return this.yieldedTo;
  }

  private yieldedTo: number;

  async *[Symbol.asyncIterator](): AsyncGenerator<Turn> {
    const done: Turn[] = [];
    for await (const _chunk of this.reader.pump((event) => {
      const turn = this.assembler.add(event);
      if (turn) done.push(turn);
    })) {
      while (done.length > 0) {
        const turn = done.shift()!;
        this.yieldedTo = turn.endOffset;
        yield turn;
      }
    }
    const policy = this.options.closeTrailingTurn ?? 'never';
    if (policy === 'always' || (policy === 'if-answered' && this.assembler.openTurnAnswered())) {
      const closed = this.assembler.close();
      if (closed) {
        this.yieldedTo = closed.endOffset;
        yield closed;
      }
    } else if (this.options.includeOpenTurn !== false) {
      const open = this.assembler.openTurn();
      if (open) yield open;
    }
  }
}

/** The turns of `file` (see {@link TurnStream}). */
export function readTurns(file: string, options: TurnReadOptions = {}): TurnStream {
  return new TurnStream(file, options);
}
