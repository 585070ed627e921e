/**
 * Turns: a user's prompt up to the assistant's final answer (issue 5, part 1), assembled from the
 * record stream with the lines of one API response merged back into one message.
 *
 * A turn starts at a prompt (typed text, a slash command) and ends at the first of:
 *   - an assistant message whose `stop_reason` is final (`end_turn`, `stop_sequence`, `refusal`);
 *   - the next prompt;
 *   - `[Request interrupted by user]`;
 *   - the caller saying so (`closeTrailingTurn`: a Stop hook, a session end, a quiet transcript).
 * Real transcripts often carry `stop_reason: null` on every line (Claude Code writes each content
 * block as it streams, before the stop reason is known), so the last two matter as much as the
 * first.
 *
 * Byte ranges are contiguous: each turn starts where the previous one ended, so lines between
 * turns (snapshots, system notes, a compaction boundary) belong to the turn after them and a
 * cursor placed at a turn's end never skips or repeats a line. Assistant lines or tool results
 * with no prompt before them (a resumed session, a Stop hook that made the agent go on) make a
 * `continuation` turn.
 *
 * A turn is a digest, not a copy: texts are capped ({@link TurnLimits}) so one enormous turn
 * cannot take the process's memory with it.
 */
import { type AssistantRecord, type ContentBlock, type Usage, type UserRecord, contentText, isCompactBoundary, toolResultText } from './records.js';
import type { FileIdentity } from './line-reader.js';
import { type ReadStats, type TranscriptEvent, type TranscriptReadEnd, type TranscriptReadOptions, TranscriptReader } from './transcript-reader.js';

/** Token counts of the latest response, in the form R-SESSION needs. */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadInputTokens: number;
  cacheCreationInputTokens: number;
  /** input + cache read + cache creation: the context the model saw (R-SESSION growth). */
  contextTokens: number;
}

/** A tool call's result, as the tool_result block gave it. */
export interface ToolCallResult {
  isError: boolean;
  /** The result's text, capped at {@link TurnLimits.maxToolResultChars}. */
  text: string;
  truncated: boolean;
  /** The user line that carried it. */
  uuid: string | null;
  timestamp: string | null;
}

/** One tool call of a turn, with its result once read. */
export interface ToolCall {
  id: string;
  name: string;
  /** The tool's input; string values longer than {@link TurnLimits.maxToolInputChars} are cut. */
  input: Record<string, unknown>;
  /** `input.file_path`, or `input.notebook_path` for NotebookEdit, when it is a string. */
  filePath: string | null;
  /** The `cwd` of the line that made the call: what a relative `filePath` is relative to. */
  cwd: string | null;
  /** The assistant line that made the call, and its API message id. */
  uuid: string;
  messageId: string | null;
  timestamp: string | null;
  /** Null until the result line has been read (or when it was lost). */
  result: ToolCallResult | null;
}

/** Where Claude Code compacted the conversation (a `system` line, subtype `compact_boundary`). */
export interface CompactBoundary {
  uuid: string | null;
  timestamp: string | null;
  /** `manual` (/compact) or `auto`. */
  trigger: string | null;
  /** Context size before compaction, in tokens. */
  preTokens: number | null;
  offset: number;
}

/** What started a turn. */
export type TurnStart = 'prompt' | 'command' | 'continuation';
/**
 * What ended it (null while it is open): `end_turn` stands for any final stop reason
 * (`end_turn`, `stop_sequence`, `refusal`), `next-prompt`, an `interrupted` request, or the
 * caller (`closeTrailingTurn`).
 */
export type TurnEnd = 'end_turn' | 'next-prompt' | 'interrupted' | 'closed-by-caller';

