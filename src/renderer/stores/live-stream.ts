/**
 * Main's event stream (`events.stream`), opened by the entry before the page reads anything, and
 * the rule that keeps what the page shows equal to what is on disk: subscribe before you read.
 * A read answered before the stream is live can miss a change published in between (a memory
 * another program writes as the page starts, a job ending) and the page would show it stale until
 * the next change. So the first reads, and the UI whose views read as they mount, wait for
 * `openLiveStream()` (main.tsx); and each time the stream is live again after it dropped (the host
 * restarted, the machine slept), the follower resyncs: it reads again what the events it missed
 * would have refreshed.
 *
 * What the stream says of itself (live, down, refused) is also what the page says of its link to
 * Memdir (connection.ts, the connection banner).
 *
 * Small on purpose: the entry (main.tsx) loads it before the UI's code; the stores the events
 * concern are handed them by `followLiveEvents` (live-events.ts) once the UI has loaded, and what
 * arrives before that is held for it.
 */
import type { AppEvent } from '../../shared/contract/events.js';
import { subscribe } from '../transport/transport.js';
import { noteStreamState } from './connection.js';

/** Who the stream's events go to. */
export interface LiveFollower {
  onEvent(event: AppEvent): void;
  /** The stream is live again after events were lost: read again what they would have refreshed. */
  resync(): void;
}

/**
 * Events held for a follower not there yet; past this many, the follower resyncs instead (only
 * the navigations held are handed on: a resync cannot tell where the desktop shell sent the page).
 */
const MAX_HELD = 200;

/**
 * The longest the first reads wait for the stream to say it is live or down: a stream that says
 * neither (a proxy holding its answer) must not leave the window blank. It counts as down; its
 * coming up later is a reconnect.
 */
export const FIRST_STATE_MAX_MS = 5_000;

let opened: Promise<void> | null = null;
let follower: LiveFollower | null = null;
let held: AppEvent[] = [];
/** Events were lost (or dropped from `held`) before a follower was there to resync. */
let missed = false;

function deliver(event: AppEvent): void {
  if (follower) return follower.onEvent(event);
  if (held.length < MAX_HELD) held.push(event);
  else missed = true;
}

function lost(): void {
  if (follower) follower.resync();
  else missed = true;
}

/**
 * Open the stream, once; resolves when the page may read: the stream is live, or could not be
 * opened (the reads then say why Memdir does not answer, and the stream's coming up later counts
 * as a reconnect: what was read before it is read again).
 */
export function openLiveStream(): Promise<void> {
  opened ??= new Promise((ready) => {
    let first = true;
    const firstState = () => {
      first = false;
      clearTimeout(timer);
      ready();
    };
    const timer = setTimeout(firstState, FIRST_STATE_MAX_MS);
    subscribe('events.stream', {}, deliver, (state) => {
      noteStreamState(state);
      if (first) return firstState();
      if (state === 'live') lost();
    });
  });
  return opened;
}

/** Hand the stream's events to `next` (with any held for it) until the returned function is called. */
export function followLiveStream(next: LiveFollower): () => void {
  follower = next;
  const waiting = held;
  held = [];
  for (const event of waiting) if (!missed || event.type === 'navigate') next.onEvent(event);
  if (missed) {
    missed = false;
    next.resync();
  }
  return () => {
    if (follower === next) follower = null;
  };
}
