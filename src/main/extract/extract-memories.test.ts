import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { indexEntries, parseIndex } from '../../shared/index-format.js';
import { listHistory } from '../history/history.js';
import { type FakeAnthropic, startFakeAnthropic } from '../llm/test-support/fake-anthropic.js';
import type { ModelProvider } from '../llm/types.js';
import { CursorStore } from '../transcripts/cursor-store.js';
import { TranscriptBuilder } from '../transcripts/test-support/transcript-builder.js';
import { sanitizeDirName } from '../../shared/sanitize.js';
import { type ExtractStep, type ExtractTranscriptOptions, ExtractBusyError, ExtractInputError, extractTranscript } from './extract-memories.js';
import { ExtractionStore } from './extraction-store.js';
import { acceptProposal, rejectProposal } from './review-queue.js';
import { SimulatedCrash, crashAt } from './test-support/crash-at.js';
import { type ExtractFixture, createExtractFixture, fakeProvider, offlineProvider, operationsReply, sentPrompts } from './test-support/extract-fixture.js';

let fx: ExtractFixture;
let fake: FakeAnthropic;
let model: ModelProvider;

beforeEach(async () => {
  fx = await createExtractFixture();
  fake = await startFakeAnthropic({ fallback: operationsReply() });
  model = await fakeProvider(fake, fx.dataDir);
});
afterEach(async () => {
  await fake.close();
  await fx.cleanup();
});

const run = (over: Partial<ExtractTranscriptOptions> = {}) =>
  extractTranscript({ home: fx.home, dataDir: fx.dataDir, env: {}, transcriptPath: fx.transcript(), provider: model, mode: 'apply', trigger: 'test', ...over });
const memory = (rel: string) => fs.readFile(path.join(fx.memoryDir, rel), 'utf8');
const exists = (rel: string) =>
  fs.stat(path.join(fx.memoryDir, rel)).then(
    () => true,
    () => false,
  );
const indexFiles = async (rel = 'MEMORY.md') => indexEntries(parseIndex(await memory(rel))).map((e) => e.file);
const historyOf = () => listHistory(fx.memoryDir, { dataDir: fx.dataDir });
const store = () => new ExtractionStore(fx.dataDir);

const testingMemory = {
  action: 'create',
  file: 'feedback_real_db.md',
  scope: 'private',
  type: 'feedback',
  name: 'Real database in tests',
  description: 'Integration tests hit a real Postgres, never mocks',
  body: 'Mocks hid a broken migration.\n\n**Why:** the outage in March.\n**How to apply:** use the compose database.\n',
  reason: 'a correction',
};

async function writeTurns(...prompts: string[]): Promise<void> {
  const t = fx.builder();
  for (const p of prompts) t.prompt(p).assistant(`Done: ${p}`, { stopReason: 'end_turn' });
  await fs.appendFile(fx.transcript(), t.take());
}

