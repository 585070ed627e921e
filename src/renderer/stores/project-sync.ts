/**
 * What team sync and personal sync share in the renderer: the open project's sync state, "Sync
 * now", and its conflicts opened in the merge editor and resolved. Each store passes in its calls
 * to main and its own words for what a resolution did; the rest (which project is open, when a
 * late answer is dropped, what is busy) is written once here.
 */
import type { ConflictDetail, ConflictResolution, SyncReport } from '../../shared/contract/team.js';
import { coalescedReads } from './coalesced-read.js';
import { messageOf, type SecretAsk, secretAskOf } from './errors.js';
import { useToasts } from './toasts.js';
import { offerUndo } from './undo.js';

/** One resolution's answer, the same for team and personal sync. */
export interface ResolveAnswer {
  rev: string | null;
  report: SyncReport | null;
}

/** One side of sync (team or personal): its calls to main and what it says. */
export interface SyncSide<S> {
  status: (dir: string) => Promise<S>;
  sync: (dir: string) => Promise<SyncReport>;
  conflict: (dir: string, id: string) => Promise<ConflictDetail>;
  resolve: (
    dir: string,
    input: { id: string; take: ConflictResolution; text?: string; theirsSha: string | null; allowSecrets?: string[] },
  ) => Promise<ResolveAnswer>;
  /** What a resolution did, in this side's words; `failed`: it was saved but its push failed. */
  resolved: (detail: ConflictDetail, take: ConflictResolution, answer: ResolveAnswer) => { text: string; failed: boolean };
  /** A refused resolution reopens the conflict, so the editor shows the file as it now is. */
  reopenRefused: boolean;
}

/** The open project's sync, as a zustand slice. */
export interface ProjectSyncSlice<S> {
  dir: string | null;
  /** The open project's sync state; null until read. */
  project: S | null;
  /** The conflict open in the merge editor. */
  detail: ConflictDetail | null;
  /** A merge refused because it would hold a secret: asked in the merge editor, saved anyway with `allowSecrets` on purpose. */
  secrets: SecretAsk | null;
  busy: boolean;
  error: string | null;
  open: (dir: string) => Promise<void>;
  /** Read the open project's sync now (one read at a time: calls made during one share the one after it). */
  refresh: () => Promise<void>;
  /**
   * Project `dir`'s sync changed (`null`: any may have): read again if it is the one open, once per
   * burst (`coalescedReads`) — a sync pulling 20 files, or syncs one after another, is one read a second.
   */
  onSyncChanged: (dir: string | null) => void;
  /** Sync the open project now (or `dir`, from elsewhere: the palette). */
  syncNow: (dir?: string) => Promise<void>;
  openConflict: (id: string) => Promise<void>;
  closeConflict: () => void;
  /** Resolve the open conflict (a merged text with secrets allowed on purpose: their fingerprints). */
  resolve: (take: ConflictResolution, text?: string, allowSecrets?: string[]) => Promise<void>;
  /** Back to the merge editor from its secret warning, nothing saved. */
  keepEditing: () => void;
  /** Do `work` on the open project while busy; a failure is said in a toast. */
  onProject: (work: (dir: string) => Promise<void>) => Promise<void>;
}

/** One line about what a sync did, for a toast. */
export function reportMessage(report: SyncReport): { kind: 'info' | 'error'; text: string } {
  if (report.error) return { kind: 'error', text: `Sync failed: ${report.error.message}` };
  const parts: string[] = [];
  if (report.pull.written.length) parts.push(`${report.pull.written.length} file${report.pull.written.length === 1 ? '' : 's'} pulled`);
  if (report.pull.conflicts.length) parts.push(`${report.pull.conflicts.length} conflict${report.pull.conflicts.length === 1 ? '' : 's'} kept for you`);
  if (report.push.uploaded.length) parts.push(`${report.push.uploaded.length} pushed`);
  const held = report.waiting.filter((w) => w.reason !== 'pending').length;
  if (held) parts.push(`${held} held back`);
  return {
    kind: report.pull.conflicts.length || held ? 'error' : 'info',
    text: parts.length ? `Synced: ${parts.join(', ')}.` : 'Synced: nothing new either way.',
  };
}

/** The slice's state and actions over `side`, for a store's `create((set, get) => …)`. */
export function projectSyncSlice<S>(
  side: SyncSide<S>,
  set: (partial: Partial<ProjectSyncSlice<S>>) => void,
  get: () => ProjectSyncSlice<S>,
): ProjectSyncSlice<S> {
  const toastError = (error: unknown) => useToasts.getState().show('error', messageOf(error));
  const reads = coalescedReads(async (dir: string) => {
    if (get().dir !== dir) return;
    try {
      const project = await side.status(dir);
      // An answer for a project left meanwhile is dropped.
      if (get().dir === dir) set({ project, error: null });
    } catch (error) {
      if (get().dir === dir) set({ error: messageOf(error) });
    }
  });
  return {
    dir: null,
    project: null,
    detail: null,
    secrets: null,
    busy: false,
    error: null,
    async open(dir) {
      if (get().dir !== dir) set({ dir, project: null, detail: null, secrets: null, error: null });
      await get().refresh();
    },
    refresh() {
      const dir = get().dir;
      return dir ? reads.now(dir) : Promise.resolve();
    },
    onSyncChanged(dir) {
      const open = get().dir;
      if (open && (dir === null || dir === open)) reads.changed(open);
    },
    async syncNow(dir) {
      const target = dir ?? get().dir;
      if (!target) return;
      set({ busy: true });
      try {
        const message = reportMessage(await side.sync(target));
        useToasts.getState().show(message.kind, message.text);
        if (get().dir === target) await get().refresh();
      } catch (error) {
        toastError(error);
      } finally {
        set({ busy: false });
      }
    },
    async openConflict(id) {
      const dir = get().dir;
      if (!dir) return;
      try {
        set({ detail: await side.conflict(dir, id), secrets: null });
      } catch (error) {
        toastError(error);
      }
    },
    closeConflict() {
      set({ detail: null, secrets: null });
    },
    keepEditing() {
      set({ secrets: null });
    },
    async onProject(work) {
      const dir = get().dir;
      if (!dir) return;
      set({ busy: true });
      try {
        await work(dir);
      } catch (error) {
        toastError(error);
      } finally {
        set({ busy: false });
      }
    },
    async resolve(take, text, allowSecrets) {
      const { dir, detail } = get();
      if (!dir || !detail) return;
      set({ busy: true, secrets: null });
      try {
        const answer = await side.resolve(dir, {
          id: detail.conflict.id,
          take,
          ...(text !== undefined ? { text } : {}),
          theirsSha: detail.theirsSha,
          ...(allowSecrets?.length ? { allowSecrets } : {}),
        });
        set({ detail: null });
        // Every resolution (keep theirs, mine, both, a merge) is one history entry: its notice offers that entry's
        // Undo — the file back as it was before, bytes and mode, and the conflict open again (followTakenBack);
        // saved with its push failed too (nothing pushed yet: the entry is there to take back).
        const said = side.resolved(detail, take, answer);
        offerUndo(dir, answer.rev, said.text, [], undefined, said.failed ? 'error' : 'info');
        await get().refresh();
      } catch (error) {
        const ask = secretAskOf(error, allowSecrets);
        // Asked in the merge editor, as the memory editor asks: the merge as edited stays there.
        if (ask && get().detail === detail) {
          set({ secrets: ask });
          return;
        }
        toastError(error);
        if (side.reopenRefused) await get().openConflict(detail.conflict.id);
      } finally {
        set({ busy: false });
      }
    },
  };
}
