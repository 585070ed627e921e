/**
 * Streaming JSONL lines from a byte offset with constant memory whatever the file size (SPEC §8):
 * a fixed-size buffer read with `pread`, lines split on `\n` at the byte level, a line that spans
 * chunks carried over as bytes (so a multi-byte UTF-8 character cut by a chunk boundary is never
 * decoded in halves), CRLF tolerated, and a half-written last line held back until it completes.
 *
 * Lines are delivered in batches, one per chunk read: one async step per megabyte rather than
 * one per line keeps the reader close to a bare split + `JSON.parse` loop (`npm run bench
 * transcripts`).
 */
import { failureWords } from '../../shared/failure-words.js';
import fs from 'node:fs/promises';
import { errCode } from '../core/fs-errors.js';

/** Bytes per `read()` call; the reader keeps two such buffers (one filling, one being split). */
export const DEFAULT_CHUNK_BYTES = 1024 * 1024;

/**
 * Lines longer than this are skipped without being held whole. Claude Code writes very long
 * lines when a user pastes images or a tool returns one (`Read` of a PNG): they travel as base64
 * inside the message, and `toolUseResult` may repeat a whole file. The Messages API refuses
 * requests over 32 MB, so no line that carries a real prompt is longer; anything bigger is a tool
 * payload or garbage, and holding it (bytes + decoded string + parsed copy) would triple its size
 * in memory.
 */
export const DEFAULT_MAX_LINE_BYTES = 32 * 1024 * 1024;

/** How much of the start and the end of an oversize line is kept, to tell what it was. */
export const OVERSIZE_SNIFF_BYTES = 64 * 1024;

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/** Which file a read saw: a cursor taken on one file must not be applied to another. */
export interface FileIdentity {
  /** Device and inode as decimal strings: inodes can exceed 2^53 on some file systems. */
  dev: string;
  ino: string;
  /** Size when the file was opened. */
  size: number;
}

/** One complete line: `text` without its `\n` (nor a `\r` before it). */
export interface TextLine {
  kind: 'line';
  /** Byte offset of the line's first byte. */
  offset: number;
  /** Byte offset just past the line's `\n` (where the next line starts). */
  end: number;
  text: string;
  /**
   * Only with `final`: the file's last line, which has no `\n`. The caller decides whether it is
   * complete (it parses) or still being written.
   */
  unterminated?: boolean;
}

/** A line longer than the cap: skipped, with its start and end kept to tell what it was. */
export interface OversizeLine {
  kind: 'oversize';
  offset: number;
  end: number;
  /** The first and last {@link OVERSIZE_SNIFF_BYTES} bytes, decoded leniently. */
  head: string;
  tail: string;
}

/** How a read ended. */
export type LinesStatus =
  /** Read to the end of the file. */
  | 'eof'
  /** The file does not exist (any more). */
  | 'missing'
  /** The path is a folder or a device, not a file. */
  | 'not-a-file'
  /** The file was deleted while being read: what was read is real, but nothing follows. */
  | 'deleted'
  /** Another file now has the path (rotated or replaced while being read). */
  | 'replaced'
  /** The caller's signal fired. */
  | 'aborted'
  /** An I/O error; `message` says which. */
  | 'error';

/** Always the last event of a read. */
export interface LinesEnd {
  kind: 'end';
  status: LinesStatus;
  /** Byte offset just past the last complete line: where a cursor may stop. */
  consumedTo: number;
  /** Bytes after `consumedTo`: a last line without its `\n` (normal while Claude Code writes). */
  heldBytes: number;
  identity: FileIdentity | null;
  /** For `error`, `not-a-file`: what happened, in words. */
  message: string | null;
}

/** A line, or an oversize line that was skipped. */
export type LineEvent = TextLine | OversizeLine;

