import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type TranscriptEvent, TranscriptReader } from './transcript-reader.js';
import type { Turn } from './turn-types.js';
import { readTurns } from './turns.js';

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../test/fixtures/transcripts/claude-code-log');

let tmp: string;
beforeEach(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-records-'));
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

async function allTurns(file: string, final = true): Promise<{ turns: Turn[]; stream: ReturnType<typeof readTurns> }> {
  const stream = readTurns(file, { final });
  const turns: Turn[] = [];
  for await (const turn of stream) turns.push(turn);
  return { turns, stream };
}

const summary = (turns: Turn[]) =>
  turns.map((t) => ({
    start: t.start,
    complete: t.complete,
    endReason: t.endReason,
    tools: t.toolCalls.map((c) => `${c.name}${c.result === null ? '' : c.result.isError ? ' (error)' : ' (ok)'}`),
    assistantMessages: t.assistantMessages,
    mergedLines: t.mergedLines,
  }));

describe('the shared fixtures (claude-code-log, MIT)', () => {
  it('representative_messages: three answered turns and a last prompt still open', async () => {
    const { turns, stream } = await allTurns(path.join(fixtures, 'representative_messages.jsonl'));
    expect(stream.stats).toMatchObject({ lines: 12, records: 12, malformed: { count: 0 }, invalid: { count: 0 } });
    expect(stream.end).toMatchObject({ status: 'eof', heldBytes: 0 });
    expect(summary(turns)).toEqual([
      { start: 'prompt', complete: true, endReason: 'end_turn', tools: [], assistantMessages: 1, mergedLines: 0 },
      { start: 'prompt', complete: true, endReason: 'end_turn', tools: ['Edit (ok)'], assistantMessages: 2, mergedLines: 0 },
      { start: 'prompt', complete: true, endReason: 'end_turn', tools: ['Bash (ok)'], assistantMessages: 2, mergedLines: 0 },
      { start: 'prompt', complete: false, endReason: null, tools: [], assistantMessages: 0, mergedLines: 0 },
    ]);
    expect(turns[0]).toMatchObject({
      userText: expect.stringMatching(/^Hello Claude! Can you help me understand/),
      sessionId: 'test_session',
      firstUuid: 'msg_001',
      lastUuid: 'msg_002',
      startedAt: '2025-06-14T10:00:00Z',
      endedAt: '2025-06-14T10:00:30Z',
      cwd: '/tmp',
    });
    expect(turns[0]!.assistantText).toMatch(/decorator/i);
    expect(turns[1]!.toolCalls[0]).toMatchObject({
      name: 'Edit',
      filePath: '/tmp/decorator_example.py',
      cwd: '/tmp',
      result: { isError: false, text: 'File created successfully at: /tmp/decorator_example.py' },
    });
    expect(turns[1]!.usage).toEqual({ inputTokens: 78, outputTokens: 95, cacheReadInputTokens: 0, cacheCreationInputTokens: 0, contextTokens: 78 });
  });

  it('edge_cases: seven lines of the wrong shape skipped and counted, a command turn, a failed tool', async () => {
    const { turns, stream } = await allTurns(path.join(fixtures, 'edge_cases.jsonl'));
    expect(stream.stats).toMatchObject({ lines: 19, records: 12, malformed: { count: 0 }, invalid: { count: 7 } });
    expect(stream.stats.invalid.samples.map((s) => [s.type, s.detail])).toEqual([
      ['user', '"message.content" is in none of the accepted forms'],
      ['user', '"message" should be an object, not text'],
      [null, 'not a JSON object'],
      [null, 'no "type" field'],
      [null, 'not a JSON object'],
      [null, 'not a JSON object'],
      ['user', '"message.content" is in none of the accepted forms'],
    ]);
    expect(summary(turns)).toEqual([
      { start: 'prompt', complete: true, endReason: 'end_turn', tools: [], assistantMessages: 1, mergedLines: 0 },
      { start: 'prompt', complete: true, endReason: 'next-prompt', tools: ['FailingTool (error)'], assistantMessages: 1, mergedLines: 0 },
      // The MultiEdit's result line is one of the invalid ones: the call stays unanswered.
      { start: 'command', complete: true, endReason: 'next-prompt', tools: ['MultiEdit'], assistantMessages: 1, mergedLines: 0 },
      { start: 'prompt', complete: false, endReason: null, tools: ['TodoWrite'], assistantMessages: 1, mergedLines: 0 },
    ]);
    expect(turns[2]).toMatchObject({ command: 'test-command', skippedLines: 2 });
    expect(turns[2]!.toolCalls[0]!.filePath).toBe('/tmp/complex_example.py');
    expect(turns[3]!.userText).toContain('café, naïve, résumé');
    expect(turns[3]!.userText).toContain('中文');
  });

  it('session_b and todowrite_examples: turns closed by the next prompt, usage of the latest response', async () => {
    const b = await allTurns(path.join(fixtures, 'session_b.jsonl'));
    expect(b.stream.stats).toMatchObject({ lines: 3, records: 3 });
    expect(summary(b.turns).map((t) => [t.complete, t.endReason])).toEqual([
      [true, 'end_turn'],
      [false, null],
    ]);

    const todo = await allTurns(path.join(fixtures, 'todowrite_examples.jsonl'));
    expect(todo.stream.stats).toMatchObject({ lines: 12, records: 12, invalid: { count: 0 } });
    expect(summary(todo.turns)).toEqual([
      { start: 'prompt', complete: true, endReason: 'next-prompt', tools: ['TodoWrite (ok)', 'TodoWrite (ok)'], assistantMessages: 4, mergedLines: 0 },
      { start: 'prompt', complete: false, endReason: null, tools: ['TodoWrite (ok)'], assistantMessages: 2, mergedLines: 0 },
    ]);
    expect(todo.turns[0]!.usage).toMatchObject({ inputTokens: 168, outputTokens: 85, contextTokens: 168 });
    expect(todo.turns[0]!.finalAssistantText).toBe('Great! Now let me start with the architecture design and update our progress.');
  });

  it('all four end without a newline: a live read holds the last line, a final read takes it', async () => {
    for (const name of ['edge_cases', 'representative_messages', 'session_b', 'todowrite_examples']) {
      const file = path.join(fixtures, `${name}.jsonl`);
      const size = (await fs.stat(file)).size;
      const live = await allTurns(file, false);
      expect(live.stream.end!.heldBytes, name).toBeGreaterThan(0);
      expect(live.stream.end!.consumedTo + live.stream.end!.heldBytes, name).toBe(size);
      const final = await allTurns(file, true);
      expect(final.stream.end, name).toMatchObject({ consumedTo: size, heldBytes: 0 });
    }
  });
});

describe('TranscriptReader', () => {
  it('counts malformed, invalid and unknown lines with their offsets and keeps going', async () => {
    const file = path.join(tmp, 't.jsonl');
    const good = JSON.stringify({ type: 'summary', summary: 'ok', leafUuid: 'x' });
    const lines = [
      good,
      '{"type":"user","message":{"role":"user","content":"hi"}',
      'not json at all',
      '',
      '{"type":"progress","data":{}}',
      '{"type":"assistant","uuid":"a","message":{"content":42}}',
      '{"type":"x-new-thing"}',
      good,
    ];
    await fs.writeFile(file, lines.map((l) => `${l}\n`).join(''));
    const offsets: number[] = [];
    lines.reduce((at, l) => (offsets.push(at), at + Buffer.byteLength(l) + 1), 0);

    const reader = new TranscriptReader(file);
    const events: TranscriptEvent[] = [];
    for await (const event of reader.events()) events.push(event);
    expect(events.map((e) => (e.kind === 'record' ? e.record.type : e.reason))).toEqual([
      'summary',
      'malformed',
      'malformed',
      'blank',
      'unknown-type',
      'invalid',
      'unknown-type',
      'summary',
    ]);
    expect(reader.stats).toMatchObject({
      lines: 8,
      records: 2,
      blank: 1,
      malformed: { count: 2 },
      invalid: { count: 1 },
      unknownTypes: { progress: 1, 'x-new-thing': 1 },
    });
    expect(reader.stats.malformed.samples.map((s) => s.offset)).toEqual([offsets[1], offsets[2]]);
    expect(reader.stats.invalid.samples[0]).toMatchObject({ offset: offsets[5], type: 'assistant', detail: expect.stringContaining('message.content') });
    expect(reader.end).toMatchObject({ status: 'eof', consumedTo: (await fs.stat(file)).size });
  });

  it('keeps unknown content blocks as markers and tolerates odd optional fields', async () => {
    const file = path.join(tmp, 't.jsonl');
    const line = {
      type: 'assistant',
      uuid: 'a1',
      cwd: 42,
      timestamp: '2026-01-01T00:00:00Z',
      message: {
        id: 'm',
        content: [
          { type: 'server_tool_use', id: 's', name: 'web_search' },
          { type: 'text', text: 'hello' },
        ],
        usage: 'n/a',
      },
      toolUseResult: { huge: 'x'.repeat(1000) },
    };
    await fs.writeFile(file, `${JSON.stringify(line)}\n`);
    const reader = new TranscriptReader(file);
    const events: TranscriptEvent[] = [];
    for await (const event of reader.events()) events.push(event);
    const record = events[0]!.kind === 'record' ? events[0]!.record : null;
    expect(record).toMatchObject({
      type: 'assistant',
      uuid: 'a1',
      cwd: undefined,
      message: {
        content: [
          { type: 'unknown', originalType: 'server_tool_use' },
          { type: 'text', text: 'hello' },
        ],
        usage: undefined,
      },
    });
    expect(record).not.toHaveProperty('toolUseResult');
  });
});
