/**
 * Team memory sync (SPEC §6 R-TEAM, R-SYNC, R-SYNC-SECURITY; issue 7): connect a project's
 * `memory/team/` to a Memdir sync server, see its sync state (last pull and push, what is
 * waiting and why, errors), sync now, resolve conflicts (take the server's, take mine, or a
 * merge), and move memories between private and team (R-TYPES). The conflict record here is
 * also what main keeps in `<dataDir>/team/<id>/state.json`, and what `memdir team status
 * --json` prints.
 */
import * as z from 'zod';
import { SCOPES } from '../memory-types.js';
import { mutation, query } from './define.js';
import { allowSecrets, projectRef } from './common.js';

const sha = z.string().regex(/^[0-9a-f]{64}$/);

/** How a conflict was resolved: the team's version, mine, a merged text, or both sides kept where they overlap. */
export const CONFLICT_RESOLUTIONS = ['server', 'mine', 'merge', 'both'] as const;
export type ConflictResolution = (typeof CONFLICT_RESOLUTIONS)[number];

/**
 * A local version a pull would have overwritten although it was never pushed. The pull wrote
 * the server's version (server wins); this keeps the local one (its bytes in the data dir, and
 * the history entry `localRev` holding it) until the user resolves it.
 */
export const teamConflictSchema = z.object({
  id: z.string(),
  /** The team key (path relative to `memory/team/`), as it may be shown: each secret in it masked (a conflict is named by its `id`). */
  key: z.string(),
  createdAt: z.string(),
  localSha: sha,
  localBytes: z.number().int().nonnegative(),
  /** False when the local bytes are not UTF-8 text (shown decoded, with a warning). */
  localIsText: z.boolean(),
  /** The server's version the pull wrote. */
  serverSha: sha,
  /**
   * What the pull wrote instead when the overlap left changes of yours that overlap nothing: the
   * server's version with those (pushed by the sync; absent when it wrote the server's as it is).
   */
  writtenSha: sha.optional(),
  /** What both sides last agreed on (null: the key had never been synced here). */
  baseSha: sha.nullable(),
  serverUpdatedBy: z.string().nullable(),
  serverUpdatedAt: z.string().nullable(),
  /** The history entry whose snapshot holds the local version. */
  localRev: z.string().nullable(),
  status: z.enum(['open', 'resolved']),
  resolution: z.enum(CONFLICT_RESOLUTIONS).nullable(),
  resolvedAt: z.string().nullable(),
  /** The history entry that wrote the resolution (null: nothing was written): its Undo opens the conflict again. */
  resolvedRev: z.string().nullable().optional(),
  /** The resolution an Undo took back (entry `rev`, choice `take`): the Redo of that Undo resolves it again so. */
  reopened: z
    .object({ rev: z.string(), take: z.enum(CONFLICT_RESOLUTIONS) })
    .nullable()
    .optional(),
});
export type TeamConflict = z.infer<typeof teamConflictSchema>;

/**
 * Why a local team file is not on the server (yet); `user-memory`: a `user` memory in the team folder (R-TYPES: always private);
 * `claude-code-store`: a folder Claude Code syncs itself with a memory store (its `.memory-sync` is there), left to it.
 */
export const WAITING_REASONS = [
  'pending',
  'secret',
  'invalid-key',
  'too-large',
  'not-utf8',
  'binary',
  'symlink',
  'hardlink',
  'not-a-file',
  'too-deep',
  'server-moved',
  'refused',
  'user-memory',
  'claude-code-store',
] as const;
export type WaitingReason = (typeof WAITING_REASONS)[number];

export const waitingItemSchema = z.object({ key: z.string(), reason: z.enum(WAITING_REASONS), detail: z.string() });
export type WaitingItem = z.infer<typeof waitingItemSchema>;

/** A short summary of the sync state, for badges and the dashboard. */
export const SYNC_STATES = ['not-connected', 'synced', 'pending', 'syncing', 'conflicts', 'error', 'never-synced'] as const;
export type SyncStateName = (typeof SYNC_STATES)[number];

export const syncErrorSchema = z.object({ code: z.string(), message: z.string(), at: z.string() });
export type SyncError = z.infer<typeof syncErrorSchema>;

