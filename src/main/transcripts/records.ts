/**
 * The lines of a Claude Code transcript as typed records (SPEC §8), validated leniently with zod:
 * fields we rely on (`type`, `uuid`, `message.content`) must have their shape or the line is
 * skipped and counted; every other field degrades to `undefined` when it is odd, so one strange
 * field never costs a whole message. Fields we never use (`toolUseResult`, image data, thinking
 * signatures) are stripped here so they can be collected as soon as the line is parsed.
 *
 * Record fields keep the file's own names (snake_case inside `message`), so a record reads like
 * the line it came from.
 */
import * as z from 'zod';
import { firstIssueSentence } from '../../shared/issue-sentence.js';
import { isRecord } from '../../shared/is-record.js';

/** A field that is `undefined` when missing, null or of the wrong type: never fatal. */
const lenient = <T extends z.ZodType>(schema: T) => schema.nullish().catch(undefined);
const str = lenient(z.string());
const bool = lenient(z.boolean());
const num = lenient(z.number());

/** Token counts of one API response (R-SESSION uses them to measure context growth). */
export const UsageSchema = z.object({
  input_tokens: num,
  output_tokens: num,
  cache_read_input_tokens: num,
  cache_creation_input_tokens: num,
});
/** Token counts as written in the file (snake_case); see `TokenUsage` for the digest form. */
export type Usage = z.infer<typeof UsageSchema>;

const TextBlockSchema = z.object({ type: z.literal('text'), text: z.string() });
const ThinkingBlockSchema = z.object({ type: z.literal('thinking'), thinking: lenient(z.string()) });
const RedactedThinkingBlockSchema = z.object({ type: z.literal('redacted_thinking') });
const ToolUseBlockSchema = z.object({
  type: z.literal('tool_use'),
  id: z.string(),
  name: z.string(),
  // Not copied key by key: tool inputs are free-form and can be large (a Write's content).
  input: z.custom<Record<string, unknown>>(isRecord).catch(() => ({})),
});
/** Blocks inside a tool result: text and images mostly, kept as they are. */
const NestedBlockSchema = z.looseObject({ type: z.string() });
const ToolResultBlockSchema = z.object({
  type: z.literal('tool_result'),
  tool_use_id: z.string(),
  content: lenient(z.union([z.string(), z.array(NestedBlockSchema)])),
  is_error: bool,
});
const ImageBlockSchema = z.object({
  type: z.literal('image'),
  // The base64 `data` is dropped: only the fact that an image was there is used.
  source: lenient(z.object({ type: str, media_type: str })),
});
/** A block type we do not know (new ones appear): kept as a marker, never fatal. */
const UnknownBlockSchema = z.looseObject({ type: z.string() }).transform((block) => ({ type: 'unknown' as const, originalType: block.type }));

const KnownBlockSchema = z.discriminatedUnion('type', [
  TextBlockSchema,
  ThinkingBlockSchema,
  RedactedThinkingBlockSchema,
  ToolUseBlockSchema,
  ToolResultBlockSchema,
  ImageBlockSchema,
]);
const ContentBlockSchema = z.union([KnownBlockSchema, UnknownBlockSchema]);
const ContentSchema = z.union([z.string(), z.array(ContentBlockSchema)]);

/** Content blocks of a message (SPEC §8); unknown block types become `{ type: 'unknown' }`. */
export type TextBlock = z.infer<typeof TextBlockSchema>;
export type ThinkingBlock = z.infer<typeof ThinkingBlockSchema>;
export type ToolUseBlock = z.infer<typeof ToolUseBlockSchema>;
export type ToolResultBlock = z.infer<typeof ToolResultBlockSchema>;
export type ImageBlock = z.infer<typeof ImageBlockSchema>;
export type ContentBlock = z.infer<typeof ContentBlockSchema>;
/** `message.content`: a plain string or blocks. */
export type MessageContent = z.infer<typeof ContentSchema>;

/** Fields every user and assistant line carries (SPEC §8). */
const envelope = {
  uuid: z.string(),
  parentUuid: str,
  sessionId: str,
  timestamp: str,
  cwd: str,
  gitBranch: str,
  version: str,
  isSidechain: bool,
  /** Set on sub-agent lines. */
  agentId: str,
};

const UserRecordSchema = z.object({
  type: z.literal('user'),
  ...envelope,
  message: z.object({ role: str, content: ContentSchema }),
  /** Injected by Claude Code rather than typed by the user (caveats, expanded commands). */
  isMeta: bool,
  /** The summary a compaction leaves as the first message after the boundary. */
  isCompactSummary: bool,
});

const AssistantRecordSchema = z.object({
  type: z.literal('assistant'),
  ...envelope,
  message: z.object({
    /** The API response id: one response may span several lines with the same id. */
    id: str,
    role: str,
    model: str,
    content: ContentSchema,
    stop_reason: str,
    usage: lenient(UsageSchema),
  }),
  requestId: str,
  /**
   * The session the request was made in. `--fork-session` copies the source's lines into the new
   * transcript with `sessionId` rewritten and this left as the source's (measured, 2.1.332).
   */
  requestSessionId: str,
  /** A message Claude Code wrote itself for a failed request (model `<synthetic>`). */
  isApiErrorMessage: bool,
});

