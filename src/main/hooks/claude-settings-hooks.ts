/**
 * "Connect to Claude Code" (SPEC §11): add Memdir's hooks to `<home>/settings.json`, and take
 * them out again —
 *   Stop, PreCompact, SessionEnd  spool the event for the app: on Linux and macOS a few lines of
 *                                 shell that Claude Code waits for (synchronous: they take a few
 *                                 milliseconds, and an exiting `claude -p` SIGTERMs async hooks;
 *                                 hook-spool.ts), on Windows `memdir hook <event>` (async);
 *   SessionStart                  (matcher `compact|resume`, not async: Claude Code reads its
 *                                 answer) `memdir hook SessionStart` hands back the session's
 *                                 Session Memory note (R-SESSION).
 *
 * The file belongs to the user and to Claude Code; it is changed through the one settings-file
 * writer (settings/claude-settings-file.ts: minimal text edits, a diff first, a base-hash check,
 * an atomic write with a backup). Here are the rules of what changes:
 *   - only entries whose command is Memdir's (`…memdir… hook <Event>`) are added, updated in
 *     place (a stale one from a moved install) or removed; duplicates are dropped;
 *   - connecting twice changes nothing; disconnecting removes exactly what connecting added, and
 *     the containers (`hooks`, an event's list) it emptied — except those that were there and
 *     empty before connecting, which Memdir notes at connect time (`<dataDir>/hooks-connect.json`)
 *     so that connect then disconnect leaves the file byte-identical;
 *   - a file that does not parse, or whose `hooks` has an unexpected shape, is never written.
 *
 * The `memdir hook` command itself is built in hook-command.ts (a checkout, Electron, or an
 * installed app's `memdir` script); `--data-dir` (and the spool folder in the shell command)
 * ties the hooks to the app that connected them.
 */
import fs from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import * as z from 'zod';
import {
  type HooksAction,
  type HooksPlan,
  type HooksStatus,
  MEMDIR_HOOK_EVENTS,
  type MemdirHookEvent,
  SESSION_START_MATCHER,
  type SpooledHookEvent,
} from '../../shared/contract/hooks.js';
import { writeDataFile } from '../core/safe-fs.js';
import {
  applySettingsEdit,
  type JsoncDocument,
  JsoncSyntaxError,
  planSettingsEdit,
  readSettingsFile,
  type SettingsEdit,
  type SettingsEditResult,
  userSettingsFile,
} from '../settings/index.js';
import { isAppListening } from './hook-channel.js';
import { type HookCommandOptions, defaultCliEntry, hookCommand } from './hook-command.js';
import { countSpooled, spoolHookCommand } from '../hook-spool/index.js';
import { isRecord } from '../../shared/is-record.js';

export { type HookCommandOptions, defaultCliEntry, hookCommand } from './hook-command.js';

/** Seconds Claude Code gives the hook: it hands off and exits in well under one. */
export const HOOK_TIMEOUT_SECONDS = 10;

const MEMDIR_COMMAND = new RegExp(`memdir(?:\\.js)?['"]?\\s+hook\\s+(${MEMDIR_HOOK_EVENTS.join('|')})(?=\\s|$)`);

/** The event of a Memdir hook command, or null for anyone else's command. */
export function memdirHookEventOf(command: unknown): MemdirHookEvent | null {
  if (typeof command !== 'string') return null;
  return (MEMDIR_COMMAND.exec(command)?.[1] as MemdirHookEvent | undefined) ?? null;
}

/** The command `hooks connect` installs for `event` (see the module comment). */
export function installedHookCommand(event: MemdirHookEvent, options: HookCommandOptions): string {
  return spoolsInShell(event, options) ? spoolHookCommand(event, options.dataDir) : hookCommand(event, options);
}

/** Whether the event's hook is the shell first stage (Linux and macOS) rather than `memdir hook`. */
function spoolsInShell(event: MemdirHookEvent, options: HookCommandOptions): event is SpooledHookEvent {
  return event !== 'SessionStart' && (options.platform ?? process.platform) !== 'win32';
}

type Json = Record<string, unknown>;

/** The hook entry Memdir wants for `event`. */
function desiredEntry(event: MemdirHookEvent, options: HookCommandOptions): Json {
  const entry: Json = { type: 'command', command: installedHookCommand(event, options), timeout: HOOK_TIMEOUT_SECONDS };
  // Claude Code waits for a synchronous hook; an async one it SIGTERMs ~12–25 ms after starting
  // it when a `claude -p` run exits (observed with 2.1.332) — a shell on a loaded machine can
  // take longer than that to set its trap, and the run's last Stop was lost that way. The shell
  // first stage spools in a few milliseconds, so it runs synchronously: nothing races the exit.
  // `memdir hook` under Node (Windows) needs hundreds of milliseconds and stays async.
  // SessionStart must be waited for anyway: its answer is what Claude Code adds.
  if (event !== 'SessionStart' && !spoolsInShell(event, options)) entry.async = true;
  return entry;
}

