/**
 * Unsaved drafts, one per file, kept by main so they survive switching memory or project,
 * closing the window and restarting the app (issue 14). The editor keeps its draft here as it
 * is typed (a short debounce, flushed whenever the editor moves on); the Drafts view lists them.
 */
import { create } from 'zustand';
import type { DraftRef, StoredDraft } from '../../shared/contract/drafts.js';
import { INDEX_FILE } from '../../shared/limits.js';
import type { Scope } from '../../shared/memory-types.js';
import { RpcError } from '../../shared/contract/rpc-error.js';
import { call } from '../transport/transport.js';
import { messageOf, sentenceOf } from './errors.js';
import { useToasts } from './toasts.js';

/** One key per file (a new memory: one per project). */
export function draftKey(ref: DraftRef): string {
  return ref.file === null ? `${ref.dir}\0new` : `${ref.dir}\0${ref.scope}\0${ref.file}`;
}

/** MEMORY.md's draft is kept here too, as its file's: the index editor's text as the body, the text it started from as the base. */
export function indexDraftRef(dir: string, scope: Scope): DraftRef {
  return { dir, scope, file: INDEX_FILE };
}

/** The draft of an index edit. */
export function indexDraft(ref: DraftRef, memoryDir: string, edit: { base: string; draft: string }): Omit<StoredDraft, 'savedAt'> {
  return { ...ref, memoryDir, baseText: edit.base, name: '', description: '', type: null, body: edit.draft, newFile: '', frontmatter: null };
}

/** Whether a draft is of an index (opened in the MEMORY.md tab, not the memory editor). */
export function isIndexDraft(ref: DraftRef): boolean {
  return ref.file === INDEX_FILE;
}

/** Newest first, stable by key for equal times. */
export function sortDrafts(drafts: StoredDraft[]): StoredDraft[] {
  return [...drafts].sort((a, b) => b.savedAt.localeCompare(a.savedAt) || draftKey(a).localeCompare(draftKey(b)));
}

/** How long typing settles before a draft is written (it is written at once when the editor moves on). */
const SETTLE_MS = 300;

type Pending = { draft: Omit<StoredDraft, 'savedAt'>; timer: ReturnType<typeof setTimeout> };

interface DraftsState {
  drafts: Record<string, StoredDraft>;
  loaded: boolean;
  /** Read the list (the app's start, the Drafts view): every draft listed counts as seen by this window. */
  load: () => Promise<void>;
  /**
   * A window kept or forgot a draft (`drafts-changed`): another window's change is read again so
   * the list and the sidebar's count show it; this window's own is already here. What is only
   * listed is not "seen" (a write here still does not replace another window's draft unseen);
   * a burst of changes is read once more after the read under way. `window` null: not known (the
   * stream dropped meanwhile), read again.
   */
  onChanged: (event: { window: string | null }) => void;
  /** The stored draft of a file, once the list is loaded. */
  find: (ref: DraftRef) => Promise<StoredDraft | null>;
  /** Keep a draft (debounced write). */
  keep: (draft: Omit<StoredDraft, 'savedAt'>) => void;
  /** Write every draft still waiting for its debounce. */
  flush: () => Promise<void>;
  /** Forget this window's draft of a file (saved, set aside): another window's draft this one has not seen stays. */
  discard: (ref: DraftRef) => Promise<void>;
  /** Keep this window's draft over another window's, seen now (the person chose it). */
  keepOver: (draft: Omit<StoredDraft, 'savedAt'>) => Promise<void>;
  /** Discard a draft from the Drafts list, saying so with an Undo that keeps it again. */
  throwAway: (draft: StoredDraft) => Promise<void>;
}

/** This window (one page load): main keeps another window's unsaved draft of a file from being replaced unseen. */
const WINDOW = crypto.randomUUID();

/** Whether a draft event came from this window (its own keep or discard). */
export function isThisWindow(window: string | null): boolean {
  return window === WINDOW;
}
/** Per file, the savedAt of the stored draft this window last saw (listed, or written by it): what a write may replace. */
const seen = new Map<string, string>();

const pending = new Map<string, Pending>();
/** Per file, the last write or discard sent: the next waits for it, so a late write never revives a discarded draft. */
const inFlight = new Map<string, Promise<void>>();
/** Per file, how many writes or discards of this window are queued or under way. */
const busy = new Map<string, number>();
/** The files this window changed while each list read is under way: what it did wins over what that list says. */
const reads = new Set<Set<string>>();
let loading: Promise<void> | null = null;

/** This window changed a file's draft (typed, wrote, discarded): a list read now under way may be older. */
function touch(key: string): void {
  for (const touched of reads) touched.add(key);
}

function inOrder(key: string, work: () => Promise<void>): Promise<void> {
  busy.set(key, (busy.get(key) ?? 0) + 1);
  touch(key);
  const next = (inFlight.get(key) ?? Promise.resolve()).then(work).finally(() => {
    touch(key);
    const left = (busy.get(key) ?? 1) - 1;
    if (left > 0) busy.set(key, left);
    else busy.delete(key);
  });
  inFlight.set(key, next);
  return next;
}

/**
 * The stored drafts, as main lists them now, with this window's changes the list may not have
 * seen yet (typed and not yet written, written or discarded while it was read) kept as they are
 * here. `see`: the listed drafts count as seen by this window (what a write may replace).
 */
async function readList(see: boolean): Promise<void> {
  const touched = new Set<string>([...pending.keys(), ...busy.keys()]);
  reads.add(touched);
  try {
    const { drafts } = await call('drafts.list', {});
    if (see) for (const d of drafts) if (!touched.has(draftKey(d))) seen.set(draftKey(d), d.savedAt);
    const current = useDrafts.getState().drafts;
    const listed = Object.fromEntries(drafts.filter((d) => !touched.has(draftKey(d))).map((d) => [draftKey(d), d]));
    const mine = Object.fromEntries([...touched].flatMap((key) => (current[key] ? [[key, current[key]]] : [])));
    useDrafts.setState({ drafts: { ...listed, ...mine }, loaded: true });
  } finally {
    reads.delete(touched);
  }
}

