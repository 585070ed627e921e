/**
 * Incremental reading with a persisted cursor (issue 5, part 1): each consumer gets the turns
 * completed since its cursor, and moves the cursor only after it has processed them
 * (`commitCursor`), so a crash in between redoes those turns rather than skipping them.
 *
 * Before resuming, the cursor is checked against the file: the same file (device + inode), at
 * least as long as the cursor's offset, a newline just before the offset and, at the recorded
 * offset, the line with the recorded uuid. A file that fails the check was truncated, replaced
 * or rewritten: that is reported and the file is read again from the start.
 */
import { failureWords } from '../../shared/failure-words.js';
import fs from 'node:fs/promises';
import path from 'node:path';
import { type CursorStore, type TranscriptCursor } from './cursor-store.js';
import { type LinesStatus, readLines } from './line-reader.js';
import { type ReadStats, emptyReadStats, sniffOversize } from './transcript-reader.js';
import type { Turn } from './turn-types.js';
import { type TurnReadOptions, readTurns } from './turns.js';

/** Why a cursor could not be used and the transcript is read from the start. */
export type CursorResetReason =
  /** Same file, now shorter than what was already read. */
  | 'truncated'
  /** Another file has the path (rotated, copied over, recreated). */
  | 'replaced'
  /** Same file, but the line the cursor recorded is no longer there. */
  | 'rewritten'
  /** The cursor file could not be read. */
  | 'cursor-unreadable';

export interface CursorReset {
  reason: CursorResetReason;
  /** A sentence for the log and the app. */
  message: string;
  previous: TranscriptCursor | null;
}

/** Whether a stored cursor still applies to the file at its path. */
export type CursorCheck =
  | { status: 'valid'; identityChanged: boolean }
  | { status: 'missing' }
  | { status: 'error'; message: string }
  | { status: 'reset'; reason: Exclude<CursorResetReason, 'cursor-unreadable'>; message: string };

async function byteAt(file: string, offset: number): Promise<number | null> {
  const handle = await fs.open(file, 'r');
  try {
    const buffer = Buffer.alloc(1);
    const { bytesRead } = await handle.read(buffer, 0, 1, offset);
    return bytesRead === 1 ? buffer[0]! : null;
  } finally {
    await handle.close();
  }
}

/** The uuid of the line starting at `offset`, if that line ends by `limit`. */
async function uuidOfLineAt(file: string, offset: number, limit: number, maxLineBytes: number | undefined): Promise<string | null> {
  for await (const event of readLines(file, { from: offset, maxLineBytes })) {
    if (event.kind === 'end' || event.end > limit) return null;
    if (event.kind === 'oversize') return sniffOversize(event.head, event.tail).uuid;
    try {
      const value: unknown = JSON.parse(event.text);
      const uuid = (value as { uuid?: unknown } | null)?.uuid;
      return typeof uuid === 'string' ? uuid : null;
    } catch {
      return null;
    }
  }
  return null;
}

