/**
 * Claude Code's recall side request, byte for byte (R-RECALL-SELECT as Claude Code 2.1.332 sends
 * it; the committed captures in test/fixtures/claude-code/ are the ground truth, see
 * selector-request.test.ts). The selector is a conversation per session:
 *   system    its fixed prompt (below), cached;
 *   user      `Available memories:\n<manifest>` — built once, at the session's first recall, and
 *             kept for the whole session (memories written later are not offered), cached;
 *   user/assistant  each earlier query of the session (`Select memories relevant to:\n<query>`)
 *             with the model's answer as it came;
 *   user      `Select memories relevant to:\n<query>`, cached.
 * `max_tokens` is 512, plus 2,048 with thinking left on for models that cannot turn it off
 * (others get `thinking: {type: "disabled"}`); the answer is constrained by the JSON schema
 * `{selected_memories: string[]}` through `output_config.format`. Claude Code also sends a
 * billing-attribution text block first in `system` and a `metadata.user_id`; Memdir, not being
 * Claude Code, sends neither.
 *
 * Older Claude Code (2.1.88, where SPEC R-RECALL-SELECT was read) sent one user message
 * `Query: …\n\nAvailable memories:\n…` with a `Recently used tools:` line and max_tokens 256;
 * 2.1.332 has none of that.
 */
import type { SelectorRequestView } from '../../../shared/recall-types.js';
import type { ClaudeCodeMemoryHeader } from './scan-memories.js';

/** The Claude Code release whose selector this file replicates. */
export const CLAUDE_CODE_RECALL_VERSION = '2.1.332';

/** Claude Code's selector system prompt (2.1.332), verbatim. */
export const SELECTOR_SYSTEM_PROMPT = `You are selecting memories that will be useful to Claude Code as it processes a user's query. The first message lists the available memory files with their filenames and descriptions; subsequent messages each contain one user query.

Return a list of filenames for the memories that will clearly be useful to Claude Code as it processes the user's query (up to 5). Only include memories that you are certain will be helpful based on their name and description.
- If you are unsure if a memory will be useful in processing the user's query, then do not include it in your list. Be selective and discerning.
- If there are no memories in the list that would clearly be useful, feel free to return an empty list.
- Be especially conservative with user-profile and project-overview memories ([user], [project]). These describe the user's ongoing focus, not what every question is about. A profile saying "works on DB performance" is NOT relevant to a question that merely contains the word "performance" unless the question is actually about that DB work. Match on what the question IS ABOUT, not on surface keyword overlap with who the user is.
- Do not re-select memories you already returned for an earlier query in this conversation.

Reply with only a JSON object of the form {"selected_memories": ["<filename>", ...]}.
`;

/** The answer schema Claude Code sends as `output_config.format`. */
export const SELECTOR_OUTPUT_CONFIG = {
  format: {
    type: 'json_schema',
    schema: {
      type: 'object',
      properties: { selected_memories: { type: 'array', items: { type: 'string' } } },
      required: ['selected_memories'],
      additionalProperties: false,
    },
  },
} as const;

const SELECTOR_MAX_TOKENS = 512;
const THINKING_BUDGET = 2_048;
/** How each query is put to the selector. */
export const QUERY_PREFIX = 'Select memories relevant to:\n';

/**
 * Models for which Claude Code turns thinking off in this request (its list in 2.1.332); every
 * other first-party model keeps thinking on and gets 2,048 more tokens.
 */
const THINKING_OFF_MODELS = new Set([
  'claude-opus-4-0',
  'claude-opus-4-1',
  'claude-opus-4-5',
  'claude-opus-4-6',
  'claude-opus-4-7',
  'claude-opus-4-8',
  'claude-opus-5',
  'claude-sonnet-4-0',
  'claude-sonnet-4-5',
  'claude-sonnet-4-6',
  'claude-sonnet-5',
  'claude-haiku-4-5',
]);

/** A model id as Claude Code compares it: no `[1m]`-style suffix, no date, no provider prefix. */
function canonicalModel(model: string): string {
  return model
    .toLowerCase()
    .replace(/\[[^\]]*\]$/, '')
    .replace(/^(?:[a-z]{2}\.)?anthropic\./, '')
    .replace(/(?:-v\d+(?::\d+)?|@\d{8})$/, '')
    .replace(/-\d{8}$/, '')
    .replace(/-latest$/, '');
}