/** The list read for another window's change: one at a time, and one more after it for changes heard meanwhile. */
let refreshing: Promise<void> | null = null;
let again = false;
function refresh(): void {
  if (refreshing) {
    again = true;
    return;
  }
  refreshing = readList(false)
    .catch(() => {
      // The list stays as it was; the next change, or the stream's resync, reads it again.
    })
    .finally(() => {
      refreshing = null;
      if (again) {
        again = false;
        refresh();
      }
    });
}

function write(draft: Omit<StoredDraft, 'savedAt'>): Promise<void> {
  const key = draftKey(draft);
  return inOrder(key, async () => {
    try {
      const { draft: stored } = await call('drafts.keep', { ...draft, window: WINDOW, over: seen.get(key) ?? null });
      seen.set(key, stored.savedAt);
      // Discarded meanwhile (saved, thrown away): the stored copy goes too.
      if (!useDrafts.getState().drafts[key]) await discardStored(draft, seen.get(key) ?? null);
      else useDrafts.setState((s) => ({ drafts: { ...s.drafts, [key]: stored } }));
    } catch (error) {
      if (error instanceof RpcError && error.code === 'conflict') {
        // Another window's draft of this file: said, and this window's kept over it only when the person says so.
        useToasts.getState().show('error', error.message, { label: 'Keep mine instead', run: () => void keepOver(draft) });
      } else useToasts.getState().show('error', `Your draft could not be kept: ${sentenceOf(error)} It is still in the editor.`);
    }
  });
}

/** Keep this window's draft over another window's, seen now (the person chose it). */
async function keepOver(draft: Omit<StoredDraft, 'savedAt'>): Promise<void> {
  const { drafts } = await call('drafts.list', {});
  const theirs = drafts.find((d) => draftKey(d) === draftKey(draft));
  if (theirs) seen.set(draftKey(draft), theirs.savedAt);
  await write(draft);
}

/**
 * Forget the stored draft of a file if it is this window's, or the one it saw (`over`: that
 * draft's savedAt): a save here never deletes another window's unsaved edit. Whether it went.
 */
async function discardStored(ref: DraftRef, over: string | null): Promise<boolean> {
  seen.delete(draftKey(ref));
  const { discarded } = await call('drafts.discard', { dir: ref.dir, scope: ref.scope, file: ref.file, window: WINDOW, over });
  return discarded;
}

export const useDrafts = create<DraftsState>()((set, get) => ({
  drafts: {},
  loaded: false,
  load() {
    loading = readList(true).catch((error: unknown) => {
      set({ loaded: true });
      useToasts.getState().show('error', `Drafts could not be read: ${messageOf(error)}`);
    });
    return loading;
  },
  onChanged(event) {
    if (!isThisWindow(event.window)) refresh();
  },
  async find(ref) {
    if (!get().loaded) await (loading ?? get().load());
    const found = get().drafts[draftKey(ref)] ?? null;
    // Opened in this window's editor: the person sees it, so a write here may replace it.
    if (found && !pending.has(draftKey(ref)) && !busy.has(draftKey(ref))) seen.set(draftKey(ref), found.savedAt);
    return found;
  },
  keep(draft) {
    const key = draftKey(draft);
    const waiting = pending.get(key);
    if (waiting) clearTimeout(waiting.timer);
    touch(key);
    // Shown at once (the list, the badge), written once typing settles.
    set({ drafts: { ...get().drafts, [key]: { ...draft, savedAt: new Date().toISOString() } } });
    pending.set(key, {
      draft,
      timer: setTimeout(() => {
        pending.delete(key);
        void write(draft);
      }, SETTLE_MS),
    });
  },
  async flush() {
    const all = [...pending.values()];
    pending.clear();
    for (const p of all) clearTimeout(p.timer);
    await Promise.all(all.map((p) => write(p.draft)));
  },
  async discard(ref) {
    const key = draftKey(ref);
    const waiting = pending.get(key);
    if (waiting) clearTimeout(waiting.timer);
    pending.delete(key);
    touch(key);
    const { [key]: _gone, ...rest } = get().drafts;
    set({ drafts: rest });
    await inOrder(key, async () => {
      try {
        // Another window's draft this one has not seen stays stored: the list shows it again.
        if (!(await discardStored(ref, seen.get(key) ?? null))) refresh();
      } catch (error) {
        useToasts.getState().show('error', messageOf(error));
      }
    });
  },
  keepOver,
  async throwAway(draft) {
    const what = draft.file ?? 'a new memory';
    const key = draftKey(draft);
    // The draft as listed: one another window typed since stays, and the list shows it.
    seen.set(key, draft.savedAt);
    await get().discard(draft);
    const { drafts } = await call('drafts.list', {}).catch(() => ({ drafts: [] as StoredDraft[] }));
    const newer = drafts.find((d) => draftKey(d) === key);
    if (newer) {
      seen.set(key, newer.savedAt);
      set({ drafts: { ...get().drafts, [key]: newer } });
      useToasts.getState().show('info', `The draft of ${what} was changed in another window since it was listed, so it was kept: here it is as it is now.`);
      return;
    }
    const { savedAt: _at, ...kept } = draft;
    useToasts.getState().show('info', `Discarded the draft of ${what}.`, {
      label: 'Undo',
      // Written at once: nothing is being typed, and a window closed right after must not lose it.
      run: () => {
        get().keep(kept);
        void get().flush();
      },
    });
  },
}));