/** Whether `cursor` still applies to `file` (see the module comment). */
export async function checkCursor(file: string, cursor: TranscriptCursor, maxLineBytes?: number): Promise<CursorCheck> {
  let stat;
  try {
    stat = await fs.stat(file, { bigint: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { status: 'missing' };
    return { status: 'error', message: `the transcript could not be checked (${failureWords(error)})` };
  }
  const identityChanged = String(stat.dev) !== cursor.dev || String(stat.ino) !== cursor.ino;
  const size = Number(stat.size);
  const mismatch = (detail: string): CursorCheck =>
    identityChanged
      ? { status: 'reset', reason: 'replaced', message: `The transcript was replaced by another file (${detail}); reading it again from the start.` }
      : { status: 'reset', reason: 'rewritten', message: `The transcript was rewritten (${detail}); reading it again from the start.` };
  if (size < cursor.offset) {
    if (identityChanged) return mismatch(`it is ${size} bytes, the cursor was at ${cursor.offset}`);
    return {
      status: 'reset',
      reason: 'truncated',
      message: `The transcript is now ${size} bytes, shorter than the ${cursor.offset} bytes already read: it was truncated; reading it again from the start.`,
    };
  }
  if (cursor.offset === 0) return { status: 'valid', identityChanged };
  try {
    if ((await byteAt(file, cursor.offset - 1)) !== 0x0a) return mismatch(`no line ends at byte ${cursor.offset}`);
    if (cursor.lastUuid !== null && cursor.lastUuidOffset !== null) {
      const uuid = await uuidOfLineAt(file, cursor.lastUuidOffset, cursor.offset, maxLineBytes);
      if (uuid !== cursor.lastUuid) return mismatch(`line ${cursor.lastUuid} is no longer at byte ${cursor.lastUuidOffset}`);
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { status: 'missing' };
    return { status: 'error', message: `the transcript could not be checked (${failureWords(error)})` };
  }
  return { status: 'valid', identityChanged };
}

/**
 * Turn-reading options plus whose cursor to use and how many turns at most. No `final`: a
 * cursor always ends just after a newline (`checkCursor` insists on it), so a half-written
 * last line is held for the next read, never consumed.
 */
export interface ReadNewTurnsOptions extends Omit<TurnReadOptions, 'from' | 'includeOpenTurn' | 'final'> {
  cursorStore: CursorStore;
  /** Whose cursor: `extract`, `session-memory`, `dream`… */
  consumer: string;
  /**
   * At most this many complete turns per call (default 100): memory stays bounded on a huge
   * backlog, and `more` says to call again after committing.
   */
  maxTurns?: number;
}

/** How the read went: `ok`, or what happened to the file (the turns read before are real). */
export type NewTurnsOutcome = 'ok' | Exclude<LinesStatus, 'eof'>;

/** What `readNewTurns` found since the cursor. */
export interface NewTurns {
  transcriptPath: string;
  consumer: string;
  outcome: NewTurnsOutcome;
  /** For `error` and `not-a-file`: what happened, in words. */
  message: string | null;
  /** Turns completed since the cursor, in file order. */
  turns: Turn[];
  /** The turn still in progress after them (not consumed: it comes again, complete, later). */
  openTurn: Turn | null;
  /** More complete turns follow `maxTurns`: commit, then call again. */
  more: boolean;
  /** The stored cursor when the read began (also after a reset): what a commit replaces. */
  previous: TranscriptCursor | null;
  /** Where the next read starts once committed; null when the file was never readable. */
  cursor: TranscriptCursor | null;
  reset: CursorReset | null;
  stats: ReadStats;
  /** Bytes after the last complete line (a line still being written). */
  heldBytes: number;
}

/** Complete turns handed out per call unless `maxTurns` says otherwise. */
export const DEFAULT_MAX_TURNS = 100;

/**
 * The turns of `transcriptPath` completed since `consumer`'s cursor. Never throws for a bad,
 * missing or vanishing file: `outcome` says what happened. Does not move the cursor: call
 * {@link commitCursor} once the turns are processed.
 */
export async function readNewTurns(transcriptPath: string, options: ReadNewTurnsOptions): Promise<NewTurns> {
  const { cursorStore, consumer, maxTurns = DEFAULT_MAX_TURNS, ...turnOptions } = options;
  const file = path.resolve(transcriptPath);
  const loaded = await cursorStore.load(file, consumer);
  const stored = loaded.status === 'found' ? loaded.cursor : null;
  let reset: CursorReset | null =
    loaded.status === 'unreadable'
      ? {
          reason: 'cursor-unreadable',
          message: `The saved position (${loaded.file}) could not be read (${loaded.reason}); reading the transcript from the start.`,
          previous: null,
        }
      : null;
  const result = (fields: Partial<NewTurns>): NewTurns => ({
    transcriptPath: file,
    consumer,
    outcome: 'ok',
    message: null,
    turns: [],
    openTurn: null,
    more: false,
    previous: stored,
    cursor: stored,
    reset,
    stats: emptyReadStats(),
    heldBytes: 0,
    ...fields,
  });

  let from = 0;
  let consumedBefore = 0;
  let resumeFrom: TranscriptCursor | null = null;
  if (stored) {
    const check = await checkCursor(file, stored, turnOptions.maxLineBytes);
    if (check.status === 'missing') return result({ outcome: 'missing' });
    if (check.status === 'error') return result({ outcome: 'error', message: check.message });
    if (check.status === 'valid') {
      from = stored.offset;
      consumedBefore = stored.turnsConsumed;
      resumeFrom = stored;
    } else {
      reset = { reason: check.reason, message: check.message, previous: stored };
    }
  }

  const stream = readTurns(file, { ...turnOptions, from, includeOpenTurn: true });
  const turns: Turn[] = [];
  let openTurn: Turn | null = null;
  let more = false;
  for await (const turn of stream) {
    if (!turn.complete) {
      openTurn = turn;
    } else if (turns.length >= maxTurns) {
      more = true;
      break;
    } else {
      turns.push(turn);
    }
  }
  const end = stream.end;
  const identity = stream.identity;
  if (!identity) {
    return result({ outcome: end?.status === 'eof' || !end ? 'error' : end.status, message: end?.message ?? null, stats: stream.stats });
  }
  const last = turns.at(-1);
  const cursor: TranscriptCursor = {
    version: 1,
    transcriptPath: file,
    consumer,
    offset: last ? last.endOffset : from,
    lastUuid: last ? last.lastUuid : (resumeFrom?.lastUuid ?? null),
    lastUuidOffset: last ? last.lastUuidOffset : (resumeFrom?.lastUuidOffset ?? null),
    dev: identity.dev,
    ino: identity.ino,
    size: identity.size,
    turnsConsumed: consumedBefore + turns.length,
    updatedAt: new Date().toISOString(),
  };
  return result({
    outcome: !end || end.status === 'eof' ? 'ok' : end.status,
    message: end?.message ?? null,
    turns,
    openTurn,
    more,
    cursor,
    stats: stream.stats,
    heldBytes: end?.heldBytes ?? 0,
  });
}

/** Whether `commitCursor` saved the new position. */
export type CommitOutcome =
  | { committed: true; cursor: TranscriptCursor }
  /**
   * Someone else moved the cursor since this read (two runs of one consumer on one transcript):
   * nothing is written, and the caller should drop its work rather than double it.
   */
  | { committed: false; reason: 'moved'; current: TranscriptCursor | null }
  /** The read had no position to save (the file was never readable). */
  | { committed: false; reason: 'nothing-to-commit'; current: TranscriptCursor | null };

function sameCursor(a: TranscriptCursor | null, b: TranscriptCursor | null): boolean {
  if (a === null || b === null) return a === b;
  return a.offset === b.offset && a.dev === b.dev && a.ino === b.ino && a.updatedAt === b.updatedAt;
}

/**
 * Save the position reached by `read`, after its turns were processed. Refuses (without writing)
 * when the stored cursor is no longer the one the read started from.
 */
export async function commitCursor(
  cursorStore: CursorStore,
  read: Pick<NewTurns, 'transcriptPath' | 'consumer' | 'previous' | 'cursor'>,
): Promise<CommitOutcome> {
  const loaded = await cursorStore.load(read.transcriptPath, read.consumer);
  const current = loaded.status === 'found' ? loaded.cursor : null;
  if (!read.cursor) return { committed: false, reason: 'nothing-to-commit', current };
  if (!sameCursor(current, read.previous)) return { committed: false, reason: 'moved', current };
  await cursorStore.save(read.cursor);
  return { committed: true, cursor: read.cursor };
}
