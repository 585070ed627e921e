/**
 * The personal sync engine's view of the server (issue 18, item 5): a SpaceClient that wraps the
 * team protocol client on a personal project's routes and encrypts on the way out, decrypts on the
 * way back (personal-crypto.ts). The sync engine above it is the team's, unchanged: it sees plain
 * keys, plain contents and the sha256 of plain contents, exactly as with a team.
 *
 * The server's hashes are of ciphertext, and the same text encrypts differently every time, so
 * this client keeps, per entry, the pair it last saw or sent — wire key → (key, ciphertext hash,
 * plaintext hash) — in `wire.json` beside the connection's sync state:
 *   - a pull answers with plaintext hashes (the ciphertext's checked against the server's first);
 *   - a push names its base (the plaintext hash both sides agreed on) by the ciphertext hash the
 *     server holds for it; a base it cannot name is sent as a value that never matches, so the
 *     server answers a per-key conflict and the pull that follows merges — never an overwrite;
 *   - a per-key conflict's ciphertext hash becomes the plaintext hash when known, else a marker
 *     that differs from every plaintext hash (the engine then pulls and learns it);
 *   - a push is recorded before it is sent, so the answer to a push replayed by its id (a lost
 *     answer) still names its keys.
 * Every pull also asks for the server's key record (in parallel: no time added) and checks it
 * is still the one this machine's key was made for: a space reset and re-keyed elsewhere stops
 * the sync before anything is written or sent (else this machine would upload entries sealed with
 * a key no other machine has).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import * as z from 'zod';
import type { ChecksumsResponse } from '../../shared/protocol/sync.js';
import { strictUtf8 } from '../../shared/utf8.js';
import { writeDataFile } from '../core/safe-fs.js';
import {
  type CommitOutcome,
  type Conditional,
  type PulledEntries,
  type PutOutcome,
  sha256Hex,
  type SpaceClient,
  type TeamClient,
  TeamClientError,
  TeamSyncError,
} from '../team/index.js';
import { type KeyRecord, type PersonalKeys, keyRecordSchema } from './personal-crypto.js';

const sha = z.string().regex(/^[0-9a-f]{64}$/);
const pairSchema = z.object({ k: z.string(), c: sha, p: sha });
const wireSchema = z.object({
  version: z.literal(1),
  keys: z.record(z.string(), pairSchema),
  pending: z.object({ pushId: z.string(), entries: z.record(z.string(), pairSchema) }).nullable(),
});
type Pair = z.infer<typeof pairSchema>;
type WireFile = z.infer<typeof wireSchema>;

/** A push-only sync (no pull before it) checks the key again when the last check is older than this. */
const VERIFY_EVERY_MS = 60_000;

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/** Why an entry could not be opened, in words (the rest of the sentence names the entry). */
export function openFailure(reason: 'format' | 'key' | 'moved'): string {
  return {
    format: 'it is not an entry Memdir encrypted',
    key: "it does not decrypt with this machine's key: it was written with another passphrase, or changed on the server",
    moved: 'the server stored it under another name than the one sealed inside it',
  }[reason];
}

/** A hash no plaintext has: the server holds a version whose content this machine has not seen. */
function unknownPlain(cipher: string): string {
  return sha256Hex(`memdir personal: unseen version ${cipher}`);
}

export interface EncryptedClientOptions {
  /** The team protocol client on this project's personal routes (scope `personal`, team = project id). */
  inner: TeamClient;
  keys: PersonalKeys;
  /** The project's id on the server. */
  project: string;
  /** The key record this machine's key was made for (from the account). */
  record: KeyRecord;
  /** The connection's state folder (`wire.json` lives there). */
  stateDir: string;
}

/** See the file comment. */
export class EncryptedSpaceClient implements SpaceClient {
  private wire: WireFile | null = null;
  private dirty = false;
  private saving: Promise<void> = Promise.resolve();
  private verifiedAt = 0;
  private readonly file: string;

  constructor(private readonly options: EncryptedClientOptions) {
    this.file = path.join(options.stateDir, 'wire.json');
  }