/** One turn (see the module comment): a digest of what was asked, done and answered. */
export interface Turn {
  sessionId: string | null;
  start: TurnStart;
  /** The slash command for `command` turns (`/review`), from `<command-name>`. */
  command: string | null;
  /** The prompt's text (empty for continuations), capped at {@link TurnLimits.maxTextChars}. */
  userText: string;
  /** Images pasted with the prompt. */
  userImages: number;
  /** Every assistant text of the turn, in order, capped. */
  assistantText: string;
  /** The text of the last assistant message that had text: the answer, usually. */
  finalAssistantText: string;
  toolCalls: ToolCall[];
  /** First and last user/assistant line of the turn. */
  firstUuid: string | null;
  lastUuid: string | null;
  /** Byte offset of the line carrying `lastUuid` (a cursor checks it is still there). */
  lastUuidOffset: number | null;
  /**
   * Timestamps of the turn's first and last user/assistant line, in file order (never sorted:
   * clocks go backwards, so `endedAt` may be earlier than `startedAt`).
   */
  startedAt: string | null;
  endedAt: string | null;
  complete: boolean;
  endReason: TurnEnd | null;
  /** The latest real response's usage (synthetic error messages carry zeros and are ignored). */
  usage: TokenUsage | null;
  /**
   * Characters of the turn's messages after the response that gave `usage` (all of them when
   * none did): Claude Code counts them as chars / 4 tokens on top of the usage (R-SESSION).
   */
  charsAfterUsage: number;
  /** Tool calls in the turn's last assistant response (0: it answered without tools). */
  lastResponseToolCalls: number;
  model: string | null;
  cwd: string | null;
  gitBranch: string | null;
  version: string | null;
  isSidechain: boolean;
  /** Set on sub-agent turns. */
  agentId: string | null;
  /** Bytes [startOffset, endOffset) of the file: contiguous from one turn to the next. */
  startOffset: number;
  endOffset: number;
  compactions: CompactBoundary[];
  /** Assistant responses after merging lines with the same `message.id`. */
  assistantMessages: number;
  /** Lines folded into an earlier line's message. */
  mergedLines: number;
  lines: number;
  /** Lines in the range that gave no record (malformed, invalid, unknown type, oversize). */
  skippedLines: number;
  /** Lines of the other chain (sidechain lines in a main transcript, or the reverse). */
  otherChainLines: number;
  /** Some text was cut to the limits. */
  truncated: boolean;
}

/** Caps that bound the memory one turn can take. */
export interface TurnLimits {
  /** Per text: the prompt, all assistant text, the final answer. */
  maxTextChars: number;
  maxToolResultChars: number;
  /** Per string value inside a tool's input (a Write's content, an Edit's strings). */
  maxToolInputChars: number;
}

/** Enough for any real prompt and answer; tool payloads are kept to an excerpt. */
export const DEFAULT_TURN_LIMITS: TurnLimits = {
  maxTextChars: 100_000,
  maxToolResultChars: 4_000,
  maxToolInputChars: 4_000,
};

/** Stop reasons after which the assistant waits for the user. */
const FINAL_STOP_REASONS = new Set(['end_turn', 'stop_sequence', 'refusal']);

/** How a user line takes part in a turn. */
export type UserLineKind =
  /** Typed by the user: starts a turn. */
  | 'prompt'
  /** A slash command or `!` bash input: starts a turn. */
  | 'command'
  /** Carries tool results back to the model. */
  | 'tool-result'
  /** `[Request interrupted by user…]`: ends the turn. */
  | 'interrupt'
  /** Output of a local command, or the caveat Claude Code puts before one. */
  | 'local-output'
  /** Injected by Claude Code (`isMeta`), or empty. */
  | 'meta'
  /** The summary that opens a compacted conversation. */
  | 'compact-summary';

const COMMAND_START = /^\s*<(?:command-name|command-message|bash-input)>/;
const LOCAL_OUTPUT_START = /^\s*<(?:local-command-stdout|local-command-stderr|bash-stdout|bash-stderr)>/;
const LOCAL_CAVEAT = 'Caveat: The messages below were generated by the user while running local commands';
const INTERRUPT_START = '[Request interrupted by user';
const COMMAND_NAME = /<command-name>\s*([^<]*?)\s*<\/command-name>/;

