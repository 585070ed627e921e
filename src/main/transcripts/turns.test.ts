import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listProjectTranscripts, listSubagentTranscripts } from './list-transcripts.js';
import { TranscriptBuilder } from './test-support/transcript-builder.js';
import type { Turn } from './turn-types.js';
import { type TurnReadOptions, readTurns } from './turns.js';

let tmp: string;
beforeEach(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-turns-'));
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

async function turnsOf(text: string, options: TurnReadOptions = {}, name = 't.jsonl'): Promise<Turn[]> {
  const file = path.join(tmp, name);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, text);
  const turns: Turn[] = [];
  for await (const turn of readTurns(file, options)) turns.push(turn);
  return turns;
}

describe('turn assembly', () => {
  it('merges the lines of one response (same message.id) into one message, keeping the latest usage', async () => {
    const t = new TranscriptBuilder();
    t.prompt('Rename the config loader');
    t.assistant(
      [
        { type: 'thinking', thinking: 'Find the loader first.' },
        { type: 'text', text: 'Let me look.' },
        { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: '/work/app/src/config.ts' } },
      ],
      {
        messageId: 'msg_A',
        stopReason: 'tool_use',
        usage: { input_tokens: 10, cache_read_input_tokens: 2000, cache_creation_input_tokens: 300, output_tokens: 50 },
      },
    );
    t.toolResult('toolu_1', 'export const load = () => {}');
    t.assistant(
      [
        { type: 'text', text: 'Renamed it.' },
        { type: 'tool_use', id: 'toolu_2', name: 'Edit', input: { file_path: 'src/config.ts', old_string: 'load', new_string: 'loadConfig' } },
      ],
      { messageId: 'msg_B', usage: { input_tokens: 12, cache_read_input_tokens: 2400, cache_creation_input_tokens: 500, output_tokens: 80 } },
    );
    t.toolResult('toolu_2', 'String not found in file', true);
    t.assistant('Done: `load` is now `loadConfig`.', {
      messageId: 'msg_C',
      stopReason: 'end_turn',
      usage: { input_tokens: 3, cache_read_input_tokens: 3000, cache_creation_input_tokens: 100, output_tokens: 30 },
    });
    const [turn, ...rest] = await turnsOf(t.take());

    expect(rest).toEqual([]);
    expect(turn).toMatchObject({
      start: 'prompt',
      complete: true,
      endReason: 'end_turn',
      userText: 'Rename the config loader',
      assistantMessages: 3,
      mergedLines: 3,
      lines: 9,
    });
    expect(turn!.assistantText).toBe('Let me look.\n\nRenamed it.\n\nDone: `load` is now `loadConfig`.');
    expect(turn!.finalAssistantText).toBe('Done: `load` is now `loadConfig`.');
    expect(turn!.toolCalls.map((c) => [c.name, c.filePath, c.messageId, c.result?.isError])).toEqual([
      ['Read', '/work/app/src/config.ts', 'msg_A', false],
      ['Edit', 'src/config.ts', 'msg_B', true],
    ]);
    expect(turn!.usage).toEqual({ inputTokens: 3, outputTokens: 30, cacheReadInputTokens: 3000, cacheCreationInputTokens: 100, contextTokens: 3103 });
    expect([turn!.firstUuid, turn!.lastUuid]).toEqual(['u-1', 'u-9']);
  });

  it('ends a turn at end_turn, at the next prompt, at an interrupt, or when the caller says so', async () => {
    const t = new TranscriptBuilder();
    t.prompt('one').assistant('answer one', { stopReason: 'end_turn' });
    t.prompt('two').assistant('still streaming, no stop reason on this line');
    t.prompt('three').assistant([{ type: 'tool_use', id: 'b1', name: 'Bash', input: { command: 'sleep 100' } }]);
    t.toolResult('b1', "The user doesn't want to proceed with this tool use.", true);
    t.userLine([{ type: 'text', text: '[Request interrupted by user for tool use]' }]);
    t.prompt('four').assistant('answer four');
    const text = t.take();

    const never = await turnsOf(text);
    expect(never.map((x) => [x.userText, x.complete, x.endReason])).toEqual([
      ['one', true, 'end_turn'],
      ['two', true, 'next-prompt'],
      ['three', true, 'interrupted'],
      ['four', false, null],
    ]);
    const answered = await turnsOf(text, { closeTrailingTurn: 'if-answered' });
    expect(answered.at(-1)).toMatchObject({ userText: 'four', complete: true, endReason: 'closed-by-caller' });

    // A tool call still waiting for its result is not an answer.
    const pending = new TranscriptBuilder();
    pending.prompt('five').assistant([{ type: 'tool_use', id: 'r1', name: 'Read', input: { file_path: '/a' } }]);
    expect((await turnsOf(pending.take(), { closeTrailingTurn: 'if-answered' })).at(-1)).toMatchObject({ complete: false });
  });

  it('keeps byte ranges contiguous: lines between turns belong to the next turn', async () => {
    const t = new TranscriptBuilder();
    t.record({
      type: 'file-history-snapshot',
      messageId: 'x',
      snapshot: { messageId: 'x', trackedFileBackups: {}, timestamp: '2026-03-01T09:59:59Z' },
      isSnapshotUpdate: false,
    });
    t.prompt('one').assistant('a', { stopReason: 'end_turn' });
    t.system('stop_hook_summary');
    t.record({ type: 'queue-operation', operation: 'enqueue', timestamp: '2026-03-01T10:00:30Z', sessionId: 'session-1', content: 'two' });
    t.prompt('two').assistant('b', { stopReason: 'end_turn' });
    const text = t.take();
    const turns = await turnsOf(text);
    expect(turns.map((x) => [x.startOffset, x.endOffset, x.lines])).toEqual([
      [0, turns[0]!.endOffset, 3],
      [turns[0]!.endOffset, Buffer.byteLength(text), 4],
    ]);
  });

  it('records a compaction boundary in the turn, and the compact summary does not start a turn', async () => {
    const t = new TranscriptBuilder();
    t.prompt('long task').assistant('working', { stopReason: 'end_turn' });
    t.prompt('<command-name>/compact</command-name>\n<command-message>compact</command-message>\n<command-args></command-args>');
    t.system('compact_boundary', { compactMetadata: { trigger: 'manual', preTokens: 154000 } });
    t.userLine('This session is being continued from a previous conversation that ran out of context. Summary: ...', {
      isCompactSummary: true,
      isVisibleInTranscriptOnly: true,
    });
    t.userLine('<local-command-stdout>Compacted (ctrl+r to see full summary)</local-command-stdout>');
    t.prompt('continue please').assistant('continuing', { stopReason: 'end_turn' });
    const turns = await turnsOf(t.take());
    expect(turns.map((x) => [x.start, x.command, x.compactions.length])).toEqual([
      ['prompt', null, 0],
      ['command', '/compact', 1],
      ['prompt', null, 0],
    ]);
    expect(turns[1]!.compactions[0]).toMatchObject({ trigger: 'manual', preTokens: 154000, uuid: 'u-4' });
  });

  it('makes a continuation turn of assistant lines with no prompt before them', async () => {
    const t = new TranscriptBuilder();
    t.prompt('fix it').assistant('fixed', { stopReason: 'end_turn' });
    // A Stop hook blocked the stop: the agent goes on without a new prompt.
    t.system('stop_hook_summary');
    t.assistant([{ type: 'tool_use', id: 't9', name: 'Bash', input: { command: 'npm test' } }], { stopReason: 'tool_use' });
    t.toolResult('t9', 'ok');
    t.assistant('Tests pass now.', { stopReason: 'end_turn' });
    const turns = await turnsOf(t.take());
    expect(turns.map((x) => [x.start, x.userText, x.finalAssistantText, x.toolCalls.length])).toEqual([
      ['prompt', 'fix it', 'fixed', 0],
      ['continuation', '', 'Tests pass now.', 1],
    ]);
  });

  it('keeps out-of-order timestamps in file order', async () => {
    const t = new TranscriptBuilder({ start: '2026-03-01T12:00:00Z' });
    t.prompt('late clock').assistant('a', { stopReason: 'end_turn' });
    t.setTime('2026-03-01T08:00:00Z');
    t.prompt('early clock').assistant('b', { stopReason: 'end_turn' });
    t.setTime('2026-03-01T13:00:00Z').prompt('third');
    t.setTime('2026-03-01T07:00:00Z').assistant('c', { stopReason: 'end_turn' });
    const turns = await turnsOf(t.take());
    expect(turns.map((x) => [x.userText, x.startedAt, x.endedAt])).toEqual([
      ['late clock', '2026-03-01T12:00:00.000Z', '2026-03-01T12:00:01.000Z'],
      ['early clock', '2026-03-01T08:00:00.000Z', '2026-03-01T08:00:01.000Z'],
      ['third', '2026-03-01T13:00:00.000Z', '2026-03-01T07:00:00.000Z'],
    ]);
  });

  it('skips a 60 MB line without losing the turn it opens', async () => {
    const file = path.join(tmp, 'big.jsonl');
    const t = new TranscriptBuilder();
    t.prompt('before').assistant('ok', { stopReason: 'end_turn' });
    await fs.writeFile(file, t.take());
    // A prompt with a pasted 60 MB image, written in pieces so the test never holds it whole.
    const head =
      '{"parentUuid":"u-2","isSidechain":false,"userType":"external","cwd":"/work/app","sessionId":"session-1","version":"2.0.14","gitBranch":"main","type":"user","message":{"role":"user","content":[{"type":"text","text":"what is in this screenshot?"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"';
    const handle = await fs.open(file, 'a');
    await handle.write(head);
    const piece = Buffer.alloc(4 * 1024 * 1024, 'A');
    for (let i = 0; i < 15; i++) await handle.write(piece);
    await handle.write('"}}]},"uuid":"big-prompt","timestamp":"2026-03-01T10:05:00.000Z"}\n');
    await handle.close();
    const after = new TranscriptBuilder({ uuidPrefix: 'v', start: '2026-03-01T10:05:01Z' });
    after.assistant('A login form.', { stopReason: 'end_turn' });
    after.prompt('thanks').assistant('welcome', { stopReason: 'end_turn' });
    await fs.appendFile(file, after.take());

    const stream = readTurns(file);
    const turns: Turn[] = [];
    for await (const turn of stream) turns.push(turn);
    expect(stream.stats.oversize.count).toBe(1);
    expect(stream.stats.oversize.samples[0]).toMatchObject({ type: 'user', length: expect.any(Number) });
    expect(stream.stats.oversize.samples[0]!.length).toBeGreaterThan(60 * 1024 * 1024);
    expect(turns.map((x) => [x.userText, x.finalAssistantText, x.firstUuid, x.truncated])).toEqual([
      ['before', 'ok', 'u-1', false],
      ['', 'A login form.', 'big-prompt', true],
      ['thanks', 'welcome', 'v-2', false],
    ]);
    expect(stream.end).toMatchObject({ status: 'eof', consumedTo: (await fs.stat(file)).size });
  });

  it('caps texts and tool inputs so one huge turn cannot take the memory', async () => {
    const t = new TranscriptBuilder();
    t.prompt('x'.repeat(500));
    t.assistant([{ type: 'tool_use', id: 'w', name: 'Write', input: { file_path: '/work/app/big.txt', content: 'y'.repeat(10_000) } }]);
    t.toolResult('w', 'z'.repeat(10_000));
    t.assistant('a'.repeat(500), { stopReason: 'end_turn' });
    const [turn] = await turnsOf(t.take(), { limits: { maxTextChars: 100, maxToolInputChars: 50, maxToolResultChars: 20 } });
    expect(turn!.truncated).toBe(true);
    expect(turn!.userText.startsWith('x'.repeat(100))).toBe(true);
    expect(turn!.userText.length).toBeLessThan(140);
    expect((turn!.toolCalls[0]!.input.content as string).length).toBeLessThan(90);
    expect(turn!.toolCalls[0]!.input.file_path).toBe('/work/app/big.txt');
    expect(turn!.toolCalls[0]!.result).toMatchObject({ truncated: true });
  });

  it('ignores zero usage of Claude Code’s synthetic error messages', async () => {
    const t = new TranscriptBuilder();
    t.prompt('go').assistant('partial', { usage: { input_tokens: 5, cache_read_input_tokens: 9000 } });
    t.record({
      type: 'assistant',
      uuid: 'err',
      isApiErrorMessage: true,
      message: {
        id: 'e',
        model: '<synthetic>',
        role: 'assistant',
        content: [{ type: 'text', text: 'API Error: 529 overloaded' }],
        stop_reason: 'stop_sequence',
        usage: { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
      },
    });
    const [turn] = await turnsOf(t.take());
    expect(turn).toMatchObject({ complete: true, endReason: 'end_turn', usage: { contextTokens: 9105 } });
  });
});