describe('extractTranscript in apply mode', () => {
  it('writes the memory and its pointer through history as `extract`, logs it, and moves the cursor', async () => {
    fake.enqueue(operationsReply(testingMemory));
    await writeTurns('Stop mocking the database in integration tests, we got burned by that.');
    const result = await run();
    expect(result.outcomes).toEqual([
      expect.objectContaining({ skipped: false, method: 'model', turns: 1, operations: [expect.objectContaining({ disposition: 'applied' })] }),
    ]);
    expect(result.wrote).toBe(true);
    expect(await memory('feedback_real_db.md')).toContain('originSessionId: session-1');
    expect(await indexFiles()).toEqual(['feedback_sql.md', 'feedback_real_db.md']);
    const history = await historyOf();
    expect(history[0]).toMatchObject({ source: 'extract', summary: 'Extract from session session-: create feedback_real_db.md' });
    // The prompt carried the turn, the index and the rules.
    const prompt = sentPrompts(fake)[0]!;
    expect(prompt).toContain('Stop mocking the database');
    expect(prompt).toContain('feedback_sql.md');
    expect(JSON.stringify(fake.messageRequests()[0]!.body?.system)).toContain('Never save');
    const log = await store().readLog();
    expect(log).toEqual([expect.objectContaining({ kind: 'turns', trigger: 'test', mode: 'apply' })]);
    // Nothing new: no model call, no entry.
    const again = await run();
    expect(again.outcomes).toEqual([]);
    expect(fake.messageRequests()).toHaveLength(1);
  });

  it('applies one request per span of turns, and only the new turns next time', async () => {
    await writeTurns('first', 'second');
    await run();
    await writeTurns('third');
    await run();
    const prompts = sentPrompts(fake);
    expect(prompts).toHaveLength(2);
    expect(prompts[0]).toContain('second');
    expect(prompts[1]).toContain('third');
    expect(prompts[1]).not.toContain('second');
  });

  it('queues an operation with an R-NOTSAVE hint for review instead of writing it', async () => {
    const paths = Array.from({ length: 5 }, (_, i) => `- src/module${i}/file${i}.ts`).join('\n');
    fake.enqueue(
      operationsReply({ ...testingMemory, file: 'project_layout.md', type: 'project', name: 'Layout', description: 'Where things are', body: `${paths}\n` }),
    );
    await writeTurns('remember where the modules are');
    const result = await run();
    expect(result.outcomes[0]!.operations[0]).toMatchObject({
      disposition: 'queued',
      reason: expect.stringContaining('Needs a look'),
      warnings: [expect.stringContaining('file paths')],
    });
    expect(await exists('project_layout.md')).toBe(false);
    expect(await store().listProposals()).toHaveLength(1);
  });
});

describe('R-EXCLUSIVE: the agent wrote into the memory directory itself', () => {
  it('skips exactly the turns where Write, Edit, MultiEdit or NotebookEdit touched the memory dir', async () => {
    const t = fx.builder();
    t.prompt('a plain turn').assistant('ok', { stopReason: 'end_turn' });
    const writes: [string, Record<string, unknown>][] = [
      ['Write', { file_path: path.join(fx.memoryDir, 'feedback_new.md'), content: 'x' }],
      ['Edit', { file_path: path.relative(fx.cwd, path.join(fx.memoryDir, 'MEMORY.md')), old_string: 'a', new_string: 'b' }],
      ['MultiEdit', { file_path: path.join(fx.memoryDir, 'team', 'project_x.md'), edits: [] }],
      ['NotebookEdit', { notebook_path: path.join(fx.memoryDir, 'n.ipynb'), new_source: '' }],
    ];
    writes.forEach(([name, input], i) => {
      t.prompt(`remember this ${i}`)
        .assistant([{ type: 'tool_use', id: `w${i}`, name, input }])
        .toolResult(`w${i}`, 'ok')
        .assistant('saved', { stopReason: 'end_turn' });
    });
    // A write elsewhere does not count.
    t.prompt('edit the code')
      .assistant([{ type: 'tool_use', id: 'c1', name: 'Write', input: { file_path: path.join(fx.cwd, 'memory.ts'), content: '' } }])
      .toolResult('c1', 'ok')
      .assistant('done', { stopReason: 'end_turn' });
    await fs.writeFile(fx.transcript(), t.take());
    const result = await run();
    expect(result.outcomes.map((o) => (o.skipped ? o.reason : 'extracted'))).toEqual([
      'extracted',
      'memory-written-by-agent',
      'memory-written-by-agent',
      'memory-written-by-agent',
      'memory-written-by-agent',
      'extracted',
    ]);
    expect(result.outcomes[1]!.message).toContain('feedback_new.md');
    expect(result.outcomes[2]!.message).toContain('MEMORY.md');
    expect(sentPrompts(fake)).toHaveLength(2);
    expect(sentPrompts(fake).join()).not.toContain('remember this');
    const log = await store().readLog();
    expect(log.filter((e) => e.kind === 'turns' && e.outcome.reason === 'memory-written-by-agent')).toHaveLength(4);
  });

  it('resolves a symlinked memory directory before comparing', async () => {
    const alias = path.join(fx.root, 'alias');
    await fs.symlink(fx.projectDir, alias);
    const t = fx.builder();
    t.prompt('save it')
      .assistant([{ type: 'tool_use', id: 'w', name: 'Write', input: { file_path: path.join(alias, 'memory', 'x.md'), content: '' } }])
      .toolResult('w', 'ok')
      .assistant('ok', { stopReason: 'end_turn' });
    await fs.writeFile(fx.transcript(), t.take());
    expect((await run()).outcomes[0]).toMatchObject({ skipped: true, reason: 'memory-written-by-agent' });
  });
});

