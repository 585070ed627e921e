/**
 * Memdir's Claude Code mode against what the real Claude Code 2.1.332 sent for the same memory
 * directory and the same session (test/fixtures/claude-code/recall-2.1.332.json, captured by
 * test-support/capture-claude-code-recall.ts): the request bodies the fake API receives from
 * both are identical, but for the parts the capture names as Claude Code's own (its billing
 * attribution block and metadata), and Memdir loads what Claude Code loaded.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeAnthropic, startFakeAnthropic } from '../../llm/test-support/fake-anthropic.js';
import { RecallService } from '../recall-service.js';
import { SCENARIO_LOADED, SCENARIO_QUERIES, writeRecallScenario } from '../test-support/claude-code-recall-scenario.js';
import { CAPTURE_FIXTURE } from '../test-support/capture-claude-code-recall.js';

interface Fixture {
  claudeCode: string;
  runs: { name: string; env: Record<string, string>; requests: Record<string, unknown>[]; loaded: string[][] }[];
}

const fixture = JSON.parse(await fs.readFile(CAPTURE_FIXTURE, 'utf8')) as Fixture;

/** A captured body without what only Claude Code sends (see the fixture's `dynamic`). */
export function withoutClaudeCodeOwnParts(body: Record<string, unknown>): Record<string, unknown> {
  const { metadata: _metadata, ...rest } = body;
  const system = rest.system as { text: string }[];
  return { ...rest, system: system.filter((block) => !block.text.startsWith('x-anthropic-billing-header:')) };
}

let root: string;
let home: string;
let memoryDir: string;
let fake: FakeAnthropic;

beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-cc-recall-'));
  home = path.join(root, 'home');
  memoryDir = path.join(home, 'projects', '-work-shop', 'memory');
  await writeRecallScenario(memoryDir);
  fake = await startFakeAnthropic();
});
afterEach(async () => {
  await fake.close();
  await fs.rm(root, { recursive: true, force: true });
});

async function serviceWith(model: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<RecallService> {
  const dataDir = path.join(root, 'data');
  await fs.mkdir(dataDir, { recursive: true });
  await fs.writeFile(path.join(dataDir, 'settings.json'), JSON.stringify({ model: { maxRetries: 0, models: { recall: model } }, recall: { timeoutMs: 5_000 } }));
  return new RecallService({ home, dataDir, env: { PATH: path.join(root, 'no-bin'), ANTHROPIC_API_KEY: 'sk-ant-api03-memdir-test-key', ANTHROPIC_BASE_URL: fake.url, ...extraEnv } });
}

describe('Claude Code mode: the exact request of Claude Code 2.1.332', () => {
  for (const run of fixture.runs) {
    it(`${run.name}: identical request bodies, and the same memories loaded, over a ${run.requests.length}-prompt session`, async () => {
      const model = String(run.requests[0]!.model);
      let answers = 0;
      fake.setHandler(() => ({ kind: 'message', text: SCENARIO_QUERIES[answers++]!.answer }));
      const service = await serviceWith(model);
      let session: string | null = null;
      for (let i = 0; i < run.requests.length; i++) {
        const result = await service.claudeCode({ project: '-work-shop', query: SCENARIO_QUERIES[i]!.query, session });
        session = result.session.id;
        expect(result.outcome).toBe('selected');
        expect(result.selected.map((s) => s.file)).toEqual(run.loaded[i]);
        expect(result.selected.map((s) => s.file)).toEqual(SCENARIO_LOADED[i]);
      }
      const sent = fake.messageRequests().map((r) => r.body);
      expect(sent).toEqual(run.requests.map(withoutClaudeCodeOwnParts));
    });
  }

  it('shows which memories can never be recalled today (past the 200 newest), oldest last, with remedies', async () => {
    fake.setHandler(() => ({ kind: 'message', text: '{"selected_memories":[]}' }));
    const result = await (await serviceWith('claude-sonnet-4-6')).claudeCode({ project: '-work-shop', query: 'anything at all' });
    expect(result.outcome).toBe('nothing');
    expect(result.manifest).toMatchObject({ candidates: 246, offered: 200 });
    expect(result.neverRecalled.count).toBe(46);
    expect(result.neverRecalled.files.at(-1)?.file).toBe('project_old_decision.md');
    expect(result.neverRecalled.files[0]?.file).toBe(path.join('bulk', 'm185.md'));
    expect(result.neverRecalled.cutoff).toBe(new Date(Date.UTC(2026, 0, 1, 12, 0, 0) - (3_600 + 184 * 60) * 1000).toISOString());
    expect(result.neverRecalled.remedies.join(' ')).toMatch(/dream/);
    const manifest = result.request!.messages[0]!.content[0]!.text;
    expect(manifest).not.toContain('project_old_decision.md');
    expect(manifest).not.toContain('MEMORY.md');
    expect(manifest).not.toMatch(/deeper\.md|draft\.md|sessions\/s\.md|notes\.txt/);
  });
});
