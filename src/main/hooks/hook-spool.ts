/**
 * Hook events written to disk while the app is closed (`<dataDir>/hook-spool/`), processed when
 * it next starts. One small JSON file per event, written atomically and readable only by the
 * user (0600 in a 0700 folder). Draining coalesces: events are triggers, so for each transcript
 * only what still matters is kept — the latest of each event type, in order.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { writeDataFile } from '../memdir/safe-fs.js';
import { type HookEvent, hookEventSchema } from './hook-payload.js';

/** The spool folder inside the data dir. */
export const SPOOL_DIR = 'hook-spool';
/** Past this many waiting events, new ones are dropped (and logged): the disk is not a queue. */
export const MAX_SPOOLED = 5_000;

const spooledSchema = z.object({ v: z.literal(1), spooledAt: z.string(), event: hookEventSchema });

/** `<dataDir>/hook-spool`. */
export function spoolDir(dataDir: string): string {
  return path.join(dataDir, SPOOL_DIR);
}

async function spoolNames(dataDir: string): Promise<string[]> {
  try {
    return (await fs.readdir(spoolDir(dataDir))).filter((n) => n.endsWith('.json') && !n.startsWith('.')).sort();
  } catch {
    return [];
  }
}

/** How many events wait in the spool. */
export async function countSpooled(dataDir: string): Promise<number> {
  return (await spoolNames(dataDir)).length;
}

/** Write one event to the spool. Throws on I/O failure (the hook logs it). */
export async function spoolHookEvent(dataDir: string, event: HookEvent): Promise<{ file: string } | { dropped: string }> {
  if ((await countSpooled(dataDir)) >= MAX_SPOOLED) return { dropped: `the spool already holds ${MAX_SPOOLED} events` };
  // Names sort in arrival order: a zero-padded time, then the pid and a random part for ties.
  const name = `${String(Date.now()).padStart(15, '0')}-${process.pid}-${randomBytes(4).toString('hex')}.json`;
  const file = path.join(spoolDir(dataDir), name);
  await writeDataFile(file, `${JSON.stringify({ v: 1, spooledAt: new Date().toISOString(), event })}\n`, { mode: 0o600 });
  return { file };
}

/** What draining found. */
export interface DrainResult {
  /** Events to handle, oldest first, coalesced per transcript. */
  events: HookEvent[];
  /** Per transcript, how many Stop events were spooled: the turns that ended meanwhile. */
  stops: Record<string, number>;
  /** Files that were not spooled events (damaged, hand-made), with why; they are removed. */
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

/**
 * Read the spool and hand its events to `handle` (awaited, in order); the files are removed once
 * `handle` has returned. If it throws, every file stays for the next start.
 */
export async function drainSpool(dataDir: string, handle: (events: HookEvent[], stops: Record<string, number>) => Promise<void>): Promise<DrainResult> {
  const names = await spoolNames(dataDir);
  const parsed: { name: string; event: HookEvent }[] = [];
  const bad: DrainResult['bad'] = [];
  for (const name of names) {
    const file = path.join(spoolDir(dataDir), name);
    let reason: string | null = null;
    try {
      const value = spooledSchema.safeParse(JSON.parse(await fs.readFile(file, 'utf8')));
      if (value.success) parsed.push({ name, event: value.data.event });
      else reason = 'not a spooled hook event';
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') continue;
      reason = code ? `unreadable (${code})` : 'not JSON';
    }
    if (reason !== null) {
      bad.push({ file: name, reason });
      await fs.rm(file, { force: true });
    }
  }
  const events = coalesceHookEvents(parsed.map((p) => p.event));
  const stops: Record<string, number> = {};
  for (const { event } of parsed) if (event.event === 'Stop') stops[event.transcriptPath] = (stops[event.transcriptPath] ?? 0) + 1;
  if (events.length > 0) await handle(events, stops);
  for (const { name } of parsed) await fs.rm(path.join(spoolDir(dataDir), name), { force: true });
  return { events, stops, bad, read: names.length };
}
