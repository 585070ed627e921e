/** A project's history: the timeline, a diff, restores, deleted memories. */
import { create } from 'zustand';
import type { HistoryEntryShape } from '../../shared/contract/common.js';
import { call } from '../transport/transport.js';
import { messageOf } from './errors.js';
import { useToasts } from './toasts.js';

interface Deleted {
  path: string;
  rev: string;
  deletedIn: string;
  time: string;
}

interface HistoryState {
  dir: string | null;
  entries: HistoryEntryShape[];
  deleted: Deleted[];
  selected: string | null;
  diff: string;
  error: string | null;
  load: (dir: string) => Promise<void>;
  select: (rev: string) => Promise<void>;
  restore: (rev: string, file?: string) => Promise<void>;
}

export const useHistory = create<HistoryState>()((set, get) => ({
  dir: null,
  entries: [],
  deleted: [],
  selected: null,
  diff: '',
  error: null,
  async load(dir) {
    if (get().dir !== dir) set({ dir, entries: [], deleted: [], selected: null, diff: '' });
    try {
      const [{ entries }, { files }] = await Promise.all([call('history.list', { dir }), call('history.deleted', { dir })]);
      if (get().dir !== dir) return;
      set({ entries, deleted: files, error: null });
      const selected = get().selected ?? entries[0]?.rev ?? null;
      if (selected) await get().select(selected);
    } catch (error) {
      set({ error: messageOf(error) });
    }
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
  async restore(rev, file) {
    const dir = get().dir;
    if (!dir) return;
    try {
      const { entry } = await call('history.restore', { dir, rev, ...(file ? { file } : {}) });
      useToasts.getState().show('info', entry ? `Restored ${file ?? 'the snapshot'}.` : 'Nothing to restore: it is already that way.');
      await get().load(dir);
    } catch (error) {
      useToasts.getState().show('error', messageOf(error));
    }
  },
}));
