/**
 * A turn as the transcripts module gives it (see turn-assembler.ts for how one is cut out of a
 * transcript): a digest of what was asked, done and answered, with the limits that keep it small.
 */

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
  /**
   * The session a copied turn was answered in, when its assistant lines say one other than their
   * own (`--fork-session` copies the source session's turns into the fork); null for its own turns.
   */
  copiedFrom: string | null;
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
