import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AnthropicProvider } from '../llm/anthropic-provider.js';
import { OfflineProvider } from '../llm/resolve-provider.js';
import { type FakeAnthropic, type FakeReply, jsonReply, startFakeAnthropic } from '../llm/test-support/fake-anthropic.js';
import { UsageLog } from '../llm/usage-log.js';
import { scanMemoryDir } from '../memdir/scan-dir.js';
import { DEFAULT_MODELS } from '../settings/app-settings.js';
import { type RecallCandidate, findRelevantMemories, compareRecallMethods, parseSelection } from './find-relevant-memories.js';
import { recallCandidates } from './recall-service.js';
import { BODY_MARKER, writeMemoryFixture } from './test-support/memory-fixture.js';

const KEY = 'sk-ant-api03-recall-test-key-abcdefghij';
let fake: FakeAnthropic;
let root: string;
let memoryDir: string;

beforeEach(async () => {
  fake = await startFakeAnthropic();
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-recall-'));
  memoryDir = path.join(root, 'memory');
  await writeMemoryFixture(memoryDir);
});
afterEach(async () => {
  await fake.close();
  await fs.rm(root, { recursive: true, force: true });
});

function provider(options: { maxRetries?: number; timeoutMs?: number } = {}): AnthropicProvider {
  return new AnthropicProvider({
    apiKey: KEY,
    baseURL: fake.url,
    models: DEFAULT_MODELS,
    timeoutMs: options.timeoutMs ?? 5_000,
    maxRetries: options.maxRetries ?? 0,
    usageLog: new UsageLog(path.join(root, 'data')),
  });
}

/** Scan the real fixture dir, as the service does. */
function scanned(): { memories: RecallCandidate[]; index: ReturnType<typeof scanMemoryDir>['index'] } {
  const scan = scanMemoryDir(memoryDir, { scope: 'private' });
  return { memories: recallCandidates(scan, null), index: scan.index };
}

async function recall(query: string, reply: FakeReply | FakeReply[] | null, options: { maxRetries?: number; timeoutMs?: number; signal?: AbortSignal } = {}) {
  if (reply) fake.enqueue(...(Array.isArray(reply) ? reply : [reply]));
  const { memories, index } = scanned();
  return findRelevantMemories({ query, memories, index, provider: provider(options), ...(options.signal ? { signal: options.signal } : {}) });
}