describe('R-SETTINGS', () => {
  it('writes a session launched in a subdirectory into the repository memory Claude Code reads, never into the subdirectory folder (R-LAYOUT)', async () => {
    await fs.mkdir(path.join(fx.cwd, '.git'));
    const sub = path.join(fx.cwd, 'packages', 'api');
    await fs.mkdir(sub, { recursive: true });
    const subFolder = path.join(fx.home, 'projects', sanitizeDirName(sub));
    await fs.mkdir(subFolder, { recursive: true });
    const transcriptPath = path.join(subFolder, 'session-sub.jsonl');
    await fs.writeFile(
      transcriptPath,
      new TranscriptBuilder({ sessionId: 'session-sub', cwd: sub, uuidPrefix: 'sub' })
        .prompt('Stop mocking the database')
        .assistant('Done', { stopReason: 'end_turn' })
        .take(),
    );
    fake.enqueue(operationsReply(testingMemory));
    const result = await run({ transcriptPath });
    expect(result.memoryDir).toBe(fx.memoryDir);
    expect(await exists('feedback_real_db.md')).toBe(true);
    expect(
      await fs.stat(path.join(subFolder, 'memory')).then(
        () => true,
        () => false,
      ),
    ).toBe(false);
  });

  it('writes nothing and calls no model when autoMemoryEnabled is false, and records why', async () => {
    await fs.writeFile(path.join(fx.home, 'settings.json'), '{"autoMemoryEnabled": false}');
    await writeTurns('remember: always use pnpm');
    const result = await run();
    expect(result.outcomes).toEqual([
      expect.objectContaining({ skipped: true, reason: 'auto-memory-off', message: expect.stringContaining(path.join(fx.home, 'settings.json')) }),
    ]);
    expect(fake.messageRequests()).toHaveLength(0);
  });

  it("honours CLAUDE_CODE_DISABLE_AUTO_MEMORY and Memdir's own switch", async () => {
    await writeTurns('one');
    expect((await run({ env: { CLAUDE_CODE_DISABLE_AUTO_MEMORY: '1' } })).outcomes[0]).toMatchObject({
      reason: 'auto-memory-off',
      message: expect.stringContaining('CLAUDE_CODE_DISABLE_AUTO_MEMORY'),
    });
    await writeTurns('two');
    expect((await run({ enabled: false })).outcomes[0]).toMatchObject({ reason: 'extraction-disabled' });
    expect(fake.messageRequests()).toHaveLength(0);
  });
});

