/**
 * The extraction request (R-EXTRACT): the new turns, the current index and memory manifest,
 * and the rules of what belongs in memory (R-TYPES) and what never does (R-NOTSAVE); and the
 * parsing of the model's answer — JSON operations, read leniently as a whole (fences, prose
 * around it) and validated one by one afterwards (validate-operation.ts), so one bad operation
 * never costs the good ones.
 */
import * as z from 'zod';
import { MEMORY_TYPES, TYPE_DESCRIPTIONS } from '../../shared/memory-types.js';
import type { MemorySummary } from '../../shared/scan-types.js';
import type { Turn } from '../transcripts/index.js';
import { MemdirError } from '../../shared/errors.js';
import { STORE_FILE_SIZE_RULE } from '../memdir/index.js';

/** Budget of the turns part of one request (about 15k tokens). */
export const MAX_TURNS_CHARS = 60_000;
/** Budget of the index and manifest part. */
export const MAX_CONTEXT_CHARS = 40_000;
/** The answer: a few operations with short bodies. */
export const MAX_ANSWER_TOKENS = 4_000;

/**
 * Which memories go to the team, in Claude Code 2.1.332's words to its own extraction agent with
 * team memory on (test/fixtures/claude-code-extract/observed-team-2.1.332.json). The client turns
 * that mode on only with a team store in CLAUDE_MEMORY_STORES (memory-store mode), where it sends
 * no MEMORY.md at all and asks for no pointer (observed-stores-2.1.332.json): Memdir's prompt then
 * says so and gives the client's 4KB rule in its words. Without stores Memdir models the layout
 * where MEMORY.md is loaded and its `team/x.md` lines bring team memories
 * (test/fixtures/claude-code-index/observed-team.json) — that index sentence is Memdir's, not the
 * client's words. Without stores the client gives its agent no scope guidance at all: these are
 * the only words it has for it.
 */
const TEAM_SCOPE_GUIDANCE =
  '`user` memories are always private; default `feedback` to private, `project` and `reference` to team. Never write secrets or credentials to the team directory.';

/** Where MEMORY.md loads (no memory stores): the pointer each memory gets there. */
const INDEX_RULE =
  'Each memory gets a one-line pointer in the index MEMORY.md, the one index the agent loads each session: a private memory as x.md, a team memory as team/x.md (the pointers are written for you).';

/** In memory-store mode: no index loads, and the client's size rule. */
const STORE_MODE_RULE = `No index is loaded: Claude Code syncs this memory with its memory stores and offers the agent each memory by its description alone. ${STORE_FILE_SIZE_RULE}`;

/** The rules every automatic writer follows (R-TYPES, R-NOTSAVE), as the model reads them; `storeMode`: Claude Code's memory-store mode (claude-code-stores.ts inStoreMode). */
export function extractSystemPrompt({ storeMode }: { storeMode: boolean }): string {
  return EXTRACT_SYSTEM_PROMPT_TEMPLATE.replace('<index rule>', storeMode ? STORE_MODE_RULE : INDEX_RULE);
}

const EXTRACT_SYSTEM_PROMPT_TEMPLATE = `You maintain the long-term memory of an AI coding agent (Claude Code). After a conversation turn you decide whether anything in it is worth remembering in future sessions, and if so you write it as a memory.

A memory is a markdown topic file with a name, a one-line description and a type. Types:
${MEMORY_TYPES.map((t) => `- ${t}: ${TYPE_DESCRIPTIONS[t]}`).join('\n')}
Scopes: "private" (only this user) or "team" (shared with all users of this project). ${TEAM_SCOPE_GUIDANCE}
<index rule>

Only what cannot be derived from the project itself is worth saving. Never save:
- code patterns, conventions, architecture, file paths or project structure (the code says it);
- git history or who changed what (git says it);
- debugging recipes (the fix is in the code, the context in the commit);
- anything already in CLAUDE.md files;
- ephemeral task state (what is being done right now, todo lists, progress).
These rules hold even when the user explicitly asks to save such a thing: then keep only what was surprising or non-obvious about it.
Good memories: a correction the user made to the agent's behaviour and why; the user's role and preferences; decisions, deadlines and constraints of the project that are not written down in the code; where external resources are (dashboards, tickets, docs).
Most turns contain nothing worth saving: then answer with no operations.
Prefer updating an existing memory over creating a near-duplicate. Never save secrets (keys, tokens, passwords).
Convert relative dates to absolute ones ("tomorrow" → the date) using the turn's timestamp.

Answer with JSON only, no prose:
{"operations": [{"action": "create" | "update", "file": "feedback_no_orm.md", "scope": "private" | "team", "type": "user" | "feedback" | "project" | "reference", "name": "short title", "description": "one line used for recall", "body": "the memory in markdown: the fact, then **Why:** and **How to apply:** lines", "reason": "why this is worth remembering"}]}
For "update", give the existing file name and the complete new body. File names: lower case, type prefix, underscores, ".md", no folders.`;

/** {@link extractSystemPrompt} where MEMORY.md loads. */
export const EXTRACT_SYSTEM_PROMPT = extractSystemPrompt({ storeMode: false });