/** Classify a user line (see {@link UserLineKind}). */
export function classifyUserLine(record: UserRecord): UserLineKind {
  const content = record.message.content;
  if (typeof content !== 'string' && content.some((block) => block.type === 'tool_result')) return 'tool-result';
  if (record.isCompactSummary) return 'compact-summary';
  if (record.isMeta) return 'meta';
  const text = contentText(content);
  if (text.startsWith(INTERRUPT_START)) return 'interrupt';
  if (COMMAND_START.test(text)) return 'command';
  if (LOCAL_OUTPUT_START.test(text) || text.startsWith(LOCAL_CAVEAT)) return 'local-output';
  const hasImage = typeof content !== 'string' && content.some((block) => block.type === 'image');
  if (text.trim() === '' && !hasImage) return 'meta';
  return 'prompt';
}

function toTokenUsage(usage: Usage): TokenUsage {
  const inputTokens = usage.input_tokens ?? 0;
  const cacheReadInputTokens = usage.cache_read_input_tokens ?? 0;
  const cacheCreationInputTokens = usage.cache_creation_input_tokens ?? 0;
  return {
    inputTokens,
    outputTokens: usage.output_tokens ?? 0,
    cacheReadInputTokens,
    cacheCreationInputTokens,
    contextTokens: inputTokens + cacheReadInputTokens + cacheCreationInputTokens,
  };
}

function cut(text: string, max: number): { text: string; truncated: boolean } {
  return text.length <= max ? { text, truncated: false } : { text: `${text.slice(0, max)}… [${text.length - max} more characters]`, truncated: true };
}

/** A copy of `value` with long strings cut, or `value` itself when nothing is long. */
function capStrings(value: unknown, max: number, depth = 0): unknown {
  if (typeof value === 'string') return value.length > max ? cut(value, max).text : value;
  if (depth > 8 || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | null = null;
    value.forEach((item, i) => {
      const capped = capStrings(item, max, depth + 1);
      if (capped !== item) (copy ??= [...value])[i] = capped;
    });
    return copy ?? value;
  }
  let copy: Record<string, unknown> | null = null;
  for (const [key, item] of Object.entries(value)) {
    const capped = capStrings(item, max, depth + 1);
    if (capped !== item) (copy ??= { ...(value as Record<string, unknown>) })[key] = capped;
  }
  return copy ?? value;
}

/** Appends texts up to a cap, remembering whether anything was dropped. */
class CappedText {
  private parts: string[] = [];
  private length = 0;
  truncated = false;

  constructor(
    private readonly max: number,
    private readonly separator: string,
  ) {}

  add(text: string): void {
    if (text === '') return;
    const room = this.max - this.length;
    if (room <= 0) {
      this.truncated = true;
      return;
    }
    const piece = text.length > room ? cut(text, room).text : text;
    if (text.length > room) this.truncated = true;
    this.parts.push(piece);
    this.length += piece.length + this.separator.length;
  }

  get text(): string {
    return this.parts.join(this.separator);
  }
}

interface Draft {
  turn: Turn;
  user: CappedText;
  assistant: CappedText;
  final: CappedText;
  finalKey: string | null;
  messageKeys: Set<string>;
  toolsById: Map<string, ToolCall>;
  /** The last user/assistant line was an assistant line (for `closeTrailingTurn: 'if-answered'`). */
  lastWasAssistant: boolean;
  /** The message id (or uuid) of the last assistant response. */
  lastResponseKey: string | null;
}

/** How the assembler sorts lines into turns. */
export interface TurnAssemblerOptions {
  /** Which lines make turns: the main conversation, or a sub-agent's (`isSidechain: true`). */
  chain: 'main' | 'sidechain';
  /** Where the first turn starts (the read's start offset). */
  startOffset: number;
  limits?: Partial<TurnLimits>;
}

