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
import { CAPTURE_FIXTURE, withoutClaudeCodeOwnParts } from '../test-support/capture-claude-code-recall.js';
import {
  MODIFIED_FILES,
  MODIFIED_QUERY,
  modifiedFilesNow,
  modifiedLinesOf,
  RECALL_MODIFIED_FIXTURE,
  type RecallModifiedRecording,
  writeModifiedFiles,
} from '../test-support/claude-code-modified-case.js';

interface Fixture {
  claudeCode: string;
  runs: { name: string; env: Record<string, string>; requests: Record<string, unknown>[]; loaded: string[][] }[];
}

const fixture = JSON.parse(await fs.readFile(CAPTURE_FIXTURE, 'utf8')) as Fixture;

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
  await fs.writeFile(
    path.join(dataDir, 'settings.json'),
    JSON.stringify({ model: { maxRetries: 0, models: { recall: model } }, recall: { timeoutMs: 5_000 } }),
  );
  return new RecallService({
    home,
    dataDir,
    env: { PATH: path.join(root, 'no-bin'), ANTHROPIC_API_KEY: 'sk-ant-api03-memdir-test-key', ANTHROPIC_BASE_URL: fake.url, ...extraEnv },
  });
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

describe('Claude Code mode: the frontmatter keys Memdir keeps on edit, as Claude Code 2.1.332 reads them', () => {
  it('offers by mtime, never by `modified` (flat or under metadata:), and no description only under metadata: (recall-modified-2.1.332.json)', async () => {
    const recorded = JSON.parse(await fs.readFile(RECALL_MODIFIED_FIXTURE, 'utf8')) as RecallModifiedRecording;
    expect(recorded.files).toEqual(MODIFIED_FILES);
    await writeModifiedFiles(memoryDir);
    const before = await modifiedFilesNow(memoryDir);
    fake.setHandler(() => ({ kind: 'message', text: MODIFIED_QUERY.answer }));
    const result = await (await serviceWith('claude-sonnet-4-6')).claudeCode({ project: '-work-shop', query: MODIFIED_QUERY.query });
    // The recall view's "sent to the model": the client's lines for these files, in its order.
    expect(modifiedLinesOf(result.request!.messages[0]!.content[0]!.text)).toEqual(recorded.offered);
    expect([result.selected.map((s) => s.file)]).toEqual(recorded.loaded);
    // Neither the client nor Memdir's recall writes a memory it offers or loads.
    expect(recorded.unchanged).toBe(true);
    expect(await modifiedFilesNow(memoryDir)).toEqual(before);
  });
});

