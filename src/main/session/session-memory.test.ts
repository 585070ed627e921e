import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeAnthropic, startFakeAnthropic } from '../llm/test-support/fake-anthropic.js';
import { type ExtractFixture, createExtractFixture, fakeProvider } from '../extract/test-support/extract-fixture.js';
import { TranscriptBuilder } from '../transcripts/test-support/transcript-builder.js';
import { SessionMemory } from './session-memory.js';

let fx: ExtractFixture;
let t: TranscriptBuilder;
beforeEach(async () => {
  fx = await createExtractFixture('memdir-session-');
  t = fx.builder();
});
afterEach(async () => {
  await fx.cleanup();
});

/** A response whose input + cache + output tokens make `context` (R-SESSION's count). */
const usage = (context: number) => ({ input_tokens: 10, cache_read_input_tokens: context - 160, cache_creation_input_tokens: 100, output_tokens: 50 });
let ids = 0;
/**
 * A turn with `tools` tool calls (the last `errors` of them failing) ending at `context` tokens;
 * with `end: false` it stops mid-way, its last response a tool call whose result is in.
 */
function turn(prompt: string, tools: number, context: number, options: { errors?: number; file?: string; end?: boolean } = {}): void {
  t.prompt(prompt);
  for (let i = 0; i < tools; i++) {
    const id = `tool-${++ids}`;
    const write = i === 0 && options.file;
    t.assistant(
      [
        {
          type: 'tool_use',
          id,
          name: write ? 'Edit' : 'Bash',
          input: write ? { file_path: options.file, old_string: 'a', new_string: 'b' } : { command: `npm test -- ${id}` },
        },
      ],
      { usage: usage(options.end === false && i === tools - 1 ? context : context - 500), stopReason: 'tool_use' },
    );
    const failed = i >= tools - (options.errors ?? 0);
    // A one-character result: its chars / 4 estimate rounds to nothing.
    t.toolResult(id, failed ? `Error: test ${id} failed\nstack…` : 'y', failed);
  }
  if (options.end !== false) t.assistant(`Finished: ${prompt}`, { usage: usage(context), stopReason: 'end_turn' });
}
const flush = () => fs.appendFile(fx.transcript(), t.take());
const sessions = (over: Partial<ConstructorParameters<typeof SessionMemory>[0]> = {}) => new SessionMemory({ home: fx.home, dataDir: fx.dataDir, ...over });
const noteFile = () => path.join(fx.dataDir, 'session-memory', 'session-memory-session-1.md');

