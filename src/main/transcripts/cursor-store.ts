/**
 * Where each consumer stands in each transcript, persisted in Memdir's data dir
 * (`<dataDir>/cursors/<hash>.json`) so work resumes after a restart without redoing or skipping
 * turns. Extraction, session memory and dream each keep their own cursor (the `consumer`).
 *
 * One small JSON file per cursor, replaced atomically (temp file, fsync, rename): a crash leaves
 * the old cursor or the new one, never half of one.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import { writeDataFile } from '../core/safe-fs.js';
import path from 'node:path';
import * as z from 'zod';
import { firstIssueSentence } from '../../shared/issue-sentence.js';
import { MemdirError } from '../../shared/errors.js';

/** A position in one transcript for one consumer. */
export interface TranscriptCursor {
  version: 1;
  /** Absolute path of the transcript. */
  transcriptPath: string;
  /** Who reads: `extract`, `session-memory`, `dream`… */
  consumer: string;
  /** Byte offset where the next read starts: always the start of a line (a turn boundary). */
  offset: number;
  /** The last user/assistant line before `offset`, and where it starts: checked on resume. */
  lastUuid: string | null;
  lastUuidOffset: number | null;
  /** The file the cursor was taken on (decimal strings: inodes can exceed 2^53). */
  dev: string;
  ino: string;
  /** The file's size when the cursor was taken. */
  size: number;
  /** Complete turns consumed since the start of the file (for display). */
  turnsConsumed: number;
  updatedAt: string;
}

const CursorSchema = z.object({
  version: z.literal(1),
  transcriptPath: z.string(),
  consumer: z.string(),
  offset: z.number().int().nonnegative(),
  lastUuid: z.string().nullable(),
  lastUuidOffset: z.number().int().nonnegative().nullable(),
  dev: z.string(),
  ino: z.string(),
  size: z.number().int().nonnegative(),
  turnsConsumed: z.number().int().nonnegative(),
  updatedAt: z.string(),
});

/** Consumer names are hashed into the file name but shown in logs and the app: kept plain. */
const CONSUMER_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/** A consumer name that is empty or has characters other than `a-z 0-9 . _ -`. */
export class CursorConsumerError extends MemdirError<'invalid-name'> {
  override readonly name = 'CursorConsumerError';
  constructor(message: string) {
    super('invalid-name', message);
  }
}

/** What loading a cursor found. */
export type CursorLoad =
  | { status: 'found'; cursor: TranscriptCursor }
  | { status: 'absent' }
  /** The file exists but is not a cursor (edited by hand, disk trouble): reported, not thrown. */
  | { status: 'unreadable'; file: string; reason: string };

/** Cursors of every transcript and consumer, one file each, under `<dataDir>/cursors`. */
export class CursorStore {
  /** `<dataDir>/cursors`. */
  readonly dir: string;

  constructor(dataDir: string) {
    this.dir = path.join(dataDir, 'cursors');
  }

  /** The file holding the cursor of `consumer` in `transcriptPath`. */
  fileFor(transcriptPath: string, consumer: string): string {
    if (!CONSUMER_NAME.test(consumer)) throw new CursorConsumerError(`"${consumer}" is not a valid cursor consumer name (use a-z, 0-9, ".", "_", "-")`);
    const hash = createHash('sha256')
      .update(`${consumer}\0${path.resolve(transcriptPath)}`)
      .digest('hex')
      .slice(0, 32);
    return path.join(this.dir, `${hash}.json`);
  }

  async load(transcriptPath: string, consumer: string): Promise<CursorLoad> {
    const file = this.fileFor(transcriptPath, consumer);
    let text: string;
    try {
      text = await fs.readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { status: 'absent' };
      return { status: 'unreadable', file, reason: (error as Error).message };
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return { status: 'unreadable', file, reason: 'not JSON' };
    }
    const parsed = CursorSchema.safeParse(value);
    if (!parsed.success) return { status: 'unreadable', file, reason: firstIssueSentence(parsed.error.issues) };
    const cursor = parsed.data;
    // A hash collision or a copied file must not hand one transcript's cursor to another.
    if (cursor.consumer !== consumer || cursor.transcriptPath !== path.resolve(transcriptPath)) {
      return { status: 'unreadable', file, reason: 'the cursor belongs to another transcript or consumer' };
    }
    return { status: 'found', cursor };
  }

  /** Persist `cursor` atomically. */
  async save(cursor: TranscriptCursor): Promise<void> {
    await writeDataFile(this.fileFor(cursor.transcriptPath, cursor.consumer), `${JSON.stringify(cursor, null, 2)}\n`, {
      what: cursor.consumer === 'extract' ? 'where extraction got to' : 'where it got to in a transcript',
    });
  }

  /** Forget a cursor (the transcript is gone, or the consumer starts over on purpose). */
  async remove(transcriptPath: string, consumer: string): Promise<void> {
    await fs.rm(this.fileFor(transcriptPath, consumer), { force: true });
  }

  /** Every readable cursor, for housekeeping (cursors of deleted transcripts can be removed). */
  async list(): Promise<TranscriptCursor[]> {
    let names: string[];
    try {
      names = await fs.readdir(this.dir);
    } catch {
      return [];
    }
    const cursors: TranscriptCursor[] = [];
    for (const name of names) {
      if (!name.endsWith('.json') || name.startsWith('.')) continue;
      const text = await fs.readFile(path.join(this.dir, name), 'utf8').catch(() => null);
      if (text === null) continue;
      try {
        const parsed = CursorSchema.safeParse(JSON.parse(text));
        if (parsed.success) cursors.push(parsed.data);
      } catch {
        // Not a cursor: left alone; load() reports it for the transcript it belongs to.
      }
    }
    return cursors;
  }
}
