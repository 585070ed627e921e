import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeAnthropic, startFakeAnthropic } from '../llm/test-support/fake-anthropic.js';
import { type ExtractFixture, createExtractFixture, fakeProvider } from '../extract/test-support/extract-fixture.js';
import type { TranscriptBuilder } from '../transcripts/test-support/transcript-builder.js';
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

const usage = (context: number) => ({ input_tokens: 10, cache_read_input_tokens: context - 110, cache_creation_input_tokens: 100, output_tokens: 50 });
let ids = 0;
/** A turn with `tools` tool calls (the last `errors` of them failing) ending at `context` tokens. */
function turn(prompt: string, tools: number, context: number, options: { errors?: number; file?: string; end?: boolean } = {}): void {
  t.prompt(prompt);
  for (let i = 0; i < tools; i++) {
    const id = `tool-${++ids}`;
    const write = i === 0 && options.file;
    t.assistant([{ type: 'tool_use', id, name: write ? 'Edit' : 'Bash', input: write ? { file_path: options.file, old_string: 'a', new_string: 'b' } : { command: `npm test -- ${id}` } }], { usage: usage(context - 500), stopReason: 'tool_use' });
    const failed = i >= tools - (options.errors ?? 0);
    t.toolResult(id, failed ? `Error: test ${id} failed\nstack…` : 'ok', failed);
  }
  if (options.end !== false) t.assistant(`Finished: ${prompt}`, { usage: usage(context), stopReason: 'end_turn' });
}
const flush = () => fs.appendFile(fx.transcript(), t.take());
const sessions = (over: Partial<ConstructorParameters<typeof SessionMemory>[0]> = {}) => new SessionMemory({ home: fx.home, dataDir: fx.dataDir, ...over });
const noteFile = () => path.join(fx.dataDir, 'session-memory', 'session-memory-session-1.md');

describe('R-SESSION thresholds', () => {
  it('updates the note only when the context grew by more than 5,000 tokens AND 3 tool calls happened', async () => {
    const memory = sessions();
    turn('fix the flaky checkout test', 2, 3_000, { errors: 1, file: path.join(fx.cwd, 'src/checkout.ts') });
    await flush();
    let status = (await memory.observe(fx.transcript()))!;
    expect(status).toMatchObject({ tokensSinceUpdate: 3_000, toolCallsSinceUpdate: 2, due: false, tokensToNext: 2_001, toolCallsToNext: 1, note: null, updates: 0 });

    // Many tokens, but the third tool call is what makes it due.
    turn('also check the retry', 1, 9_000);
    await flush();
    status = (await memory.observe(fx.transcript()))!;
    expect(status).toMatchObject({ updates: 1, method: 'offline', tokensSinceUpdate: 0, toolCallsSinceUpdate: 0 });
    const note = await fs.readFile(noteFile(), 'utf8');
    for (const section of ['## Current task', '## Files changed', '## Errors met', '## Where the workflow stands']) expect(note).toContain(section);
    expect(note).toContain('also check the retry');
    expect(note).toContain('- src/checkout.ts');
    expect(note).toMatch(/Bash: Error: test tool-\d+ failed/);

    // 3 more tool calls but little growth: not due.
    turn('small step', 3, 10_000);
    await flush();
    expect(await memory.observe(fx.transcript())).toMatchObject({ toolCallsSinceUpdate: 3, tokensSinceUpdate: 1_000, due: false, updates: 1 });
    // Growth but only then: due.
    turn('big read', 0, 16_000);
    await flush();
    expect(await memory.observe(fx.transcript())).toMatchObject({ updates: 2 });
  });

  it('counts the turn still in progress, so a long agentic turn updates mid-way', async () => {
    turn('refactor the payment module', 4, 12_000, { end: false });
    await flush();
    expect(await sessions().observe(fx.transcript())).toMatchObject({ updates: 1, toolCallsSinceUpdate: 0 });
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
    fake.enqueue({ kind: 'message', text: '## Current task\nFix checkout.\n## Files changed\n- src/a.ts\n## Errors met\nNone.\n## Where the workflow stands\nTests pass.' });
    turn('fix checkout', 3, 9_000);
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
});

describe('life cycle', () => {
  it('is removed at the session end and never carried into a new session', async () => {
    const memory = sessions();
    turn('one', 3, 9_000);
    await flush();
    await memory.observe(fx.transcript());
    await memory.end('session-1');
    await expect(fs.stat(noteFile())).rejects.toThrow();
    const other = fx.builder('session-2');
    other.prompt('new session').assistant('hi', { stopReason: 'end_turn' });
    await fs.writeFile(fx.transcript('session-2'), other.take());
    expect(await memory.observe(fx.transcript('session-2'))).toMatchObject({ sessionId: 'session-2', note: null, updates: 0 });
  });

  it('removes sessions idle for too long, and lists live ones with recent transcripts', async () => {
    turn('one', 3, 9_000);
    await flush();
    const later = new Date(Date.now() + 5 * 3600_000);
    await sessions().observe(fx.transcript());
    expect((await sessions().list()).map((s) => s.sessionId)).toEqual(['session-1']);
    expect(await sessions({ now: () => later }).sweepIdle(240)).toEqual(['session-1']);
    expect(await sessions().list()).toEqual([]);
    expect((await sessions().list({ recentMinutes: 60 })).map((s) => s.sessionId)).toEqual(['session-1']);
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