function cap(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… [${text.length - max} more characters]`;
}

/** A compact line per tool call: its name and what it touched, and a failed call's error. */
function toolLine(call: Turn['toolCalls'][number]): string {
  const input = call.input;
  const what =
    call.filePath ??
    (typeof input.command === 'string'
      ? input.command
      : typeof input.pattern === 'string'
        ? input.pattern
        : typeof input.url === 'string'
          ? input.url
          : typeof input.description === 'string'
            ? input.description
            : '');
  const error = call.result?.isError ? ` → error: ${cap(call.result.text.replace(/\s+/g, ' '), 300)}` : '';
  return `- ${call.name}${what ? ` ${cap(String(what).replace(/\s+/g, ' '), 200)}` : ''}${error}`;
}

/** One turn as the model reads it. */
export function describeTurn(turn: Turn, index: number): string {
  const parts = [`<turn n="${index + 1}"${turn.endedAt ? ` time="${turn.endedAt}"` : ''}>`];
  if (turn.userText) parts.push(`<user>\n${cap(turn.userText, 8_000)}\n</user>`);
  else if (turn.start === 'continuation') parts.push('<user>(no new prompt: the agent continued)</user>');
  if (turn.toolCalls.length > 0)
    parts.push(
      `<tools>\n${turn.toolCalls.slice(0, 40).map(toolLine).join('\n')}${turn.toolCalls.length > 40 ? `\n… ${turn.toolCalls.length - 40} more` : ''}\n</tools>`,
    );
  const answer = turn.finalAssistantText || turn.assistantText;
  if (answer) parts.push(`<assistant>\n${cap(answer, 6_000)}\n</assistant>`);
  parts.push('</turn>');
  return parts.join('\n');
}

/**
 * What the model is told about the memory that exists: MEMORY.md, the index the agent loads (its
 * `team/x.md` pointers load team memories; team/MEMORY.md loads nothing and is not shown; null in
 * memory-store mode, where none loads), and the memories of each scope (`teamMemories` null: the
 * project has no team memory).
 */
export interface ExtractContext {
  indexText: string | null;
  memories: readonly MemorySummary[];
  teamMemories: readonly MemorySummary[] | null;
}

/** The user message of an extraction request. */
export function buildExtractPrompt(turns: readonly Turn[], context: ExtractContext): string {
  const manifest = [
    ...context.memories.map((m) => `- ${m.file} [private, ${m.type ?? 'untyped'}] ${m.name}: ${m.description}`),
    ...(context.teamMemories ?? []).map((m) => `- ${m.file} [team, ${m.type ?? 'untyped'}] ${m.name}: ${m.description}`),
  ].join('\n');
  const memoryPart = cap(
    [
      ...(context.indexText === null ? [] : [`<memory_index>\n${context.indexText.trim() || '(empty)'}\n</memory_index>`]),
      ...(context.teamMemories === null ? ['<team_memory>(this project has no team memory: use "private")</team_memory>'] : []),
      `<existing_memories>\n${manifest || '(none)'}\n</existing_memories>`,
    ].join('\n\n'),
    MAX_CONTEXT_CHARS,
  );
  let turnsPart = turns.map(describeTurn).join('\n\n');
  if (turnsPart.length > MAX_TURNS_CHARS) turnsPart = `… (earlier part cut)\n${turnsPart.slice(turnsPart.length - MAX_TURNS_CHARS)}`;
  return `${memoryPart}\n\n<new_turns>\n${turnsPart}\n</new_turns>\n\nWhat from these turns, if anything, should be remembered? Answer with the JSON operations only.`;
}

/** The model's answer could not be read as a whole. */
export class ExtractAnswerError extends MemdirError<'bad-model-answer'> {
  override readonly name = 'ExtractAnswerError';
  constructor(message: string) {
    super('bad-model-answer', message);
  }
}

const answerSchema = z.union([z.object({ operations: z.array(z.unknown()) }).loose(), z.array(z.unknown())]);

/** The operations in a model's answer, unvalidated (see validate-operation.ts). */
export function parseExtractAnswer(text: string, stopReason: string | null = null): unknown[] {
  let body = text.trim();
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(body);
  if (fenced) body = fenced[1]!.trim();
  const start = body.search(/[[{]/);
  if (start < 0) {
    if (/^(?:none|nothing|no operations?)\.?$/i.test(body)) return [];
    throw new ExtractAnswerError(
      body ? `The model answered in prose instead of JSON ("${cap(body.replace(/\s+/g, ' '), 80)}").` : 'The model gave an empty answer.',
    );
  }
  const end = Math.max(body.lastIndexOf('}'), body.lastIndexOf(']'));
  let raw: unknown;
  try {
    raw = JSON.parse(body.slice(start, end + 1));
  } catch {
    throw new ExtractAnswerError(
      stopReason === 'max_tokens' ? "The model's answer was cut off before its JSON was complete." : "The model's answer was not valid JSON.",
    );
  }
  const parsed = answerSchema.safeParse(raw);
  if (!parsed.success) throw new ExtractAnswerError('The model answered JSON of the wrong shape (expected {"operations": [...]}).');
  return Array.isArray(parsed.data) ? parsed.data : parsed.data.operations;
}