/** How to read: from where, in what chunks, with what line cap. */
export interface LineReadOptions {
  /** Byte offset to start at; it must be the start of a line. Default 0. */
  from?: number;
  chunkBytes?: number;
  maxLineBytes?: number;
  /**
   * The writer is done with this file (session over, or a file copied from elsewhere): an
   * unterminated last line is delivered, flagged `unterminated`, instead of being held.
   */
  final?: boolean;
  signal?: AbortSignal;
  /** Called once the file is open, with the identity of the file actually being read. */
  onOpen?: (identity: FileIdentity) => void;
  /**
   * Take each line as soon as it is split instead of in the batch (batches then carry only the
   * end event, and one is still yielded per chunk). A line then becomes garbage right after its
   * use rather than surviving with its whole chunk, which keeps V8 from promoting it to the old
   * generation: a measurably lower peak RSS on big transcripts.
   */
  onLine?: (event: LineEvent) => void;
}

/**
 * Splits a stream of chunks into lines. Synchronous and allocation-light: a line inside one chunk
 * is decoded straight from it; only a line that spans chunks is copied, and only up to the cap.
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private partsBytes = 0;
  /** Absolute offset of the first byte of the line being assembled. */
  private lineStart: number;
  /** Absolute offset of the next byte to arrive. */
  private position: number;
  /** The pending line went over the cap: its middle is being dropped. */
  private skipping = false;
  private head: Buffer | null = null;
  private tail: Buffer | null = null;

  constructor(
    startOffset: number,
    private readonly maxLineBytes: number,
    private readonly emit: (event: LineEvent) => void,
  ) {
    this.lineStart = startOffset;
    this.position = startOffset;
  }

  /** Offset just past the last complete line. */
  get consumedTo(): number {
    return this.lineStart;
  }

  /** Bytes of the incomplete line held (or skipped) after {@link consumedTo}. */
  get heldBytes(): number {
    return this.position - this.lineStart;
  }

  /** Bytes actually kept in memory for the pending line (bounded by the cap, or 2 × sniff). */
  get bufferedBytes(): number {
    return this.partsBytes + (this.head?.length ?? 0) + (this.tail?.length ?? 0);
  }

  /** Feed the next bytes of the file. `chunk` may be reused by the caller afterwards. */
  push(chunk: Buffer): void {
    const base = this.position;
    let from = 0;
    for (let nl = chunk.indexOf(NEWLINE, 0); nl !== -1; nl = chunk.indexOf(NEWLINE, from)) {
      this.completeLine(chunk, from, nl, base + nl + 1);
      from = nl + 1;
    }
    if (from < chunk.length) this.hold(chunk.subarray(from));
    this.position = base + chunk.length;
  }

  /**
   * The unterminated last line, delivered as a line (final reads). Oversize tails stay held:
   * they would be skipped anyway, and a cursor must not jump over bytes that may still grow.
   */
  flushTail(): void {
    if (this.heldBytes === 0 || this.skipping) return;
    const bytes = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.partsBytes);
    const end = this.position;
    const text = decodeLine(bytes, 0, bytes.length, this.lineStart);
    this.emit({ kind: 'line', offset: this.lineStart, end, text, unterminated: true });
    this.reset(end);
  }

  private completeLine(chunk: Buffer, from: number, nl: number, end: number): void {
    const offset = this.lineStart;
    const length = this.partsBytes + (nl - from);
    if (this.skipping || length > this.maxLineBytes) {
      if (!this.skipping) this.startSkipping(chunk.subarray(from, nl));
      else this.keepTail(chunk.subarray(from, nl));
      this.emit({ kind: 'oversize', offset, end, head: this.head!.toString('utf8'), tail: this.tail!.toString('utf8') });
    } else if (this.partsBytes === 0) {
      this.emit({ kind: 'line', offset, end, text: decodeLine(chunk, from, nl, offset) });
    } else {
      this.parts.push(chunk.subarray(from, nl));
      const joined = Buffer.concat(this.parts, length);
      this.emit({ kind: 'line', offset, end, text: decodeLine(joined, 0, joined.length, offset) });
    }
    this.reset(end);
  }

  private hold(segment: Buffer): void {
    if (this.skipping) {
      this.keepTail(segment);
    } else if (this.partsBytes + segment.length > this.maxLineBytes) {
      this.startSkipping(segment);
    } else {
      // Copy: the caller reuses its chunk buffer for the next read.
      this.parts.push(Buffer.from(segment));
      this.partsBytes += segment.length;
    }
  }

  /** Over the cap: keep only the head and a rolling tail; drop everything held so far. */
  private startSkipping(segment: Buffer): void {
    const pieces = [...this.parts, segment];
    this.head = edgeBytes(pieces, 'head');
    this.tail = edgeBytes(pieces.reverse(), 'tail');
    this.parts = [];
    this.partsBytes = 0;
    this.skipping = true;
  }

  private keepTail(segment: Buffer): void {
    if (segment.length >= OVERSIZE_SNIFF_BYTES) {
      this.tail = Buffer.from(segment.subarray(segment.length - OVERSIZE_SNIFF_BYTES));
    } else {
      const previous = this.tail ?? Buffer.alloc(0);
      const joined = Buffer.concat([previous, segment]);
      this.tail = joined.subarray(Math.max(0, joined.length - OVERSIZE_SNIFF_BYTES));
    }
  }

  private reset(nextLineStart: number): void {
    this.parts = [];
    this.partsBytes = 0;
    this.skipping = false;
    this.head = null;
    this.tail = null;
    this.lineStart = nextLineStart;
  }
}

