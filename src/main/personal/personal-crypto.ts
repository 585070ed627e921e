/**
 * End-to-end encryption of personal sync (issue 18, item 5): the sync server stores and compares
 * ciphertext only. Built on node:crypto alone — scrypt (RFC 7914) to stretch the passphrase,
 * HKDF-SHA256 for one subkey per purpose, HMAC-SHA256 for names, AES-256-GCM for contents — the
 * same OpenSSL primitives in Node and in Electron, and no new dependency (libsodium would bring a
 * WASM blob or a native module to rebuild for Electron for the same guarantees; Argon2id is not
 * in Node 20's crypto).
 *
 *   master   = scrypt(NFC(passphrase), salt, N=2^17, r=8, p=1)  — 128 MiB and ~0.3 s per guess
 *   project  = HMAC(k_project, identity)[:16 bytes]             — the server's name for a project
 *   name     = HMAC(k_name, project ‖ key)[:20 bytes] + ".md"   — deterministic, so the same memory
 *              is the same entry on every machine and deltas, ETags and per-key commits still work
 *   content  = AES-256-GCM(k_content, random 96-bit nonce, AAD = project ‖ name,
 *              u16 len ‖ key ‖ u32 len ‖ bytes ‖ zero padding to 256 bytes) — randomised: the same
 *              text encrypts differently every time; the real key travels inside, checked
 *              against the name's HMAC on the way back (the server cannot swap two entries)
 *
 * The key record (KDF parameters, salt, a check value) is public: the first machine sets it on
 * the server, the others derive the key with its salt and compare the check — a wrong passphrase
 * is refused before anything is written. What the server still sees: how many projects and
 * memories there are, each memory's size rounded up to 256 bytes, when and from which machine
 * each is written, which change together; and it can attempt an offline guess of the passphrase
 * from the record (hence scrypt, and a long passphrase). It cannot read a project's identity, a
 * memory's name or its text, nor forge, alter or move an entry unnoticed; it can withhold
 * entries or serve an older version of one (deletions never propagate anyway).
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import * as z from 'zod';
import { MIN_PASSPHRASE_CHARS } from '../../shared/personal-sync.js';
import { MemdirError } from '../../shared/errors.js';

/** scrypt's cost parameters. */
export interface KdfParams {
  N: number;
  r: number;
  p: number;
}

/** What a new personal space gets: OWASP's scrypt minimum (128 MiB, about 0.3 s here). */
export const DEFAULT_KDF: KdfParams = { N: 2 ** 17, r: 8, p: 1 };

/** The weakest record a client accepts from a server (a server offering weak parameters would make guessing cheap). */
const MIN_N = 2 ** 15;
const MAX_N = 2 ** 20;

/** Sealed contents start with this (the format's version). */
const SEALED_PREFIX = 'm1.';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
/** Plaintexts are padded to a multiple of this, so sizes leak only roughly. */
const PAD_TO = 256;

/**
 * The largest memory file personal sync carries: sealed and base64-encoded it must stay under
 * the server's 1 MB entry limit (the team limit), so ~3/4 of it, less the frame.
 */
export const PERSONAL_MAX_ENTRY_BYTES = 740_000;

const b64 = z.string().regex(/^[A-Za-z0-9_-]+$/);

/** The personal space's key record as stored on the server (JSON text, opaque to it). */
export const keyRecordSchema = z.strictObject({
  v: z.literal(1),
  kdf: z.literal('scrypt'),
  N: z.number().int(),
  r: z.number().int(),
  p: z.number().int(),
  salt: b64.min(22).max(64),
  check: b64.length(43),
});
export type KeyRecord = z.infer<typeof keyRecordSchema>;

/** Why a key cannot be used, with a sentence for people. */
export class PersonalKeyError extends MemdirError<'wrong-passphrase' | 'bad-record' | 'weak-passphrase'> {
  override readonly name = 'PersonalKeyError';
}

