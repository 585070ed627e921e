// Extraction when things go wrong: a crash mid-way, two runs at once, a failing model, a damaged or vanishing transcript.
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ExtractStep, ExtractBusyError, ExtractInputError } from './extract-memories.js';
import { SimulatedCrash, crashAt } from './test-support/crash-at.js';
import { testingMemory, useExtractHarness } from './test-support/extract-harness.js';
import { operationsReply, sentPrompts } from './test-support/extract-fixture.js';

const h = useExtractHarness();
const { run, exists, indexFiles, historyOf, store, writeTurns } = h;

describe('a restart mid-way', () => {
  for (const step of ['journal-written', 'operations-applied', 'log-appended'] as ExtractStep[]) {
    it(`resumes after a crash once ${step} without a second model call or a second write`, async () => {
      h.fake.enqueue(operationsReply(testingMemory));
      await writeTurns('we never mock the database');
      await expect(run({ hooks: crashAt(step) })).rejects.toBeInstanceOf(SimulatedCrash);
      const resumed = await run();
      expect(resumed.resumed).toBe(true);
      expect(h.fake.messageRequests()).toHaveLength(1);
      expect(await indexFiles()).toEqual(['feedback_sql.md', 'feedback_real_db.md']);
      const extractEntries = (await historyOf()).filter((e) => e.source === 'extract');
      expect(extractEntries).toHaveLength(1);
      expect((await store().readLog()).filter((e) => e.kind === 'turns')).toHaveLength(1);
      expect(resumed.outcomes[0]!.operations[0]!.disposition).toBe('applied');
      // And the turn is consumed for good.
      expect((await run()).outcomes).toEqual([]);
      expect(h.fake.messageRequests()).toHaveLength(1);
    });
  }

  it('redoes a run that crashed before its journal was written (nothing was written yet)', async () => {
    await writeTurns('first');
    // A crash during the model call: no journal, no cursor move.
    h.fake.enqueue({ kind: 'hang' });
    await expect(run({ timeoutMs: 1000 })).resolves.toMatchObject({ pending: true });
    h.fake.enqueue(operationsReply(testingMemory));
    const second = await run();
    expect(second.outcomes[0]).toMatchObject({ skipped: false, operations: [expect.objectContaining({ disposition: 'applied' })] });
  });
});

describe('two runs at once', () => {
  it('never extract the same turns twice: the second waits, then finds nothing new (or steps aside)', async () => {
    h.fake.setHandler(async () => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      return operationsReply(testingMemory);
    });
    await writeTurns('we never mock the database');
    const results = await Promise.allSettled([run(), run(), run({ lockTimeoutMs: 50 })]);
    const done = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    expect(done.flatMap((r) => r.outcomes)).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(ExtractBusyError);
    expect(h.fake.messageRequests()).toHaveLength(1);
    expect((await historyOf()).filter((e) => e.source === 'extract')).toHaveLength(1);
  });
});

describe('model failures', () => {
  it('leaves the turn for a retry on a rate limit, then extracts it', async () => {
    await writeTurns('first turn', 'second turn');
    h.fake.enqueue({ kind: 'error', status: 429, retryAfterMs: 1 });
    const failed = await run();
    expect(failed.pending).toBe(true);
    expect(failed.outcomes[0]).toMatchObject({ skipped: true, reason: 'model-failed', message: expect.stringContaining('Tried again') });
    // Memdir tries again by itself: the person is not told to (s40).
    expect(failed.outcomes[0]!.message).toBe('The API is rate-limiting requests (HTTP 429). Tried again at the next turn end.');
    h.fake.enqueue(operationsReply(testingMemory));
    const retried = await run();
    expect(retried.outcomes[0]).toMatchObject({ skipped: false, turns: 2, operations: [expect.objectContaining({ disposition: 'applied' })] });
  });

  it('takes the offline path on an authentication error (retrying would not help) and moves on', async () => {
    h.fake.enqueue({ kind: 'error', status: 401 });
    await writeTurns('别用 ORM，记住我们手写 SQL。');
    const result = await run();
    expect(result.pending).toBe(false);
    expect(result.outcomes[0]).toMatchObject({ method: 'offline', operations: [expect.objectContaining({ disposition: 'queued' })] });
  });
});