describe('findRelevantMemories through the fake Anthropic server', () => {
  it('selects what the model picks, with reasons, tokens, cost and the always-loaded index', async () => {
    const result = await recall(
      'can I use an ORM?',
      jsonReply(
        {
          selected: [
            { file: 'feedback_no_orm.md', reason: 'ORM rule' },
            { file: 'feedback_tests_real_db.md', reason: 'database tests' },
          ],
        },
        { usage: { input_tokens: 700, output_tokens: 40 } },
      ),
    );
    expect(result.method).toBe('model');
    expect(result.selected).toEqual([
      { file: 'feedback_no_orm.md', reason: 'ORM rule' },
      { file: 'feedback_tests_real_db.md', reason: 'database tests' },
    ]);
    expect(result.fallbackReason).toBeUndefined();
    expect(result.tokens).toMatchObject({ inputTokens: 700, outputTokens: 40 });
    expect(result.costUsd).toBeGreaterThan(0);
    expect(result.model).toBe(DEFAULT_MODELS.recall);
    expect(result.alwaysLoaded?.loaded).toContain('user_role.md');
    expect(result.alwaysLoaded?.cut).toEqual([]);
    expect(fake.messageRequests()).toHaveLength(1);
  });

  it('sends one request whose manifest has frontmatter only, never a body', async () => {
    await recall('python in CI', jsonReply({ selected: [] }));
    const [request] = fake.messageRequests();
    expect(request!.rawBody).not.toContain(BODY_MARKER);
    expect(request!.rawBody).not.toContain('grafana.internal');
    const content = String((request!.body!.messages as { content: string }[])[0]!.content);
    expect(content).toContain('project_ci_python.md | project | CI Python versions | CI runners dropped Python 3.8');
    expect(content).toContain('project_misc.md | project | Misc notes | (no description)');
    expect(String(request!.body!.system)).toMatch(/at most 5/);
  });

  it('an empty selection from the model is a valid answer', async () => {
    const result = await recall('weather in Paris', jsonReply({ selected: [] }));
    expect(result).toMatchObject({ method: 'model', selected: [] });
  });

  it('drops files that do not exist, duplicates and anything past 5, and says so', async () => {
    const result = await recall(
      'everything',
      jsonReply({
        selected: [
          'user_role.md',
          'ghost.md',
          'user_role.md',
          'user_language.md',
          'feedback_no_orm.md',
          'project_ci_python.md',
          'reference_grafana.md',
          'reference_runbook.md',
        ],
      }),
    );
    expect(result.method).toBe('model');
    expect(result.selected.map((s) => s.file)).toEqual([
      'user_role.md',
      'user_language.md',
      'feedback_no_orm.md',
      'project_ci_python.md',
      'reference_grafana.md',
    ]);
    expect(result.dropped).toEqual([
      { file: 'ghost.md', reason: 'no such memory file' },
      { file: 'user_role.md', reason: 'named twice' },
      { file: 'reference_runbook.md', reason: 'over the limit of 5' },
    ]);
    expect(result.notes.join(' ')).toMatch(/ghost\.md/);
  });

  it('falls back when the model names only files that do not exist', async () => {
    const result = await recall('can I use an ORM?', jsonReply({ selected: [{ file: 'made_up.md' }, { file: 'also_fake.md' }] }));
    expect(result.method).toBe('local');
    expect(result.fallbackReason).toMatch(/only files that do not exist \(made_up\.md, also_fake\.md\)/);
    expect(result.selected[0]?.file).toBe('feedback_no_orm.md');
    expect(result.selected[0]?.score).toBeGreaterThan(0);
    // The failed answer still cost tokens: they are shown.
    expect(result.tokens?.inputTokens).toBeGreaterThan(0);
  });

  it.each([
    ['prose', { kind: 'message', text: 'I think the ORM memory is the most relevant one.' } as FakeReply, /prose instead of JSON/],
    ['broken JSON', { kind: 'message', text: '{"selected": [{"file": "feedback_no_orm.md"' } as FakeReply, /not valid JSON/],
    ['wrong shape', jsonReply({ files: ['feedback_no_orm.md'] }), /wrong shape/],
    ['a cut-off answer', { kind: 'message', text: '{"selected": [{"file": "feedback_no', stopReason: 'max_tokens' } as FakeReply, /cut off/],
    ['a malformed HTTP body', { kind: 'malformed' } as FakeReply, /cut short or was not JSON/],
    ['HTTP 500', { kind: 'error', status: 500 } as FakeReply, /HTTP 500/],
    ['529 overloaded', { kind: 'error', status: 529 } as FakeReply, /overloaded/],
    ['401 bad key', { kind: 'error', status: 401 } as FakeReply, /refused the key/],
  ])('falls back to the local ranker on %s, with the reason', async (_name, reply, reason) => {
    const result = await recall('can I use an ORM?', reply);
    expect(result.method).toBe('local');
    expect(result.fallbackReason).toMatch(reason);
    expect(result.selected[0]?.file).toBe('feedback_no_orm.md');
    expect(result.fallbackReason).not.toContain(KEY);
  });

  it('never repeats a secret the model read in a memory: its prose, and files it named, are quoted with the secret masked (s40)', async () => {
    // Assembled at run time, so no key-shaped literal sits in the repository.
    const token = ['ghp_', 'R8mK2vQ9', 'xT4pL7nW', '3zY6bC1d', 'F5hJ0sA8', 'eG2u'].join('');
    const prose = await recall('what is the CI token?', { kind: 'message', text: `The CI token is ${token}, see the memory.` });
    expect(prose.fallbackReason).toMatch(/prose instead of JSON \("The CI token is ghp_/);
    expect(prose.fallbackReason).not.toContain(token.slice(8));
    expect(prose.modelError?.message).not.toContain(token.slice(8));
    const named = await recall('what is the CI token?', jsonReply({ selected: [{ file: token, reason: 'x' }] }));
    expect(named.fallbackReason).toMatch(/do not exist/);
    expect(named.fallbackReason).not.toContain(token.slice(8));
    const refused = await recall(
      'can I use an ORM?',
      jsonReply({
        selected: [
          { file: 'feedback_no_orm.md', reason: 'x' },
          { file: `${token}.md`, reason: 'x' },
        ],
      }),
    );
    expect(refused.method).toBe('model');
    expect(refused.notes.join(' ')).toMatch(/Refused one file/);
    expect(refused.notes.join(' ')).not.toContain(token.slice(8));
  });

  it('falls back on 429 after the bounded retries', async () => {
    const result = await recall(
      'can I use an ORM?',
      [1, 2, 3].map(() => ({ kind: 'error', status: 429, retryAfterMs: 1 }) as FakeReply),
      { maxRetries: 2 },
    );
    expect(result.method).toBe('local');
    expect(result.fallbackReason).toMatch(/rate-limiting.*after 2 retries/);
    expect(result.modelError?.kind).toBe('rate-limited');
    expect(fake.messageRequests()).toHaveLength(3);
  });

  it('falls back on a timeout and on cancellation', async () => {
    const slow = await recall('can I use an ORM?', { kind: 'hang' }, { timeoutMs: 300 });
    expect(slow.method).toBe('local');
    expect(slow.fallbackReason).toMatch(/did not answer within 0\.3 s/);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const cancelled = await recall('can I use an ORM?', { kind: 'message', text: '{}', delayMs: 2_000 }, { signal: controller.signal });
    expect(cancelled.method).toBe('local');
    expect(cancelled.fallbackReason).toMatch(/cancelled/);
  });

  it('an empty query selects nothing and asks no model', async () => {
    const result = await recall('   ', null);
    expect(result).toMatchObject({ method: 'local', selected: [] });
    expect(result.notes.join(' ')).toMatch(/query is empty/);
    expect(fake.messageRequests()).toHaveLength(0);
  });

  it('no memories: nothing to select, no model call', async () => {
    const result = await findRelevantMemories({ query: 'anything', memories: [], provider: provider(), index: null });
    expect(result).toMatchObject({ method: 'local', selected: [], alwaysLoaded: null });
    expect(result.notes.join(' ')).toMatch(/no topic files/);
    expect(fake.messageRequests()).toHaveLength(0);
  });

  it('cuts a 10,000-character query for the request and says so', async () => {
    const query = `can I use an ORM? ${'please consider all the details here. '.repeat(300)}`.slice(0, 10_000);
    const result = await recall(query, jsonReply({ selected: ['feedback_no_orm.md'] }));
    expect(result.method).toBe('model');
    expect(result.query).toEqual({ chars: 10_000, usedChars: 2_000, truncated: true });
    expect(result.notes.join(' ')).toMatch(/10,000 characters long; only the first 2,000/);
    expect(fake.messageRequests()[0]!.rawBody.length).toBeLessThan(8_000);
  });

  it('notes memories with empty descriptions', async () => {
    const result = await recall('misc', jsonReply({ selected: ['project_misc.md'] }));
    expect(result.notes.join(' ')).toMatch(/1 memory has no description/);
    expect(result.selected[0]?.file).toBe('project_misc.md');
  });

  it('pre-filters a manifest too long for one request with the local ranker and says so', async () => {
    const many: RecallCandidate[] = Array.from({ length: 3_000 }, (_, i) => ({
      file: `project_note_${i}.md`,
      name: `Note ${i}`,
      description: `Routine status update number ${i} about the weekly sync meeting and assorted follow-ups`,
      type: 'project',
      mtimeMs: i,
    }));
    many.push({ file: 'feedback_no_orm.md', name: 'No ORM', description: 'Write SQL by hand; never an ORM', type: 'feedback', mtimeMs: 0 });
    fake.enqueue(jsonReply({ selected: ['feedback_no_orm.md'] }));
    const result = await findRelevantMemories({ query: 'can I use an ORM?', memories: many, provider: provider(), maxManifestChars: 20_000 });
    expect(result.method).toBe('model');
    expect(result.manifest.prefiltered).toBe(true);
    expect(result.manifest.sent).toBeLessThan(3_001);
    expect(result.manifest.chars).toBeLessThanOrEqual(20_000);
    expect(result.notes.join(' ')).toMatch(/3,001 memories .* too long for one request; the model saw/);
    // The best local match is in what the model saw; the most recent notes fill the rest.
    const sent = String((fake.messageRequests()[0]!.body!.messages as { content: string }[])[0]!.content);
    expect(sent).toContain('feedback_no_orm.md');
    expect(sent).toContain('project_note_2999.md');
    expect(sent).not.toContain('project_note_0.md |');
  });

  it('offline is a mode: the local ranker chooses, no fallback reason, a note says why', async () => {
    const { memories } = scanned();
    const result = await findRelevantMemories({
      query: 'can I use an ORM?',
      memories,
      provider: new OfflineProvider(DEFAULT_MODELS, 'Offline mode is chosen in Settings.'),
    });
    expect(result.method).toBe('local');
    expect(result.fallbackReason).toBeUndefined();
    expect(result.notes).toContain('Offline mode is chosen in Settings.');
    const broken = await findRelevantMemories({ query: 'ORM', memories, provider: new OfflineProvider(DEFAULT_MODELS, 'No API key is set.', 'error') });
    expect(broken.fallbackReason).toBe('No API key is set.');
  });

  it('compares both methods for the playground', async () => {
    const { memories } = scanned();
    fake.enqueue(jsonReply({ selected: [{ file: 'feedback_tests_real_db.md', reason: 'tests' }] }));
    const both = await compareRecallMethods({ query: 'database tests', memories, provider: provider() });
    expect(both.model.method).toBe('model');
    expect(both.local.method).toBe('local');
    expect(both.local.selected.length).toBeGreaterThan(0);
    expect(fake.messageRequests()).toHaveLength(1);
  });

  it('writes the usage log without prompts or keys', async () => {
    await recall('can I use an ORM?', jsonReply({ selected: ['feedback_no_orm.md'] }));
    const log = await fs.readFile(path.join(root, 'data', 'llm-usage.jsonl'), 'utf8');
    expect(JSON.parse(log.trim())).toMatchObject({ task: 'recall', outcome: 'ok' });
    expect(log).not.toContain(KEY);
    expect(log).not.toContain('ORM');
    expect(log).not.toContain('feedback_no_orm');
  });
});

describe('parseSelection', () => {
  const known: RecallCandidate[] = [
    { file: 'a.md', name: 'Alpha', description: 'x', type: 'user' },
    { file: 'b.md', name: 'Beta', description: 'y', type: 'project' },
  ];
  it('accepts fenced JSON, bare arrays, names and files without .md', () => {
    expect(parseSelection('```json\n{"selected":[{"file":"a.md","reason":"r"}]}\n```', known).selected).toEqual([{ file: 'a.md', reason: 'r' }]);
    expect(parseSelection('["b", "Alpha"]', known).selected.map((s) => s.file)).toEqual(['b.md', 'a.md']);
    expect(parseSelection('Here you go: {"selected":["A.MD"]}', known).selected.map((s) => s.file)).toEqual(['a.md']);
  });
});
