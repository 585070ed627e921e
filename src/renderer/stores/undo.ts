/**
 * One undo for every destructive action (issue 14, "undo is whole"): a delete, a restore, a
 * revert, a confirmed dream, a resolved conflict, a bulk change — each is one history entry,
 * and its toast's Undo reverses that entry, files and index lines together (`history.undo`).
 * A file a later change touched stops the undo and names that change; "Undo anyway" overwrites (kept in history).
 */
import { RpcError } from '../../shared/contract/rpc-error.js';
import { placementOf } from '../../shared/index-restore.js';
import { plural } from '../../shared/size-text.js';
import { call } from '../transport/transport.js';
import { messageOf } from './errors.js';
import { useToasts } from './toasts.js';

/** Undo the entry `rev` of project `dir`, saying what happened; offers to redo (undo the undo). */
export async function undoEntry(dir: string, rev: string, overwriteChanged = false): Promise<boolean> {
  try {
    const { entry, notes } = await call('history.undo', { dir, rev, ...(overwriteChanged ? { overwriteChanged } : {}) });
    const { text, details } = noticeOf(entry ? 'Undone.' : 'Nothing to undo: it is already that way.', notes);
    useToasts.getState().show('info', text, entry ? { label: 'Redo', run: () => void undoEntry(dir, entry.rev) } : undefined, { details });
    return entry !== null;
  } catch (error) {
    sayRefusedUndo(error, overwriteChanged, () => void undoEntry(dir, rev, true));
    return false;
  }
}

/**
 * An undo refused, said: a change made since (a conflict) with "Undo anyway", which runs `anyway`
 * (what is there now stays in history) — History's undo and a merge's alike; anything else as it is.
 */
export function sayRefusedUndo(error: unknown, overwriteChanged: boolean, anyway: () => void): void {
  if (error instanceof RpcError && error.code === 'conflict' && !overwriteChanged) {
    useToasts.getState().show('error', error.message, { label: 'Undo anyway', run: anyway });
  } else useToasts.getState().show('error', messageOf(error));
}

/**
 * Say what was done (`text`, then `notes`: noticeOf), with one Undo (when it was recorded as an entry);
 * `more`: lines of its own behind a button of its own (a bulk change's memories left, by reason).
 */
export function offerUndo(
  dir: string,
  rev: string | null,
  text: string,
  notes: readonly string[] = [],
  more?: { details: string[]; detailsLabel: string },
  /** `error`: done, but with a failure to say (a resolution saved whose push failed) — its Undo offered all the same. */
  kind: 'info' | 'error' = 'info',
): void {
  const notice = noticeOf(text, notes);
  const details = [...notice.details, ...(more?.details ?? [])];
  useToasts.getState().show(kind, notice.text, rev ? { label: 'Undo', run: () => void undoEntry(dir, rev) } : undefined, {
    details,
    ...(more ? { detailsLabel: more.detailsLabel } : {}),
  });
}

/** From this many pointers put back, a notice says how many in one line instead of one sentence each. */
const MANY_POINTERS = 3;

/**
 * A notice of `lead` and the host's `notes`, short: the sentences saying where each pointer is back
 * (index-restore's describePlacement), when there are many, become one line per index — "Put back
 * 15 pointers in MEMORY.md (2 past the cut)." — and are kept whole in `details` ("Show all"). A list
 * of fifteen lines covered the buttons under it. Other notes stay in the line as they are.
 */
export function noticeOf(lead: string, notes: readonly string[]): { text: string; details: string[] } {
  const placed = notes.filter((n) => placementOf(n) !== null);
  if (placed.length < MANY_POINTERS) return { text: [lead, ...notes].join(' '), details: [] };
  const byIndex = new Map<string, { n: number; cut: number; pushing: number }>();
  for (const note of placed) {
    const { index, cut } = placementOf(note)!;
    const count = byIndex.get(index) ?? { n: 0, cut: 0, pushing: 0 };
    byIndex.set(index, { n: count.n + 1, cut: count.cut + (cut ? 1 : 0), pushing: count.pushing + (note.includes(' It pushes ') ? 1 : 0) });
  }
  const lines = [...byIndex].map(([index, c]) => {
    const more = [c.cut > 0 ? `${c.cut} past the cut` : '', c.pushing > 0 ? `${c.pushing} pushing others past it` : ''].filter(Boolean).join(', ');
    return `Put back ${plural(c.n, 'pointer')} in ${index}${more ? ` (${more})` : ''}.`;
  });
  return { text: [lead, ...lines, ...notes.filter((n) => placementOf(n) === null)].join(' '), details: placed };
}
