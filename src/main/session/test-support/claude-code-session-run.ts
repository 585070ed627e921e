/**
 * R-SESSION against the real Claude Code: the session the client ran offline
 * (session/claude-code-interop.test.ts) and what Memdir must count in the transcript it wrote
 * (recorded in test/fixtures/claude-code-session/, replayed by
 * test/fidelity/session-thresholds.test.ts).
 *
 * Turn 1 asks to fix a test: the model answers with three `Read` calls in one response (the
 * client writes it as three transcript lines with one message id), then with text; turn 2 is a
 * text answer. Their usage takes the context past every threshold of Claude Code 2.1.88's
 * Session Memory: 12,700 tokens after the first response (≥ 10,000: started), then 14,800 and
 * 19,100 with three tool calls since the start (≥ 5,000 more and ≥ 3 tool calls: an update due).
 */
import path from 'node:path';
import type { FakeMessageReply } from '../../llm/test-support/fake-anthropic.js';

/** The recorded transcript. */
export const SESSION_TRANSCRIPT_FIXTURE = path.resolve(import.meta.dirname, '../../../../test/fixtures/claude-code-session/two-turns-2.1.332.jsonl');

/** The prompts and the model's scripted answers (the tool calls are added where the file is known). */
export const SESSION_RUN = {
  prompts: ['fix the failing checkout test', 'now update the docs'] as const,
  toolTurn: {
    kind: 'message',
    stopReason: 'tool_use',
    usage: { input_tokens: 11_000, cache_creation_input_tokens: 500, cache_read_input_tokens: 1_000, output_tokens: 200 },
  },
  afterTools: {
    kind: 'message',
    text: 'Fixed: the test awaited nothing.',
    usage: { input_tokens: 12_500, cache_creation_input_tokens: 0, cache_read_input_tokens: 2_000, output_tokens: 300 },
  },
  secondTurn: {
    kind: 'message',
    text: 'Docs updated.',
    usage: { input_tokens: 19_000, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 100 },
  },
} satisfies { prompts: readonly string[]; toolTurn: FakeMessageReply; afterTools: FakeMessageReply; secondTurn: FakeMessageReply };

function contextOf(reply: FakeMessageReply): number {
  const u = reply.usage!;
  return (u.input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0) + (u.output_tokens ?? 0);
}

/**
 * What Memdir's Session Memory must report for the transcript read up to the end of turn 1
 * (`turns: 1`) or whole (2), with no note written yet: R-SESSION's context (the last response's
 * tokens; nothing follows it) and counters.
 */
export function expectedSessionCounts(turns: 1 | 2 = 2) {
  const context = contextOf(turns === 1 ? SESSION_RUN.afterTools : SESSION_RUN.secondTurn);
  return {
    contextTokens: context,
    started: true,
    tokensSinceUpdate: context,
    toolCallsSinceUpdate: 3,
    lastResponseUsedTools: false,
    due: true,
    tokensToNext: 0,
    toolCallsToNext: 0,
  };
}