/** The server's key record, checked: a record this client would not have written is refused, never used. */
export function parseKeyRecord(text: string): KeyRecord {
  let record: KeyRecord;
  try {
    record = keyRecordSchema.parse(JSON.parse(text));
  } catch {
    throw new PersonalKeyError(
      'bad-record',
      "The personal space's key record on the server is not one Memdir writes; nothing was written. Ask the server's admin whether the space was changed.",
    );
  }
  const powerOfTwo = (record.N & (record.N - 1)) === 0;
  if (!powerOfTwo || record.N < MIN_N || record.N > MAX_N || record.r < 8 || record.r > 32 || record.p < 1 || record.p > 16) {
    throw new PersonalKeyError(
      'bad-record',
      `The personal space's key record asks for scrypt parameters Memdir does not accept (N=${record.N}, r=${record.r}, p=${record.p}): weak ones would make the passphrase cheap to guess. Nothing was written.`,
    );
  }
  return record;
}

/** Whether a passphrase is long enough for a new space, or why not. */
export function passphraseProblem(passphrase: string): string | null {
  const chars = [...passphrase].length;
  if (chars < MIN_PASSPHRASE_CHARS)
    return `The passphrase has ${chars} characters; use at least ${MIN_PASSPHRASE_CHARS} (a few unrelated words are easy to remember and hard to guess).`;
  return null;
}

function scryptAsync(passphrase: string, salt: Buffer, params: KdfParams): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // maxmem: scrypt needs 128·N·r bytes; leave room above it.
    scrypt(passphrase.normalize('NFC'), salt, 32, { N: params.N, r: params.r, p: params.p, maxmem: 256 * params.N * params.r }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

function subkey(master: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), `memdir personal v1 ${purpose}`, 32));
}

function hmac(key: Buffer, ...parts: string[]): Buffer {
  return createHmac('sha256', key).update(parts.join('\0'), 'utf8').digest();
}

function checkOf(master: Buffer): string {
  return hmac(subkey(master, 'check'), 'memdir personal key check').toString('base64url');
}

/** A new key for a new space: the master key and the record to store on the server. */
export async function createKey(passphrase: string, params: KdfParams = DEFAULT_KDF): Promise<{ master: Buffer; record: KeyRecord; text: string }> {
  const problem = passphraseProblem(passphrase);
  if (problem) throw new PersonalKeyError('weak-passphrase', problem);
  const salt = randomBytes(16);
  const master = await scryptAsync(passphrase, salt, params);
  const record: KeyRecord = { v: 1, kdf: 'scrypt', N: params.N, r: params.r, p: params.p, salt: salt.toString('base64url'), check: checkOf(master) };
  return { master, record, text: JSON.stringify(record) };
}

/** The master key of a space from its passphrase and record; refused (nothing derived is kept) when the passphrase is not the one the record was made with. */
export async function unlockKey(passphrase: string, record: KeyRecord): Promise<Buffer> {
  const master = await scryptAsync(passphrase, Buffer.from(record.salt, 'base64url'), record);
  if (!keyMatchesRecord(master, record)) {
    throw new PersonalKeyError(
      'wrong-passphrase',
      'That passphrase does not open this personal space: it was encrypted with another one. Nothing was written. Type the passphrase you chose on your first machine.',
    );
  }
  return master;
}

/** Whether a master key is the one a record was made with (constant time). */
export function keyMatchesRecord(master: Buffer, record: KeyRecord): boolean {
  const mine = Buffer.from(checkOf(master), 'base64url');
  const theirs = Buffer.from(record.check, 'base64url');
  return mine.length === theirs.length && timingSafeEqual(mine, theirs);
}

/** What opening a sealed entry gave: the memory's key and bytes, or why it could not be opened. */
export type Opened = { ok: true; key: string; bytes: Buffer } | { ok: false; reason: 'format' | 'key' | 'moved' };

