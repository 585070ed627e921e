/**
 * The team sync wire contract (R-SYNC), declared once for the server (src/server) and the
 * client (src/main/team, src/main/personal). Pure: zod only, no node:*.
 *
 *   GET  /healthz                              → 200 {ok: true} | 503 {ok: false} (no token; nothing more)
 *   GET  /v1/me                                → 200 {team, member, tokenId}
 *   GET  /v1/teams/:team/entries[?since=ETAG]  → 200 EntriesResponse + ETag | 304 (no body)
 *   GET  /v1/teams/:team/checksums             → 200 ChecksumsResponse + ETag | 304 (no body)
 *   PUT  /v1/teams/:team/entries               → 200 PutResponse + ETag   (If-Match required)
 *   PUT  /v2/teams/:team/entries               → 200 CommitResponse + ETag (per-key bases, push id)
 *
 * Personal spaces (issue 18, item 5), for tokens of scope `personal` only (a team token gets 404
 * there, a personal token 404 on every team route):
 *   GET  /v1/personal/key                      → 200 {keyRecord: string | null}
 *   PUT  /v1/personal/key  {keyRecord}         → 200 {keyRecord, created} | 409 key-mismatch {keyRecord}
 *   GET  /v1/personal/projects/:project/entries[?since=ETAG]   (as a team's)
 *   GET  /v1/personal/projects/:project/checksums              (as a team's)
 *   PUT  /v2/personal/projects/:project/entries                (as a team's, protocol 2 only)
 * A project is a 32-hex id the client derives (an HMAC of the project's identity), created on
 * first use; its keys and contents are the client's ciphertext. The key record is opaque to the
 * server: the client's KDF parameters, salt and key check, set once by the first machine.
 *
 * Protocol 2 (issue 19) commits per key: each entry names the hash of the server version it
 * was based on; the server commits, in one transaction, every key whose base still matches and
 * answers the rest as per-key conflicts with the server's hash — unrelated keys never refuse
 * each other. Each push carries a client-chosen id; the server remembers recent ids per member
 * and answers a repeated one with the original result, so a push whose answer was lost can be
 * sent again safely. Protocol 1 (the team-wide If-Match) stays for older clients; `/v1/me`
 * lists the protocols a server speaks.
 *
 * ETags are strong, `"<epoch>-<version>"`: the team version (advanced by every write that
 * changed something) and a random epoch fixed when the team was created, so an ETag from a
 * restored or re-created database never matches by accident. Entries and checksums share it:
 * take it from either and send it back in If-Match.
 */
import * as z from 'zod';

