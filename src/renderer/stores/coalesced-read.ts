/**
 * A query's reads of the host, coalesced: the one rule every store follows that reads again when
 * memory or sync changes (the dashboard's projects, the open project, its editor's file, its
 * history and timeline, the Dream tab, team and personal sync and the dashboard's Team column). A
 * dream or an extraction writing 20 files, or a `git pull` in personal sync, is 20 change events
 * in every window: each query is read once per burst, not 20 times, and the last change is never lost.
 *
 * - `now(key)`: read at once — a store's own action (an edit, a bulk change, opening the page)
 *   shows its result without waiting. One read of a key is in flight at a time: calls made during
 *   it share the one read after it (its answer may be older than the call).
 * - `changed(key)`: what the query shows changed outside Memdir (Claude Code, a `git pull`, an
 *   editor: the watcher's events): read at once when nothing was read for that key in the last
 *   `spacingMs`, else once that time is over — one read per burst. A change Memdir made itself
 *   (`changed(key, false)`: an edit in this window or another) is read as `now`: the person who
 *   made it waits for it, and its bursts are one event each (a bulk change, a dream's apply).
 *
 * Every change has a read of its key that starts after it, so the last change is always shown;
 * and no answer lands after a newer one, since no two reads of a key overlap. Keys are the
 * query's arguments (a project's dir): another project is read at once, not after this one's read
 * (a key's few fields stay for the page's life: one per project or file opened).
 */

/** How often a burst of changes reads a query again, at most. */
export const CHANGE_SPACING_MS = 1_000;

export interface CoalescedReads<K> {
  /** Read `key` now, or right after its read in flight; resolves once a read begun after the call has ended. */
  now(key: K): Promise<void>;
  /** What `key`'s query shows changed: read it once per burst (`outside`, the default), else at once. */
  changed(key: K, outside?: boolean): void;
}

interface KeyState {
  reading: Promise<void> | null;
  next: Promise<void> | null;
  readAt: number;
  soon: ReturnType<typeof setTimeout> | null;
}

export function coalescedReads<K = string>(read: (key: K) => Promise<void>, spacingMs = CHANGE_SPACING_MS): CoalescedReads<K> {
  const keys = new Map<K, KeyState>();
  const stateOf = (key: K): KeyState => {
    let state = keys.get(key);
    if (!state) keys.set(key, (state = { reading: null, next: null, readAt: Number.NEGATIVE_INFINITY, soon: null }));
    return state;
  };
  const now = (key: K): Promise<void> => {
    const state = stateOf(key);
    if (!state.reading) {
      state.readAt = Date.now();
      state.reading = read(key)
        .catch(() => undefined)
        .finally(() => (state.reading = null));
      return state.reading;
    }
    state.next ??= state.reading.then(() => {
      state.next = null;
      return now(key);
    });
    return state.next;
  };
  return {
    now,
    changed(key, outside = true) {
      if (!outside) {
        void now(key);
        return;
      }
      const state = stateOf(key);
      // A read is due already, and it starts after this change.
      if (state.soon || state.next) return;
      const wait = state.readAt + spacingMs - Date.now();
      if (wait <= 0) {
        void now(key);
        return;
      }
      state.soon = setTimeout(() => {
        state.soon = null;
        void now(key);
      }, wait);
    },
  };
}