describe('what the model proposes is validated before anything is written', () => {
  it('refuses new file names with %xx, #, ?, control or bidi characters, or a Windows device name, with a sentence (issue 15)', async () => {
    const names = [
      'feedback_a%2Fb.md',
      'feedback_a#b.md',
      'feedback_why?.md',
      'feedback_\u001b[31mred.md',
      'feedback_\u202Egnp.md',
      'CON.md',
      'aux.md',
      'feedback_x.md.',
    ];
    fake.enqueue(operationsReply(...names.map((file) => ({ ...testingMemory, file }))));
    await writeTurns('a turn with odd names');
    const ops = (await run()).outcomes[0]!.operations;
    expect(ops.map((o) => o.disposition)).toEqual(names.map(() => 'refused'));
    for (const op of ops) expect(op.reason).toMatch(/cannot be a memory file name: /);
    expect((await fs.readdir(fx.memoryDir)).filter((f) => f.endsWith('.md') && f !== 'MEMORY.md' && !f.startsWith('feedback_sql'))).toEqual([]);
  });

  it('refuses paths outside the memory dir, a user memory for the team, secrets and bad types, and applies the rest', async () => {
    await fs.mkdir(path.join(fx.memoryDir, 'team'));
    await fs.writeFile(path.join(fx.memoryDir, 'team', 'MEMORY.md'), '');
    fake.enqueue(
      operationsReply(
        { ...testingMemory, file: '../../../escape.md' },
        { ...testingMemory, file: '/etc/evil.md' },
        { ...testingMemory, file: 'team/sneaky.md' },
        { ...testingMemory, file: 'user_me.md', type: 'user', scope: 'team', name: 'Me', description: 'I am the lead' },
        { ...testingMemory, file: 'reference_key.md', type: 'reference', body: 'Use key sk-ant-api03-' + 'A'.repeat(93) + 'AA for the API' },
        { ...testingMemory, file: 'opinion.md', type: 'opinion' },
        { ...testingMemory, action: 'update', file: 'not_there.md' },
        { ...testingMemory, file: 'feedback_sql.md' },
        'garbage',
        {
          ...testingMemory,
          file: 'project_ci.md',
          type: 'project',
          scope: undefined,
          name: 'CI has no Python 3.8',
          description: 'CI images dropped Python 3.8 in 2026-02',
        },
      ),
    );
    await writeTurns('a turn with lots said');
    const result = await run();
    const ops = result.outcomes[0]!.operations;
    expect(ops.map((o) => o.disposition)).toEqual([
      'refused',
      'refused',
      'refused',
      'refused',
      'refused',
      'refused',
      'refused',
      'refused',
      'refused',
      'applied',
    ]);
    expect(ops[0]!.reason).toMatch(/outside the memory directory/);
    expect(ops[1]!.reason).toMatch(/outside the memory directory/);
    expect(ops[2]!.reason).toMatch(/without folders/);
    expect(ops[3]!.reason).toMatch(/user.*team/i);
    expect(ops[4]!.reason).toMatch(/secret/);
    expect(ops[4]!.reason).not.toContain('A'.repeat(20));
    expect(ops[5]!.reason).toMatch(/not a memory type/);
    expect(ops[6]!.reason).toMatch(/does not exist/);
    expect(ops[7]!.reason).toMatch(/already exists/);
    expect(ops[8]!.reason).toMatch(/not an object/);
    // `project` defaults to the team scope (R-TYPES) when the project has team memory.
    expect(ops[9]!.operation.scope).toBe('team');
    expect(await indexFiles('team/MEMORY.md')).toEqual(['project_ci.md']);
    await expect(fs.stat(path.join(fx.root, 'escape.md'))).rejects.toThrow();
    expect(await exists('team/user_me.md')).toBe(false);
    expect(await exists('reference_key.md')).toBe(false);
    expect(await memory('feedback_sql.md')).toContain('The ORM hid N+1 queries.');
  });

  it('keeps a team-leaning memory private when the project has no team memory', async () => {
    fake.enqueue(operationsReply({ ...testingMemory, file: 'project_freeze.md', type: 'project', scope: undefined }));
    await writeTurns('the freeze starts Friday');
    const result = await run();
    expect(result.outcomes[0]!.operations[0]).toMatchObject({ disposition: 'applied', operation: { scope: 'private' } });
    expect(await exists('team')).toBe(false);
  });

  it('falls back to offline suggestions when the answer is not JSON, and says why', async () => {
    fake.enqueue({ kind: 'message', text: 'I think you should remember the database thing.' });
    await writeTurns('Remember that staging resets every Monday.');
    const result = await run();
    expect(result.outcomes[0]).toMatchObject({
      method: 'offline',
      message: expect.stringContaining('prose instead of JSON'),
      model: expect.objectContaining({ provider: 'anthropic' }),
    });
    expect(result.outcomes[0]!.operations).toEqual([
      expect.objectContaining({ disposition: 'queued', operation: expect.objectContaining({ description: 'Remember that staging resets every Monday.' }) }),
    ]);
  });
});