/**
 * Builds turns from events in file order. `add` returns the turn an event completed, if any (at
 * most one per event); `openTurn` shows the turn in progress; `close` ends it on the caller's word.
 */
export class TurnAssembler {
  private draft: Draft | null = null;
  /** Where the next turn starts: the end of the last completed one. */
  private boundary: number;
  /** Lines seen since the last turn ended and before the next began. */
  private preamble = { lines: 0, skipped: 0, otherChain: 0, compactions: [] as CompactBoundary[] };
  private readonly limits: TurnLimits;

  constructor(private readonly options: TurnAssemblerOptions) {
    this.boundary = options.startOffset;
    this.limits = { ...DEFAULT_TURN_LIMITS, ...options.limits };
  }

  /** Just past the last completed turn: where a cursor may be placed. */
  get completedTo(): number {
    return this.boundary;
  }

  add(event: TranscriptEvent): Turn | null {
    if (event.kind === 'skipped') return this.addSkipped(event);
    const { record } = event;
    if (record.type === 'user' || record.type === 'assistant') {
      if (Boolean(record.isSidechain) !== (this.options.chain === 'sidechain')) return this.addOther(event, 'otherChain');
      return record.type === 'user' ? this.addUser(record, event) : this.addAssistant(record, event);
    }
    const compaction = isCompactBoundary(record)
      ? {
          uuid: record.uuid ?? null,
          timestamp: record.timestamp ?? null,
          trigger: record.compactMetadata?.trigger ?? null,
          preTokens: record.compactMetadata?.preTokens ?? null,
          offset: event.offset,
        }
      : null;
    if (this.draft) {
      this.extend(this.draft, event.end, null);
      if (compaction) this.draft.turn.compactions.push(compaction);
    } else {
      this.preamble.lines++;
      if (compaction) this.preamble.compactions.push(compaction);
    }
    return null;
  }

  /** The turn in progress, as it stands (`complete: false`), or null. */
  openTurn(): Turn | null {
    return this.draft ? this.finish(this.draft, null) : null;
  }

  /** Whether the open turn's last message is the assistant's, with every tool call answered. */
  openTurnAnswered(): boolean {
    const draft = this.draft;
    return !!draft && draft.lastWasAssistant && draft.turn.toolCalls.every((call) => call.result !== null);
  }

  /** End the open turn on the caller's word (Stop hook, session end, quiet transcript). */
  close(): Turn | null {
    return this.draft ? this.complete('closed-by-caller') : null;
  }

  private addSkipped(event: Extract<TranscriptEvent, { kind: 'skipped' }>): Turn | null {
    const sniff = event.sniff;
    // An oversize user line that is not a tool result is a prompt with pasted images: it must
    // still open a turn, or its answer would be glued to the previous prompt.
    if (sniff?.type === 'user' && !sniff.toolUseId) {
      const done = this.draft ? this.complete('next-prompt') : null;
      const draft = this.begin('prompt', event.offset);
      this.extend(draft, event.end, sniff.timestamp);
      draft.turn.skippedLines++;
      draft.turn.truncated = true;
      if (sniff.uuid) this.anchor(draft, sniff.uuid, event.offset);
      return done;
    }
    if (sniff?.toolUseId && this.draft) {
      const call = this.draft.toolsById.get(sniff.toolUseId);
      if (call) call.result = { isError: false, text: '[result too large to read]', truncated: true, uuid: sniff.uuid, timestamp: sniff.timestamp };
    }
    return this.addOther(event, 'skipped');
  }

  private addOther(event: TranscriptEvent, what: 'skipped' | 'otherChain'): null {
    const counter = what === 'skipped' ? 'skippedLines' : 'otherChainLines';
    if (this.draft) {
      this.extend(this.draft, event.end, null);
      this.draft.turn[counter]++;
    } else {
      this.preamble.lines++;
      this.preamble[what === 'skipped' ? 'skipped' : 'otherChain']++;
    }
    return null;
  }