  private async table(): Promise<WireFile> {
    if (this.wire) return this.wire;
    const text = await fs.readFile(this.file, 'utf8').catch(() => null);
    const parsed = text === null ? null : wireSchema.safeParse(parseJson(text));
    // Missing or damaged: only costs conflicts answered by the server and a pull (see the file comment).
    this.wire = parsed?.success ? parsed.data : { version: 1, keys: {}, pending: null };
    return this.wire;
  }

  /**
   * Saves one at a time, each writing the table as it is when its turn comes: the engine has a
   * pull and a lost push's confirmation in flight together, and two atomic writes of one file
   * racing make the later rename replace the file the earlier one is still checking.
   */
  private save(): Promise<void> {
    const turn = this.saving.then(() => this.saveNow());
    this.saving = turn.catch(() => undefined);
    return turn;
  }

  private async saveNow(): Promise<void> {
    if (!this.dirty || !this.wire) return;
    // Cleared before the write: what is learnt while it runs marks the table for the next save.
    this.dirty = false;
    try {
      await fs.mkdir(this.options.stateDir, { recursive: true, mode: 0o700 });
      await writeDataFile(this.file, JSON.stringify(this.wire), { mode: 0o600 });
    } catch (error) {
      this.dirty = true;
      throw error;
    }
  }

  private learn(table: WireFile, wireKey: string, pair: Pair): void {
    const known = table.keys[wireKey];
    if (known && known.k === pair.k && known.c === pair.c && known.p === pair.p) return;
    table.keys[wireKey] = pair;
    this.dirty = true;
  }

  /** The server's key record must still be the one this machine's key was made for (see the file comment). */
  private async verifyKey(signal?: AbortSignal, asked?: Promise<string | null>): Promise<void> {
    if (!asked && Date.now() - this.verifiedAt < VERIFY_EVERY_MS) return;
    const text = await (asked ?? this.options.inner.personalKey(signal ? { signal } : {}));
    const parsed = text === null ? null : keyRecordSchema.safeParse(parseJson(text));
    const theirs = parsed?.success ? parsed.data : null;
    if (!theirs || theirs.check !== this.options.record.check || theirs.salt !== this.options.record.salt) {
      throw new TeamSyncError(
        'key-mismatch',
        theirs === null && text === null
          ? 'The personal space on the server has no key any more (it was reset). Nothing was written or sent. Connect this machine again: memdir personal connect.'
          : 'The personal space on the server is now encrypted with another key than this machine has (another passphrase was set there). Nothing was written or sent. Connect again with that passphrase: memdir personal connect.',
      );
    }
    this.verifiedAt = Date.now();
  }

  me(opts: { signal?: AbortSignal } = {}): ReturnType<SpaceClient['me']> {
    return this.options.inner.me(opts);
  }

  async entries(opts: { ifNoneMatch?: string | null; since?: string | null; signal?: AbortSignal } = {}): Promise<Conditional<PulledEntries>> {
    const asked = this.options.inner.personalKey(opts.signal ? { signal: opts.signal } : {});
    const sent = this.options.inner.entries(opts);
    // Both travel at once; the key is judged first, so a space under another key writes nothing.
    sent.catch(() => undefined);
    await this.verifyKey(opts.signal, asked);
    const answer = await sent;
    if (answer.status === 304) return answer;
    const { keys, project } = this.options;
    const table = await this.table();
    const entries: PulledEntries['entries'] = {};
    const refused: NonNullable<PulledEntries['refused']> = [];
    const shown = (wireKey: string): string => `an encrypted entry (${wireKey.slice(0, 12)}…)`;
    for (const [wireKey, entry] of Object.entries(answer.body.entries)) {
      if (sha256Hex(entry.content) !== entry.sha256) {
        refused.push({
          key: shown(wireKey),
          reason: `Refused ${shown(wireKey)}: the server's checksum does not match what it sent (corrupted, or not an honest server).`,
          security: true,
        });
        continue;
      }
      const opened = keys.open(project, wireKey, entry.content);
      if (!opened.ok) {
        refused.push({ key: shown(wireKey), reason: `Refused ${shown(wireKey)}: ${openFailure(opened.reason)}. Nothing was written.`, security: true });
        continue;
      }
      const content = strictUtf8(opened.bytes);
      if (content === null) {
        refused.push({ key: opened.key, reason: `Refused ${opened.key}: its content is not UTF-8 text.`, security: false });
        continue;
      }
      const plain = sha256Hex(opened.bytes);
      entries[opened.key] = { content, sha256: plain, updatedAt: entry.updatedAt, updatedBy: entry.updatedBy };
      this.learn(table, wireKey, { k: opened.key, c: entry.sha256, p: plain });
    }
    if (answer.body.full) {
      for (const wireKey of Object.keys(table.keys)) {
        if (!Object.hasOwn(answer.body.entries, wireKey)) {
          delete table.keys[wireKey];
          this.dirty = true;
        }
      }
    }
    await this.save();
    return { ...answer, body: { ...answer.body, entries, refused } };
  }

