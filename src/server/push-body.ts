/**
 * A push's body, from bytes to checked writes: refused on Content-Length before reading and
 * counted while reading, strict UTF-8, JSON; then every key through `sanitizePathKey` and every
 * content checked — one bad key fails the whole push, nothing written.
 */
import { createHash } from 'node:crypto';
import type { Context } from 'hono';
import { foldPathKey, sanitizePathKey } from '../shared/path-key.js';
import { readBodyLimited } from '../shared/protocol/read-body.js';
import { strictUtf8, utf8Length } from '../shared/utf8.js';
import { quoteName } from '../shared/visible-text.js';
import { type AppEnv, fail } from './http.js';
import type { ServerLimits } from './limits.js';
import type { EntryWrite } from './store.js';

/** A lone UTF-16 surrogate: a string JSON can carry but UTF-8 text cannot. */
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** A push body, read with its limits and parsed as JSON, or the refusal to answer with. */
export async function readJsonBody(c: Context<AppEnv>, limits: ServerLimits): Promise<unknown> {
  const type = c.req.header('content-type') ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type)) return fail(c, 415, 'unsupported-media-type', 'Send the delta as Content-Type: application/json.');
  const encoding = c.req.header('content-encoding');
  if (encoding && encoding.toLowerCase() !== 'identity') return fail(c, 415, 'unsupported-media-type', 'Compressed request bodies are not accepted.');
  const tooLarge = (): Response =>
    fail(
      c,
      413,
      'body-too-large',
      `The request body is larger than ${limits.maxBodyBytes} bytes; push in smaller batches.`,
      { limit: limits.maxBodyBytes },
      { Connection: 'close' },
    );
  const declared = c.req.header('content-length');
  if (declared !== undefined && (!/^\d{1,16}$/.test(declared) || Number(declared) > limits.maxBodyBytes)) return tooLarge();
  const body = await readBodyLimited(c.req.raw.body, limits.maxBodyBytes);
  if (!body.ok) {
    if (body.reason === 'too-large') return tooLarge();
    return fail(c, 400, 'invalid-body', 'The request body was cut off.');
  }
  c.set('bytesIn', body.bytes.byteLength);
  const text = strictUtf8(body.bytes);
  if (text === null) return fail(c, 400, 'invalid-utf8', 'The request body is not valid UTF-8.');
  // Never below the few members of the protocol's own objects, whatever --max-keys says.
  const shape = jsonShape(text, Math.max(limits.maxKeysPerRequest, 16));
  if (shape === 'too-deep') return fail(c, 400, 'invalid-body', `The request body is nested deeper than a push ever is (more than ${MAX_JSON_DEPTH} levels).`);
  if (shape === 'too-many-members') return tooManyKeys(c, limits);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return fail(c, 400, 'invalid-json', 'The request body is not valid JSON.');
  }
}

/** Deeper than any body of the protocol (a push is 3 levels, a key record 1). */
const MAX_JSON_DEPTH = 8;

/**
 * A linear look at JSON text before it is parsed: whether it nests deeper than MAX_JSON_DEPTH or
 * holds an object or array of more than `maxMembers` members. Parsing a body the limits would
 * refuse anyway costs seconds of the one event loop on a few MB (four million brackets, half a
 * million keys), during which no team is served. Malformed text is left to JSON.parse.
 */
function jsonShape(text: string, maxMembers: number): 'ok' | 'too-deep' | 'too-many-members' {
  const members: number[] = [];
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c)
        i++; // backslash: the next character is escaped
      else if (ch === 0x22) inString = false;
      continue;
    }
    if (ch === 0x22) inString = true;
    else if (ch === 0x7b || ch === 0x5b) {
      if (members.push(1) > MAX_JSON_DEPTH) return 'too-deep';
    } else if (ch === 0x7d || ch === 0x5d) members.pop();
    else if (ch === 0x2c && members.length > 0 && ++members[members.length - 1]! > maxMembers) return 'too-many-members';
  }
  return 'ok';
}

function tooManyKeys(c: Context<AppEnv>, limits: ServerLimits): Response {
  return fail(c, 413, 'too-many-keys', `A push may carry at most ${limits.maxKeysPerRequest} keys; split it.`, { limit: limits.maxKeysPerRequest });
}

/** Every key and content of a push checked (one bad key fails the whole push), or the refusal. */
export function checkWrites(c: Context<AppEnv>, pairs: [string, unknown][], limits: ServerLimits): EntryWrite[] | Response {
  if (pairs.length > limits.maxKeysPerRequest) return tooManyKeys(c, limits);
  const badKeys: { key: string; code: string; reason: string }[] = [];
  for (const [key] of pairs) {
    const check = sanitizePathKey(key);
    if (!check.ok) badKeys.push({ key: key.slice(0, 300), code: check.code, reason: check.reason });
    else if (utf8Length(key) > limits.maxKeyBytes)
      badKeys.push({ key, code: 'too-long', reason: `The key is longer than this server's ${limits.maxKeyBytes} bytes.` });
  }
  if (badKeys.length > 0) {
    return fail(c, 400, 'invalid-key', `${badKeys.length} key(s) refused; nothing was written.`, { keys: badKeys.slice(0, 50) });
  }
  const writes: EntryWrite[] = [];
  for (const [key, content] of pairs) {
    if (typeof content !== 'string') return fail(c, 400, 'invalid-body', `The content of ${quoteName(key)} is not a string.`, { key });
    const bytes = utf8Length(content);
    if (bytes > limits.maxEntryBytes) {
      return fail(c, 413, 'entry-too-large', `${quoteName(key)} is ${bytes} bytes; an entry may hold at most ${limits.maxEntryBytes}.`, {
        key,
        limit: limits.maxEntryBytes,
      });
    }
    if (LONE_SURROGATE.test(content)) return fail(c, 400, 'invalid-content', `${quoteName(key)} is not valid Unicode text (lone surrogate).`, { key });
    if (content.includes('\0')) return fail(c, 400, 'invalid-content', `${quoteName(key)} contains a null byte: team memory is text, not binary.`, { key });
    writes.push({ key, fold: foldPathKey(key), content, sha256: sha256(content), bytes });
  }
  return writes;
}