const SummaryRecordSchema = z.object({
  type: z.literal('summary'),
  summary: z.string(),
  leafUuid: str,
});

const SystemRecordSchema = z.object({
  type: z.literal('system'),
  /** `compact_boundary` marks a compaction; others are informational. */
  subtype: str,
  uuid: str,
  parentUuid: str,
  /** On a compact boundary: the last message before it (its `parentUuid` is null). */
  logicalParentUuid: str,
  sessionId: str,
  timestamp: str,
  cwd: str,
  isSidechain: bool,
  content: str,
  level: str,
  compactMetadata: lenient(z.object({ trigger: str, preTokens: num })),
});

const FileHistorySnapshotRecordSchema = z.object({
  type: z.literal('file-history-snapshot'),
  messageId: str,
  isSnapshotUpdate: bool,
  snapshot: lenient(
    z.object({
      messageId: str,
      timestamp: str,
      /** Keyed by the path of each file Claude Code backed up before editing it. */
      trackedFileBackups: lenient(z.record(z.string(), z.unknown())),
    }),
  ),
});

const QueueOperationRecordSchema = z.object({
  type: z.literal('queue-operation'),
  operation: z.string(),
  timestamp: str,
  sessionId: str,
  content: str,
});

/** The record types, as validated (file field names; odd optional fields are `undefined`). */
export type UserRecord = z.infer<typeof UserRecordSchema>;
export type AssistantRecord = z.infer<typeof AssistantRecordSchema>;
export type SummaryRecord = z.infer<typeof SummaryRecordSchema>;
export type SystemRecord = z.infer<typeof SystemRecordSchema>;
export type FileHistorySnapshotRecord = z.infer<typeof FileHistorySnapshotRecordSchema>;
export type QueueOperationRecord = z.infer<typeof QueueOperationRecordSchema>;

/** One transcript line of a type we know. */
export type TranscriptRecord = UserRecord | AssistantRecord | SummaryRecord | SystemRecord | FileHistorySnapshotRecord | QueueOperationRecord;

const SCHEMAS: ReadonlyMap<string, z.ZodType<TranscriptRecord>> = new Map<string, z.ZodType<TranscriptRecord>>([
  ['user', UserRecordSchema],
  ['assistant', AssistantRecordSchema],
  ['summary', SummaryRecordSchema],
  ['system', SystemRecordSchema],
  ['file-history-snapshot', FileHistorySnapshotRecordSchema],
  ['queue-operation', QueueOperationRecordSchema],
]);

/** The record types this reader understands; any other `type` is skipped and counted. */
export const KNOWN_RECORD_TYPES: readonly string[] = [...SCHEMAS.keys()];

/** What one line turned out to be. */
export type ParsedLine =
  | { kind: 'record'; record: TranscriptRecord }
  | { kind: 'blank' }
  /** Not JSON at all (garbage, or a line cut short). */
  | { kind: 'malformed'; reason: string }
  /** JSON, but not the shape of a transcript line (or of its declared type). */
  | { kind: 'invalid'; type: string | null; reason: string }
  /** A well-formed line of a type this reader does not know: new ones appear (SPEC §8). */
  | { kind: 'unknown'; type: string };

function describeIssue(error: z.ZodError): string {
  return firstIssueSentence(error.issues);
}

/** Parse and validate one line's text. Never throws. */
export function parseTranscriptLine(text: string): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    if (text.trim() === '') return { kind: 'blank' };
    return { kind: 'malformed', reason: error instanceof Error ? error.message : String(error) };
  }
  if (!isRecord(value)) return { kind: 'invalid', type: null, reason: 'not a JSON object' };
  const type = value.type;
  if (typeof type !== 'string') return { kind: 'invalid', type: null, reason: 'no "type" field' };
  const schema = SCHEMAS.get(type);
  if (!schema) return { kind: 'unknown', type };
  const parsed = schema.safeParse(value);
  return parsed.success ? { kind: 'record', record: parsed.data } : { kind: 'invalid', type, reason: describeIssue(parsed.error) };
}

/** The text of a message's content: the string itself, or its text blocks joined. */
export function contentText(content: MessageContent): string {
  if (typeof content === 'string') return content;
  let text = '';
  for (const block of content) {
    if (block.type === 'text') text = text ? `${text}\n${block.text}` : block.text;
  }
  return text;
}

/** The text of a tool result, whatever form its content took. */
export function toolResultText(block: ToolResultBlock): string {
  const content = block.content;
  if (content == null) return '';
  if (typeof content === 'string') return content;
  return content.map((part) => (part.type === 'text' && typeof part.text === 'string' ? part.text : `[${part.type}]`)).join('\n');
}

/** A `system` line that marks where Claude Code compacted the conversation. */
export function isCompactBoundary(record: TranscriptRecord): record is SystemRecord {
  return record.type === 'system' && record.subtype === 'compact_boundary';
}
