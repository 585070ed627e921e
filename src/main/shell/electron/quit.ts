/**
 * Quitting the desktop app, with a cap: the window's calls in flight end and the app's services
 * close (a save finishes its history commit) — or, past {@link QUIT_CAP_MS}, Memdir quits anyway
 * and says what was still running. A cut change is never half a file: every writer replaces a
 * file whole (safe-fs's temp file + rename; history's crash test kills writers at random moments),
 * and the next write in that folder records what reached the disk in History (call-gate.test.ts
 * cuts real saves with this quit, then reads and saves on what they left).
 *
 * Plain Node: nothing here imports `electron`; main.ts holds `before-quit` on {@link closeWithin}.
 */
import type { CallGate } from './call-gate.js';
import { READING } from './call-words.js';

/** How long a quit waits for calls in flight and the app's close: longer than a save's history commit on a slow disk. */
export const QUIT_CAP_MS = 10_000;

/** What the app's own close (AppContext.close) was doing when the cap came, in words. */
export const CLOSING_APP = 'stopping background work (team and personal sync, dreams, extraction)';

/**
 * Close the gate, then the app (`closeApp`), for at most `capMs`: resolves with what was still
 * running when the cap came, in words (empty: everything ended in time). A close that fails
 * ends it too: quitting never hangs on an error.
 */
export async function closeWithin(gate: CallGate, closeApp: () => Promise<void>, capMs: number = QUIT_CAP_MS): Promise<string[]> {
  // Moved on by the closing chain, read after the race: a box, so TypeScript does not narrow it.
  const at: { stage: 'calls' | 'app' | 'done' } = { stage: 'calls' };
  const closing = gate
    .close()
    .then(() => {
      at.stage = 'app';
      return closeApp();
    })
    .catch(() => undefined)
    .then(() => {
      at.stage = 'done';
    });
  let timer: NodeJS.Timeout | undefined;
  const cap = new Promise<void>((resolve) => (timer = setTimeout(resolve, capMs)));
  await Promise.race([closing, cap]);
  clearTimeout(timer);
  if (at.stage === 'done') return [];
  return at.stage === 'calls' ? gate.running() : [CLOSING_APP];
}

/**
 * The sentence for a quit that did not wait for `unfinished` (closeWithin's answer): what was
 * running, and what to do about it. Null when nothing was cut.
 */
export function quitCutSentence(unfinished: readonly string[], capMs: number = QUIT_CAP_MS): string | null {
  if (unfinished.length === 0) return null;
  const waited = `Memdir quit after waiting ${Math.round(capMs / 1000)} s`;
  const changes = [...new Set(unfinished.filter((what) => what !== READING))];
  if (changes.length === 0) return `${waited} for the window to finish reading; nothing was being changed.`;
  return (
    `${waited} for: ${changes.join('; ')}. ` +
    'Each file it was writing is either as it was or wholly written, never half: open Memdir again, look at what you changed, and make the change again if it is not there.'
  );
}