/**
 * The first (or, given the pieces reversed, the last) {@link OVERSIZE_SNIFF_BYTES} bytes of a
 * line held in pieces, without joining the whole line.
 */
function edgeBytes(pieces: Buffer[], which: 'head' | 'tail'): Buffer {
  const taken: Buffer[] = [];
  let bytes = 0;
  for (const piece of pieces) {
    if (bytes >= OVERSIZE_SNIFF_BYTES) break;
    taken.push(piece);
    bytes += piece.length;
  }
  if (which === 'tail') taken.reverse();
  const joined = Buffer.concat(taken);
  return Buffer.from(which === 'head' ? joined.subarray(0, OVERSIZE_SNIFF_BYTES) : joined.subarray(Math.max(0, joined.length - OVERSIZE_SNIFF_BYTES)));
}

/** Decode a line's bytes, dropping a `\r` before the `\n` and a BOM at the file's start. */
function decodeLine(bytes: Buffer, start: number, end: number, offset: number): string {
  if (end > start && bytes[end - 1] === CARRIAGE_RETURN) end--;
  // A UTF-8 BOM is only a BOM at offset 0; JSON.parse rejects it.
  if (offset === 0 && end - start >= 3 && bytes[start] === 0xef && bytes[start + 1] === 0xbb && bytes[start + 2] === 0xbf) start += 3;
  // Lenient decoding: invalid UTF-8 becomes U+FFFD rather than failing the whole line.
  return bytes.toString('utf8', start, end);
}

function describeError(error: unknown): string {
  const code = errCode(error);
  if (code === 'EACCES' || code === 'EPERM') return 'Memdir has no permission to read the transcript';
  if (code === 'EISDIR') return 'the path is a folder, not a transcript file';
  return `the transcript could not be read (${failureWords(error)})`;
}

/** Whether `file` is still the file that was opened: gone, replaced, or the same. */
async function stillThere(file: string, identity: FileIdentity): Promise<'same' | 'deleted' | 'replaced'> {
  try {
    const stat = await fs.stat(file, { bigint: true });
    return String(stat.dev) === identity.dev && String(stat.ino) === identity.ino ? 'same' : 'replaced';
  } catch (error) {
    return errCode(error) === 'ENOENT' ? 'deleted' : 'same';
  }
}

