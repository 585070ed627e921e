/**
 * Memory that follows the project (issue 18) on the dashboard: orphans and their candidate new
 * places, clone groups, the preview of a relink or a merge, its result (with its one undo) and
 * the conflicts it kept.
 */
import { create } from 'zustand';
import type { CloneGroup, ConflictSides, MergePlan, MergeRecord, OrphanReport } from '../../shared/contract/identity.js';
import { call } from '../transport/transport.js';
import { messageOf, type SecretAsk, secretAskOf } from './errors.js';
import { useProjects } from './projects.js';
import { sayRefusedUndo } from './undo.js';

/** What a preview is of: the same confirm button does either. */
export type PreviewOf = { kind: 'relink'; dir: string; path: string } | { kind: 'merge'; from: string; into: string };

interface IdentityState {
  report: OrphanReport | null;
  groups: CloneGroup[];
  lookIn: string[];
  busy: boolean;
  error: string | null;
  preview: { of: PreviewOf; plan: MergePlan } | null;
  result: MergeRecord | null;
  /** What the undo of `result` says besides: an edited MEMORY.md line an undo anyway took away, by directory. */
  undoNotes: string[];
  /** Merges a killed Memdir left between their folders, put back whole: one sentence each, shown with the merge results. */
  recovered: string[];
  conflict: { id: string; sides: ConflictSides } | null;
  /** A merged text refused because it would hold a secret: asked in the merge editor, saved anyway with `allowSecrets` on purpose. */
  secrets: SecretAsk | null;
  load: () => Promise<void>;
  addLookIn: (folder: string) => Promise<void>;
  previewRelink: (dir: string, path: string) => Promise<void>;
  previewMerge: (from: string, into: string) => Promise<void>;
  confirm: (force: boolean) => Promise<void>;
  cancel: () => void;
  /** Undo `result`; a change made since stops it, said with "Undo anyway" (`overwriteChanged`), as History's undo is. */
  undo: (overwriteChanged?: boolean) => Promise<void>;
  keepApart: (dirs: string[]) => Promise<void>;
  openConflict: (n: number) => Promise<void>;
  resolve: (keep: 'here' | 'moved' | 'both' | 'merged', text?: string, allowSecrets?: string[]) => Promise<void>;
  closeConflict: () => void;
  /** Back to the merge editor from its secret warning, nothing saved. */
  keepEditing: () => void;
}

export const useIdentity = create<IdentityState>()((set, get) => {
  const guarded = async (fn: () => Promise<void>) => {
    set({ busy: true, error: null });
    try {
      await fn();
    } catch (error) {
      set({ error: messageOf(error) });
    } finally {
      set({ busy: false });
    }
  };
  const refreshAll = async () => {
    // First, so the lists below read folders a killed merge no longer leaves half turned.
    const { recovered } = await call('identity.recovered', {});
    if (recovered.length > 0) set({ recovered: [...get().recovered, ...recovered] });
    const [report, { groups }] = await Promise.all([call('identity.orphans', { lookIn: get().lookIn }), call('identity.cloneGroups', {})]);
    set({ report, groups });
    void useProjects.getState().load();
  };
  return {
    report: null,
    groups: [],
    lookIn: [],
    busy: false,
    error: null,
    preview: null,
    result: null,
    undoNotes: [],
    recovered: [],
    conflict: null,
    secrets: null,
    load: () => guarded(refreshAll),
    addLookIn: (folder) =>
      guarded(async () => {
        set({ lookIn: [...new Set([...get().lookIn, folder.trim()])] });
        await refreshAll();
      }),
    previewRelink: (dir, path) =>
      guarded(async () => {
        set({ preview: { of: { kind: 'relink', dir, path }, plan: await call('identity.planRelink', { dir, path }) }, result: null });
      }),
    previewMerge: (from, into) =>
      guarded(async () => {
        set({ preview: { of: { kind: 'merge', from, into }, plan: await call('identity.planMerge', { from, into }) }, result: null });
      }),
    confirm: (force) =>
      guarded(async () => {
        const of = get().preview?.of;
        if (!of) return;
        const result =
          of.kind === 'relink'
            ? await call('identity.relink', { dir: of.dir, path: of.path, force })
            : await call('identity.merge', { from: of.from, into: of.into, force });
        set({ preview: null, result, undoNotes: [] });
        await refreshAll();
      }),
    cancel: () => set({ preview: null }),
    undo: (overwriteChanged = false) =>
      guarded(async () => {
        const id = get().result?.id;
        if (!id) return;
        let undone;
        try {
          undone = await call('identity.undo', { id, ...(overwriteChanged ? { overwriteChanged } : {}) });
        } catch (error) {
          sayRefusedUndo(error, overwriteChanged, () => void get().undo(true));
          return;
        }
        const { notes, ...result } = undone;
        set({ result, undoNotes: notes, conflict: null });
        await refreshAll();
      }),
    keepApart: (dirs) =>
      guarded(async () => {
        await call('identity.keepApart', { dirs });
        await refreshAll();
      }),
    openConflict: (n) =>
      guarded(async () => {
        const id = get().result?.id;
        if (id) set({ conflict: { id, sides: await call('identity.conflict', { id, n }) }, secrets: null });
      }),
    resolve: (keep, text, allowSecrets) =>
      guarded(async () => {
        const c = get().conflict;
        if (!c) return;
        set({ secrets: null });
        try {
          const input = { id: c.id, n: c.sides.conflict.n, keep, ...(text !== undefined ? { text } : {}), ...(allowSecrets?.length ? { allowSecrets } : {}) };
          set({ result: await call('identity.resolve', input), conflict: null });
        } catch (error) {
          const ask = secretAskOf(error, allowSecrets);
          // Asked in the merge editor, as the memory editor asks: the merge as edited stays there.
          if (!ask || get().conflict !== c) throw error;
          set({ secrets: ask });
          return;
        }
        void useProjects.getState().load();
      }),
    closeConflict: () => set({ conflict: null, secrets: null }),
    keepEditing: () => set({ secrets: null }),
  };
});

/** A project's identity in a few words, for a dashboard row. */
export function identityLine(identity: { source: string; remotes: string[]; rootCommits: string[] }): string | null {
  const parts: string[] = [];
  if (identity.remotes[0]) parts.push(identity.remotes[0] + (identity.remotes.length > 1 ? ` (+${identity.remotes.length - 1})` : ''));
  if (identity.rootCommits[0]) parts.push(`root ${identity.rootCommits[0].slice(0, 7)}`);
  if (parts.length === 0) return null;
  return identity.source === 'remembered' ? `${parts.join(' · ')} (remembered)` : parts.join(' · ');
}