describe('a restart mid-way', () => {
  for (const step of ['journal-written', 'operations-applied', 'log-appended'] as ExtractStep[]) {
    it(`resumes after a crash once ${step} without a second model call or a second write`, async () => {
      fake.enqueue(operationsReply(testingMemory));
      await writeTurns('we never mock the database');
      await expect(run({ hooks: crashAt(step) })).rejects.toBeInstanceOf(SimulatedCrash);
      const resumed = await run();
      expect(resumed.resumed).toBe(true);
      expect(fake.messageRequests()).toHaveLength(1);
      expect(await indexFiles()).toEqual(['feedback_sql.md', 'feedback_real_db.md']);
      const extractEntries = (await historyOf()).filter((e) => e.source === 'extract');
      expect(extractEntries).toHaveLength(1);
      expect((await store().readLog()).filter((e) => e.kind === 'turns')).toHaveLength(1);
      expect(resumed.outcomes[0]!.operations[0]!.disposition).toBe('applied');
      // And the turn is consumed for good.
      expect((await run()).outcomes).toEqual([]);
      expect(fake.messageRequests()).toHaveLength(1);
    });
  }

  it('redoes a run that crashed before its journal was written (nothing was written yet)', async () => {
    await writeTurns('first');
    // A crash during the model call: no journal, no cursor move.
    fake.enqueue({ kind: 'hang' });
    await expect(run({ timeoutMs: 1000 })).resolves.toMatchObject({ pending: true });
    fake.enqueue(operationsReply(testingMemory));
    const second = await run();
    expect(second.outcomes[0]).toMatchObject({ skipped: false, operations: [expect.objectContaining({ disposition: 'applied' })] });
  });
});

describe('two runs at once', () => {
  it('never extract the same turns twice: the second waits, then finds nothing new (or steps aside)', async () => {
    fake.setHandler(async () => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      return operationsReply(testingMemory);
    });
    await writeTurns('we never mock the database');
    const results = await Promise.allSettled([run(), run(), run({ lockTimeoutMs: 50 })]);
    const done = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    expect(done.flatMap((r) => r.outcomes)).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(ExtractBusyError);
    expect(fake.messageRequests()).toHaveLength(1);
    expect((await historyOf()).filter((e) => e.source === 'extract')).toHaveLength(1);
  });
});

describe('model failures', () => {
  it('leaves the turn for a retry on a rate limit, then extracts it', async () => {
    await writeTurns('first turn', 'second turn');
    fake.enqueue({ kind: 'error', status: 429, retryAfterMs: 1 });
    const failed = await run();
    expect(failed.pending).toBe(true);
    expect(failed.outcomes[0]).toMatchObject({ skipped: true, reason: 'model-failed', message: expect.stringContaining('Tried again') });
    fake.enqueue(operationsReply(testingMemory));
    const retried = await run();
    expect(retried.outcomes[0]).toMatchObject({ skipped: false, turns: 2, operations: [expect.objectContaining({ disposition: 'applied' })] });
  });

  it('takes the offline path on an authentication error (retrying would not help) and moves on', async () => {
    fake.enqueue({ kind: 'error', status: 401 });
    await writeTurns('别用 ORM，记住我们手写 SQL。');
    const result = await run();
    expect(result.pending).toBe(false);
    expect(result.outcomes[0]).toMatchObject({ method: 'offline', operations: [expect.objectContaining({ disposition: 'queued' })] });
  });
});

