/**
 * sha256 of each team file, remembered by its stat facts (mtime, ctime, size, inode) so a sync
 * with nothing changed reads and hashes nothing: one `lstat` per file decides. Kept in Memdir's
 * data dir (`team/<id>/hash-cache.json`), written only when something changed.
 *
 * "Racily clean" files (git's term) are not trusted: a file whose mtime is within RACY_MS of
 * the moment it was hashed could be written again within the same timestamp tick with the same
 * size, and the cache would never notice. Such an entry is hashed once more on the next look,
 * when the tick has long passed; after that it is trusted.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import { z } from 'zod';
import type { FileFacts } from '../memdir/read-file.js';
import { writeDataFile } from '../memdir/safe-fs.js';

/** Widest timestamp granularity among common file systems (FAT: 2 s; HFS+: 1 s). */
export const RACY_MS = 2_000;

const entrySchema = z.object({ m: z.number(), c: z.number(), s: z.number(), i: z.number(), h: z.string().regex(/^[0-9a-f]{64}$/), t: z.number() });
const fileSchema = z.object({ version: z.literal(1), entries: z.record(z.string(), entrySchema) });
type Entry = z.infer<typeof entrySchema>;

/** Hex sha256 of bytes or a string's UTF-8 bytes. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** See the file comment. */
export class HashCache {
  private entries = new Map<string, Entry>();
  private dirty = false;
  /** Bytes of local files hashed since the last `resetCounters` (the bench asserts 0 for a no-op sync). */
  bytesHashed = 0;
  filesHashed = 0;

  private constructor(readonly file: string | null) {}

  /** An empty cache that is never saved (tests, one-off runs). */
  static inMemory(): HashCache {
    return new HashCache(null);
  }

  /** The cache stored in `file`; a missing or damaged file starts empty (it is only a cache). */
  static async load(file: string): Promise<HashCache> {
    const cache = new HashCache(file);
    try {
      const parsed = fileSchema.safeParse(JSON.parse(await fs.readFile(file, 'utf8')));
      if (parsed.success) cache.entries = new Map(Object.entries(parsed.data.entries));
    } catch {
      // Missing or unreadable: every file is hashed once more, nothing else happens.
    }
    return cache;
  }

  /** The remembered hash of `key` when its facts are unchanged and it is not racily clean. */
  lookup(key: string, facts: FileFacts): string | null {
    const e = this.entries.get(key);
    if (!e || e.m !== facts.mtimeMs || e.c !== facts.ctimeMs || e.s !== facts.size || e.i !== facts.ino) return null;
    if (facts.mtimeMs >= e.t - RACY_MS) return null;
    return e.h;
  }

  /** Hash `bytes` (read for `key` at `facts`), count them, and remember the result. */
  hash(key: string, facts: FileFacts, bytes: Uint8Array, now = Date.now()): string {
    this.bytesHashed += bytes.byteLength;
    this.filesHashed += 1;
    const h = sha256Hex(bytes);
    this.remember(key, facts, h, now);
    return h;
  }

  /** Remember a hash computed elsewhere (the content Memdir itself just wrote). */
  remember(key: string, facts: FileFacts, h: string, now = Date.now()): void {
    const previous = this.entries.get(key);
    const next: Entry = { m: facts.mtimeMs, c: facts.ctimeMs, s: facts.size, i: facts.ino, h, t: now };
    if (previous && previous.m === next.m && previous.c === next.c && previous.s === next.s && previous.i === next.i && previous.h === next.h && previous.t === next.t) return;
    this.entries.set(key, next);
    this.dirty = true;
  }

  /** Forget keys that are no longer on disk. */
  retain(keys: ReadonlySet<string>): void {
    for (const key of this.entries.keys()) {
      if (!keys.has(key)) {
        this.entries.delete(key);
        this.dirty = true;
      }
    }
  }

  resetCounters(): void {
    this.bytesHashed = 0;
    this.filesHashed = 0;
  }

  /** Write the cache if it changed (atomic, in the data dir). */
  async save(): Promise<void> {
    if (!this.dirty || !this.file) return;
    this.dirty = false;
    await writeDataFile(this.file, JSON.stringify({ version: 1, entries: Object.fromEntries(this.entries) }), { mode: 0o600 }).catch((error: unknown) => {
      this.dirty = true;
      throw error;
    });
  }
}
