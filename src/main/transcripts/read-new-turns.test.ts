import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CursorStore } from './cursor-store.js';
import { type NewTurns, commitCursor, readNewTurns } from './read-new-turns.js';
import { TranscriptBuilder } from './test-support/transcript-builder.js';
import { readTurns } from './turns.js';

let tmp: string;
let dataDir: string;
let file: string;
beforeEach(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-cursor-'));
  dataDir = path.join(tmp, 'data');
  file = path.join(tmp, 'projects', '-work-app', 'session-1.jsonl');
  await fs.mkdir(path.dirname(file), { recursive: true });
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

/** A fresh store each time, as after a restart: nothing is remembered in memory. */
const read = (consumer = 'extract', options: { maxTurns?: number; closeTrailingTurn?: 'never' | 'always' } = {}) =>
  readNewTurns(file, { cursorStore: new CursorStore(dataDir), consumer, ...options });
const commit = (result: NewTurns) => commitCursor(new CursorStore(dataDir), result);
const prompts = (result: NewTurns) => result.turns.map((t) => t.userText);

function session(from: number, to: number, t = new TranscriptBuilder()): TranscriptBuilder {
  for (let i = from; i <= to; i++) t.prompt(`prompt ${i}`).assistant(`answer ${i}`, { stopReason: 'end_turn' });
  return t;
}

describe('readNewTurns with a persisted cursor', () => {
  it('resumes after a restart without doing a turn twice or missing one', async () => {
    const t = session(1, 3);
    t.prompt('prompt 4').assistant([{ type: 'tool_use', id: 'x', name: 'Bash', input: { command: 'ls' } }]);
    await fs.writeFile(file, t.take());
    await fs.appendFile(file, '{"parentUuid":"u-8","type":"user","mess');

    const first = await read();
    expect(prompts(first)).toEqual(['prompt 1', 'prompt 2', 'prompt 3']);
    expect(first.openTurn).toMatchObject({ userText: 'prompt 4', complete: false });
    expect(first.heldBytes).toBeGreaterThan(0);
    expect(first.previous).toBeNull();
    expect(await commit(first)).toMatchObject({ committed: true });

    // The half-written line completes, the open turn ends, another one follows.
    await fs.appendFile(
      file,
      'age":{"role":"user","content":[{"type":"tool_result","tool_use_id":"x","content":"a\\nb"}]},"uuid":"u-9","sessionId":"session-1"}\n',
    );
    t.assistant('listed', { stopReason: 'end_turn' });
    session(5, 5, t);
    await fs.appendFile(file, t.take());

    const second = await read();
    expect(second.reset).toBeNull();
    expect(prompts(second)).toEqual(['prompt 4', 'prompt 5']);
    expect(second.turns[0]!.toolCalls[0]!.result).toMatchObject({ isError: false, text: 'a\nb' });
    expect(second.cursor).toMatchObject({ offset: (await fs.stat(file)).size, turnsConsumed: 5 });
    expect(await commit(second)).toMatchObject({ committed: true });

    const third = await read();
    expect(third.turns).toEqual([]);
    expect(third.cursor!.offset).toBe(second.cursor!.offset);
  });

  it('redoes, never skips, the turns of a read that was not committed (crash before commit)', async () => {
    await fs.writeFile(file, session(1, 2).take());
    const first = await read();
    expect(prompts(first)).toEqual(['prompt 1', 'prompt 2']);
    // No commit: the process died while extracting.
    const again = await read();
    expect(prompts(again)).toEqual(['prompt 1', 'prompt 2']);
  });

  it('keeps one cursor per consumer', async () => {
    await fs.writeFile(file, session(1, 2).take());
    await commit(await read('extract'));
    expect(prompts(await read('extract'))).toEqual([]);
    expect(prompts(await read('session-memory'))).toEqual(['prompt 1', 'prompt 2']);
  });

  it('hands out at most maxTurns per call and says there is more', async () => {
    await fs.writeFile(file, session(1, 5).take());
    const seen: string[] = [];
    for (let round = 0; round < 5; round++) {
      const batch = await read('extract', { maxTurns: 2 });
      seen.push(...prompts(batch));
      await commit(batch);
      if (!batch.more) break;
    }
    expect(seen).toEqual(['prompt 1', 'prompt 2', 'prompt 3', 'prompt 4', 'prompt 5']);
  });

  it('refuses a commit when the cursor moved since the read (two runs at once)', async () => {
    await fs.writeFile(file, session(1, 2).take());
    const a = await read();
    const b = await read();
    expect(await commit(a)).toMatchObject({ committed: true });
    expect(await commit(b)).toMatchObject({ committed: false, reason: 'moved' });
  });

  it('closes the trailing turn when the caller knows the session ended', async () => {
    const t = session(1, 1);
    t.prompt('prompt 2').assistant('answer 2 (no stop reason written)');
    await fs.writeFile(file, t.take());
    expect(prompts(await read())).toEqual(['prompt 1']);
    const ended = await read('extract', { closeTrailingTurn: 'always' });
    expect(prompts(ended)).toEqual(['prompt 1', 'prompt 2']);
    expect(ended.turns[1]).toMatchObject({ endReason: 'closed-by-caller' });
  });
});

describe('a transcript that changed under its cursor', () => {
  async function committedOn(text: string): Promise<NewTurns> {
    await fs.writeFile(file, text);
    const result = await read();
    await commit(result);
    return result;
  }

  it('detects truncation and reads again from the start, with a clear record', async () => {
    const before = await committedOn(session(1, 3).take());
    await fs.truncate(file, 100);
    await fs.appendFile(file, '\n');
    await fs.appendFile(file, session(7, 7, new TranscriptBuilder({ uuidPrefix: 'n' })).take());
    const after = await read();
    expect(after.reset).toMatchObject({ reason: 'truncated', previous: { offset: before.cursor!.offset } });
    expect(after.reset!.message).toMatch(/truncated/);
    expect(prompts(after)).toEqual(['prompt 7']);
    expect(after.stats.malformed.count).toBe(1);
    expect(await commit(after)).toMatchObject({ committed: true });
    expect((await read()).reset).toBeNull();
  });

  it('detects a file replaced by another (rotation) even when it is longer', async () => {
    await committedOn(session(1, 2).take());
    const other = path.join(tmp, 'other.jsonl');
    await fs.writeFile(other, session(1, 6, new TranscriptBuilder({ uuidPrefix: 'r' })).take());
    await fs.rename(other, file);
    const after = await read();
    expect(after.reset).toMatchObject({ reason: 'replaced' });
    expect(after.turns).toHaveLength(6);
  });

  it('detects a file rewritten in place (same inode, the recorded line is gone)', async () => {
    await committedOn(session(1, 2).take());
    const handle = await fs.open(file, 'r+');
    await handle.write(session(1, 4, new TranscriptBuilder({ uuidPrefix: 'w' })).take(), 0);
    await handle.close();
    const after = await read();
    expect(after.reset).toMatchObject({ reason: 'rewritten' });
    expect(after.turns[0]!.firstUuid).toBe('w-1');
  });

  it('accepts the same content under a new inode (a copy) without starting over', async () => {
    const t = session(1, 2);
    const text = t.take();
    await committedOn(text);
    const copy = path.join(tmp, 'copy.jsonl');
    await fs.writeFile(copy, text + session(3, 3, t).take());
    await fs.rename(copy, file);
    const after = await read();
    expect(after.reset).toBeNull();
    expect(prompts(after)).toEqual(['prompt 3']);
  });

  it('reports a deleted transcript and keeps the cursor', async () => {
    const before = await committedOn(session(1, 1).take());
    await fs.rm(file);
    const after = await read();
    expect(after).toMatchObject({ outcome: 'missing', turns: [], cursor: before.cursor });
  });

  it('reports a transcript deleted mid-read: the turns read are real, the outcome says so', async () => {
    await fs.writeFile(file, session(1, 30).take());
    const stream = readTurns(file, { chunkBytes: 512 });
    let count = 0;
    for await (const turn of stream) {
      if (turn.complete && ++count === 2) await fs.rm(file);
    }
    expect(count).toBe(30);
    expect(stream.end).toMatchObject({ status: 'deleted' });
  });

  it('treats an unreadable cursor file as a reset, not a crash', async () => {
    await committedOn(session(1, 1).take());
    const store = new CursorStore(dataDir);
    await fs.writeFile(store.fileFor(file, 'extract'), '{"version": 1, "offs');
    const after = await read();
    expect(after.reset).toMatchObject({ reason: 'cursor-unreadable' });
    expect(prompts(after)).toEqual(['prompt 1']);
    expect(await commit(after)).toMatchObject({ committed: true });
  });
});

describe('CursorStore', () => {
  it('writes one JSON file per transcript and consumer under <dataDir>/cursors, atomically', async () => {
    await fs.writeFile(file, session(1, 1).take());
    const result = await read();
    await commit(result);
    const store = new CursorStore(dataDir);
    const names = await fs.readdir(path.join(dataDir, 'cursors'));
    expect(names).toEqual([path.basename(store.fileFor(file, 'extract'))]);
    expect(names[0]).toMatch(/^[0-9a-f]{32}\.json$/);
    expect(await store.list()).toEqual([result.cursor]);
    expect(() => store.fileFor(file, '../escape')).toThrow(/not a valid cursor consumer/);
  });
});
