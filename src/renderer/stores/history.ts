/** A project's history: the timeline, a diff, restores (a whole snapshot asks first), deleted memories. */
import { create } from 'zustand';
import type { HistoryEntryShape, ImportedHistoryShape } from '../../shared/contract/common.js';
import { RpcError } from '../../shared/contract/rpc-error.js';
import { plural } from '../../shared/size-text.js';
import { call } from '../transport/transport.js';
import { coalescedReads } from './coalesced-read.js';
import { messageOf } from './errors.js';
import { useToasts } from './toasts.js';
import { offerUndo } from './undo.js';

interface Deleted {
  path: string;
  rev: string;
  deletedIn: string;
  time: string;
}

/** A whole-snapshot restore waiting for the person's yes: what it would change. */
export interface PendingRestore {
  rev: string;
  summary: string;
  time: string;
  changes: { path: string; status: 'added' | 'modified' | 'deleted' | 'retired' }[];
}

/** What a restore does to one file, in words (the plan's list and its summary). */
export const PLAN_WORDS: Record<PendingRestore['changes'][number]['status'], string> = {
  added: 'brought back',
  modified: 'rewritten',
  deleted: 'removed',
  // A team memory the sync server holds: emptied, not removed (a removed one would come back with the next sync).
  retired: 'retired (the team server holds it)',
};

/** What a restore plan means, in words: "2 files brought back, 1 file rewritten, 3 files removed". */
export function describePlan(changes: PendingRestore['changes']): string {
  const statuses = ['added', 'modified', 'deleted', 'retired'] as const;
  const parts = statuses
    .map((status) => [status, changes.filter((c) => c.status === status).length] as const)
    .filter(([, n]) => n > 0)
    .map(([status, n]) => `${plural(n, 'file')} ${PLAN_WORDS[status]}`);
  return parts.length === 0 ? 'Nothing would change: the memory is already that way.' : `${parts.join(', ')}.`;
}

interface HistoryState {
  dir: string | null;
  /** Whether `dir`'s history has been read yet: until then its empty `entries` say nothing (a big project's first read takes a while). */
  loaded: boolean;
  entries: HistoryEntryShape[];
  /** Histories imports brought in, newest import first: their entries are chosen and restored from as the dir's own (an undone import's only read). */
  imported: ImportedHistoryShape[];
  deleted: Deleted[];
  selected: string | null;
  diff: string;
  error: string | null;
  pendingRestore: PendingRestore | null;
  /** Read `dir`'s history now (one read at a time: calls made during one share the one after it). */
  load: (dir: string) => Promise<void>;
  /** Project `dir`'s memory changed: read its history again once per burst of changes if it is the one shown (`coalescedReads`). */
  onChanged: (dir: string, outside: boolean) => void;
  select: (rev: string) => Promise<void>;
  /**
   * Restore one file at once (it is one file, and Undo is one click away); `as`: under that name.
   * Another memory written at its name since it left stops it, and the notice offers to restore it beside that one,
   * or anyway (`anyway`: over it — it stays in history, and the notice says so).
   */
  restore: (rev: string, file: string, as?: string, anyway?: boolean) => Promise<void>;
  /** Ask before a whole-snapshot restore: fetch what it would change. */
  planSnapshot: (rev: string) => Promise<void>;
  confirmSnapshot: () => Promise<void>;
  cancelSnapshot: () => void;
}

/** The entry `rev`, in the dir's own history or an imported one. */
export function entryOf(state: Pick<HistoryState, 'entries' | 'imported'>, rev: string | null): HistoryEntryShape | undefined {
  return state.entries.find((e) => e.rev === rev) ?? state.imported.flatMap((h) => h.entries).find((e) => e.rev === rev);
}

/** Whether a restore from `rev` is offered: not when only imports undone since hold it (the host refuses it too). */
export function restorableFrom(state: Pick<HistoryState, 'entries' | 'imported'>, rev: string): boolean {
  if (state.entries.some((e) => e.rev === rev)) return true;
  const holding = state.imported.filter((h) => h.entries.some((e) => e.rev === rev));
  return holding.length === 0 || holding.some((h) => !h.undone);
}

