/**
 * What Claude Code gives a hook on stdin (SPEC §11): one JSON object with at least
 * `session_id`, `transcript_path`, `cwd` and `hook_event_name`; `PreCompact` adds `trigger`,
 * `Stop` adds `stop_hook_active`, `SessionEnd` adds `reason`, `SessionStart` adds `source`
 * (`startup`, `resume`, `clear`, `compact`). Only the fields Memdir uses are kept: a hook
 * payload is a trigger ("look at this transcript now"), never data that is stored.
 */
import * as z from 'zod';
import { firstIssueSentence } from '../../shared/issue-sentence.js';
import { SPOOLED_HOOK_EVENTS, type SpooledHookEvent } from '../../shared/contract/hooks.js';

const text = (max: number) => z.string().max(max);

/** A hook event as Memdir passes it from the hook process to the app. */
export const hookEventSchema = z.object({
  event: z.enum(SPOOLED_HOOK_EVENTS),
  sessionId: text(200).regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'not a session id'),
  transcriptPath: text(4096).min(1),
  cwd: text(4096).nullable(),
  /** PreCompact: `manual` or `auto`. */
  trigger: text(40).nullable(),
  /** SessionEnd: why it ended (`clear`, `logout`, `prompt_input_exit`, `other`…). */
  reason: text(200).nullable(),
  /** Stop: the agent is already continuing because of a Stop hook. */
  stopHookActive: z.boolean().nullable(),
  /** When the hook ran (ISO). */
  receivedAt: z.string().max(40),
});
export type HookEvent = z.infer<typeof hookEventSchema>;

const rawPayloadSchema = z.looseObject({
  session_id: z.string(),
  transcript_path: z.string(),
  cwd: z.string().nullish(),
  hook_event_name: z.string().nullish(),
  trigger: z.string().nullish(),
  reason: z.string().nullish(),
  stop_hook_active: z.boolean().nullish(),
  source: z.string().nullish(),
});

/** Whether `name` is one of the events Memdir spools. */
export function isSpooledHookEvent(name: string): name is SpooledHookEvent {
  return (SPOOLED_HOOK_EVENTS as readonly string[]).includes(name);
}

/** Claude Code's payload as read: the fields every event has, or a problem in words. */
function readRawPayload(event: string, stdin: string): { ok: true; payload: z.infer<typeof rawPayloadSchema> } | { ok: false; problem: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(stdin);
  } catch {
    return { ok: false, problem: stdin.trim() === '' ? 'the hook received nothing on stdin' : 'the hook input is not JSON' };
  }
  const parsed = rawPayloadSchema.safeParse(raw);
  if (!parsed.success) return { ok: false, problem: 'the hook input lacks session_id or transcript_path' };
  if (parsed.data.hook_event_name && parsed.data.hook_event_name !== event) {
    return { ok: false, problem: `the hook was installed for ${event} but Claude Code sent ${parsed.data.hook_event_name}` };
  }
  return { ok: true, payload: parsed.data };
}

/** A `SessionStart` payload: the session and why it started. */
export function parseSessionStartPayload(stdin: string): { ok: true; sessionId: string; source: string | null } | { ok: false; problem: string } {
  const read = readRawPayload('SessionStart', stdin);
  if (!read.ok) return read;
  return { ok: true, sessionId: read.payload.session_id, source: read.payload.source ?? null };
}

/**
 * Turn the hook's stdin into a {@link HookEvent}. `event` is the one named on the command line
 * (`memdir hook Stop`); the payload's `hook_event_name`, when present, must agree with it.
 * Returns a readable problem instead of throwing.
 */
export function parseHookPayload(event: string, stdin: string, now = new Date()): { ok: true; event: HookEvent } | { ok: false; problem: string } {
  if (!isSpooledHookEvent(event)) return { ok: false, problem: `"${event}" is not a hook event Memdir spools (${SPOOLED_HOOK_EVENTS.join(', ')})` };
  const read = readRawPayload(event, stdin);
  if (!read.ok) return read;
  const p = read.payload;
  const candidate = {
    event,
    sessionId: p.session_id,
    transcriptPath: p.transcript_path,
    cwd: p.cwd ?? null,
    trigger: p.trigger ?? null,
    reason: p.reason ?? null,
    stopHookActive: p.stop_hook_active ?? null,
    receivedAt: now.toISOString(),
  };
  const checked = hookEventSchema.safeParse(candidate);
  if (!checked.success) return { ok: false, problem: `the hook input is not usable: ${firstIssueSentence(checked.error.issues)}` };
  return { ok: true, event: checked.data };
}
