/**
 * The hook spool (`<dataDir>/hook-spool/`): every hook event Claude Code sends Memdir is first a
 * file here, and the app — watching the folder while it runs, reading it when it starts —
 * takes the events from it.
 *
 * Why spool first (SPEC §11, issue 13 item 5): when a `claude -p` run exits, Claude Code sends
 * SIGTERM to the process group of each async hook 12–25 ms after starting it, and kills what
 * is left a second or so later. Node needs tens of milliseconds just to start (and resets
 * SIGTERM to its default as it starts, so a shell's `trap` does not protect it), so no Node
 * program can have the event safe in time. The hook command Memdir installs is therefore a few
 * lines of POSIX shell ({@link spoolHookCommand}) that ignore SIGTERM and copy Claude Code's
 * JSON from stdin into this folder, and nothing else (`npm run bench hook`). `memdir hook <event>` (Windows, where Claude Code
 * may run hooks without a POSIX shell, and older installs) writes the same entry.
 *
 * An entry is `<epoch seconds>-<pid>[-<random>]-<Event>.hook` holding Claude Code's payload as it came;
 * it is checked when drained, and its mtime is when it arrived. A file is written under a
 * dot-name and renamed, so a reader never sees half of one. Files are private to the user
 * (0600 in a 0700 folder). Draining coalesces: events are triggers, so for each transcript only
 * what still matters is kept — the latest of each event type, in order. Entries of the older
 * `.json` format (`{v: 1, spooledAt, event}`) are still read.
 */
import { randomBytes } from 'node:crypto';
import { watch } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import * as z from 'zod';
import { type SpooledHookEvent, SPOOLED_HOOK_EVENTS } from '../../shared/contract/hooks.js';
import { writeDataFile } from '../core/safe-fs.js';
import { type HookEvent, hookEventSchema, parseHookPayload } from './hook-payload.js';

/** The spool folder inside the data dir. */
export const SPOOL_DIR = 'hook-spool';
/** Past this many waiting events, new ones are dropped (and logged): the disk is not a queue. */
export const MAX_SPOOLED = 5_000;
/** A spooled payload larger than this is not read (Claude Code's are a few kilobytes). */
export const MAX_SPOOLED_BYTES = 16 * 1024 * 1024;
/** A temporary file this old was left by a hook that was killed mid-copy. */
const STALE_TEMP_MS = 3600_000;

const ENTRY = new RegExp(`^(\\d*)-(\\d+)(?:-[0-9a-f]+)?-(${SPOOLED_HOOK_EVENTS.join('|')})\\.hook$`);
const legacySchema = z.object({ v: z.literal(1), spooledAt: z.string(), event: hookEventSchema });

/** `<dataDir>/hook-spool`. */
export function spoolDir(dataDir: string): string {
  return path.join(path.resolve(dataDir), SPOOL_DIR);
}

