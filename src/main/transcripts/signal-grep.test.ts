import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type SignalMatch, grepTranscript, rawTimestamp } from './signal-grep.js';
import { TranscriptBuilder } from './test-support/transcript-builder.js';

let tmp: string;
beforeEach(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-grep-'));
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

const REMEMBER = [/\bremember\b/i, /记住|以后/g, /\balways\b/i];

describe('grepTranscript', () => {
  it('yields matching raw lines with their timestamp and type, in file order', async () => {
    const t = new TranscriptBuilder({ start: '2026-03-02T09:00:00Z' });
    t.prompt('Please remember: we always deploy on Tuesdays').assistant('Noted.', { stopReason: 'end_turn' });
    t.prompt('记住，以后提交前先跑 lint').assistant('好的', { stopReason: 'end_turn' });
    t.prompt('nothing to see').assistant('ok', { stopReason: 'end_turn' });
    const file = path.join(tmp, 't.jsonl');
    await fs.writeFile(file, `${t.take()}not json but remember this\n`);

    const matches: SignalMatch[] = [];
    for await (const match of grepTranscript(file, REMEMBER, { chunkBytes: 17 })) matches.push(match);
    expect(matches[0]!.time).toBe(Date.parse('2026-03-02T09:00:00Z'));
    expect(matches.map((m) => [m.type, m.timestamp, m.patterns])).toEqual([
      ['user', '2026-03-02T09:00:00.000Z', [0, 2]],
      ['user', '2026-03-02T09:00:02.000Z', [1]],
      [null, null, [0]],
    ]);
    expect(matches[1]!.excerpt).toContain('记住，以后提交前先跑 lint');
    expect(JSON.parse(matches[0]!.line).uuid).toBe('u-1');
  });

  it('skips matches older than `since`, and ends quietly on a missing file', async () => {
    const t = new TranscriptBuilder({ start: '2026-03-01T00:00:00Z' });
    t.prompt('remember the old thing');
    t.setTime('2026-03-05T00:00:00Z').prompt('remember the new thing');
    const file = path.join(tmp, 't.jsonl');
    await fs.writeFile(file, t.take());
    const matches: string[] = [];
    for await (const match of grepTranscript(file, REMEMBER, { since: new Date('2026-03-04T00:00:00Z') })) matches.push(match.excerpt);
    expect(matches).toHaveLength(1);
    expect(matches[0]).toContain('the new thing');

    const none: SignalMatch[] = [];
    for await (const match of grepTranscript(path.join(tmp, 'gone.jsonl'), REMEMBER)) none.push(match);
    expect(none).toEqual([]);
  });

  it('takes the line’s own timestamp, not one nested earlier in it', () => {
    const line = JSON.stringify({
      type: 'user',
      message: { content: [{ type: 'tool_use', input: { timestamp: '1999-01-01' } }] },
      uuid: 'x',
      timestamp: '2026-03-01T10:00:00Z',
    });
    expect(rawTimestamp(line)).toBe('2026-03-01T10:00:00Z');
    expect(rawTimestamp('{"a":1}')).toBeNull();
  });
});