describe('a model that repeats a secret it read', () => {
  it('its prose is quoted with the secret masked, in the outcome and in the log (s40)', async () => {
    // Assembled at run time, so no key-shaped literal sits in the repository.
    const token = ['ghp_', 'R8mK2vQ9', 'xT4pL7nW', '3zY6bC1d', 'F5hJ0sA8', 'eG2u'].join('');
    await fs.writeFile(path.join(h.fx.memoryDir, 'reference_ci.md'), `---\nname: CI\ndescription: CI token\ntype: reference\n---\nThe CI token is ${token}\n`);
    h.fake.enqueue({ kind: 'message', text: `The CI token is ${token}, nothing new to save.` });
    await writeTurns('what is the CI token?');
    const result = await run();
    expect(result.outcomes[0]!.message).toMatch(/prose instead of JSON \("The CI token is ghp_/);
    expect(result.outcomes[0]!.message).not.toContain(token.slice(8));
    expect(JSON.stringify(await store().readLog())).not.toContain(token.slice(8));
  });
});

describe('bad input', () => {
  it('handles truncated lines, garbage, unknown types and a half-written last line', async () => {
    const t = h.fx.builder();
    t.prompt('first').assistant('one', { stopReason: 'end_turn' });
    t.raw('{"type":"user","message":{"role":"user","content":"cut sh');
    t.raw('not json at all');
    t.record({ type: 'brand-new-type', uuid: 'x' });
    t.prompt('second').assistant('two', { stopReason: 'end_turn' });
    await fs.writeFile(h.fx.transcript(), `${t.take()}{"type":"user","message":{"role":"user","content":"still being writ`);
    const result = await run();
    expect(result.outcomes.reduce((n, o) => n + o.turns, 0)).toBe(2);
    expect(result.readOutcome).toBe('ok');
  });

  it('a transcript rewritten or replaced under its cursor: what was extracted before is not extracted again', async () => {
    const t = h.fx.builder();
    t.prompt('first').assistant('one', { stopReason: 'end_turn' }).prompt('second').assistant('two', { stopReason: 'end_turn' });
    const before = t.take();
    await fs.writeFile(h.fx.transcript(), before);
    await run();
    expect(h.fake.messageRequests()).toHaveLength(1);
    // Another program rewrites the file: a line added at the top, then a new turn.
    const copy = path.join(h.fx.root, 'copy.jsonl');
    await fs.writeFile(
      copy,
      `{"type":"summary","summary":"Earlier work","leafUuid":"x"}\n${before}${t.prompt('third').assistant('three', { stopReason: 'end_turn' }).take()}`,
    );
    await fs.rename(copy, h.fx.transcript());
    const result = await run();
    expect(result.reset).toMatch(/replaced/);
    expect(result.outcomes.map((o) => [o.skipped, o.reason, o.turns])).toEqual([
      [true, 'already-extracted', 2],
      [false, null, 1],
    ]);
    expect(sentPrompts(h.fake)[1]).toContain('third');
    expect(sentPrompts(h.fake)[1]).not.toContain('second');
  });

  it('reports a missing transcript without writing or throwing', async () => {
    const result = await run();
    expect(result).toMatchObject({ readOutcome: 'missing', outcomes: [], wrote: false });
  });

  it('a transcript deleted mid-run: what was read is handled, nothing breaks', async () => {
    await writeTurns(...Array.from({ length: 30 }, (_, i) => `prompt ${i}`));
    h.fake.setHandler(async (_req, index) => {
      if (index === 0) await fs.rm(h.fx.transcript(), { force: true });
      return operationsReply();
    });
    const result = await run({ maxTurnsPerRead: 10 });
    expect(result.outcomes.length).toBeGreaterThan(0);
    expect(['missing', 'ok']).toContain(result.readOutcome);
    expect(await exists('feedback_real_db.md')).toBe(false);
  });

  it('refuses a path that is not a session transcript of the home', async () => {
    await expect(run({ transcriptPath: path.join(h.fx.root, 'elsewhere.jsonl') })).rejects.toBeInstanceOf(ExtractInputError);
    await expect(run({ transcriptPath: path.join(h.fx.projectDir, 'session-1', 'subagents', 'agent-a.jsonl') })).rejects.toBeInstanceOf(ExtractInputError);
  });
});