/**
 * Read `file` from `from` in batches of lines, one batch per chunk. The last batch ends with a
 * {@link LinesEnd}; nothing is thrown for a missing, unreadable or vanishing file — the end event
 * says what happened, and every line delivered before it is real.
 */
export async function* readLineBatches(file: string, options: LineReadOptions = {}): AsyncGenerator<(LineEvent | LinesEnd)[]> {
  const from = options.from ?? 0;
  const chunkBytes = options.chunkBytes ?? DEFAULT_CHUNK_BYTES;
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const end = (status: LinesStatus, extra: Partial<LinesEnd> = {}): LinesEnd => ({
    kind: 'end',
    status,
    consumedTo: from,
    heldBytes: 0,
    identity: null,
    message: null,
    ...extra,
  });

  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, 'r');
  } catch (error) {
    const code = errCode(error);
    yield [code === 'ENOENT' || code === 'ENOTDIR' ? end('missing') : end('error', { message: describeError(error) })];
    return;
  }
  let batch: (LineEvent | LinesEnd)[] = [];
  const splitter = new LineSplitter(from, maxLineBytes, options.onLine ?? ((event) => batch.push(event)));
  const finish = (status: LinesStatus, identity: FileIdentity | null, message: string | null = null): LinesEnd =>
    end(status, { consumedTo: splitter.consumedTo, heldBytes: splitter.heldBytes, identity, message });
  // The next chunk is read while this one is split (two buffers, alternating): the disk and the
  // thread pool work while JSON is parsed, instead of the parser waiting on every read.
  let inFlight: Promise<number> | null = null;
  try {
    let stat;
    try {
      stat = await handle.stat({ bigint: true });
    } catch (error) {
      yield [finish('error', null, describeError(error))];
      return;
    }
    const identity: FileIdentity = { dev: String(stat.dev), ino: String(stat.ino), size: Number(stat.size) };
    if (!stat.isFile()) {
      yield [finish('not-a-file', identity, 'the path is not a regular file')];
      return;
    }
    options.onOpen?.(identity);
    let filling = Buffer.allocUnsafe(chunkBytes);
    let spare = Buffer.allocUnsafe(chunkBytes);
    let position = from;
    const readInto = (buffer: Buffer, at: number): Promise<number> => handle.read(buffer, 0, chunkBytes, at).then((r) => r.bytesRead);
    inFlight = readInto(filling, position);
    for (;;) {
      if (options.signal?.aborted) {
        batch.push(finish('aborted', identity));
        yield batch;
        return;
      }
      let bytesRead: number;
      try {
        bytesRead = await inFlight;
        inFlight = null;
      } catch (error) {
        inFlight = null;
        const where = await stillThere(file, identity);
        batch.push(finish(where === 'same' ? 'error' : where, identity, where === 'same' ? describeError(error) : null));
        yield batch;
        return;
      }
      if (bytesRead === 0) break;
      const current = filling;
      filling = spare;
      spare = current;
      position += bytesRead;
      inFlight = readInto(filling, position);
      // Safe to split while the other buffer fills: held parts of a line are copied out.
      splitter.push(current.subarray(0, bytesRead));
      if (batch.length > 0 || options.onLine) {
        yield batch;
        batch = [];
      }
    }
    if (options.final) splitter.flushTail();
    // An open descriptor keeps reading a deleted or replaced file to its end (POSIX): the lines
    // are real, but the caller must know the path no longer leads to them.
    const where = await stillThere(file, identity);
    batch.push(finish(where === 'same' ? 'eof' : where, identity));
    yield batch;
  } finally {
    // A read still in flight (the caller stopped early) must finish before the handle closes.
    await inFlight?.catch(() => undefined);
    await handle.close().catch(() => undefined);
  }
}

/** The same lines one at a time, then the {@link LinesEnd}. */
export async function* readLines(file: string, options: LineReadOptions = {}): AsyncGenerator<LineEvent | LinesEnd> {
  for await (const batch of readLineBatches(file, options)) yield* batch;
}