describe('R-SESSION thresholds', () => {
  it('writes no note before the context reaches 10,000 tokens, however many tool calls', async () => {
    const memory = sessions();
    turn('fix the flaky checkout test', 6, 9_999, { errors: 1, file: path.join(fx.cwd, 'src/checkout.ts') });
    await flush();
    expect(await memory.observe(fx.transcript())).toMatchObject({
      started: false,
      contextTokens: 9_999,
      toolCallsSinceUpdate: 6,
      due: false,
      tokensToNext: 1,
      toolCallsToNext: 0,
      note: null,
      updates: 0,
    });
    turn('also check the retry', 1, 10_000);
    await flush();
    const status = (await memory.observe(fx.transcript()))!;
    expect(status).toMatchObject({ started: true, updates: 1, method: 'offline', tokensSinceUpdate: 0, toolCallsSinceUpdate: 0 });
    const note = await fs.readFile(noteFile(), 'utf8');
    for (const section of ['## Current task', '## Files changed', '## Errors met', '## Where the workflow stands']) expect(note).toContain(section);
    expect(note).toContain('also check the retry');
    expect(note).toContain('- src/checkout.ts');
    expect(note).toMatch(/Bash: Error: test tool-\d+ failed/);
  });

  it('then updates after ≥ 5,000 tokens of growth and either 3 tool calls or a last response without any', async () => {
    const memory = sessions();
    turn('start', 3, 10_000);
    await flush();
    expect(await memory.observe(fx.transcript())).toMatchObject({ updates: 1 });

    // Mid-way through a turn: 5,000 tokens more, but 2 tool calls and the last response is one.
    turn('refactor', 2, 15_000, { end: false });
    await flush();
    expect(await memory.observe(fx.transcript())).toMatchObject({
      tokensSinceUpdate: 5_000,
      toolCallsSinceUpdate: 2,
      lastResponseUsedTools: true,
      due: false,
      tokensToNext: 0,
      toolCallsToNext: 1,
      updates: 1,
    });
    // The turn ends with an answer that calls no tool: exactly 5,000 tokens of growth is enough.
    t.assistant('Refactored.', { usage: usage(15_000), stopReason: 'end_turn' });
    await flush();
    expect(await memory.observe(fx.transcript())).toMatchObject({ updates: 2, lastResponseUsedTools: false });

    // 4,999 tokens with plenty of tool calls: not yet.
    turn('small step', 4, 19_999, { end: false });
    await flush();
    expect(await memory.observe(fx.transcript())).toMatchObject({ tokensSinceUpdate: 4_999, toolCallsSinceUpdate: 4, due: false, tokensToNext: 1, updates: 2 });
    // A third tool call mid-turn with the growth: due.
    turn('bigger step', 3, 20_000, { end: false });
    await flush();
    expect(await memory.observe(fx.transcript())).toMatchObject({ updates: 3 });
  });

  it('counts the context as Claude Code does: output tokens too, and chars / 4 of what came after the last response', async () => {
    t.prompt('read the log');
    t.assistant([{ type: 'tool_use', id: 'read-1', name: 'Read', input: { file_path: '/var/log/app.log' } }], {
      usage: { input_tokens: 1_000, cache_read_input_tokens: 4_000, cache_creation_input_tokens: 1_000, output_tokens: 2_000 },
      stopReason: 'tool_use',
    });
    t.toolResult('read-1', 'x'.repeat(8_000));
    await flush();
    // 1,000 + 4,000 + 1,000 + 2,000 = 8,000, plus 8,000 characters / 4 = 2,000.
    expect(await sessions().observe(fx.transcript(), { write: false })).toMatchObject({ contextTokens: 10_000, started: true });
  });

  it('counts the turn still in progress, so a long agentic turn updates mid-way', async () => {
    turn('refactor the payment module', 4, 12_000, { end: false });
    await flush();
    expect(await sessions().observe(fx.transcript())).toMatchObject({ updates: 1, toolCallsSinceUpdate: 0, lastResponseUsedTools: true });
  });

  it('measures growth from the smaller context after a compaction', async () => {
    const memory = sessions();
    turn('a', 3, 60_000);
    await flush();
    expect(await memory.observe(fx.transcript())).toMatchObject({ updates: 1 });
    t.system('compact_boundary', { compactMetadata: { trigger: 'auto', preTokens: 60_000 } });
    turn('b', 3, 8_000);
    await flush();
    expect(await memory.observe(fx.transcript())).toMatchObject({ updates: 1, tokensSinceUpdate: 0, toolCallsSinceUpdate: 3 });
    turn('c', 0, 14_000);
    await flush();
    expect(await memory.observe(fx.transcript())).toMatchObject({ updates: 2 });
  });

  it('a forced update (PreCompact) writes the note whatever the counters', async () => {
    turn('one', 1, 1_000);
    await flush();
    expect(await sessions().observe(fx.transcript(), { force: true })).toMatchObject({ updates: 1, note: expect.stringContaining('## Current task') });
  });

  it("says how much of the note Claude Code gets back, and whether it had to be cut to the client's 10,000 characters", async () => {
    turn('one', 1, 1_000);
    await flush();
    const memory = sessions();
    expect(await memory.observe(fx.transcript(), { write: false })).toMatchObject({ note: null, handBack: null });
    const short = (await memory.observe(fx.transcript(), { force: true }))!;
    expect(short.handBack).toEqual({ chars: expect.any(Number), wholeChars: short.handBack!.chars, cut: false });
    expect(short.handBack!.chars).toBeGreaterThan(short.note!.trim().length);
    // A model's note past the limit (a long list of steps).
    await fs.writeFile(noteFile(), `# Session memory\n\n## Where the workflow stands\n${'- a step of the work, done and checked\n'.repeat(400)}`);
    expect(await memory.observe(fx.transcript(), { write: false })).toMatchObject({ handBack: { chars: expect.any(Number), cut: true } });
    expect((await memory.observe(fx.transcript(), { write: false }))!.handBack!.chars).toBeLessThanOrEqual(10_000);
  });

  it('reporting only (write: false) writes nothing', async () => {
    turn('one', 5, 20_000);
    await flush();
    expect(await sessions().observe(fx.transcript(), { write: false })).toMatchObject({ due: true, note: null });
    await expect(fs.readdir(path.join(fx.dataDir, 'session-memory'))).rejects.toThrow();
  });
});

