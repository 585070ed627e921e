/**
 * sha256 of each team file, remembered by its stat facts (mtime, ctime, size, inode) so a sync
 * with nothing changed reads and hashes nothing: one `lstat` per file decides. Kept in Memdir's
 * data dir (`team/<id>/hash-cache.json`), written only when something changed.
 *
 * "Racily clean" files (git's term) are not trusted at once: a file whose mtime is not at least
 * RACY_MS before the moment it was hashed could be written again within the same timestamp tick
 * with the same size, and the cache would never notice. Such an entry is hashed again at the
 * next look, and trusted once a hash of the same facts is taken RACY_MS or more after they were
 * first seen: any write in their tick happened before that hash. This does not rely on the
 * mtime at all, so a file dated in the future (another machine's clock) is hashed twice, not
 * at every sync.
 *
 * A file Memdir wrote itself (`remember`, with the facts of a stat taken after the rename) follows
 * the same rule: an editor may save it again between the rename and that stat, or within the
 * same tick with the same size, and that save must not pass for the pulled content (it would
 * never be pushed, and the next pull would overwrite it without a conflict). So a fresh write is
 * hashed once more at the next look, then trusted.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import * as z from 'zod';
import type { FileFacts } from '../memdir/index.js';
import { writeDataFile } from '../core/safe-fs.js';

/** Widest timestamp granularity among common file systems (FAT: 2 s; HFS+: 1 s). */
export const RACY_MS = 2_000;

/** Stat facts (m, c, s, i), hash h, when these facts were first hashed t, trusted k (absent in older caches: judged by t). */
const entrySchema = z.object({
  m: z.number(),
  c: z.number(),
  s: z.number(),
  i: z.number(),
  h: z.string().regex(/^[0-9a-f]{64}$/),
  t: z.number(),
  k: z.boolean().optional(),
});
const fileSchema = z.object({ version: z.literal(1), entries: z.record(z.string(), entrySchema) });
type Entry = z.infer<typeof entrySchema>;

/** Hex sha256 of bytes or a string's UTF-8 bytes. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Whether two stats describe the same state of a file (null: no file). */
export function sameFacts(a: FileFacts | null, b: FileFacts | null): boolean {
  if (!a || !b) return a === b;
  return a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.size === b.size && a.ino === b.ino;
}

/** `sameFacts` for a cache entry (on every file of every sync: no object built). */
function entryMatches(e: Entry, facts: FileFacts): boolean {
  return e.m === facts.mtimeMs && e.c === facts.ctimeMs && e.s === facts.size && e.i === facts.ino;
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

  /** The remembered hash of `key` when its facts are unchanged and it is trusted (not racily clean). */
  lookup(key: string, facts: FileFacts): string | null {
    const e = this.entries.get(key);
    if (!e || !entryMatches(e, facts)) return null;
    return (e.k ?? e.m < e.t - RACY_MS) ? e.h : null;
  }

  /** Hash `bytes` (read for `key` at `facts`), count them, and remember the result. */
  hash(key: string, facts: FileFacts, bytes: Uint8Array, now = Date.now()): string {
    const h = sha256Hex(bytes);
    this.hashed(key, facts, h, bytes.byteLength, now);
    return h;
  }

  /** Count and remember `h`, the hash of `bytes` bytes of `key` read from disk at `facts` (the racy-clean rule, see the file comment). */
  hashed(key: string, facts: FileFacts, h: string, bytes: number, now = Date.now()): void {
    this.bytesHashed += bytes;
    this.filesHashed += 1;
    const previous = this.entries.get(key);
    const firstSeen = previous && entryMatches(previous, facts) && previous.h === h ? previous.t : now;
    this.set(key, facts, h, firstSeen, facts.mtimeMs < now - RACY_MS || now - firstSeen >= RACY_MS);
  }

  /** Remember the content Memdir itself just wrote: `facts` from a stat after the rename, `h` of the exact bytes (racily clean like any other: see the file comment). */
  remember(key: string, facts: FileFacts, h: string, now = Date.now()): void {
    this.set(key, facts, h, now, facts.mtimeMs < now - RACY_MS);
  }

  private set(key: string, facts: FileFacts, h: string, t: number, k: boolean): void {
    const previous = this.entries.get(key);
    if (previous && entryMatches(previous, facts) && previous.h === h && previous.t === t && previous.k === k) return;
    this.entries.set(key, { m: facts.mtimeMs, c: facts.ctimeMs, s: facts.size, i: facts.ino, h, t, k });
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