/** A new matcher group holding Memdir's entry. */
function newGroup(event: MemdirHookEvent, options: HookCommandOptions): Json {
  const hooks = [desiredEntry(event, options)];
  if (event === 'SessionStart') return { matcher: SESSION_START_MATCHER, hooks };
  return event === 'PreCompact' ? { matcher: '', hooks } : { hooks };
}

/** Memdir's hook entries of one event: `[groupIndex, hookIndex]`, in file order. */
function memdirEntries(groups: unknown, event: MemdirHookEvent): [number, number][] {
  const found: [number, number][] = [];
  if (!Array.isArray(groups)) return found;
  groups.forEach((group, g) => {
    if (!isRecord(group) || !Array.isArray(group.hooks)) return;
    group.hooks.forEach((hook, h) => {
      if (isRecord(hook) && memdirHookEventOf(hook.command) === event) found.push([g, h]);
    });
  });
  return found;
}

/** Why Memdir must not touch the `hooks` of these settings, or null. */
function shapeProblem(settings: unknown): string | null {
  const hooks = isRecord(settings) ? settings.hooks : undefined;
  if (hooks === undefined) return null;
  if (!isRecord(hooks)) return '"hooks" is not an object';
  const bad = MEMDIR_HOOK_EVENTS.find((event) => hooks[event] !== undefined && !Array.isArray(hooks[event]));
  return bad ? `"hooks.${bad}" is not a list` : null;
}

/** Remove Memdir's entries at `found` (in file order) from `event`, and the groups that leaves empty. */
function removeEntries(doc: JsoncDocument, event: MemdirHookEvent, found: [number, number][]): void {
  for (const [g, h] of [...found].reverse()) {
    doc.remove(['hooks', event, g, 'hooks', h]);
    const left = doc.value(['hooks', event, g, 'hooks']);
    if (Array.isArray(left) && left.length === 0) doc.remove(['hooks', event, g]);
  }
}

/** Containers that were there and empty before connecting: `hooks`, `hooks.<Event>`. */
function emptyContainers(doc: JsoncDocument): string[] {
  const hooks = doc.value(['hooks']);
  if (!isRecord(hooks)) return [];
  const empty = Object.keys(hooks).length === 0 ? ['hooks'] : [];
  for (const event of MEMDIR_HOOK_EVENTS) if (Array.isArray(hooks[event]) && hooks[event].length === 0) empty.push(`hooks.${event}`);
  return empty;
}

function connectEdit(options: HookCommandOptions): SettingsEdit {
  return (doc) => {
    const problem = shapeProblem(doc.value());
    if (problem) throw new JsoncSyntaxError(problem);
    if (doc.value(['hooks']) === undefined) {
      doc.set([], 'hooks', Object.fromEntries(MEMDIR_HOOK_EVENTS.map((event) => [event, [newGroup(event, options)]])));
      return;
    }
    for (const event of MEMDIR_HOOK_EVENTS) {
      const groups = doc.value(['hooks', event]);
      if (groups === undefined) {
        doc.set(['hooks'], event, [newGroup(event, options)]);
        continue;
      }
      const [first, ...extra] = memdirEntries(groups, event);
      if (!first) {
        doc.append(['hooks', event], newGroup(event, options));
        continue;
      }
      // Repeats (two installs, a hand-made copy) would run the hook twice: keep the first.
      removeEntries(doc, event, extra);
      const at = ['hooks', event, first[0], 'hooks', first[1]];
      const current = doc.value(at) as Json;
      const desired = desiredEntry(event, options);
      for (const [key, value] of Object.entries(desired)) if (current[key] !== value) doc.set(at, key, value);
      if (desired.async === undefined && current.async !== undefined) doc.remove([...at, 'async']);
    }
  };
}

function disconnectEdit(keepEmpty: ReadonlySet<string>): SettingsEdit {
  return (doc) => {
    const problem = shapeProblem(doc.value());
    if (problem) throw new JsoncSyntaxError(problem);
    let removed = false;
    for (const event of MEMDIR_HOOK_EVENTS) {
      const found = memdirEntries(doc.value(['hooks', event]), event);
      if (found.length === 0) continue;
      removed = true;
      removeEntries(doc, event, found);
      const left = doc.value(['hooks', event]);
      if (Array.isArray(left) && left.length === 0 && !keepEmpty.has(`hooks.${event}`)) doc.remove(['hooks', event]);
    }
    const hooks = doc.value(['hooks']);
    if (removed && isRecord(hooks) && Object.keys(hooks).length === 0 && !keepEmpty.has('hooks')) doc.remove(['hooks']);
  };
}

/** `<dataDir>/hooks-connect.json`: per settings file, the empty containers connect found there. */
const CONNECT_RECORD = 'hooks-connect.json';
const recordSchema = z.object({ version: z.literal(1), keepEmpty: z.record(z.string(), z.array(z.string())) });
type ConnectRecord = z.infer<typeof recordSchema>;