  async commit(pushId: string, plain: Record<string, { content: string; base: string | null }>, opts: { signal?: AbortSignal } = {}): Promise<CommitOutcome> {
    await this.verifyKey(opts.signal);
    const { keys, project } = this.options;
    const table = await this.table();
    let sent: Record<string, Pair>;
    const wire: Record<string, { content: string; base: string | null }> = {};
    if (Object.keys(plain).length === 0 && table.pending?.pushId === pushId) {
      // Asking for the result of a push whose answer was lost: its keys are the ones recorded.
      sent = table.pending.entries;
    } else {
      sent = {};
      for (const [key, item] of Object.entries(plain)) {
        const wireKey = keys.wireKey(project, key);
        const content = keys.seal(project, wireKey, key, Buffer.from(item.content, 'utf8'));
        const known = table.keys[wireKey];
        // The server's hash of the version this edit is based on (see the file comment).
        const base = item.base === null ? null : known && known.p === item.base ? known.c : unknownPlain(item.base);
        wire[wireKey] = { content, base };
        sent[wireKey] = { k: key, c: sha256Hex(content), p: sha256Hex(item.content) };
      }
      table.pending = { pushId, entries: sent };
      this.dirty = true;
      // On disk before the push leaves (as the engine's own lostPush).
      await this.save();
    }
    const outcome = await this.options.inner.commit(pushId, wire, opts);
    const plainKey = (wireKey: string): string => sent[wireKey]?.k ?? table.keys[wireKey]?.k ?? wireKey;
    if (!outcome.ok) {
      if (outcome.status === 404 || outcome.status === 405)
        throw new TeamClientError(
          'not-found',
          'The sync server has no personal space for this token: it is a team token, or the server does not know personal spaces (update it).',
          outcome.status,
        );
      const error = { ...outcome.error };
      if (error.key !== undefined) error.key = plainKey(error.key);
      if (error.keys) error.keys = error.keys.map((k) => ({ ...k, key: plainKey(k.key) }));
      return { ok: false, status: outcome.status, error };
    }
    const body = outcome.body;
    for (const wireKey of [...body.committed, ...body.unchanged]) {
      const pair = sent[wireKey];
      if (pair) this.learn(table, wireKey, pair);
    }
    const conflicts: typeof body.conflicts = {};
    for (const [wireKey, conflict] of Object.entries(body.conflicts)) {
      const known = table.keys[wireKey];
      conflicts[plainKey(wireKey)] = { ...conflict, sha256: known && known.c === conflict.sha256 ? known.p : unknownPlain(conflict.sha256) };
    }
    if (table.pending?.pushId === pushId) {
      table.pending = null;
      this.dirty = true;
    }
    await this.save();
    return { ok: true, body: { ...body, committed: body.committed.map(plainKey), unchanged: body.unchanged.map(plainKey), conflicts } };
  }

  /** Not used: a personal space speaks protocol 2 only, and the engine asks for checksums only in protocol 1. */
  async checksums(): Promise<Conditional<ChecksumsResponse>> {
    throw new TeamSyncError('server', 'Personal sync speaks protocol 2 only; checksums are not asked for.');
  }

  /** Not used: a personal space speaks protocol 2 only. */
  async put(): Promise<PutOutcome> {
    throw new TeamSyncError('server', 'Personal sync speaks protocol 2 only.');
  }
}
