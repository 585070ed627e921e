/**
 * Live against the real Claude Code 2.1.332 (offline, loopback fake Messages API): with team
 * memory on, the model writes one memory per client rule into the team folder, each holding that
 * rule's fake token, and one without a token. The client refuses every one holding a token, and
 * writes the other: the table in test/fixtures/claude-code/secret-rules-2.1.332.json is what the
 * client enforces (claude-code-rules.test.ts holds Memdir's scanner to it).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { layOutExtractHome, TEAM_STORES } from '../extract/test-support/claude-code-extract-cases.js';
import { type FakeAnthropic, type FakeReply, type FakeRequest, startFakeAnthropic } from '../llm/test-support/fake-anthropic.js';
import { EMBEDDED_SESSION_ENV, REAL_CLAUDE_CODE, offlineClaudeEnv, runClaudeCodeTurns } from '../llm/test-support/real-claude-code.js';
import { CLIENT_RULE_SAMPLES, memoryHolding } from './test-support/claude-code-rules.js';

const skip = REAL_CLAUDE_CODE.found ? null : REAL_CLAUDE_CODE.reason;

type Block = { type: string; text?: string; tool_use_id?: string; is_error?: boolean; content?: unknown };
type Message = { role: string; content: string | Block[] };
const messagesOf = (request: FakeRequest) => (request.body?.messages ?? []) as Message[];
const blocksOf = (m: Message | undefined): Block[] => (m === undefined || typeof m.content === 'string' ? [] : m.content);
const resultText = (b: Block) =>
  typeof b.content === 'string' ? b.content : Array.isArray(b.content) ? (b.content as Block[]).map((c) => c.text ?? '').join('') : '';

describe.skipIf(skip !== null)(`Claude Code refuses a team memory holding a token of any of its rules${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let fake: FakeAnthropic;
  let tmp: string;
  beforeAll(async () => {
    fake = await startFakeAnthropic();
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'memdir-cc-secret-rules-')));
  });
  afterAll(async () => {
    await fake?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('refuses every sample, writes the memory without one', async () => {
    const apiKey = offlineClaudeEnv({ configDir: '', scratch: '', baseUrl: '' }).ANTHROPIC_API_KEY!;
    const home = layOutExtractHome(tmp, { flags: {}, apiKeySuffix: apiKey.slice(-20) });
    fs.mkdirSync(path.join(tmp, 'scratch'));
    const team = path.join(home.memoryDir, 'team');
    const writes = [
      ...CLIENT_RULE_SAMPLES.map(({ name, token }, i) => ({ id: `toolu_w${i}`, rule: name, content: memoryHolding(name, token) })),
      { id: 'toolu_clean', rule: null, content: memoryHolding('clean', 'in the vault, under staging/api') },
    ];
    fake.setHandler((request): FakeReply => {
      if (blocksOf(messagesOf(request).at(-1)).some((b) => b.type === 'tool_result')) return { kind: 'message', text: 'done' };
      const content = writes.map((w) => ({
        type: 'tool_use',
        id: w.id,
        name: 'Write',
        input: { file_path: path.join(team, `${w.rule ?? 'clean'}.md`), content: w.content },
      }));
      return { kind: 'message', content, stopReason: 'tool_use' };
    });
    const run = await runClaudeCodeTurns(['Save the staging credentials for the team'], [], {
      cwd: home.project,
      configDir: home.configDir,
      scratch: path.join(tmp, 'scratch'),
      baseUrl: fake.url,
      env: { ...EMBEDDED_SESSION_ENV, CLAUDE_MEMORY_STORES: TEAM_STORES },
      timeoutMs: 120_000,
    });
    expect(run.code, run.stderr).toBe(0);
    const results = new Map<string, Block>();
    for (const r of fake.messageRequests())
      for (const m of messagesOf(r)) for (const b of blocksOf(m)) if (b.type === 'tool_result' && b.tool_use_id) results.set(b.tool_use_id, b);
    const outcome = Object.fromEntries(
      writes.map((w) => {
        const result = results.get(w.id);
        const refused = result?.is_error === true && /Content contains potential secrets \(.+\) and cannot be written to team memory/.test(resultText(result));
        return [w.rule ?? 'clean', { refused, onDisk: fs.existsSync(path.join(team, `${w.rule ?? 'clean'}.md`)) }];
      }),
    );
    expect(outcome).toEqual(
      Object.fromEntries(writes.map((w) => [w.rule ?? 'clean', w.rule === null ? { refused: false, onDisk: true } : { refused: true, onDisk: false }])),
    );
  }, 180_000);
});
