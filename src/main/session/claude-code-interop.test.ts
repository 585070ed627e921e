/**
 * R-SESSION against the real Claude Code: a two-turn session offline whose context passes every
 * Session Memory threshold of 2.1.88 (10,000 tokens, then 5,000 more with three tool calls).
 *   - 2.1.332 writes no Session Memory: no `<sessionId>/session-memory/summary.md`, and no request
 *     to the model besides the conversation's own (the spec's "2.1.332 has no Session Memory");
 *   - Memdir, reading the transcript the client wrote, counts what Claude Code 2.1.88 counted:
 *     the context is the last response's input + cache creation + cache read + output tokens
 *     (a response written as several lines, one per block, counted once), and its tool calls.
 * The transcript is recorded (test/fixtures/claude-code-session/, replayed by
 * test/fidelity/session-thresholds.test.ts); `MEMDIR_RECORD_SESSION_FIXTURES=1` rewrites it.
 * Skipped, with the reason, when the pinned Claude Code is not installed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sanitizeDirName } from '../../shared/sanitize.js';
import { type FakeAnthropic, type FakeReply, startFakeAnthropic } from '../llm/test-support/fake-anthropic.js';
import { REAL_CLAUDE_CODE, runClaudeCodeTurns } from '../llm/test-support/real-claude-code.js';
import { SESSION_RUN, SESSION_TRANSCRIPT_FIXTURE, expectedSessionCounts } from './test-support/claude-code-session-run.js';
import { SessionMemory } from './session-memory.js';

const skip = REAL_CLAUDE_CODE.found ? null : REAL_CLAUDE_CODE.reason;
const record = process.env.MEMDIR_RECORD_SESSION_FIXTURES === '1';

/** The scripted answer to a request of the session: by what its last user message holds (a system message may follow it). */
function answer(body: Record<string, unknown> | null, file: string): FakeReply {
  const messages = (body?.messages ?? []) as { role: string; content: string | { type: string; text?: string }[] }[];
  const last = messages.findLast((m) => m.role === 'user');
  const blocks = typeof last?.content === 'string' ? [{ type: 'text', text: last.content }] : (last?.content ?? []);
  if (blocks.some((b) => b.type === 'tool_result')) return SESSION_RUN.afterTools;
  const text = blocks.map((b) => b.text ?? '').join('\n');
  if (text.includes(SESSION_RUN.prompts[1])) return SESSION_RUN.secondTurn;
  if (text.includes(SESSION_RUN.prompts[0]))
    return {
      ...SESSION_RUN.toolTurn,
      content: ['a', 'b', 'c'].map((id) => ({ type: 'tool_use', id: `toolu_read_${id}`, name: 'Read', input: { file_path: file } })),
    };
  return { kind: 'message', text: 'ok' };
}

describe.skipIf(skip !== null)(`Session Memory and the real Claude Code${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let fake: FakeAnthropic;
  let tmp: string;
  beforeAll(async () => {
    fake = await startFakeAnthropic();
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'memdir-cc-session-')));
  });
  afterAll(async () => {
    await fake?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('2.1.332 writes no Session Memory past every threshold; Memdir counts its transcript as 2.1.88 did', async () => {
    const [configDir, project, scratch, dataDir] = ['config', 'project', 'scratch', 'data'].map((d) => path.join(tmp, d)) as [string, string, string, string];
    for (const dir of [configDir, project, scratch, dataDir]) fs.mkdirSync(dir, { recursive: true });
    const file = path.join(project, 'checkout.test.ts');
    fs.writeFileSync(file, "it('checks out', () => {});\n");
    fake.setHandler((request) => answer(request.body, file));

    const run = await runClaudeCodeTurns(SESSION_RUN.prompts, ['--allowedTools', 'Read'], { cwd: project, configDir, scratch, baseUrl: fake.url });
    expect(run.code, run.stderr).toBe(0);
    const folder = path.join(configDir, 'projects', sanitizeDirName(project));
    const transcripts = fs.readdirSync(folder).filter((f) => f.endsWith('.jsonl'));
    expect(transcripts).toHaveLength(1);
    const transcript = path.join(folder, transcripts[0]!);

    // The client: the conversation's three requests (the tool turn, after the tools, the second
    // turn) and nothing else, and no session-memory folder anywhere in its home.
    expect(fake.messageRequests()).toHaveLength(3);
    const found = fs.readdirSync(configDir, { recursive: true }).map(String);
    expect(found.filter((p) => p.split(path.sep).includes('session-memory'))).toEqual([]);
    // The three reads ran: their results are in the transcript.
    expect(fs.readFileSync(transcript, 'utf8').match(/"type":"tool_result"/g)).toHaveLength(3);

    const status = await new SessionMemory({ home: configDir, dataDir }).observe(transcript, { write: false });
    expect(status).toMatchObject({ ...expectedSessionCounts(), claudeCodeSummary: null });
    if (record) {
      fs.mkdirSync(path.dirname(SESSION_TRANSCRIPT_FIXTURE), { recursive: true });
      fs.copyFileSync(transcript, SESSION_TRANSCRIPT_FIXTURE);
    }
  }, 120_000);
});
