/**
 * The size case recorded from the real Claude Code 2.1.332 (test/fixtures/claude-code-index/
 * observed-size.json): a MEMORY.md of exactly 4,194,304 bytes (4 MB) is loaded and cut as any
 * long index; one byte more and the client skips the file whole — its debug log says
 * "[CLAUDE.md] skipping …/MEMORY.md: not a regular file or exceeds 4194304 byte limit" — and the
 * agent starts with no index. So is a MEMORY.md that is a named pipe (FIFO): skipped, "not a
 * regular file", without ever being opened. The files are made by {@link sizedIndex} (4 MB is too
 * large to keep in the repository); the live test (index-cut-live.test.ts) runs the client on them and compares
 * with the recording, index-cut.test.ts replays the recording against Memdir without the binary.
 */
import path from 'node:path';

export const SIZE_CASE_FIXTURE = path.resolve(__dirname, '../fixtures/claude-code-index/observed-size.json');

/** What the fixture holds. */
export interface SizeCase {
  claudeCode: string;
  how: string;
  /** Per case (a size in bytes, or `fifo`): what the transcript recorded as injected (null: no index at all), and the client's debug line about the file, if any. */
  cases: Record<string, { injected: string | null; debug: string | null }>;
}

/**
 * The cases recorded: the client's limit, one byte over it, a named pipe, and a file of 4,194,300
 * bytes holding 4 bytes that are not UTF-8 — each decodes to U+FFFD (3 bytes), so its decoded text
 * is 4,194,308 bytes long, over the limit, while the file is not (the client stats the file).
 */
export const RECORDED_CASES = ['4194304', '4194305', 'fifo', 'not-utf8-4194300'] as const;

/** The bytes of a recorded case's MEMORY.md (empty for the named pipe). */
export function sizeCaseBytes(name: string): Buffer {
  if (name === 'fifo') return Buffer.alloc(0);
  const notUtf8 = /^not-utf8-(\d+)$/.exec(name);
  const bytes = Buffer.from(sizedIndex(Number(notUtf8 ? notUtf8[1] : name)));
  // In line 1's padding: `- [Note 0](note-0.md) - xxxx…` becomes `… - xx\xff\xff\xff\xffxx…`.
  if (notUtf8) bytes.fill(0xff, 26, 30);
  return bytes;
}

/** A MEMORY.md of exactly `bytes` bytes (ASCII): 100-byte pointer lines, the last one cut short. */
export function sizedIndex(bytes: number): string {
  const lines: string[] = [];
  for (let i = 0, total = 0; total < bytes; i++) {
    const line = `- [Note ${i}](note-${i}.md) - `.padEnd(99, 'x') + '\n';
    lines.push(line);
    total += line.length;
  }
  return lines.join('').slice(0, bytes);
}
