/** What main tells the renderer without being asked: file changes, job progress, alerts. */
import * as z from 'zod';
import { SCOPES } from '../memory-types.js';
import { mutation, query, subscription } from './define.js';

export const jobSchema = z.object({
  id: z.string(),
  kind: z.string(),
  dir: z.string().nullable(),
  title: z.string(),
  state: z.enum(['queued', 'running', 'done', 'failed', 'cancelled']),
  phase: z.string().nullable(),
  step: z.string().nullable(),
  /** 0..1 when known. */
  progress: z.number().nullable(),
  message: z.string().nullable(),
  startedAt: z.string(),
  endedAt: z.string().nullable(),
});
export type Job = z.infer<typeof jobSchema>;

export const alertSchema = z.object({
  id: z.string(),
  kind: z.enum(['secret', 'sync', 'security', 'error']),
  title: z.string(),
  message: z.string(),
  dir: z.string().nullable(),
  time: z.string(),
});
export type Alert = z.infer<typeof alertSchema>;

export const appEventSchema = z.discriminatedUnion('type', [
  /** Memory files changed on disk (by Memdir or another program) in these projects. */
  z.object({ type: z.literal('projects-changed'), dirs: z.array(z.string()), external: z.boolean() }),
  /**
   * A window kept (`kept`) or forgot a draft of a memory (`file` null: the project's new memory);
   * `window` is the one that typed it (null: not a window's, e.g. thrown away from the Drafts list).
   * Another window open on that memory says so at once.
   */
  z.object({
    type: z.literal('drafts-changed'),
    dir: z.string(),
    scope: z.enum(SCOPES),
    file: z.string().nullable(),
    window: z.string().nullable(),
    kept: z.boolean(),
  }),
  /** The home was switched (Settings, demo workspace). */
  z.object({ type: z.literal('home-changed'), home: z.string() }),
  z.object({ type: z.literal('job'), job: jobSchema }),
  z.object({ type: z.literal('alert'), alert: alertSchema }),
  /**
   * A project's team sync state changed (a sync ran, a conflict came or went); `newConflicts`:
   * team keys a pull has just kept as conflicts (an unpushed local edit the server overwrote).
   */
  z.object({ type: z.literal('team-changed'), dir: z.string(), newConflicts: z.array(z.string()).optional() }),
  /** Personal sync changed for a project (`dir`) or the account (`dir` null); `newConflicts` as for team-changed. */
  z.object({ type: z.literal('personal-changed'), dir: z.string().nullable(), newConflicts: z.array(z.string()).optional() }),
  /** The alert list changed (raised, resolved, dismissed); `open` is the badge count. */
  z.object({ type: z.literal('alerts-changed'), open: z.number() }),
  /**
   * Main sends the window to a place (`#/p/<dir>/team`): a notification clicked, a `memdir://`
   * link opened; `message` is shown there (a link to a project that does not exist).
   */
  z.object({ type: z.literal('navigate'), hash: z.string(), message: z.string().nullable() }),
]);
export type AppEvent = z.infer<typeof appEventSchema>;

export const eventsContract = {
  'events.stream': subscription('Every app event, as it happens.', z.object({}), appEventSchema),
  'jobs.list': query('Background jobs, running and recently finished, newest first.', z.object({}), z.object({ jobs: z.array(jobSchema) })),
  'jobs.cancel': mutation('Cancel a running job; what it had staged is dropped.', z.object({ id: z.string() }), z.object({ cancelled: z.boolean() })),
};
