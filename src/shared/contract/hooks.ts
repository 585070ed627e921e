/**
 * Claude Code hooks (SPEC §11): "Connect to Claude Code" adds Memdir's hooks to the home's
 * `settings.json` — `Stop`, `PreCompact` and `SessionEnd` spool the event for the app,
 * `SessionStart` (sources `compact` and `resume`) hands the session's Session Memory note back
 * to Claude Code. The change is planned first (a diff the user reads), then applied only if the
 * file is still what the plan was made from.
 */
import * as z from 'zod';
import { mutation, query } from './define.js';

/** The hook events Memdir installs (SPEC §11). */
export const MEMDIR_HOOK_EVENTS = ['Stop', 'PreCompact', 'SessionEnd', 'SessionStart'] as const;
export type MemdirHookEvent = (typeof MEMDIR_HOOK_EVENTS)[number];

/** The events that are spooled for the app (SessionStart answers Claude Code directly instead). */
export const SPOOLED_HOOK_EVENTS = ['Stop', 'PreCompact', 'SessionEnd'] as const;
export type SpooledHookEvent = (typeof SPOOLED_HOOK_EVENTS)[number];

/** The `SessionStart` sources after which Memdir hands the note back (R-SESSION). */
export const SESSION_START_MATCHER = 'compact|resume';

export const hooksActionSchema = z.enum(['connect', 'disconnect']);
export type HooksAction = z.infer<typeof hooksActionSchema>;

/** Whether Memdir's hooks are in the home's settings, and whether hand-off to the app works. */
export const hooksStatusSchema = z.object({
  settingsFile: z.string(),
  exists: z.boolean(),
  /** `all` the events, `partial`, or `none`. */
  connected: z.enum(['all', 'partial', 'none']),
  events: z.array(
    z.object({
      event: z.enum(MEMDIR_HOOK_EVENTS),
      /** Memdir's command found for this event, or null. */
      command: z.string().nullable(),
      /** It is the command this Memdir would write (not an older install's). */
      current: z.boolean(),
    }),
  ),
  /** The `memdir hook` command connecting installs for SessionStart (and on Windows for every event), with `<event>` in place of the event name. */
  command: z.string(),
  /** A running app takes the spooled events as they arrive. */
  listening: z.boolean(),
  /** Hook events spooled on disk, waiting for the app. */
  spooled: z.number(),
  problems: z.array(z.string()),
});
export type HooksStatus = z.infer<typeof hooksStatusSchema>;

/** A planned change to settings.json, shown before anything is written. */
export const hooksPlanSchema = z.object({
  action: hooksActionSchema,
  settingsFile: z.string(),
  changed: z.boolean(),
  /** A unified diff of settings.json (empty when nothing changes). */
  diff: z.string(),
  /** Identifies the file the plan was made from: applying refuses if it changed since. */
  baseHash: z.string(),
  /** Why the plan cannot be applied (an unreadable settings.json), in words. */
  problems: z.array(z.string()),
  /** What the user should know before applying (Claude Code ignores a file with comments, …). */
  warnings: z.array(z.string()),
});
export type HooksPlan = z.infer<typeof hooksPlanSchema>;

export const hooksContract = {
  'hooks.status': query("Whether Memdir's hooks are in Claude Code's settings.json, and whether the app receives them.", z.object({}), hooksStatusSchema),
  'hooks.plan': query(
    'The change connecting or disconnecting would make to settings.json, as a diff: nothing is written.',
    z.object({ action: hooksActionSchema }),
    hooksPlanSchema,
  ),
  'hooks.apply': mutation(
    'Write the planned change (atomically, with a backup beside the file). Refused when settings.json changed since the plan.',
    z.object({ action: hooksActionSchema, baseHash: z.string().min(1).max(200) }),
    z.object({ status: hooksStatusSchema, backup: z.string().nullable() }),
  ),
};