/** The name of an entry Node writes: `<epoch seconds>-<pid>-<random>-<Event>.hook` (one process may write several). */
function spoolEntryName(event: SpooledHookEvent): string {
  return `${Math.floor(Date.now() / 1000)}-${process.pid}-${randomBytes(4).toString('hex')}-${event}.hook`;
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * The hook command that spools `event` (POSIX `sh`, as Claude Code runs hooks on Linux and
 * macOS): ignore the SIGTERM that comes when `claude -p` exits, copy stdin into a temporary
 * dot-file of the spool, rename it to its entry name, always exit 0 (a failing hook must not
 * break Claude Code; exit code 2 would even block a Stop). Sessions Memdir started itself
 * (`MEMDIR_INTERNAL=1`) are skipped. The trailing comment names the event, so the command is
 * recognised as Memdir's.
 */
export function spoolHookCommand(event: SpooledHookEvent, dataDir: string): string {
  return [
    `trap '' TERM HUP`,
    `[ "$MEMDIR_INTERNAL" = 1 ] || { umask 077; d=${shellQuote(spoolDir(dataDir))}; { [ -d "$d" ] || mkdir -p "$d"; } && cat > "$d/.$$.tmp" && mv -f "$d/.$$.tmp" "$d/$(date +%s)-$$-${event}.hook"; }`,
    `exit 0 # memdir hook ${event}`,
  ].join('; ');
}

async function spoolNames(dataDir: string): Promise<string[]> {
  try {
    return (await fs.readdir(spoolDir(dataDir))).filter((n) => !n.startsWith('.') && (ENTRY.test(n) || n.endsWith('.json')));
  } catch {
    return [];
  }
}

/** How many events wait in the spool. */
export async function countSpooled(dataDir: string): Promise<number> {
  return (await spoolNames(dataDir)).length;
}

/** Write Claude Code's payload for `event` to the spool, as the shell command does. Throws on I/O failure. */
export async function spoolHookPayload(dataDir: string, event: SpooledHookEvent, payload: string): Promise<{ file: string } | { dropped: string }> {
  if ((await countSpooled(dataDir)) >= MAX_SPOOLED) return { dropped: `the spool already holds ${MAX_SPOOLED} events` };
  const file = path.join(spoolDir(dataDir), spoolEntryName(event));
  await writeDataFile(file, payload, { mode: 0o600 });
  return { file };
}

/** What draining found. */
export interface DrainResult {
  /** Events to handle, oldest first, coalesced per transcript. */
  events: HookEvent[];
  /** Per transcript, how many Stop events were spooled: the turns that ended meanwhile. */
  stops: Record<string, number>;
  /** Files that were not usable events (damaged, hand-made), with why; they are removed. */
  bad: { file: string; reason: string }[];
  /** Spool files read. */
  read: number;
}

/**
 * Keep, per transcript, the last event of each type, in the order they last happened: a
 * `SessionEnd` makes earlier `Stop`s of its session pointless only in part (the end closes the
 * trailing turn anyway), so both survive, but ten Stops collapse into one.
 */
export function coalesceHookEvents(events: HookEvent[]): HookEvent[] {
  const last = new Map<string, number>();
  events.forEach((event, i) => last.set(`${event.transcriptPath}\0${event.event}`, i));
  return events.filter((event, i) => last.get(`${event.transcriptPath}\0${event.event}`) === i);
}

/** One spool file as an event, or why it is not one. */
async function readEntry(file: string, name: string): Promise<{ event: HookEvent; at: number } | { reason: string } | null> {
  let stat;
  try {
    stat = await fs.stat(file);
    if (!stat.isFile()) return { reason: 'not a file' };
    if (stat.size > MAX_SPOOLED_BYTES) return { reason: `larger than ${MAX_SPOOLED_BYTES} bytes` };
    const text = await fs.readFile(file, 'utf8');
    const entry = ENTRY.exec(name);
    if (entry) {
      const parsed = parseHookPayload(entry[3]!, text, stat.mtime);
      return parsed.ok ? { event: parsed.event, at: stat.mtimeMs } : { reason: parsed.problem };
    }
    const legacy = legacySchema.safeParse(JSON.parse(text));
    return legacy.success ? { event: legacy.data.event, at: Date.parse(legacy.data.spooledAt) || stat.mtimeMs } : { reason: 'not a spooled hook event' };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    return { reason: code ? `unreadable (${code})` : 'not JSON' };
  }
}

/** Remove temporary files of hooks killed mid-copy (the shell's `.<pid>.tmp`, safe-fs's own). */
async function removeStaleTemps(dataDir: string): Promise<void> {
  const dir = spoolDir(dataDir);
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  for (const name of names.filter((n) => n.startsWith('.'))) {
    const stat = await fs.lstat(path.join(dir, name)).catch(() => null);
    if (stat?.isFile() && Date.now() - stat.mtimeMs > STALE_TEMP_MS) await fs.rm(path.join(dir, name), { force: true });
  }
}

/**
 * Read the spool and hand its events to `handle` (awaited, in the order they arrived); the files
 * are removed once `handle` has returned, but for those of the transcripts it names to keep (it
 * did not take their events: they are read again next drain). If it throws, every file stays.
 * One drain at a time per data dir is the caller's business (the app runs them in series).
 */
export async function drainSpool(
  dataDir: string,
  handle: (events: HookEvent[], stops: Record<string, number>) => Promise<ReadonlySet<string> | void>,
): Promise<DrainResult> {
  const names = await spoolNames(dataDir);
  const parsed: { name: string; event: HookEvent; at: number }[] = [];
  const bad: DrainResult['bad'] = [];
  for (const name of names) {
    const file = path.join(spoolDir(dataDir), name);
    const entry = await readEntry(file, name);
    if (entry === null) continue;
    if ('reason' in entry) {
      bad.push({ file: name, reason: entry.reason });
      await fs.rm(file, { force: true });
    } else parsed.push({ name, ...entry });
  }
  parsed.sort((a, b) => a.at - b.at || a.name.localeCompare(b.name));
  const events = coalesceHookEvents(parsed.map((p) => p.event));
  const stops: Record<string, number> = {};
  for (const { event } of parsed) if (event.event === 'Stop') stops[event.transcriptPath] = (stops[event.transcriptPath] ?? 0) + 1;
  const keep = events.length > 0 ? await handle(events, stops) : undefined;
  for (const { name, event } of parsed) if (!keep?.has(event.transcriptPath)) await fs.rm(path.join(spoolDir(dataDir), name), { force: true });
  await removeStaleTemps(dataDir);
  return { events, stops, bad, read: names.length };
}

/**
 * Call `onChange` soon after entries arrive in the spool: a watch of the folder, plus a slow
 * poll for file systems that do not report changes. Returns the function that stops both.
 */
export async function watchSpool(dataDir: string, onChange: () => void, options: { pollMs?: number; debounceMs?: number } = {}): Promise<() => void> {
  const dir = spoolDir(dataDir);
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  let timer: NodeJS.Timeout | null = null;
  const soon = () => {
    timer ??= setTimeout(() => {
      timer = null;
      onChange();
    }, options.debounceMs ?? 50);
  };
  let watcher: ReturnType<typeof watch> | null = null;
  try {
    watcher = watch(dir, soon);
    watcher.on('error', () => undefined);
  } catch {
    // No watch on this file system: the poll still finds the events.
  }
  const poll = setInterval(soon, options.pollMs ?? 30_000);
  poll.unref();
  return () => {
    watcher?.close();
    clearInterval(poll);
    if (timer) clearTimeout(timer);
  };
}