describe('review mode and offline suggestions', () => {
  it('queues proposals; accept writes them, edited accept and reject are logged', async () => {
    fake.enqueue(
      operationsReply(
        testingMemory,
        { ...testingMemory, file: 'feedback_tabs.md', name: 'Tabs', description: 'Use tabs' },
        { ...testingMemory, file: 'feedback_lint.md', name: 'Lint', description: 'Run lint' },
      ),
    );
    await writeTurns('three things');
    const result = await run({ mode: 'review' });
    expect(result.queued).toBe(3);
    expect(await exists('feedback_real_db.md')).toBe(false);
    const [lint, db, tabs] = (await store().listProposals()).sort((a, b) => a.operation.file.localeCompare(b.operation.file));
    expect(db).toMatchObject({ kind: 'proposal', status: 'pending', project: fx.dir, evidence: 'three things' });

    const accepted = await acceptProposal(fx.dataDir, db!.id);
    expect(accepted).toMatchObject({ status: 'accepted', edited: false, result: { file: 'feedback_real_db.md' } });
    expect(await indexFiles()).toContain('feedback_real_db.md');
    await acceptProposal(fx.dataDir, tabs!.id, { ...tabs!.operation, name: 'Tabs, not spaces', file: 'feedback_tabs_not_spaces.md' });
    expect(await memory('feedback_tabs_not_spaces.md')).toContain('name: Tabs, not spaces');
    await rejectProposal(fx.dataDir, lint!.id, 'derivable from the CI config');
    await expect(acceptProposal(fx.dataDir, lint!.id)).rejects.toMatchObject({ code: 'conflict' });
    await expect(acceptProposal(fx.dataDir, db!.id, { ...db!.operation, scope: 'team', type: 'user' })).rejects.toMatchObject({ code: 'conflict' });

    const decisions = (await store().readLog()).filter((e) => e.kind === 'decision').map((e) => (e.kind === 'decision' ? e.decision : null));
    expect(decisions.sort()).toEqual(['accepted', 'edited', 'rejected']);
    expect(await store().listProposals()).toEqual([]);
    expect(await store().listProposals({ status: 'all' })).toHaveLength(3);
  });

  it('refuses an edit that would send a user memory to the team, or leave the directory', async () => {
    await fs.mkdir(path.join(fx.memoryDir, 'team'));
    fake.enqueue(operationsReply(testingMemory));
    await writeTurns('x');
    await run({ mode: 'review' });
    const [p] = await store().listProposals();
    await expect(acceptProposal(fx.dataDir, p!.id, { ...p!.operation, type: 'user', scope: 'team' })).rejects.toMatchObject({ code: 'scope-refused' });
    await expect(acceptProposal(fx.dataDir, p!.id, { ...p!.operation, file: '../x.md' })).rejects.toMatchObject({ code: 'invalid-input' });
    expect((await store().getProposal(p!.id))!.status).toBe('pending');
  });

  it('offline: writes nothing and lists "remember this" statements as suggestions, once', async () => {
    await writeTurns('Remember that the staging DB resets every Monday. Also fix the bug.', '以后提交前先跑 lint。', "I don't know why this fails?");
    const result = await run({ provider: offlineProvider() });
    expect(result.wrote).toBe(false);
    const suggestions = await store().listProposals();
    expect(suggestions.map((s) => s.evidence).sort()).toEqual(['Remember that the staging DB resets every Monday.', '以后提交前先跑 lint。']);
    expect(suggestions.every((s) => s.kind === 'suggestion' && s.operation.scope === 'private')).toBe(true);
    expect(fake.messageRequests()).toHaveLength(0);
    // One click makes it a memory.
    const accepted = await acceptProposal(fx.dataDir, suggestions.find((s) => s.evidence.startsWith('Remember'))!.id);
    expect(await memory(accepted.result!.file)).toContain('staging DB resets every Monday');
    // The same statement said again is not suggested twice while one is pending.
    await writeTurns('以后提交前先跑 lint。');
    await run({ provider: offlineProvider() });
    expect((await store().listProposals()).filter((s) => s.evidence === '以后提交前先跑 lint。')).toHaveLength(1);
  });
});

