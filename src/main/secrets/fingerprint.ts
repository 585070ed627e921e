/**
 * A secret's fingerprint: how Memdir recognises the same secret later — an Allow in allowed.json,
 * `--allow FINGERPRINT` after a refusal, a redact of an alert's finding — without keeping the
 * secret. It is printed (alerts, `team sync --json`, `secrets scan --json`, refusals, logs), so
 * it must not give the secret away: a plain sha256 of a weak password is found again by hashing a
 * dictionary (review x2 F6: `Summer2024!` → `323725e8eff4df0a`). It is an HMAC-SHA256 under a
 * random key of this install, kept in Memdir's data dir (`secrets/fingerprint.key`, mode 0600,
 * made on first need), cut to 16 hex: the same secret has the same fingerprint on this machine,
 * and another machine's differs. Nothing that leaves the machine carries one (no fingerprint is in
 * the team or personal sync protocol); fingerprints are only ever compared on the machine that
 * printed them.
 *
 * Fingerprints printed before (the plain sha256 prefix) keep working where they were recorded or
 * are typed back: {@link fingerprintMatches} takes either form for a secret this process has
 * fingerprinted since it started.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { processDataDir } from '../core/data-dir.js';
import { errCode } from '../core/fs-errors.js';
import { writeDataFile } from '../core/safe-fs.js';

/** Where the key lives in a data dir. */
export const FINGERPRINT_KEY_FILE = path.join('secrets', 'fingerprint.key');

const keys = new Map<string, Promise<Buffer>>();

async function readKey(file: string): Promise<Buffer> {
  const text = (await fs.readFile(file, 'utf8')).trim();
  if (!/^[0-9a-f]{64}$/.test(text)) throw new Error(`${file} is not a key Memdir wrote; move it away and Memdir makes a new one`);
  return Buffer.from(text, 'hex');
}

/**
 * The key of `dataDir`, made on first need: written whole and private (0600) under another name,
 * then linked to its own — a link never replaces a file, so when two processes make one at once,
 * both use the one that got there first.
 */
async function loadOrCreate(dataDir: string): Promise<Buffer> {
  const file = path.join(dataDir, FINGERPRINT_KEY_FILE);
  try {
    return await readKey(file);
  } catch (error) {
    if (errCode(error) !== 'ENOENT') throw error;
  }
  const made = `${file}.${randomBytes(6).toString('hex')}.new`;
  await writeDataFile(made, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
  try {
    await fs.link(made, file);
  } catch (error) {
    if (errCode(error) !== 'EEXIST') throw error;
  } finally {
    await fs.rm(made, { force: true });
  }
  return readKey(file);
}

// A fingerprint this process made → the plain sha256 prefix of the same secret, so a fingerprint
// recorded or printed before keyed ones still recognises its secret. In memory only, bounded.
const plainOf = new Map<string, string>();
const MAX_PLAIN = 20_000;

/** The fingerprint of a secret this process was handed, as printed before the key (x2 F6). */
function plainFingerprint(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex').slice(0, 16);
}

/** The key of the process's data dir, read or made once. */
function processKey(): Promise<Buffer> {
  const dataDir = processDataDir();
  let key = keys.get(dataDir);
  if (!key) {
    key = loadOrCreate(dataDir);
    keys.set(dataDir, key);
    key.catch(() => keys.delete(dataDir));
  }
  return key;
}

const keyed = (key: Buffer, secret: string): string => createHmac('sha256', key).update(secret, 'utf8').digest('hex').slice(0, 16);

/**
 * The fingerprinting function of this install (the key of the process's data dir, read or made
 * once). Rejects when the key can neither be read nor made: the scanner then fails closed.
 */
export async function fingerprinter(): Promise<(secret: string) => string> {
  const bytes = await processKey();
  return (secret) => {
    const fingerprint = keyed(bytes, secret);
    if (!plainOf.has(fingerprint)) {
      if (plainOf.size >= MAX_PLAIN) plainOf.clear();
      plainOf.set(fingerprint, plainFingerprint(secret));
    }
    return fingerprint;
  };
}

/**
 * Whether `recorded` (an allowed record's, an alert's, one typed after `--allow`) names the secret
 * whose fingerprint is `fingerprint` (just made by this process): the same fingerprint, or the
 * plain one printed before fingerprints were keyed. Never for an empty one (a failed scan).
 */
export function fingerprintMatches(recorded: string, fingerprint: string): boolean {
  if (recorded === '' || fingerprint === '') return false;
  return recorded === fingerprint || plainOf.get(fingerprint) === recorded;
}

/** Whether any of `recorded` names the secret of `fingerprint` (see {@link fingerprintMatches}). */
export function fingerprintIn(recorded: Iterable<string>, fingerprint: string): boolean {
  for (const r of recorded) if (fingerprintMatches(r, fingerprint)) return true;
  return false;
}

/**
 * What recognises a secret again in a text without keeping it: its fingerprint, its length, and
 * its first one to four characters (to look only where it could start) — held in this process's
 * memory only and never shown: a finding's mask shows none of them (heuristics.ts `maskSecret`).
 */
export interface SecretTrace {
  fingerprint: string;
  length: number;
  head: string;
}

// The key of traces: they live only in this process's memory and are compared only in it, so a
// random key of the process serves — it needs no disk, so it cannot fail the way the install's
// key can (junk in the key file, a read-only or full data dir), where an empty fingerprint made
// every secret still held read as gone (review s44 #1).
const traceKey = randomBytes(32);

/**
 * The leading characters of a secret a trace looks for it by: kept only in this process's memory,
 * never printed — a finding's mask shows none of them (heuristics.ts `maskSecret`). Before session
 * 45 a mask showed them (scanner.ts `oldMask` still reads records masked so).
 */
export function traceHead(secret: string): string {
  const chars = [...secret];
  return chars.slice(0, chars.length >= 16 ? 4 : chars.length >= 8 ? 2 : 1).join('');
}

/** The trace of `secret`: compared only in this process (its fingerprint is never printed). */
export function traceOf(secret: string): SecretTrace {
  return { fingerprint: keyed(traceKey, secret), length: secret.length, head: traceHead(secret) };
}

/**
 * Whether `text` holds the secret `trace` was made of: a stretch of its length, starting as it
 * does, with its fingerprint — looked for only where its head occurs. Every non-empty secret has a
 * head (`shownHead`); a trace without one is of nothing, held by no text (it matched the empty
 * stretch at once, and would otherwise cost a fingerprint at every offset).
 */
export function textHolds(text: string, trace: SecretTrace): boolean {
  if (trace.head === '' || trace.length < trace.head.length) return false;
  for (let at = text.indexOf(trace.head); at >= 0 && at + trace.length <= text.length; at = text.indexOf(trace.head, at + 1))
    if (keyed(traceKey, text.slice(at, at + trace.length)) === trace.fingerprint) return true;
  return false;
}