/** Every error answer: a stable code for programs and a sentence for people. */
export const ERROR_CODES = [
  'unauthorized',
  'token-revoked',
  'token-expired',
  'not-found',
  'method-not-allowed',
  'precondition-required',
  'stale',
  'unsupported-media-type',
  'body-too-large',
  'too-many-keys',
  'entry-too-large',
  'team-full',
  'invalid-utf8',
  'invalid-json',
  'invalid-body',
  'invalid-key',
  'invalid-content',
  'case-conflict',
  'key-mismatch',
  'space-full',
  'rate-limited',
  'unavailable',
  'internal',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

const entrySchema = z.object({ content: z.string(), sha256: z.string().regex(/^[0-9a-f]{64}$/), updatedAt: z.string(), updatedBy: z.string() });

/** GET /v1/teams/:team/entries. `full: false` when `since` named this epoch: only newer entries. */
export const entriesResponseSchema = z.object({
  team: z.string(),
  version: z.number().int().nonnegative(),
  etag: z.string(),
  full: z.boolean(),
  entries: z.record(z.string(), entrySchema),
});
export type EntriesResponse = z.infer<typeof entriesResponseSchema>;

/** GET /v1/teams/:team/checksums: hex sha256 of each entry's UTF-8 bytes. */
export const checksumsResponseSchema = z.object({
  team: z.string(),
  version: z.number().int().nonnegative(),
  etag: z.string(),
  checksums: z.record(z.string(), z.string().regex(/^[0-9a-f]{64}$/)),
});
export type ChecksumsResponse = z.infer<typeof checksumsResponseSchema>;

/** PUT /v1/teams/:team/entries body: the delta, key → full new content. Absent keys are kept. */
export interface PutEntriesBody {
  entries: Record<string, string>;
}

/** PUT answer: which keys changed (the version advanced) and which already held that content. */
export const putResponseSchema = z.object({
  version: z.number().int().nonnegative(),
  etag: z.string(),
  changed: z.array(z.string()),
  unchanged: z.array(z.string()),
});
export type PutResponse = z.infer<typeof putResponseSchema>;

/** The protocols this server speaks (GET /v1/me `protocols`). */
export const PROTOCOLS = [1, 2] as const;

/** A push id: chosen by the client, unique per member (a random 128-bit value in hex or base64url). */
export const PUSH_ID_PATTERN = /^[A-Za-z0-9_-]{16,64}$/;

/** PUT /v2/teams/:team/entries body: per key the new content and the hash of the server version it is based on (null: a new key). */
export const commitRequestSchema = z.strictObject({
  pushId: z.string().regex(PUSH_ID_PATTERN),
  entries: z.record(
    z.string(),
    z.strictObject({
      content: z.string(),
      base: z
        .string()
        .regex(/^[0-9a-f]{64}$/)
        .nullable(),
    }),
  ),
});
export type CommitRequestBody = z.infer<typeof commitRequestSchema>;

/** The server's version of a key a push could not commit (its base no longer matched). */
export const commitConflictSchema = z.object({ sha256: z.string().regex(/^[0-9a-f]{64}$/), updatedAt: z.string(), updatedBy: z.string() });

/**
 * PUT /v2 answer (also the answer to a repeated push id: the original one, `replayed: true`).
 * `previousVersion` is the team version just before this commit: a client whose ETag named it
 * knows the whole team state at `etag`; any other client pulls to catch up.
 */
export const commitResponseSchema = z.object({
  pushId: z.string(),
  version: z.number().int().nonnegative(),
  previousVersion: z.number().int().nonnegative(),
  etag: z.string(),
  committed: z.array(z.string()),
  unchanged: z.array(z.string()),
  conflicts: z.record(z.string(), commitConflictSchema),
  replayed: z.boolean(),
});
export type CommitResponse = z.infer<typeof commitResponseSchema>;

/** Any 4xx/5xx JSON body. 412 adds the current etag and version; 400 invalid-key lists keys. */
export const errorResponseSchema = z.object({
  error: z.enum(ERROR_CODES),
  message: z.string(),
  etag: z.string().optional(),
  version: z.number().optional(),
  limit: z.number().optional(),
  key: z.string().optional(),
  keys: z.array(z.object({ key: z.string(), code: z.string(), reason: z.string() })).optional(),
  /** 409 key-mismatch: the key record the personal space holds. */
  keyRecord: z.string().optional(),
  /** 401 token-expired: when the token expired (ISO 8601). */
  expiredAt: z.string().optional(),
});
export type ErrorResponse = z.infer<typeof errorResponseSchema>;

/** A project of a personal space: 128 bits in hex, derived by the client (never the project's name). */
export const PERSONAL_PROJECT_PATTERN = /^[0-9a-f]{32}$/;

/** The largest key record a personal space keeps (KDF parameters, salt, check: well under this). */
export const MAX_KEY_RECORD_BYTES = 4096;

/** GET /v1/me: who a token is and what it may reach. */
export const meResponseSchema = z.object({
  team: z.string(),
  member: z.string(),
  tokenId: z.string(),
  protocols: z.array(z.number()).optional(),
  /** Absent from servers before personal spaces: a team token. */
  scope: z.enum(['team', 'personal']).optional(),
  /** For a personal token: the user whose space it reaches. */
  user: z.string().optional(),
});
export type MeResponse = z.infer<typeof meResponseSchema>;

/** GET /v1/personal/key, and the PUT's answer (`created`: this request set it). */
export const keyRecordResponseSchema = z.object({ keyRecord: z.string().max(MAX_KEY_RECORD_BYTES).nullable(), created: z.boolean().optional() });
export type KeyRecordResponse = z.infer<typeof keyRecordResponseSchema>;

/** PUT /v1/personal/key body. */
export const keyRecordRequestSchema = z.strictObject({ keyRecord: z.string().min(1).max(MAX_KEY_RECORD_BYTES) });

/** The form of every ETag this protocol sends: strong, quoted, `"<8 hex>-<version>"` (nothing else: no CR/LF, no list). */
export const ETAG_PATTERN = /^"[0-9a-f]{8}-\d{1,15}"$/;

/** Whether `tag` is an ETag in the protocol's form (see ETAG_PATTERN). */
export function isProtocolEtag(tag: unknown): tag is string {
  return typeof tag === 'string' && ETAG_PATTERN.test(tag);
}

/** The strong ETag of a team state. */
export function formatEtag(state: { epoch: string; version: number }): string {
  return `"${state.epoch}-${state.version}"`;
}

/** Parse one ETag (quoted or bare, never weak) back into its parts; null when it is not ours. */
export function parseEtag(tag: string): { epoch: string; version: number } | null {
  const match = /^"?([0-9a-f]{8})-(\d{1,15})"?$/.exec(tag.trim());
  return match ? { epoch: match[1]!, version: Number(match[2]) } : null;
}

/** The entity tags of an If-Match / If-None-Match header (`*` comes back as ['*']). */
export function parseEtagList(header: string): { tag: string; weak: boolean }[] {
  const tags: { tag: string; weak: boolean }[] = [];
  for (const match of header.matchAll(/(W\/)?("[^"]*"|\*)/g)) tags.push({ tag: match[2]!, weak: match[1] !== undefined });
  return tags;
}