describe('bad input', () => {
  it('handles truncated lines, garbage, unknown types and a half-written last line', async () => {
    const t = fx.builder();
    t.prompt('first').assistant('one', { stopReason: 'end_turn' });
    t.raw('{"type":"user","message":{"role":"user","content":"cut sh');
    t.raw('not json at all');
    t.record({ type: 'brand-new-type', uuid: 'x' });
    t.prompt('second').assistant('two', { stopReason: 'end_turn' });
    await fs.writeFile(fx.transcript(), `${t.take()}{"type":"user","message":{"role":"user","content":"still being writ`);
    const result = await run();
    expect(result.outcomes.reduce((n, o) => n + o.turns, 0)).toBe(2);
    expect(result.readOutcome).toBe('ok');
  });

  it('a transcript rewritten or replaced under its cursor: what was extracted before is not extracted again', async () => {
    const t = fx.builder();
    t.prompt('first').assistant('one', { stopReason: 'end_turn' }).prompt('second').assistant('two', { stopReason: 'end_turn' });
    const before = t.take();
    await fs.writeFile(fx.transcript(), before);
    await run();
    expect(fake.messageRequests()).toHaveLength(1);
    // Another program rewrites the file: a line added at the top, then a new turn.
    const copy = path.join(fx.root, 'copy.jsonl');
    await fs.writeFile(
      copy,
      `{"type":"summary","summary":"Earlier work","leafUuid":"x"}\n${before}${t.prompt('third').assistant('three', { stopReason: 'end_turn' }).take()}`,
    );
    await fs.rename(copy, fx.transcript());
    const result = await run();
    expect(result.reset).toMatch(/replaced/);
    expect(result.outcomes.map((o) => [o.skipped, o.reason, o.turns])).toEqual([
      [true, 'already-extracted', 2],
      [false, null, 1],
    ]);
    expect(sentPrompts(fake)[1]).toContain('third');
    expect(sentPrompts(fake)[1]).not.toContain('second');
  });

  it('reports a missing transcript without writing or throwing', async () => {
    const result = await run();
    expect(result).toMatchObject({ readOutcome: 'missing', outcomes: [], wrote: false });
  });

  it('a transcript deleted mid-run: what was read is handled, nothing breaks', async () => {
    await writeTurns(...Array.from({ length: 30 }, (_, i) => `prompt ${i}`));
    fake.setHandler(async (_req, index) => {
      if (index === 0) await fs.rm(fx.transcript(), { force: true });
      return operationsReply();
    });
    const result = await run({ maxTurnsPerRead: 10 });
    expect(result.outcomes.length).toBeGreaterThan(0);
    expect(['missing', 'ok']).toContain(result.readOutcome);
    expect(await exists('feedback_real_db.md')).toBe(false);
  });

  it('refuses a path that is not a session transcript of the home', async () => {
    await expect(run({ transcriptPath: path.join(fx.root, 'elsewhere.jsonl') })).rejects.toBeInstanceOf(ExtractInputError);
    await expect(run({ transcriptPath: path.join(fx.projectDir, 'session-1', 'subagents', 'agent-a.jsonl') })).rejects.toBeInstanceOf(ExtractInputError);
  });
});