describe('Claude Code mode: when Claude Code loads nothing', () => {
  it('asks nothing for a one-word prompt, as Claude Code asks nothing', async () => {
    const result = await (await serviceWith('claude-sonnet-4-6')).claudeCode({ project: '-work-shop', query: '  migrations  ' });
    expect(result).toMatchObject({ outcome: 'skipped', selected: [], request: null });
    expect(result.reason).toMatch(/two words or more/);
    expect(fake.messageRequests()).toHaveLength(0);
  });

  it('says why a sentence with no space (Chinese) loads nothing: Claude Code counts it as one word', async () => {
    const result = await (await serviceWith('claude-sonnet-4-6')).claudeCode({ project: '-work-shop', query: '部署到生产环境之前要检查什么' });
    expect(result).toMatchObject({ outcome: 'skipped', selected: [], request: null });
    // "a one-word prompt" alone read as wrong to a person who typed a whole sentence.
    expect(result.reason).toBe(
      'Claude Code recalls only for a prompt of two words or more, and counts words by spaces: this prompt has no space, so it is one word to Claude Code (as a sentence in Chinese or Japanese is) and loads no memory.',
    );
    expect(fake.messageRequests()).toHaveLength(0);
  });

  it('loads nothing when the request fails, and shows the request it sent', async () => {
    fake.setHandler(() => ({ kind: 'error', status: 500 }));
    const result = await (await serviceWith('claude-sonnet-4-6')).claudeCode({ project: '-work-shop', query: 'fix the migration' });
    expect(result).toMatchObject({ outcome: 'failed', selected: [], session: { turns: 0, surfaced: [] } });
    expect(result.reason).toMatch(/HTTP 500.*loads no memory/);
    expect(result.request?.messages.at(-1)?.content[0]?.text).toBe('Select memories relevant to:\nfix the migration');
  });

  it('shows the request without sending it when no model can be asked (offline)', async () => {
    const service = await serviceWith('claude-sonnet-4-6', { ANTHROPIC_API_KEY: '' });
    const result = await service.claudeCode({ project: '-work-shop', query: 'fix the migration' });
    expect(result).toMatchObject({ outcome: 'not-sent', provider: 'offline' });
    expect(result.request?.max_tokens).toBe(512);
    expect(fake.messageRequests()).toHaveLength(0);
  });

  it('continues a real session from its transcript: what it already loaded is never loaded again, and a spent budget stops recall', async () => {
    const transcript = path.join(home, 'projects', '-work-shop-sub', '5f1c2b8e-0000-4000-8000-000000000001.jsonl');
    await fs.mkdir(path.dirname(transcript), { recursive: true });
    const attachment = (file: string, content: string) =>
      JSON.stringify({
        type: 'attachment',
        attachment: { type: 'relevant_memories', memories: [{ path: path.join(memoryDir, file), content, mtimeMs: 0, header: '' }] },
      });
    await fs.writeFile(
      transcript,
      `${JSON.stringify({ type: 'user', message: { role: 'user', content: 'hi there' } })}\n${attachment('feedback_sql.md', 'x'.repeat(100))}\nnot json\n`,
    );
    fake.setHandler(() => ({ kind: 'message', text: '{"selected_memories":["feedback_sql.md","untyped.md"]}' }));
    const service = await serviceWith('claude-sonnet-4-6');
    const result = await service.claudeCode({
      project: '-work-shop',
      query: 'write the orders report SQL',
      transcript: '5f1c2b8e-0000-4000-8000-000000000001',
    });
    expect(result.selected).toEqual([{ file: 'untyped.md' }]);
    expect(result.dropped).toEqual([{ file: 'feedback_sql.md', reason: 'already loaded earlier in this session' }]);
    expect(result.session).toMatchObject({ transcript, turns: 1 });
    expect(result.session.surfaced.sort()).toEqual(['feedback_sql.md', 'untyped.md']);

    await fs.appendFile(transcript, `${attachment('nodesc.md', 'y'.repeat(61_440))}\n`);
    const spent = await service.claudeCode({ project: '-work-shop', query: 'write the orders report SQL', transcript });
    expect(spent.outcome).toBe('skipped');
    expect(spent.reason).toMatch(/stops recalling at 61,440/);
    await expect(service.claudeCode({ project: '-work-shop', query: 'two words', transcript: 'no-such-session' })).rejects.toThrow(
      /No transcript of session no-such-session/,
    );
  });

  it("says whether Claude Code's own recall is switched on, from its cached server flag", async () => {
    fake.setHandler(() => ({ kind: 'message', text: '{"selected_memories":[]}' }));
    const service = await serviceWith('claude-sonnet-4-6');
    expect((await service.claudeCode({ project: '-work-shop', query: 'two words' })).claudeCodeSwitch.state).toBe('unknown');
    await fs.writeFile(path.join(home, '.claude.json'), JSON.stringify({ cachedGrowthBookFeatures: { tengu_moth_copse: false } }));
    const off = (await service.claudeCode({ project: '-work-shop', query: 'two words' })).claudeCodeSwitch;
    expect(off.state).toBe('off');
    expect(off.reason).toMatch(/loads MEMORY\.md only/);
    await fs.writeFile(path.join(home, '.claude.json'), JSON.stringify({ cachedGrowthBookFeatures: { tengu_moth_copse: true } }));
    expect((await service.claudeCode({ project: '-work-shop', query: 'two words' })).claudeCodeSwitch.state).toBe('on');
  });
});