describe('the note with a model', () => {
  let fake: FakeAnthropic;
  beforeEach(async () => {
    fake = await startFakeAnthropic();
  });
  afterEach(async () => {
    await fake.close();
  });

  it('asks the model with the previous note and what happened, and falls back offline on a bad note', async () => {
    const provider = await fakeProvider(fake, fx.dataDir);
    const memory = sessions({ provider: async () => provider });
    fake.enqueue({
      kind: 'message',
      text: '## Current task\nFix checkout.\n## Files changed\n- src/a.ts\n## Errors met\nNone.\n## Where the workflow stands\nTests pass.',
    });
    turn('fix checkout', 3, 12_000);
    await flush();
    const first = (await memory.observe(fx.transcript()))!;
    expect(first).toMatchObject({ method: 'model', fallbackReason: null, note: expect.stringContaining('Tests pass.') });
    expect(JSON.stringify(fake.messageRequests()[0]!.body)).toContain('fix checkout');

    fake.enqueue({ kind: 'message', text: 'Sure! Here is a summary without sections.' });
    turn('next', 3, 20_000);
    await flush();
    const second = (await memory.observe(fx.transcript()))!;
    expect(second).toMatchObject({ method: 'offline', fallbackReason: expect.stringContaining('lacks') });
    expect(JSON.stringify(fake.messageRequests()[1]!.body)).toContain('Tests pass.');
  });

  it('a huge answer is not kept as the note: the next update would send it back every time (s40)', async () => {
    const provider = await fakeProvider(fake, fx.dataDir);
    const memory = sessions({ provider: async () => provider });
    const filler = '- a step done and checked\n'.repeat(100_000);
    fake.enqueue({
      kind: 'message',
      text: `## Current task\nFix checkout.\n## Files changed\n${filler}## Errors met\nNone.\n## Where the workflow stands\nTests pass.`,
    });
    turn('fix checkout', 3, 12_000);
    await flush();
    const first = (await memory.observe(fx.transcript()))!;
    expect(first).toMatchObject({ method: 'offline', fallbackReason: expect.stringMatching(/The model's note is 2,6\d\d,\d{3} characters long/) });
    expect(first.note!.length).toBeLessThan(20_000);
    fake.enqueue({
      kind: 'message',
      text: '## Current task\nFix checkout.\n## Files changed\n- src/a.ts\n## Errors met\nNone.\n## Where the workflow stands\nTests pass.',
    });
    turn('next', 3, 20_000);
    await flush();
    expect(await memory.observe(fx.transcript())).toMatchObject({ method: 'model', fallbackReason: null });
    expect(fake.messageRequests()[1]!.rawBody.length).toBeLessThan(50_000);
  });
});

describe('life cycle', () => {
  it('stays after the session ends, for a resume, and is never carried into a new session', async () => {
    // The session ends after its last line (the builder's clock starts on 2026-03-01 at 10:00).
    const memory = sessions({ now: () => new Date('2026-03-01T11:00:00.000Z') });
    turn('one', 3, 12_000);
    await flush();
    await memory.observe(fx.transcript());
    await memory.end('session-1');
    expect((await memory.list())[0]).toMatchObject({
      sessionId: 'session-1',
      endedAt: '2026-03-01T11:00:00.000Z',
      note: expect.stringContaining('## Current task'),
    });
    // `claude --resume` goes on in the same session, later: it is live again.
    t = new TranscriptBuilder({ sessionId: 'session-1', cwd: fx.cwd, uuidPrefix: 'resumed', start: '2026-03-02T09:00:00.000Z' });
    turn('two', 1, 13_000);
    await flush();
    expect(await memory.observe(fx.transcript())).toMatchObject({ endedAt: null, note: expect.stringContaining('## Current task') });
    const other = fx.builder('session-2');
    other.prompt('new session').assistant('hi', { stopReason: 'end_turn' });
    await fs.writeFile(fx.transcript('session-2'), other.take());
    expect(await memory.observe(fx.transcript('session-2'))).toMatchObject({ sessionId: 'session-2', note: null, updates: 0 });
  });

  it('shows the summary.md an older Claude Code wrote for the session', async () => {
    turn('one', 1, 1_000);
    await flush();
    const summary = path.join(fx.projectDir, 'session-1', 'session-memory', 'summary.md');
    expect(await sessions().observe(fx.transcript())).toMatchObject({ claudeCodeSummary: null });
    await fs.mkdir(path.dirname(summary), { recursive: true, mode: 0o700 });
    await fs.writeFile(summary, '# Session Title\nCheckout flakiness\n', { mode: 0o600 });
    expect(await sessions().observe(fx.transcript())).toMatchObject({
      claudeCodeSummary: { file: summary, text: '# Session Title\nCheckout flakiness\n', truncated: false },
    });
  });

  it('removes sessions idle for too long, and lists live ones with recent transcripts', async () => {
    turn('one', 3, 12_000);
    await flush();
    const later = new Date(Date.now() + 5 * 3600_000);
    await sessions().observe(fx.transcript());
    expect((await sessions().list()).map((s) => s.sessionId)).toEqual(['session-1']);
    expect(await sessions({ now: () => later }).sweepIdle(240)).toEqual(['session-1']);
    await expect(fs.stat(noteFile())).rejects.toThrow();
    expect(await sessions().list()).toEqual([]);
    expect((await sessions().list({ recentMinutes: 60 })).map((s) => s.sessionId)).toEqual(['session-1']);
  });

  // Review s45-4: the app's Live sessions asks every 5 s, and a session Memdir does not follow was read
  // from its first byte each time (a 35 MB transcript: 180–360 ms a call). Told apart here by what a
  // second reading of the start would count: the lines already read are blanked in place (same size,
  // same file, the last one kept), so only a transcript read again from the start loses their three tool calls.
  it('lists a session it does not follow by reading only what was appended since it last looked', async () => {
    turn('one', 3, 12_000);
    await flush();
    const memory = sessions();
    expect((await memory.list({ recentMinutes: 60 })).map((s) => [s.sessionId, s.toolCallsSinceUpdate])).toEqual([['session-1', 3]]);
    // All but its last line, which a resumed reading checks is still in place.
    const text = await fs.readFile(fx.transcript(), 'utf8');
    const last = text.lastIndexOf('\n', text.length - 2) + 1;
    const handle = await fs.open(fx.transcript(), 'r+');
    await handle.write(`${' '.repeat(Buffer.byteLength(text.slice(0, last)) - 1)}\n`, 0);
    await handle.close();
    turn('two', 2, 13_000);
    await flush();
    expect((await memory.list({ recentMinutes: 60 })).map((s) => [s.sessionId, s.toolCallsSinceUpdate])).toEqual([['session-1', 5]]);
    // Nothing of it is written down: a session it does not follow leaves no state behind.
    expect(await memory.store.list()).toEqual([]);
  });

  // Review s45-6: a session followed before Session Memory was turned off keeps its saved counters, and each
  // listing read everything since them again.
  it('lists a session it followed before by reading only what was appended since the listing before', async () => {
    turn('one', 3, 12_000);
    await flush();
    const memory = sessions();
    await memory.observe(fx.transcript());
    turn('two', 2, 18_000);
    await flush();
    expect((await memory.list()).map((s) => [s.sessionId, s.toolCallsSinceUpdate])).toEqual([['session-1', 2]]);
    // Turn two's lines blanked (its last kept): only a reading from the saved counters again loses its two tool calls.
    const text = await fs.readFile(fx.transcript(), 'utf8');
    const last = text.lastIndexOf('\n', text.length - 2) + 1;
    const from = text.lastIndexOf('\n', text.indexOf('"two"')) + 1;
    const handle = await fs.open(fx.transcript(), 'r+');
    await handle.write(`${' '.repeat(Buffer.byteLength(text.slice(from, last)) - 1)}\n`, Buffer.byteLength(text.slice(0, from)));
    await handle.close();
    turn('three', 1, 19_000);
    await flush();
    expect((await memory.list()).map((s) => [s.sessionId, s.toolCallsSinceUpdate])).toEqual([['session-1', 3]]);
  });

  // Review s45-8: a listing kept from before Claude Code ended the session hid its end.
  it('a session listed, then ended, is listed as ended', async () => {
    turn('one', 3, 12_000);
    await flush();
    const memory = sessions();
    await memory.observe(fx.transcript());
    expect((await memory.list())[0]?.endedAt).toBeNull();
    await memory.end('session-1');
    expect((await memory.list())[0]?.endedAt).toEqual(expect.any(String));
  });

  it('ignores sub-agent transcripts and files outside the home', async () => {
    const sub = path.join(fx.projectDir, 'session-1', 'subagents', 'agent-a.jsonl');
    await fs.mkdir(path.dirname(sub), { recursive: true });
    await fs.writeFile(sub, '');
    expect(await sessions().observe(sub)).toBeNull();
    expect(await sessions().observe(path.join(fx.root, 'x.jsonl'))).toBeNull();
    expect(await sessions().observe(fx.transcript('never-written'))).toBeNull();
  });
});
