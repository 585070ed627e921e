/**
 * Personal sync (issue 18, item 5): this machine's link to the user's personal space on a sync
 * server (Settings), and per project whether its private memory is synced there (the project's
 * Team sync tab), its state and its conflicts. Contents are end-to-end encrypted by main; the
 * passphrase crosses this contract once, on connect, and is never stored or returned.
 */
import * as z from 'zod';
import { mutation, query } from './define.js';
import { allowSecrets, projectRef } from './common.js';
import { CONFLICT_RESOLUTIONS, SYNC_STATES, conflictDetailSchema, syncErrorSchema, syncReportSchema, teamConflictSchema, waitingItemSchema } from './team.js';

const sha = z.string().regex(/^[0-9a-f]{64}$/);

/** The sync identity of a project: what it is known by on every machine (never a path). */
export const syncIdentitySchema = z.object({ id: z.string(), source: z.string(), detail: z.string() });

/** The account as shown: never the token or the key. */
export const personalAccountViewSchema = z.object({
  server: z.string(),
  user: z.string(),
  /** This machine's name on the server. */
  member: z.string(),
  tokenId: z.string(),
  /** A fingerprint of the key, the same on every machine that has it. */
  keyId: z.string(),
  connectedAt: z.string(),
});

/** One synced project, for Settings. */
export const personalProjectRowSchema = z.object({
  dir: z.string().nullable(),
  memoryDir: z.string(),
  identity: syncIdentitySchema.nullable(),
  state: z.enum(SYNC_STATES),
  waiting: z.number(),
  conflicts: z.number(),
  lastSyncAt: z.string().nullable(),
  error: z.string().nullable(),
});

/** Settings → Personal sync. */
export const personalStatusSchema = z.object({
  connected: z.boolean(),
  account: personalAccountViewSchema.nullable(),
  /** Whether the token and key are encrypted at rest (the OS keychain in the desktop app). */
  credentialsEncrypted: z.boolean(),
  /** What losing the passphrase means: shown before one is set. */
  warning: z.string(),
  minPassphraseChars: z.number(),
  projects: z.array(personalProjectRowSchema),
});
export type PersonalStatus = z.infer<typeof personalStatusSchema>;

/** A project's personal sync, in its Team sync tab. */
export const personalProjectStatusSchema = z.object({
  dir: z.string(),
  memoryDir: z.string(),
  /** Whether this machine is connected to a personal space at all. */
  account: z.boolean(),
  enabled: z.boolean(),
  identity: syncIdentitySchema.nullable(),
  /** What turning it on would use (the repository's remote), or null: a name must be given. */
  suggested: syncIdentitySchema.nullable(),
  state: z.enum(SYNC_STATES),
  syncing: z.boolean(),
  lastPullAt: z.string().nullable(),
  lastPushAt: z.string().nullable(),
  files: z.number(),
  waiting: z.array(waitingItemSchema),
  conflicts: z.array(teamConflictSchema),
  error: syncErrorSchema.nullable(),
});
export type PersonalProjectStatus = z.infer<typeof personalProjectStatusSchema>;

export const personalContract = {
  'personal.status': query(
    'Personal sync on this machine: the account (never the token or key), the passphrase warning, every synced project.',
    z.object({}),
    personalStatusSchema,
  ),
  'personal.connect': mutation(
    'Connect this machine to your personal space. The first machine sets the passphrase, only with acknowledged (the warning is returned first); any other must give the same one — a wrong one is refused and nothing is stored.',
    z.object({
      server: z.string().min(1).max(2000),
      token: z.string().min(1).max(500),
      passphrase: z.string().min(1).max(1000),
      allowHttp: z.boolean().optional(),
      acknowledged: z.boolean().optional(),
    }),
    z.discriminatedUnion('outcome', [
      z.object({ outcome: z.literal('needs-acknowledgement'), warning: z.string() }),
      z.object({ outcome: z.literal('connected'), created: z.boolean(), status: personalStatusSchema }),
    ]),
  ),
  'personal.disconnect': mutation(
    'Forget the account, its token and key; every project stops syncing; files and history stay.',
    z.object({}),
    z.object({ disconnected: z.boolean(), projects: z.number() }),
  ),
  'personal.project': query(
    "A project's personal sync: on or off, its identity, state, what waits and why, conflicts.",
    projectRef,
    personalProjectStatusSchema,
  ),
  'personal.enable': mutation(
    "Sync a project's private memory with your personal space, under its remote or the name given (the same on each machine), then sync once.",
    projectRef.extend({ identity: z.string().min(1).max(200).optional() }),
    personalProjectStatusSchema,
  ),
  'personal.disable': mutation(
    'Stop syncing a project with your personal space; its files, history and conflicts stay.',
    projectRef,
    z.object({ disabled: z.boolean() }),
  ),
  'personal.sync': mutation("Sync a project's private memory now.", projectRef, syncReportSchema),
  'personal.conflict': query(
    'Both versions of a personal sync conflict, for the side-by-side merge.',
    projectRef.extend({ id: z.string().min(1).max(100) }),
    conflictDetailSchema,
  ),
  'personal.resolve': mutation(
    "Resolve a personal sync conflict: keep the other machine's version, take mine, keep both, or a merged text (written and pushed).",
    projectRef.extend({
      id: z.string().min(1).max(100),
      take: z.enum(CONFLICT_RESOLUTIONS),
      text: z.string().max(1_000_000).optional(),
      theirsSha: sha.nullable().optional(),
      allowSecrets,
    }),
    z.object({ conflict: teamConflictSchema, rev: z.string().nullable(), report: syncReportSchema.nullable() }),
  ),
};
