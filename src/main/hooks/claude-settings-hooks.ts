/**
 * "Connect to Claude Code" (SPEC §11): add `Stop`, `PreCompact` and `SessionEnd` hooks running
 * `memdir hook <event>` to `<home>/settings.json`, and take them out again.
 *
 * The file belongs to the user and to Claude Code, so:
 *   - it is merged, never replaced: other hooks, other keys and their order stay as they are;
 *     only entries whose command is Memdir's (`…memdir… hook <Event>`) are added, updated or
 *     removed — a stale one from a moved install is updated in place, duplicates dropped;
 *   - connecting twice changes nothing; disconnecting removes exactly what connecting added
 *     (and the containers it created, once empty);
 *   - a change is planned first — the diff is shown — and applied only if the file is still the
 *     one the plan was made from (`baseHash`);
 *   - the write is atomic, after a copy of the previous file is kept beside it
 *     (`settings.json.memdir-backup`); a symlinked settings.json (dotfiles) is written through
 *     to its target, never replaced by a plain file;
 *   - formatting: the indentation and line ending found are reused; a file that was not in
 *     plain `JSON.stringify` layout is reported as `formattingNormalized` in the plan;
 *   - a file that is not valid JSON, or whose `hooks` has an unexpected shape, is never written.
 *
 * The command itself is built in hook-command.ts.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from 'diff';
import { type HooksAction, type HooksPlan, type HooksStatus, MEMDIR_HOOK_EVENTS, type MemdirHookEvent } from '../../shared/contract/hooks.js';
import { writeFileAtomic } from '../memdir/safe-fs.js';
import { isAppListening } from './hook-channel.js';
import { type HookCommandOptions, defaultCliEntry, hookCommand } from './hook-command.js';
import { countSpooled } from './hook-spool.js';

export { type HookCommandOptions, defaultCliEntry, hookCommand } from './hook-command.js';

/** Seconds Claude Code gives the hook: it hands off and exits in well under one. */
export const HOOK_TIMEOUT_SECONDS = 10;

/** A settings.json that cannot be changed safely. */
export class HooksSettingsError extends Error {
  override readonly name = 'HooksSettingsError';
  constructor(
    readonly code: 'invalid' | 'conflict',
    message: string,
  ) {
    super(message);
  }
}

const MEMDIR_COMMAND = /memdir(?:\.js)?['"]?\s+hook\s+(Stop|PreCompact|SessionEnd)(?=\s|$)/;

/** The event of a Memdir hook command, or null for anyone else's command. */
export function memdirHookEventOf(command: unknown): MemdirHookEvent | null {
  if (typeof command !== 'string') return null;
  return (MEMDIR_COMMAND.exec(command)?.[1] as MemdirHookEvent | undefined) ?? null;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `<home>/settings.json`. */
export function userSettingsFile(home: string): string {
  return path.join(home, 'settings.json');
}

interface SettingsText {
  file: string;
  /** The file's text, or null when there is none. */
  text: string | null;
  /** The parsed object (an empty one for a missing file). */
  value: Json | null;
  problems: string[];
}

async function readSettings(home: string): Promise<SettingsText> {
  const file = userSettingsFile(home);
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { file, text: null, value: {}, problems: [] };
    return { file, text: null, value: null, problems: [`${file} cannot be read (${code ?? String(error)}).`] };
  }
  if (text.trim() === '') return { file, text, value: {}, problems: [] };
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    return { file, text, value: null, problems: [`${file} is not valid JSON (${(error as Error).message}); fix it first — Memdir never rewrites a file it cannot read.`] };
  }
  if (!isObject(value)) return { file, text, value: null, problems: [`${file} does not hold a JSON object; Memdir leaves it alone.`] };
  return { file, text, value, problems: shapeProblems(file, value) };
}

function shapeProblems(file: string, settings: Json): string[] {
  const hooks = settings.hooks;
  if (hooks === undefined) return [];
  if (!isObject(hooks)) return [`"hooks" in ${file} is not an object; Memdir leaves it alone.`];
  return MEMDIR_HOOK_EVENTS.filter((event) => hooks[event] !== undefined && !Array.isArray(hooks[event])).map((event) => `"hooks.${event}" in ${file} is not a list; Memdir leaves it alone.`);
}