/** The subkeys of one master key, and the operations built on them (see the file comment). */
export class PersonalKeys {
  private readonly contentKey: Buffer;
  private readonly nameKey: Buffer;
  private readonly projectKey: Buffer;
  /** A short fingerprint of the key, the same on every machine that has it (people compare it). */
  readonly keyId: string;

  constructor(master: Buffer) {
    if (master.length !== 32) throw new PersonalKeyError('bad-record', 'The stored personal sync key is damaged; connect again with your passphrase.');
    this.contentKey = subkey(master, 'content');
    this.nameKey = subkey(master, 'name');
    this.projectKey = subkey(master, 'project');
    const id = hmac(subkey(master, 'check'), 'memdir personal key id').toString('hex');
    this.keyId = `${id.slice(0, 4)}-${id.slice(4, 8)}-${id.slice(8, 12)}`;
  }

  /** The server's name for a project: 32 hex characters, unlinkable to its identity without the key. */
  projectId(identity: string): string {
    return hmac(this.projectKey, 'project', identity).toString('hex').slice(0, 32);
  }

  /** The server's name for a memory of a project (a valid sync key: 40 hex characters and `.md`). */
  wireKey(project: string, key: string): string {
    return `${hmac(this.nameKey, project, key).toString('hex').slice(0, 40)}.md`;
  }

  private aad(project: string, wireKey: string): Buffer {
    return Buffer.from(`memdir-personal-v1\0${project}\0${wireKey}`, 'utf8');
  }

  /** Encrypt a memory (its key and bytes) for `project` under `wireKey`: text the server stores as is. */
  seal(project: string, wireKey: string, key: string, bytes: Uint8Array): string {
    const name = Buffer.from(key, 'utf8');
    const length = 2 + name.length + 4 + bytes.byteLength;
    const plain = Buffer.alloc(Math.ceil(length / PAD_TO) * PAD_TO);
    plain.writeUInt16BE(name.length, 0);
    name.copy(plain, 2);
    plain.writeUInt32BE(bytes.byteLength, 2 + name.length);
    plain.set(bytes, 6 + name.length);
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.contentKey, nonce);
    cipher.setAAD(this.aad(project, wireKey));
    const body = Buffer.concat([cipher.update(plain), cipher.final()]);
    return SEALED_PREFIX + Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64url');
  }

  /** Decrypt an entry of `project` stored under `wireKey` (authenticated: anything altered, moved or sealed with another key is refused). */
  open(project: string, wireKey: string, sealed: string): Opened {
    if (!sealed.startsWith(SEALED_PREFIX) || !/^[A-Za-z0-9_-]*$/.test(sealed.slice(SEALED_PREFIX.length))) return { ok: false, reason: 'format' };
    const raw = Buffer.from(sealed.slice(SEALED_PREFIX.length), 'base64url');
    if (raw.length < NONCE_BYTES + TAG_BYTES + PAD_TO) return { ok: false, reason: 'format' };
    const decipher = createDecipheriv('aes-256-gcm', this.contentKey, raw.subarray(0, NONCE_BYTES));
    decipher.setAAD(this.aad(project, wireKey));
    decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
    let plain: Buffer;
    try {
      plain = Buffer.concat([decipher.update(raw.subarray(NONCE_BYTES, raw.length - TAG_BYTES)), decipher.final()]);
    } catch {
      return { ok: false, reason: 'key' };
    }
    const nameLength = plain.readUInt16BE(0);
    if (6 + nameLength > plain.length) return { ok: false, reason: 'format' };
    const key = plain.subarray(2, 2 + nameLength).toString('utf8');
    const size = plain.readUInt32BE(2 + nameLength);
    if (6 + nameLength + size > plain.length) return { ok: false, reason: 'format' };
    // The name inside must be the one the entry is stored under: the server cannot swap entries.
    if (this.wireKey(project, key) !== wireKey) return { ok: false, reason: 'moved' };
    return { ok: true, key, bytes: plain.subarray(6 + nameLength, 6 + nameLength + size) };
  }
}