/** `max_tokens` and `thinking` as Claude Code sets them for this model. */
export function selectorBudget(model: string): { maxTokens: number; thinking: { type: 'disabled' } | null } {
  const name = canonicalModel(model);
  if (name.includes('claude-3-') || THINKING_OFF_MODELS.has(name)) return { maxTokens: SELECTOR_MAX_TOKENS, thinking: { type: 'disabled' } };
  return { maxTokens: SELECTOR_MAX_TOKENS + THINKING_BUDGET, thinking: null };
}

/** One manifest line: `- [type] path (ISO mtime): description`, the parts Claude Code omits left out. */
export function manifestLine(memory: ClaudeCodeMemoryHeader): string {
  const line = `- ${memory.type ? `[${memory.type}] ` : ''}${memory.file} (${new Date(memory.mtimeMs).toISOString()})`;
  return memory.description ? `${line}: ${memory.description}` : line;
}

/** The session's first selector message: every offered memory, newest first. */
export function manifestMessage(memories: readonly ClaudeCodeMemoryHeader[]): string {
  return `Available memories:\n${memories.map(manifestLine).join('\n')}`;
}

/** An earlier query of the session and the model's answer, as the selector conversation keeps them. */
export interface SelectorTurn {
  query: string;
  answer: string;
}

/** The request body Claude Code sends for a query (what the provider receives, minus transport headers). */
export type SelectorRequest = SelectorRequestView;

const CACHED = { type: 'ephemeral' } as const;

/** Build the selector request for `query`, after `turns` earlier in the same session. */
export function buildSelectorRequest(options: { model: string; manifest: string; turns: readonly SelectorTurn[]; query: string }): SelectorRequest {
  const budget = selectorBudget(options.model);
  const messages: SelectorRequest['messages'] = [{ role: 'user', content: [{ type: 'text', text: options.manifest, cache_control: CACHED }] }];
  for (const turn of options.turns) {
    messages.push({ role: 'user', content: [{ type: 'text', text: QUERY_PREFIX + turn.query }] });
    messages.push({ role: 'assistant', content: [{ type: 'text', text: turn.answer }] });
  }
  messages.push({ role: 'user', content: [{ type: 'text', text: QUERY_PREFIX + options.query, cache_control: CACHED }] });
  return {
    model: options.model,
    max_tokens: budget.maxTokens,
    system: [{ type: 'text', text: SELECTOR_SYSTEM_PROMPT, cache_control: CACHED }],
    messages,
    output_config: structuredClone(SELECTOR_OUTPUT_CONFIG) as SelectorRequest['output_config'],
    ...(budget.thinking ? { thinking: budget.thinking } : {}),
  };
}

/** A name the model gave that Claude Code did not load, and why. */
export interface DroppedName {
  file: string;
  reason: string;
}

const TYPE_PREFIX = /^\[(?:user|feedback|project|reference|account)\]\s+/;

/**
 * Read the selector's answer as Claude Code does: code fences trimmed, JSON parsed, a
 * `[type] ` prefix removed from a name that is not itself a file, unknown names dropped. Any
 * failure — a cut-off answer, no text, bad JSON, the wrong shape — selects nothing.
 */
export function parseSelectorAnswer(
  answer: { text: string | null; stopReason: string | null },
  known: ReadonlySet<string>,
): { names: string[]; dropped: DroppedName[]; failure: string | null; jsonParsed: boolean } {
  const fail = (failure: string, jsonParsed = false) => ({ names: [], dropped: [], failure, jsonParsed });
  if (answer.stopReason === 'max_tokens') return fail('The answer was cut off at max_tokens: Claude Code loads no memory then.');
  if (answer.text === null) return fail('The answer had no text: Claude Code loads no memory then.');
  let raw: unknown;
  try {
    raw = JSON.parse(
      answer.text
        .trim()
        .replace(/^```[a-zA-Z]*\s*/, '')
        .replace(/\s*```$/, '')
        .trim(),
    );
  } catch {
    return fail('The answer was not JSON: Claude Code loads no memory then.');
  }
  const list = (raw as { selected_memories?: unknown } | null)?.selected_memories;
  if (!Array.isArray(list)) return fail('The answer had no selected_memories list: Claude Code loads no memory then.', true);
  const names: string[] = [];
  const dropped: DroppedName[] = [];
  for (const item of list) {
    const name = typeof item !== 'string' || known.has(item) ? item : item.replace(TYPE_PREFIX, '');
    if (typeof name === 'string' && known.has(name)) names.push(name);
    else dropped.push({ file: typeof item === 'string' ? item : JSON.stringify(item), reason: 'not in the manifest' });
  }
  return { names, dropped, failure: null, jsonParsed: true };
}
