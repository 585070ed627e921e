/**
 * What one connection remembers between syncs, in `<dataDir>/team/<id>/state.json`:
 *   - `etag`: the server version whose content this client has processed (pulls send it as
 *     If-None-Match and `?since=`; pushes as If-Match);
 *   - `server`: the server's sha256 per key at `etag` (exact: it is updated only from answers
 *     that describe that version), so a push needs no extra request to know its delta;
 *   - `base`: per key, the content hash both sides last agreed on. A local file whose hash
 *     differs from its base was edited here and not pushed yet; a server hash that differs from
 *     the base was changed by someone else. Both at once is a conflict;
 *   - `refused`: per key, the server hash of an entry whose content this client refused (not
 *     text, too large, checksum wrong): the key is not written, and not fetched again until the
 *     server's hash changes;
 *   - `lostPush`: a push sent whose answer never came (protocol 2: its id and, per key, the hash
 *     pushed), written before the push leaves; the next sync asks the server for that push's
 *     result (same id) and recognises its own write instead of taking it for someone else's;
 *   - `seen`: the newest team version any answer showed (never go backwards on a replayed one);
 *   - `pushed`: per key, the hash this client pushed and has not yet seen the server hold at a
 *     version it pulled (pull.ts `verifyPushed`): a server restored from a backup and numbered up
 *     to the same version again by others is told apart by it;
 *   - the conflicts list (the local bytes of each are files beside it, `conflicts/<id>.local`).
 * Beside it, `bases/<sha256>`: the content of each base version, so a pull can merge lines
 * three ways (a cache: a missing one only means a conflict instead of a merge).
 * Written atomically, and only when something in it changed.
 */
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import * as z from 'zod';
import { type TeamConflict, syncErrorSchema, teamConflictSchema } from '../../shared/contract/team.js';
import { isProtocolEtag } from '../../shared/protocol/sync.js';
import { acquireOwnedLock } from '../core/memory-lock.js';
import { writeDataFile } from '../core/safe-fs.js';

const sha = z.string().regex(/^[0-9a-f]{64}$/);

export const syncStateSchema = z.object({
  version: z.literal(1),
  // An ETag not in the protocol's form (stored by an older Memdir) is dropped: the next pull is a full one.
  etag: z
    .string()
    .nullable()
    .transform((etag) => (isProtocolEtag(etag) ? etag : null)),
  server: z.record(z.string(), sha),
  base: z.record(z.string(), sha),
  refused: z.record(z.string(), sha).default({}),
  lastPullAt: z.string().nullable(),
  lastPushAt: z.string().nullable(),
  conflicts: z.array(teamConflictSchema),
  lostPush: z
    .object({ pushId: z.string(), entries: z.record(z.string(), sha) })
    .nullable()
    .default(null),
  /** The newest team ETag this client has seen in any answer (its own commits too): an answer older than it is a stale duplicate. */
  seen: z
    .string()
    .nullable()
    .default(null)
    .transform((etag) => (isProtocolEtag(etag) ? etag : null)),
  /** Keys pushed since the server was last seen holding them, with the hash pushed (see the file comment). */
  pushed: z.record(z.string(), sha).default({}),
  /** The last sync's error, null once one gets through: `memdir team|personal status` (another process) says it as the app does. */
  lastError: syncErrorSchema.nullable().default(null),
});
export type SyncState = z.infer<typeof syncStateSchema>;

/** Resolved conflicts kept for the record. */
const KEEP_RESOLVED = 50;

export function emptyState(): SyncState {
  return {
    version: 1,
    etag: null,
    server: {},
    base: {},
    refused: {},
    lastPullAt: null,
    lastPushAt: null,
    conflicts: [],
    lostPush: null,
    seen: null,
    pushed: {},
    lastError: null,
  };
}

/** The state file of a connection folder, loaded and saved as a whole. */
export class StateFile {
  readonly file: string;
  private savedText: string | null = null;
  private loadedStamp: string | null = null;

  constructor(readonly dir: string) {
    this.file = path.join(dir, 'state.json');
  }

  /** The state on disk (empty when there is none; a damaged file is kept aside, never trusted). */
  async load(): Promise<SyncState> {
    let text: string;
    try {
      text = await fs.readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return emptyState();
      throw error;
    }
    const parsed = (() => {
      try {
        return syncStateSchema.safeParse(JSON.parse(text));
      } catch {
        return null;
      }
    })();
    if (!parsed?.success) {
      // Starting over is safe: with no base every differing file becomes a conflict, never a loss.
      await fs.rename(this.file, `${this.file}.damaged-${Date.now()}`).catch(() => undefined);
      return emptyState();
    }
    this.savedText = text;
    this.loadedStamp = this.stamp();
    return parsed.data;
  }