/** A connection as shown: never the token, only its public id and whether one is stored. */
export const teamConnectionViewSchema = z.object({
  server: z.string(),
  team: z.string(),
  member: z.string(),
  tokenId: z.string(),
  connectedAt: z.string(),
  pullIntervalSec: z.number(),
  tokenStored: z.boolean(),
  /** Whether stored credentials are encrypted at rest (safeStorage in the desktop app). */
  tokenEncrypted: z.boolean(),
});

/** What one sync did (also `memdir team sync --json`). */
export const syncReportSchema = z.object({
  /** 304: nothing new (no body); 200: entries came; null: no pull in this sync. */
  pull: z.object({
    status: z.union([z.literal(200), z.literal(304)]).nullable(),
    full: z.boolean(),
    written: z.array(z.string()),
    /** Keys where the server's and the local changes touched different lines: merged, written, pushed. */
    merged: z.array(z.string()),
    conflicts: z.array(z.string()),
    refused: z.array(z.object({ key: z.string(), reason: z.string() })),
    /**
     * A sentence when the server answered an older version than this client had already seen, twice
     * (a backup restored, a replica behind): what it lost is uploaded again or kept as a conflict.
     */
    wentBack: z.string().nullable(),
  }),
  push: z.object({
    uploaded: z.array(z.string()),
    /** Keys of a push whose answer was lost, which the server confirmed it had saved. */
    confirmed: z.array(z.string()),
    attempts: z.number(),
    stale: z.number(),
    requests: z.number(),
  }),
  waiting: z.array(waitingItemSchema),
  /** Local file bytes read to hash them (0 when nothing changed). */
  bytesHashed: z.number(),
  filesHashed: z.number(),
  version: z.number().nullable(),
  etag: z.string().nullable(),
  error: syncErrorSchema.nullable(),
  durationMs: z.number(),
});
export type SyncReport = z.infer<typeof syncReportSchema>;

/** The Team sync tab of a project. */
export const teamStatusSchema = z.object({
  dir: z.string(),
  memoryDir: z.string(),
  teamDir: z.string(),
  connection: teamConnectionViewSchema.nullable(),
  state: z.enum(SYNC_STATES),
  syncing: z.boolean(),
  lastPullAt: z.string().nullable(),
  lastPushAt: z.string().nullable(),
  /** Last time the server answered (a 304 counts). */
  lastCheckAt: z.string().nullable(),
  nextSyncAt: z.string().nullable(),
  version: z.number().nullable(),
  /** Team files on disk. */
  files: z.number(),
  waiting: z.array(waitingItemSchema),
  conflicts: z.array(teamConflictSchema),
  /** Resolved conflicts kept for the record (newest first, a few). */
  resolved: z.array(teamConflictSchema),
  error: syncErrorSchema.nullable(),
  /** Memories that could move between private and team (R-TYPES: `user` never goes to team). */
  movable: z.array(
    z.object({
      file: z.string(),
      name: z.string(),
      type: z.string().nullable(),
      scope: z.enum(SCOPES),
      suggested: z.boolean(),
      refusal: z.string().nullable(),
    }),
  ),
});
export type TeamStatus = z.infer<typeof teamStatusSchema>;

/** One dashboard cell. */
export const teamOverviewRowSchema = z.object({
  dir: z.string(),
  connected: z.boolean(),
  server: z.string().nullable(),
  team: z.string().nullable(),
  state: z.enum(SYNC_STATES),
  waiting: z.number(),
  conflicts: z.number(),
  lastSyncAt: z.string().nullable(),
  error: z.string().nullable(),
});
export type TeamOverviewRow = z.infer<typeof teamOverviewRowSchema>;

