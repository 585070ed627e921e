import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type LineEvent, type LineReadOptions, type LinesEnd, LineSplitter, OVERSIZE_SNIFF_BYTES, readLines } from './line-reader.js';

let tmp: string;

beforeEach(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-lines-'));
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

async function collect(file: string, options: LineReadOptions = {}): Promise<{ lines: LineEvent[]; end: LinesEnd }> {
  const lines: LineEvent[] = [];
  let end: LinesEnd | null = null;
  for await (const event of readLines(file, options)) {
    if (event.kind === 'end') end = event;
    else lines.push(event);
  }
  return { lines, end: end! };
}

const texts = (lines: LineEvent[]) => lines.map((l) => (l.kind === 'line' ? l.text : `<oversize ${l.end - l.offset}>`));

describe('readLines', () => {
  it('holds a half-written last line until an append completes it', async () => {
    const file = path.join(tmp, 't.jsonl');
    await fs.writeFile(file, '{"a":1}\n{"b":');
    const first = await collect(file);
    expect(texts(first.lines)).toEqual(['{"a":1}']);
    expect(first.end).toMatchObject({ status: 'eof', consumedTo: 8, heldBytes: 5 });

    await fs.appendFile(file, '2}\n');
    const second = await collect(file, { from: first.end.consumedTo });
    expect(second.lines).toEqual([{ kind: 'line', offset: 8, end: 16, text: '{"b":2}' }]);
    expect(second.end).toMatchObject({ consumedTo: 16, heldBytes: 0 });
  });

  it('delivers an unterminated last line only on a final read, flagged', async () => {
    const file = path.join(tmp, 't.jsonl');
    await fs.writeFile(file, '{"a":1}\n{"b":2}');
    const { lines, end } = await collect(file, { final: true });
    expect(lines.at(-1)).toEqual({ kind: 'line', offset: 8, end: 15, text: '{"b":2}', unterminated: true });
    expect(end).toMatchObject({ consumedTo: 15, heldBytes: 0 });
  });

  it('strips CR before LF, and a BOM at the start of the file only', async () => {
    const file = path.join(tmp, 't.jsonl');
    await fs.writeFile(file, '\uFEFF{"a":1}\r\n{"b":"\uFEFF"}\r\n\r\n');
    const { lines } = await collect(file, { chunkBytes: 3 });
    expect(texts(lines)).toEqual(['{"a":1}', '{"b":"\uFEFF"}', '']);
    expect(lines.map((l) => [l.offset, l.end])).toEqual([
      [0, 12],
      [12, 25],
      [25, 27],
    ]);
  });

  it('never splits a multi-byte character at a chunk boundary, whatever the chunk size', async () => {
    const file = path.join(tmp, 't.jsonl');
    const expected = ['{"t":"记住：部署前先跑集成测试"}', '{"t":"emoji 🚀🧪 and café"}', '{"t":"\u0627\u0644\u0639\u0631\u0628\u064a\u0629"}'];
    await fs.writeFile(file, expected.map((l) => `${l}\r\n`).join(''));
    for (let chunkBytes = 1; chunkBytes <= 24; chunkBytes++) {
      const { lines, end } = await collect(file, { chunkBytes });
      expect(texts(lines), `chunk ${chunkBytes}`).toEqual(expected);
      expect(end.consumedTo).toBe((await fs.stat(file)).size);
    }
  });

  it('skips a line over the cap without holding it, keeping its head and tail, and goes on', async () => {
    const file = path.join(tmp, 't.jsonl');
    const big = `{"type":"user","message":"${'x'.repeat(5000)}","uuid":"big"}`;
    await fs.writeFile(file, `{"a":1}\n${big}\n{"b":2}\n`);
    const { lines, end } = await collect(file, { chunkBytes: 64, maxLineBytes: 1000 });
    expect(texts(lines)).toEqual(['{"a":1}', `<oversize ${big.length + 1}>`, '{"b":2}']);
    const oversize = lines[1]!;
    expect(oversize.kind === 'oversize' && oversize.head.startsWith('{"type":"user"') && oversize.tail.endsWith('"uuid":"big"}')).toBe(true);
    expect(end.consumedTo).toBe((await fs.stat(file)).size);
  });

  it('keeps at most the head and tail of an oversize line in memory while it streams past', () => {
    const events: LineEvent[] = [];
    const splitter = new LineSplitter(0, 1000, (e) => events.push(e));
    const piece = Buffer.alloc(256 * 1024, 'x');
    let peak = 0;
    for (let i = 0; i < 40; i++) {
      splitter.push(piece);
      peak = Math.max(peak, splitter.bufferedBytes);
    }
    splitter.push(Buffer.from('"}\n{"next":1}\n'));
    expect(peak).toBeLessThanOrEqual(2 * OVERSIZE_SNIFF_BYTES);
    expect(events.map((e) => [e.kind, e.offset, e.end])).toEqual([
      ['oversize', 0, 40 * piece.length + 3],
      ['line', 40 * piece.length + 3, 40 * piece.length + 14],
    ]);
  });

  it('reports a missing file, a folder and a file deleted mid-read as outcomes, not exceptions', async () => {
    expect((await collect(path.join(tmp, 'nope.jsonl'))).end.status).toBe('missing');
    expect((await collect(tmp)).end.status).toBe('not-a-file');

    const file = path.join(tmp, 't.jsonl');
    await fs.writeFile(file, Array.from({ length: 50 }, (_, i) => `{"n":${i}}\n`).join(''));
    const seen: string[] = [];
    let end: LinesEnd | null = null;
    for await (const event of readLines(file, { chunkBytes: 16 })) {
      if (event.kind === 'end') end = event;
      else {
        seen.push(texts([event])[0]!);
        if (seen.length === 3) await fs.rm(file);
      }
    }
    // What was read is real (an open descriptor reads to the end on POSIX); the end says the
    // path no longer leads to it.
    expect(seen.length).toBeGreaterThanOrEqual(3);
    expect(end?.status).toBe('deleted');
  });

  it('reports a file replaced mid-read', async () => {
    const file = path.join(tmp, 't.jsonl');
    await fs.writeFile(file, '{"a":1}\n{"a":2}\n');
    let end: LinesEnd | null = null;
    for await (const event of readLines(file, { chunkBytes: 4 })) {
      if (event.kind === 'end') end = event;
      else if (event.offset === 0) {
        await fs.writeFile(path.join(tmp, 'new.jsonl'), '{"other":true}\n');
        await fs.rename(path.join(tmp, 'new.jsonl'), file);
      }
    }
    expect(end?.status).toBe('replaced');
  });

  it('stops when the signal fires', async () => {
    const file = path.join(tmp, 't.jsonl');
    await fs.writeFile(file, '{"a":1}\n'.repeat(100));
    const controller = new AbortController();
    let count = 0;
    let end: LinesEnd | null = null;
    for await (const event of readLines(file, { chunkBytes: 16, signal: controller.signal })) {
      if (event.kind === 'end') end = event;
      else if (++count === 2) controller.abort();
    }
    expect(end?.status).toBe('aborted');
    expect(count).toBeLessThan(100);
  });
});