/** Memdir's hook entries of one event: `[groupIndex, hookIndex]`, in file order. */
function memdirEntries(groups: unknown[], event: MemdirHookEvent): [number, number][] {
  const found: [number, number][] = [];
  groups.forEach((group, g) => {
    if (!isObject(group) || !Array.isArray(group.hooks)) return;
    group.hooks.forEach((hook, h) => {
      if (isObject(hook) && memdirHookEventOf(hook.command) === event) found.push([g, h]);
    });
  });
  return found;
}

/** The settings with Memdir's hooks in (a deep copy; the input is not touched). */
export function withMemdirHooks(settings: Json, commandFor: (event: MemdirHookEvent) => string): Json {
  const next = structuredClone(settings);
  const hooks = isObject(next.hooks) ? next.hooks : {};
  for (const event of MEMDIR_HOOK_EVENTS) {
    const groups: unknown[] = Array.isArray(hooks[event]) ? (hooks[event] as unknown[]) : [];
    const entry = { type: 'command', command: commandFor(event), timeout: HOOK_TIMEOUT_SECONDS, async: true };
    const found = memdirEntries(groups, event);
    if (found.length === 0) {
      groups.push(event === 'PreCompact' ? { matcher: '', hooks: [entry] } : { hooks: [entry] });
    } else {
      const [[g, h], ...extra] = found as [[number, number], ...[number, number][]];
      const list = (groups[g] as Json).hooks as unknown[];
      list[h] = { ...(list[h] as Json), ...entry };
      // Repeats (two installs, a hand-made copy) would run the hook twice: keep the first.
      for (const [eg, eh] of extra.reverse()) ((groups[eg] as Json).hooks as unknown[]).splice(eh, 1);
      for (let i = groups.length - 1; i >= 0; i--) {
        const group = groups[i];
        if (isObject(group) && Array.isArray(group.hooks) && group.hooks.length === 0 && extra.some(([eg]) => eg === i)) groups.splice(i, 1);
      }
    }
    hooks[event] = groups;
  }
  next.hooks = hooks;
  return next;
}

/** The settings without Memdir's hooks; containers they leave empty go too. */
export function withoutMemdirHooks(settings: Json): Json {
  const next = structuredClone(settings);
  if (!isObject(next.hooks)) return next;
  const hooks = next.hooks;
  for (const event of MEMDIR_HOOK_EVENTS) {
    if (!Array.isArray(hooks[event])) continue;
    const groups = hooks[event] as unknown[];
    const found = memdirEntries(groups, event);
    if (found.length === 0) continue;
    const touched = new Set(found.map(([g]) => g));
    for (const [g, h] of [...found].reverse()) ((groups[g] as Json).hooks as unknown[]).splice(h, 1);
    for (let i = groups.length - 1; i >= 0; i--) {
      const group = groups[i] as Json;
      if (touched.has(i) && Array.isArray(group.hooks) && group.hooks.length === 0) groups.splice(i, 1);
    }
    if (groups.length === 0) delete hooks[event];
  }
  if (Object.keys(hooks).length === 0) delete next.hooks;
  return next;
}

/** Indentation and line ending of a JSON text, to write it back the same way. */
function layoutOf(text: string | null): { indent: string; eol: string; finalNewline: boolean } {
  if (text === null || text.trim() === '') return { indent: '  ', eol: '\n', finalNewline: true };
  const indent = /^([ \t]+)\S/m.exec(text)?.[1] ?? '  ';
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  return { indent, eol, finalNewline: /\n$/.test(text) };
}

function serialize(value: Json, layout: ReturnType<typeof layoutOf>): string {
  const text = JSON.stringify(value, null, layout.indent);
  return `${layout.eol === '\r\n' ? text.replace(/\n/g, '\r\n') : text}${layout.finalNewline ? layout.eol : ''}`;
}

function hashOf(text: string | null): string {
  return createHash('sha256').update(text ?? '\0missing').digest('hex').slice(0, 16);
}

/** A plan plus the texts it goes between. */
export interface HooksPlanDetail extends HooksPlan {
  before: string | null;
  after: string | null;
}