export const useHistory = create<HistoryState>()((set, get) => {
  const reads = coalescedReads(async (dir: string) => {
    if (get().dir !== dir) return;
    try {
      const [{ entries, imported }, { files }] = await Promise.all([call('history.list', { dir }), call('history.deleted', { dir })]);
      if (get().dir !== dir) return;
      set({ entries, imported, deleted: files, error: null, loaded: true });
      const selected = get().selected ?? entries[0]?.rev ?? null;
      if (selected) await get().select(selected);
    } catch (error) {
      if (get().dir === dir) set({ error: messageOf(error) });
    }
  });
  return {
    dir: null,
    loaded: false,
    entries: [],
    imported: [],
    deleted: [],
    selected: null,
    diff: '',
    error: null,
    pendingRestore: null,
    load(dir) {
      if (get().dir !== dir) set({ dir, loaded: false, entries: [], imported: [], deleted: [], selected: null, diff: '', pendingRestore: null });
      return reads.now(dir);
    },
    onChanged(dir, outside) {
      if (get().dir === dir) reads.changed(dir, outside);
    },
    async select(rev) {
      const dir = get().dir;
      if (!dir) return;
      set({ selected: rev });
      try {
        const { diff } = await call('history.diff', { dir, from: null, to: rev });
        if (get().selected === rev) set({ diff });
      } catch (error) {
        set({ error: messageOf(error) });
      }
    },
    async restore(rev, file, as, anyway) {
      const dir = get().dir;
      if (!dir) return;
      try {
        const { entry, notes } = await call('history.restore', { dir, rev, file, ...(as ? { as } : {}), ...(anyway ? { overwriteChanged: true } : {}) });
        const done = as
          ? `Restored ${file} as ${as}.`
          : anyway
            ? `Restored ${file} anyway: what was there stays in history (Undo puts it back).`
            : `Restored ${file}.`;
        if (entry) offerUndo(dir, entry.rev, done, notes);
        else useToasts.getState().show('info', 'Nothing to restore: it is already that way.');
        await get().load(dir);
      } catch (error) {
        // Another memory holds its name now (written since it left): never overwritten unasked; it can come back
        // beside it, or over it (what is there now is recorded in history first: the restore's Undo brings it back).
        const beside = file.replace(/(\.md)?$/i, '-restored$1');
        if (error instanceof RpcError && error.code === 'conflict' && !as && !anyway) {
          useToasts
            .getState()
            .show(
              'error',
              error.message,
              { label: `Restore as ${beside}`, run: () => void get().restore(rev, file, beside) },
              { also: { label: 'Restore anyway', run: () => void get().restore(rev, file, undefined, true) } },
            );
        } else useToasts.getState().show('error', messageOf(error));
      }
    },
    async planSnapshot(rev) {
      const dir = get().dir;
      const entry = entryOf(get(), rev);
      if (!dir || !entry) return;
      try {
        const { changes } = await call('history.plan', { dir, rev });
        set({ pendingRestore: { rev, summary: entry.summary, time: entry.time, changes } });
      } catch (error) {
        useToasts.getState().show('error', messageOf(error));
      }
    },
    async confirmSnapshot() {
      const dir = get().dir;
      const pending = get().pendingRestore;
      if (!dir || !pending) return;
      set({ pendingRestore: null });
      try {
        const { entry } = await call('history.restore', { dir, rev: pending.rev });
        // Counted as its confirmation counted them, one per name: a rename back is a file brought back and one removed.
        const files = entry ? entry.files.reduce((n, f) => n + (f.status === 'renamed' ? 2 : 1), 0) : 0;
        if (entry) offerUndo(dir, entry.rev, `Restored the whole snapshot: ${plural(files, 'file')} changed.`);
        else useToasts.getState().show('info', 'Nothing to restore: it is already that way.');
        await get().load(dir);
      } catch (error) {
        useToasts.getState().show('error', messageOf(error));
      }
    },
    cancelSnapshot() {
      set({ pendingRestore: null });
    },
  };
});