  /** Whether the file changed on disk since this process last loaded or saved it (another process synced). */
  changedOnDisk(): boolean {
    return this.stamp() !== this.loadedStamp;
  }

  /** One stat, synchronous: it is on every sync's path and costs less than a thread-pool round trip. */
  private stamp(): string | null {
    const st = fsSync.statSync(this.file, { throwIfNoEntry: false });
    return st ? `${st.mtimeMs}:${st.size}:${st.ino}` : null;
  }

  /** Write the state when it differs from what is on disk. */
  async save(state: SyncState): Promise<void> {
    const resolved = state.conflicts.filter((c) => c.status === 'resolved');
    if (resolved.length > KEEP_RESOLVED) {
      const drop = new Set(resolved.slice(0, resolved.length - KEEP_RESOLVED).map((c) => c.id));
      state.conflicts = state.conflicts.filter((c) => !drop.has(c.id));
      for (const id of drop) await fs.rm(this.conflictFile(id), { force: true });
    }
    const text = `${JSON.stringify(state)}\n`;
    if (text === this.savedText) return;
    await writeDataFile(this.file, text, { mode: 0o600 });
    this.savedText = text;
    this.loadedStamp = this.stamp();
  }

  /** Where the local bytes of a conflict are kept. */
  conflictFile(id: string): string {
    return path.join(this.dir, 'conflicts', `${id.replace(/[^A-Za-z0-9-]/g, '')}.local`);
  }

  async writeConflictBytes(id: string, bytes: Uint8Array): Promise<void> {
    await writeDataFile(this.conflictFile(id), bytes, { mode: 0o600 });
  }

  async readConflictBytes(conflict: TeamConflict): Promise<Buffer | null> {
    return fs.readFile(this.conflictFile(conflict.id)).catch(() => null);
  }
}

/**
 * The content of base versions by their sha256 (`<connection dir>/bases/<sha>`), written once,
 * atomically (temp + rename) but without fsync: it is a cache for three-way merges, and one lost
 * in a crash only turns a merge into a conflict. Pruned to the bases the state still names.
 */
export class BaseStore {
  readonly dir: string;
  private known = new Set<string>();

  constructor(stateDir: string) {
    this.dir = path.join(stateDir, 'bases');
  }

  /**
   * Keep `content` as the base whose hash is `sha` (the caller computed it from these bytes). A
   * cache: when the disk refuses it (full), nothing is kept — not even the half-written temp — and
   * the sync goes on (a later merge of this key becomes a conflict, both versions kept).
   */
  save(sha: string, content: string | Uint8Array): void {
    if (this.known.has(sha)) return;
    const file = path.join(this.dir, sha);
    if (!fsSync.existsSync(file)) {
      const temp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}`;
      try {
        fsSync.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
        fsSync.writeFileSync(temp, content, { mode: 0o600 });
        fsSync.renameSync(temp, file);
      } catch {
        fsSync.rmSync(temp, { force: true });
        return;
      }
    }
    this.known.add(sha);
  }

  /**
   * The base text of `sha`, or null when it was never kept or is gone (a cache: pruned, removed by
   * hand) — then forgotten as kept, so the next pull that brings it saves it again (the app's
   * "sync first" after the server's side of a conflict was lost).
   */
  async read(sha: string): Promise<Buffer | null> {
    if (!/^[0-9a-f]{64}$/.test(sha)) return null;
    const bytes = await fs.readFile(path.join(this.dir, sha)).catch(() => null);
    if (bytes === null) this.known.delete(sha);
    return bytes;
  }

  /** Remove every base not in `keep`. */
  async prune(keep: ReadonlySet<string>): Promise<void> {
    const names = await fs.readdir(this.dir).catch(() => [] as string[]);
    for (const name of names) {
      if (!keep.has(name)) {
        this.known.delete(name);
        await fs.rm(path.join(this.dir, name), { force: true });
      }
    }
  }
}

/**
 * Take the cross-process lock of a connection's state folder (`sync.lock`): a sync holds it
 * from start to end, and so does anything else that rewrites the state (a reconnect that
 * starts it over). Waits a few seconds for another process, then fails with `busy`.
 * Returns the release (safe to call once the lock was lost or taken over): awaited, so that a
 * sync is over only once its lock folder is gone (a caller removing the data dir, or exiting,
 * right after never races it).
 */
export async function lockSyncState(dir: string): Promise<() => Promise<void>> {
  // Memdir's owned folder lock: a sync killed mid-way (kill -9) is taken over at once on the
  // next start, not reported as "another process is syncing" until its lock goes stale.
  return acquireOwnedLock(dir, 'sync', { timeoutMs: 15_000, busy: 'Another Memdir process is syncing this project right now; try again in a moment.' });
}