/** What `action` would do to `<home>/settings.json`. Writes nothing. */
export async function planHooksChange(home: string, action: HooksAction, options: HookCommandOptions): Promise<HooksPlanDetail> {
  const current = await readSettings(home);
  const base = { action, settingsFile: current.file, baseHash: hashOf(current.text), before: current.text };
  if (current.value === null || current.problems.length > 0) {
    return { ...base, changed: false, diff: '', formattingNormalized: false, problems: current.problems, after: null };
  }
  const next = action === 'connect' ? withMemdirHooks(current.value, (event) => hookCommand(event, options)) : withoutMemdirHooks(current.value);
  const layout = layoutOf(current.text);
  const same = JSON.stringify(next) === JSON.stringify(current.value);
  const after = same ? current.text : serialize(next, layout);
  const formattingNormalized = !same && current.text !== null && current.text.trim() !== '' && serialize(current.value, layout) !== current.text.replace(/^\uFEFF/, '');
  const diff = same ? '' : createTwoFilesPatch(current.text === null ? '/dev/null' : 'a/settings.json', 'b/settings.json', current.text ?? '', after ?? '', '', '', { context: 3, headerOptions: FILE_HEADERS_ONLY });
  return { ...base, changed: !same, diff: diff ? `diff --git a/settings.json b/settings.json\n${current.text === null ? 'new file mode 100644\n' : ''}${diff}` : '', formattingNormalized, problems: [], after };
}

/** What applying wrote. */
export interface HooksApplyResult {
  file: string;
  changed: boolean;
  /** The copy of the previous file, or null when there was none (or nothing changed). */
  backup: string | null;
}

/**
 * Apply `action` if `<home>/settings.json` is still the file `baseHash` was computed from.
 * @throws {HooksSettingsError} `invalid` for a file Memdir must not touch, `conflict` when the
 * file changed since the plan.
 */
export async function applyHooksChange(home: string, action: HooksAction, baseHash: string, options: HookCommandOptions): Promise<HooksApplyResult> {
  const plan = await planHooksChange(home, action, options);
  if (plan.problems.length > 0) throw new HooksSettingsError('invalid', plan.problems.join(' '));
  if (plan.baseHash !== baseHash) throw new HooksSettingsError('conflict', `${plan.settingsFile} changed since the change was shown; look at it again before applying.`);
  if (!plan.changed || plan.after === null) return { file: plan.settingsFile, changed: false, backup: null };
  let target = plan.settingsFile;
  let mode = 0o600;
  let backup: string | null = null;
  if (plan.before !== null) {
    // A symlinked settings.json (a dotfiles repository) is written through, not replaced.
    target = await fs.realpath(plan.settingsFile);
    mode = (await fs.stat(target)).mode & 0o777;
    backup = `${plan.settingsFile}.memdir-backup`;
    await writeFileAtomic(path.dirname(backup), path.basename(backup), plan.before, { mode: 0o600 });
  }
  await writeFileAtomic(path.dirname(target), path.basename(target), plan.after, { mode });
  return { file: plan.settingsFile, changed: true, backup };
}

/** Whether Memdir's hooks are in `<home>/settings.json`, and whether the app receives them. */
export async function readHooksStatus(home: string, options: HookCommandOptions): Promise<HooksStatus> {
  const current = await readSettings(home);
  const problems = [...current.problems];
  const hooks = current.value && isObject(current.value.hooks) ? current.value.hooks : {};
  const events = MEMDIR_HOOK_EVENTS.map((event) => {
    const groups = Array.isArray(hooks[event]) ? (hooks[event] as unknown[]) : [];
    const first = memdirEntries(groups, event)[0];
    const command = first ? ((((groups[first[0]] as Json).hooks as unknown[])[first[1]] as Json).command as string) : null;
    return { event, command, current: command === hookCommand(event, options) };
  });
  const count = events.filter((e) => e.command !== null).length;
  const entry = options.cliEntry ?? defaultCliEntry();
  if (!existsSync(entry)) problems.push(`Memdir's command-line entry ${entry} does not exist (build Memdir first): the hook command would fail.`);
  if (count > 0 && events.some((e) => e.command !== null && !e.current)) problems.push('Some hooks run another Memdir install or an older command: connect again to update them.');
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
