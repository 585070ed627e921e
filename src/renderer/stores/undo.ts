/**
 * One undo for every destructive action (issue 14, "undo is whole"): a delete, a restore, a
 * revert, a confirmed dream, a resolved conflict, a bulk change — each is one history entry,
 * and its toast's Undo reverses that entry, files and index lines together (`history.undo`).
 * A file a later change touched stops the undo and names that change; "Undo anyway" overwrites (kept in history).
 */
import { RpcError } from '../../shared/contract/rpc-error.js';
import { call } from '../transport/transport.js';
import { messageOf } from './errors.js';
import { useToasts } from './toasts.js';

/** Undo the entry `rev` of project `dir`, saying what happened; offers to redo (undo the undo). */
export async function undoEntry(dir: string, rev: string, overwriteChanged = false): Promise<boolean> {
  try {
    const { entry, notes } = await call('history.undo', { dir, rev, ...(overwriteChanged ? { overwriteChanged } : {}) });
    const text = [entry ? 'Undone.' : 'Nothing to undo: it is already that way.', ...notes].join(' ');
    useToasts.getState().show('info', text, entry ? { label: 'Redo', run: () => void undoEntry(dir, entry.rev) } : undefined);
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

/** Say what was done, with one Undo (when it was recorded as an entry). */
export function offerUndo(dir: string, rev: string | null, text: string): void {
  useToasts.getState().show('info', text, rev ? { label: 'Undo', run: () => void undoEntry(dir, rev) } : undefined);
}