async function readConnectRecord(dataDir: string): Promise<ConnectRecord> {
  try {
    const parsed = recordSchema.safeParse(JSON.parse(await fs.readFile(path.join(dataDir, CONNECT_RECORD), 'utf8')));
    if (parsed.success) return parsed.data;
  } catch {
    // None yet, or damaged: then disconnect removes every container it empties.
  }
  return { version: 1, keepEmpty: {} };
}

async function writeConnectRecord(dataDir: string, record: ConnectRecord): Promise<void> {
  await writeDataFile(path.join(dataDir, CONNECT_RECORD), `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
}

async function editFor(home: string, action: HooksAction, options: HookCommandOptions): Promise<SettingsEdit> {
  if (action === 'connect') return connectEdit(options);
  const record = await readConnectRecord(options.dataDir);
  return disconnectEdit(new Set(record.keepEmpty[userSettingsFile(home)] ?? []));
}

/** A plan plus the texts it goes between. */
export interface HooksPlanDetail extends HooksPlan {
  before: string | null;
  after: string | null;
}

/** What `action` would do to `<home>/settings.json`. Writes nothing. */
export async function planHooksChange(home: string, action: HooksAction, options: HookCommandOptions): Promise<HooksPlanDetail> {
  const plan = await planSettingsEdit(userSettingsFile(home), await editFor(home, action, options));
  return {
    action,
    settingsFile: plan.file,
    changed: plan.changed,
    diff: plan.diff,
    baseHash: plan.baseHash,
    problems: plan.problems,
    warnings: plan.warnings,
    before: plan.before,
    after: plan.after,
  };
}

/**
 * Apply `action` if `<home>/settings.json` is still the file `baseHash` was computed from.
 * @throws {SettingsFileError} `invalid` for a file Memdir must not touch, `conflict` when the
 * file changed since the plan.
 */
export async function applyHooksChange(home: string, action: HooksAction, baseHash: string, options: HookCommandOptions): Promise<SettingsEditResult> {
  const file = userSettingsFile(home);
  const record = await readConnectRecord(options.dataDir);
  if (action === 'connect') {
    // Noted before the write: a note without the write only keeps an empty container later.
    const read = await readSettingsFile(file);
    const empty = read.doc ? emptyContainers(read.doc) : [];
    if (empty.length > 0)
      await writeConnectRecord(options.dataDir, {
        ...record,
        keepEmpty: { ...record.keepEmpty, [file]: [...new Set([...(record.keepEmpty[file] ?? []), ...empty])] },
      });
  }
  const result = await applySettingsEdit(file, baseHash, await editFor(home, action, options));
  if (action === 'disconnect' && result.changed && record.keepEmpty[file]) {
    const { [file]: _done, ...rest } = record.keepEmpty;
    await writeConnectRecord(options.dataDir, { ...record, keepEmpty: rest });
  }
  return result;
}

/** Whether Memdir's hooks are in `<home>/settings.json`, and whether the app receives them. */
export async function readHooksStatus(home: string, options: HookCommandOptions): Promise<HooksStatus> {
  const current = await readSettingsFile(userSettingsFile(home));
  const settings = current.doc?.value();
  const problem = shapeProblem(settings);
  const problems = [...current.problems, ...current.warnings, ...(problem ? [`${current.file}: ${problem}; Memdir leaves it alone.`] : [])];
  const hooks = isRecord(settings) && isRecord(settings.hooks) ? settings.hooks : {};
  const events = MEMDIR_HOOK_EVENTS.map((event) => {
    const groups = hooks[event];
    const first = memdirEntries(groups, event)[0];
    const entry = first ? ((groups as Json[])[first[0]]!.hooks as Json[])[first[1]]! : null;
    const command = (entry?.command as string | undefined) ?? null;
    // Current: the command this install writes, run the way it must be (an async spooling hook
    // from an older install can lose a run's last event).
    const desired = desiredEntry(event, options);
    return { event, command, current: command === desired.command && Boolean(entry?.async) === Boolean(desired.async) };
  });
  const count = events.filter((e) => e.command !== null).length;
  const entry = options.cliEntry ?? defaultCliEntry();
  if (!existsSync(entry)) problems.push(`Memdir's command-line entry ${entry} does not exist (build Memdir first): the hook command would fail.`);
  if (count > 0 && events.some((e) => !e.current))
    problems.push('Some hooks are missing, or run another Memdir install or an older command: connect again to update them.');
  return {
    settingsFile: current.file,
    exists: current.text !== null,
    connected: count === MEMDIR_HOOK_EVENTS.length ? 'all' : count === 0 ? 'none' : 'partial',
    events,
    command: hookCommand('<event>', options),
    listening: await isAppListening(options.dataDir),
    spooled: await countSpooled(options.dataDir),
    problems,
  };
}