  private addUser(record: UserRecord, event: TranscriptEvent): Turn | null {
    const kind = classifyUserLine(record);
    let done: Turn | null = null;
    let draft = this.draft;
    if (kind === 'prompt' || kind === 'command') {
      if (draft) done = this.complete('next-prompt');
      draft = this.begin(kind, event.offset);
      this.adopt(draft, record);
      const content = record.message.content;
      const text = contentText(content);
      draft.user.add(text);
      if (typeof content !== 'string') draft.turn.userImages = content.filter((block) => block.type === 'image').length;
      if (kind === 'command') draft.turn.command = COMMAND_NAME.exec(text)?.[1] ?? null;
    } else if (!draft) {
      if (kind !== 'tool-result') {
        this.preamble.lines++;
        return null;
      }
      draft = this.begin('continuation', event.offset);
      this.adopt(draft, record);
    }
    this.extend(draft, event.end, record.timestamp ?? null);
    this.anchor(draft, record.uuid, event.offset);
    draft.lastWasAssistant = false;
    const content = record.message.content;
    draft.turn.charsAfterUsage +=
      typeof content === 'string'
        ? content.length
        : content.reduce((n, block) => n + (block.type === 'tool_result' ? toolResultText(block).length : block.type === 'text' ? block.text.length : 0), 0);
    if (kind === 'tool-result' && typeof record.message.content !== 'string') this.attachResults(draft, record, record.message.content);
    return kind === 'interrupt' ? this.complete('interrupted') : done;
  }

  private addAssistant(record: AssistantRecord, event: TranscriptEvent): Turn | null {
    const draft = this.draft ?? this.begin('continuation', event.offset);
    this.adopt(draft, record);
    this.extend(draft, event.end, record.timestamp ?? null);
    this.anchor(draft, record.uuid, event.offset);
    draft.lastWasAssistant = true;
    const message = record.message;
    // One response spans several lines with the same message.id, one content block each.
    const key = message.id ?? record.uuid;
    if (draft.messageKeys.has(key)) draft.turn.mergedLines++;
    else {
      draft.messageKeys.add(key);
      draft.turn.assistantMessages++;
    }
    const blocks: ContentBlock[] = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    if (draft.lastResponseKey !== key) {
      draft.lastResponseKey = key;
      draft.turn.lastResponseToolCalls = 0;
    }
    for (const block of blocks) {
      if (block.type === 'tool_use') draft.turn.lastResponseToolCalls++;
      draft.turn.charsAfterUsage += block.type === 'text' ? block.text.length : block.type === 'tool_use' ? JSON.stringify(block.input ?? {}).length : 0;
      if (block.type === 'text') {
        draft.assistant.add(block.text);
        if (draft.finalKey !== key) {
          draft.final = new CappedText(this.limits.maxTextChars, '\n\n');
          draft.finalKey = key;
        }
        draft.final.add(block.text);
      } else if (block.type === 'tool_use' && !draft.toolsById.has(block.id)) {
        const input = capStrings(block.input, this.limits.maxToolInputChars) as Record<string, unknown>;
        const rawPath = block.input.file_path ?? block.input.notebook_path;
        const call: ToolCall = {
          id: block.id,
          name: block.name,
          input,
          filePath: typeof rawPath === 'string' ? rawPath : null,
          cwd: record.cwd ?? draft.turn.cwd,
          uuid: record.uuid,
          messageId: message.id ?? null,
          timestamp: record.timestamp ?? null,
          result: null,
        };
        draft.toolsById.set(block.id, call);
        draft.turn.toolCalls.push(call);
      }
    }
    if (message.model) draft.turn.model = message.model;
    // Claude Code's own error messages (model `<synthetic>`) report zero tokens: not the context.
    if (message.usage && message.model !== '<synthetic>' && !record.isApiErrorMessage) {
      draft.turn.usage = toTokenUsage(message.usage);
      draft.turn.charsAfterUsage = 0;
    }
    return message.stop_reason && FINAL_STOP_REASONS.has(message.stop_reason) ? this.complete('end_turn') : null;
  }

