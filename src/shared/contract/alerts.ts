/**
 * The Alerts view (issue 7 part 5): secrets found before an upload (file, line, rule, masked
 * match) with open, redact and allow; sync and security alerts (a refused link, hostile keys
 * from a server, a push that kept failing). An alert is raised once per topic and updated in
 * place; it is resolved when its cause goes away (the secret is redacted or allowed, the link
 * removed, the next sync works) or dismissed by the user. The `alert` app event announces a new
 * one (the desktop shell shows it as a native notification).
 */
import * as z from 'zod';
import { findingSchema } from '../secret-types.js';
import { fileName } from './common.js';
import { mutation, query } from './define.js';

export const ALERT_KINDS = ['secret', 'sync', 'security', 'error'] as const;

export const alertRecordSchema = z.object({
  id: z.string(),
  kind: z.enum(ALERT_KINDS),
  title: z.string(),
  message: z.string(),
  /** The project's directory name, when the alert is about one. */
  dir: z.string().nullable(),
  memoryDir: z.string().nullable(),
  /** The file, relative to the memory dir (`team/notes.md`), when it is about one. */
  file: z.string().nullable(),
  /** For `secret`: what blocks the upload (allowed findings are not listed). */
  findings: z.array(findingSchema),
  status: z.enum(['open', 'resolved', 'dismissed']),
  /** How it ended: "redacted", "allowed", "the file is clean now", "dismissed"… */
  resolution: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** How many times it was raised again while open. */
  count: z.number().int(),
});
export type AlertRecord = z.infer<typeof alertRecordSchema>;

/** A finding the user allowed: it no longer blocks an upload of that exact match, in the space it was allowed in. */
export const allowedSecretSchema = z.object({
  memoryDir: z.string(),
  fingerprint: z.string().regex(/^[0-9a-f]{16}$/),
  rule: z.string(),
  file: z.string(),
  match: z.string(),
  who: z.string(),
  why: z.string(),
  at: z.string(),
  /**
   * `name`: allowed in the name of `file` (masked as shown) and on index lines linking to it, only
   * (a move to the team anyway); absent: everywhere in the memory dir (an alert's Allow).
   */
  only: z.literal('name').optional(),
  /**
   * Where it was allowed, and the only sync it lets through: `team` (an Allow on a team sync alert,
   * a move to the team anyway) or `personal` (an Allow on a personal sync alert). Absent in records
   * written before it was kept: read as the space of the alert it came from, which its `file` says
   * (a team file is `team/…`; personal sync never syncs that folder).
   */
  space: z.enum(['team', 'personal']).optional(),
  /**
   * A move to the team anyway's: the history entry of the memory dir the move was made on (its
   * entry's parent). Undoing that move withdraws this allow.
   */
  madeOn: z.string().optional(),
});
export type AllowedSecret = z.infer<typeof allowedSecretSchema>;

const alertRef = z.object({ id: z.string().min(1).max(100) });

export const alertsContract = {
  'alerts.list': query(
    'Every alert, open ones first, newest first; with the allowed findings.',
    z.object({}),
    z.object({ alerts: z.array(alertRecordSchema), open: z.number(), allowed: z.array(allowedSecretSchema) }),
  ),
  'alerts.dismiss': mutation('Dismiss an alert: it stays dismissed until its cause changes.', alertRef, z.object({ alert: alertRecordSchema })),
  'alerts.redact': mutation(
    'Replace the secret of one finding with a placeholder in the file (a history entry); the file is scanned again and, when clean, uploaded by the next sync.',
    alertRef.extend({ fingerprint: z.string().regex(/^[0-9a-f]{16}$/) }),
    z.object({ alert: alertRecordSchema, rev: z.string().nullable() }),
  ),
  'alerts.rename': mutation(
    'Rename the file of a secret found in its name (redacting cannot change a name): the one rename service, its index pointers follow, a history entry; the alert is resolved and the next sync vets the file under its new name.',
    alertRef.extend({ fingerprint: z.string().regex(/^[0-9a-f]{16}$/), to: fileName }),
    z.object({ alert: alertRecordSchema, file: z.string(), rev: z.string().nullable() }),
  ),
  'alerts.allow': mutation(
    'Allow one finding (not a secret, or meant to be shared): recorded with who and why; that exact match no longer blocks an upload in this project, in the sync of the alert (team or personal) only.',
    alertRef.extend({ fingerprint: z.string().regex(/^[0-9a-f]{16}$/), why: z.string().trim().min(3, 'Say why it is safe to share.').max(500) }),
    z.object({ alert: alertRecordSchema, allowed: allowedSecretSchema }),
  ),
};