/** Both sides of a conflict, for the merge editor. */
export const conflictDetailSchema = z.object({
  conflict: teamConflictSchema,
  /** The local version the pull replaced. */
  mine: z.string(),
  /** The other side: what the file holds now, or the sync's copy of the version last synced (see theirsFrom). */
  theirs: z.string(),
  /**
   * Where `theirs` came from: the file (`disk`); with yours on disk (after the Undo of keeping
   * theirs) the sync's copy of the version the conflict was kept against (`last-synced`), or that
   * copy gone (`lost`: `theirs` is the file, yours; keep both, a merge and keep theirs are refused).
   */
  theirsFrom: z.enum(['disk', 'last-synced', 'lost']),
  /** sha256 of `theirs`: sent back with "take mine" or a merge, so an edit since is never overwritten. */
  theirsSha: sha.nullable(),
  /** The version both sides last agreed on (null: not known on this machine). */
  base: z.string().nullable(),
  /** The three-way merge of mine and theirs on the base, overlapping places between conflict markers (null without a base). */
  proposal: z.string().nullable(),
  /**
   * What "keep both" writes, and where the app's merge editor starts: the same merge with every
   * overlap resolved by keeping both sides, mine first (no markers); without a base, every line of
   * both, common lines once.
   */
  both: z.string(),
  /** Where `both` holds both sides of an overlap (1-based lines, first to last): the merge editor marks them. */
  bothOverlaps: z.array(z.object({ from: z.number().int().positive(), to: z.number().int().positive() })),
  /** Places where mine and theirs overlap (0: the proposal is a clean merge; null without a base). */
  overlaps: z.number().int().nonnegative().nullable(),
  /** The History entry (`conflict.localRev`) holding mine, as a person finds it there: its summary and time (null: not in history here). */
  keptIn: z.object({ summary: z.string(), time: z.string() }).nullable(),
});
export type ConflictDetail = z.infer<typeof conflictDetailSchema>;

export const teamContract = {
  'team.status': query(
    "A project's team sync: connection (never the token), state, last pull and push, what is waiting and why, conflicts, errors.",
    projectRef,
    teamStatusSchema,
  ),
  'team.overview': query(
    'For the dashboard and settings: the sync state of every project with team memory or a connection.',
    z.object({}),
    z.object({ projects: z.array(teamOverviewRowSchema) }),
  ),
  'team.connect': mutation(
    "Connect a project's team memory to a sync server. The token is checked against the server (it must belong to this team) and kept in the credential store, never in settings.",
    projectRef.extend({
      server: z.string().min(1).max(2000),
      team: z.string().min(1).max(100),
      token: z.string().min(1).max(500),
      allowHttp: z.boolean().optional(),
      pullIntervalSec: z.number().int().min(5).max(86_400).optional(),
    }),
    teamStatusSchema,
  ),
  'team.disconnect': mutation(
    'Stop syncing a project; its files, history and conflicts stay; the stored token is deleted.',
    projectRef,
    z.object({ disconnected: z.boolean() }),
  ),
  'team.sync': mutation('Sync now: pull (server wins per key; unpushed local edits kept as conflicts), then push the delta.', projectRef, syncReportSchema),
  'team.conflict': query(
    'Both versions of a conflict, for the side-by-side merge.',
    projectRef.extend({ id: z.string().min(1).max(100) }),
    conflictDetailSchema,
  ),
  'team.resolve': mutation(
    "Resolve a conflict: keep the server's version, take mine (written and pushed), keep both sides where they overlap, or a merged text (written and pushed). With theirsSha, nothing is written when the file changed since.",
    projectRef.extend({
      id: z.string().min(1).max(100),
      take: z.enum(CONFLICT_RESOLUTIONS),
      text: z.string().max(1_000_000).optional(),
      theirsSha: sha.nullable().optional(),
      allowSecrets,
    }),
    z.object({ conflict: teamConflictSchema, rev: z.string().nullable(), report: syncReportSchema.nullable() }),
  ),
  'team.move': mutation(
    'Move a memory between private and team (R-TYPES: a "user" memory never goes to team). Its index line moves between MEMORY.md and team/MEMORY.md; one history entry. A secret in its name is refused (`secrets` in the error) unless its fingerprint is in allowSecrets; allowed into the team, it is recorded as allowed for team sync (the Alerts allowed list), which then shares it.',
    projectRef.extend({ file: z.string().min(1).max(255), to: z.enum(SCOPES), allowSecrets }),
    z.object({ file: z.string(), scope: z.enum(SCOPES), rev: z.string().nullable() }),
  ),
};