  private attachResults(draft: Draft, record: UserRecord, blocks: ContentBlock[]): void {
    for (const block of blocks) {
      if (block.type !== 'tool_result') continue;
      const call = draft.toolsById.get(block.tool_use_id);
      if (!call) continue;
      const { text, truncated } = cut(toolResultText(block), this.limits.maxToolResultChars);
      call.result = { isError: block.is_error === true, text, truncated, uuid: record.uuid, timestamp: record.timestamp ?? null };
    }
  }

  private begin(start: TurnStart, offset: number): Draft {
    const limits = this.limits;
    const pre = this.preamble;
    const turn: Turn = {
      sessionId: null,
      start,
      command: null,
      userText: '',
      userImages: 0,
      assistantText: '',
      finalAssistantText: '',
      toolCalls: [],
      firstUuid: null,
      lastUuid: null,
      lastUuidOffset: null,
      startedAt: null,
      endedAt: null,
      complete: false,
      endReason: null,
      usage: null,
      charsAfterUsage: 0,
      lastResponseToolCalls: 0,
      model: null,
      cwd: null,
      gitBranch: null,
      version: null,
      isSidechain: this.options.chain === 'sidechain',
      agentId: null,
      startOffset: this.boundary,
      endOffset: offset,
      compactions: pre.compactions,
      assistantMessages: 0,
      mergedLines: 0,
      lines: pre.lines,
      skippedLines: pre.skipped,
      otherChainLines: pre.otherChain,
      truncated: false,
    };
    this.preamble = { lines: 0, skipped: 0, otherChain: 0, compactions: [] };
    this.draft = {
      turn,
      user: new CappedText(limits.maxTextChars, '\n'),
      assistant: new CappedText(limits.maxTextChars, '\n\n'),
      final: new CappedText(limits.maxTextChars, '\n\n'),
      finalKey: null,
      messageKeys: new Set(),
      toolsById: new Map(),
      lastWasAssistant: false,
      lastResponseKey: null,
    };
    return this.draft;
  }

  /** Session facts from the turn's first message. */
  private adopt(draft: Draft, record: UserRecord | AssistantRecord): void {
    const turn = draft.turn;
    turn.sessionId ??= record.sessionId ?? null;
    turn.cwd ??= record.cwd ?? null;
    turn.gitBranch ??= record.gitBranch ?? null;
    turn.version ??= record.version ?? null;
    turn.agentId ??= record.agentId ?? null;
  }

  private extend(draft: Draft, end: number, timestamp: string | null): void {
    const turn = draft.turn;
    turn.lines++;
    turn.endOffset = end;
    if (timestamp) {
      turn.startedAt ??= timestamp;
      turn.endedAt = timestamp;
    }
  }

  private anchor(draft: Draft, uuid: string, offset: number): void {
    draft.turn.firstUuid ??= uuid;
    draft.turn.lastUuid = uuid;
    draft.turn.lastUuidOffset = offset;
  }

  private complete(reason: TurnEnd): Turn {
    const draft = this.draft!;
    this.draft = null;
    this.boundary = draft.turn.endOffset;
    return this.finish(draft, reason);
  }

  private finish(draft: Draft, reason: TurnEnd | null): Turn {
    return {
      ...draft.turn,
      userText: draft.user.text,
      assistantText: draft.assistant.text,
      finalAssistantText: draft.final.text,
      toolCalls: reason === null ? draft.turn.toolCalls.map((call) => ({ ...call })) : draft.turn.toolCalls,
      compactions: [...draft.turn.compactions],
      complete: reason !== null,
      endReason: reason,
      truncated:
        draft.turn.truncated ||
        draft.user.truncated ||
        draft.assistant.truncated ||
        draft.final.truncated ||
        draft.turn.toolCalls.some((c) => c.result?.truncated),
    };
  }
}

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