describe('options', () => {
  it('--dry-run decides and reports but writes nothing and moves no cursor', async () => {
    fake.setHandler(() => operationsReply(testingMemory));
    await writeTurns('one');
    const dry = await run({ dryRun: true });
    expect(dry.outcomes[0]!.operations[0]!.disposition).toBe('dry-run');
    expect(await exists('feedback_real_db.md')).toBe(false);
    expect(await store().readLog()).toEqual([]);
    expect(await new CursorStore(fx.dataDir).list()).toEqual([]);
    const real = await run();
    expect(real.outcomes[0]!.operations[0]!.disposition).toBe('applied');
  });

  it('an automatic run on a session seen for the first time takes only its latest turn', async () => {
    await writeTurns('old 1', 'old 2', 'new');
    const result = await run({ firstSeen: 'latest' });
    expect(result.outcomes.map((o) => [o.skipped, o.reason, o.turns])).toEqual([
      [true, 'before-watching', 2],
      [false, null, 1],
    ]);
    expect(sentPrompts(fake)[0]).not.toContain('old 1');
  });

  it('counts "the latest turns" from the end of a long transcript, across reads', async () => {
    await writeTurns(...Array.from({ length: 25 }, (_, i) => `old prompt ${i + 1}`), 'new A', 'new B');
    const result = await run({ firstSeen: 3, maxTurnsPerRead: 10 });
    expect(result.outcomes.filter((o) => o.reason === 'before-watching').reduce((n, o) => n + o.turns, 0)).toBe(24);
    const sent = sentPrompts(fake).join('\n');
    for (const p of ['old prompt 25', 'new A', 'new B']) expect(sent).toContain(p);
    expect(sent).not.toContain('old prompt 24');
    // Once a cursor exists, every new turn counts again.
    await writeTurns('later 1', 'later 2');
    await run({ firstSeen: 'latest' });
    expect(sentPrompts(fake).at(-1)).toContain('later 1');
  });

  it('closes a trailing turn with no stop reason only when told the turn ended', async () => {
    const t = fx.builder();
    t.prompt('streaming turn').assistant('answer still has stop_reason null');
    await fs.writeFile(fx.transcript(), t.take());
    expect((await run()).outcomes).toEqual([]);
    expect((await run({ closeTrailingTurn: 'if-answered' })).outcomes).toHaveLength(1);
  });

  it('skips turns with no prompt from the user', async () => {
    const t = fx.builder();
    t.toolResult('orphan', 'result of a resumed session').assistant('continuing', { stopReason: 'end_turn' });
    await fs.writeFile(fx.transcript(), t.take());
    expect((await run()).outcomes[0]).toMatchObject({ skipped: true, reason: 'no-prompt' });
  });
});

describe('the shared fixtures (claude-code-log transcripts)', () => {
  const FIXTURES = path.resolve(import.meta.dirname, '../../../test/fixtures/transcripts/claude-code-log');
  for (const name of ['representative_messages', 'edge_cases', 'session_b', 'todowrite_examples']) {
    it(`${name}: every prompt reaches the model once, nothing is written for an empty answer`, async () => {
      const text = await fs.readFile(path.join(FIXTURES, `${name}.jsonl`), 'utf8');
      await fs.writeFile(fx.transcript(), text);
      const result = await run({ closeTrailingTurn: 'always' });
      expect(result.readOutcome).toBe('ok');
      expect(result.wrote).toBe(false);
      const extracted = result.outcomes.filter((o) => !o.skipped);
      expect(extracted.every((o) => o.method === 'model' && o.message === 'Nothing worth remembering.')).toBe(true);
      const sent = sentPrompts(fake).join('\n');
      // A last line without its newline is held by the reader (it may still be being written).
      const complete = text.endsWith('\n') ? text : text.slice(0, text.lastIndexOf('\n') + 1);
      for (const line of complete.split('\n').filter(Boolean)) {
        const record = JSON.parse(line) as { type?: string; message?: { content?: unknown } };
        const content = record.message?.content;
        const prompt = typeof content === 'string' ? content : Array.isArray(content) && content[0]?.type === 'text' ? (content[0].text as string) : null;
        if (record.type === 'user' && prompt && !prompt.startsWith('<') && !prompt.startsWith('Caveat'))
          expect(sent).toContain(JSON.stringify(prompt.slice(0, 30)).slice(1, -1));
      }
      const requests = fake.messageRequests().length;
      expect((await run({ closeTrailingTurn: 'always' })).outcomes).toEqual([]);
      expect(fake.messageRequests()).toHaveLength(requests);
    });
  }
});