describe('sub-agent transcripts', () => {
  it('are listed under <sessionId>/subagents and read with the same reader as sidechain turns', async () => {
    const project = path.join(tmp, 'projects', '-work-app');
    const main = new TranscriptBuilder({ sessionId: 'sess-1' });
    main
      .prompt('review the PR')
      .assistant([
        { type: 'tool_use', id: 'task1', name: 'Task', input: { description: 'review', prompt: 'Review the diff', subagent_type: 'code-reviewer' } },
      ]);
    // Older Claude Code wrote sub-agent lines into the main file: they are not main turns.
    main.record({ type: 'user', uuid: 'side-1', isSidechain: true, sessionId: 'sess-1', message: { role: 'user', content: 'Review the diff' } });
    main.toolResult('task1', 'Looks good').assistant('The reviewer found nothing.', { stopReason: 'end_turn' });
    const agent = new TranscriptBuilder({ sessionId: 'sess-1', agentId: 'a1b2c3', uuidPrefix: 'ag' });
    agent.prompt('Review the diff').assistant([{ type: 'tool_use', id: 'g1', name: 'Grep', input: { pattern: 'TODO' } }]);
    agent.toolResult('g1', 'no matches').assistant('Looks good', { stopReason: 'end_turn' });

    const mainTurns = await turnsOf(main.take(), {}, 'projects/-work-app/sess-1.jsonl');
    const agentTurns = await turnsOf(agent.take(), {}, 'projects/-work-app/sess-1/subagents/agent-a1b2c3.jsonl');
    expect(mainTurns).toHaveLength(1);
    expect(mainTurns[0]).toMatchObject({ otherChainLines: 1, isSidechain: false, finalAssistantText: 'The reviewer found nothing.' });
    expect(agentTurns).toHaveLength(1);
    expect(agentTurns[0]).toMatchObject({
      isSidechain: true,
      agentId: 'a1b2c3',
      userText: 'Review the diff',
      finalAssistantText: 'Looks good',
      complete: true,
    });

    expect((await listSubagentTranscripts(project, 'sess-1')).map((f) => [f.kind, f.sessionId, f.agentId])).toEqual([['subagent', 'sess-1', 'a1b2c3']]);
    expect((await listProjectTranscripts(project, { includeSubagents: true })).map((f) => path.relative(project, f.path)).sort()).toEqual([
      'sess-1.jsonl',
      path.join('sess-1', 'subagents', 'agent-a1b2c3.jsonl'),
    ]);
  });
});
