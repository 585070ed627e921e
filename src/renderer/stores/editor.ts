/**
 * The memory editor: one memory open (or a new one being written), its draft, and the rules
 * that keep an edit from being lost (issue 14). An edit is bound to its file — project, scope,
 * file, the folder it was read from and the text it started from — and a save carries all of it
 * to main, which refuses one that no longer matches. Moving to another memory or project keeps
 * the edit as a draft (restored on return, listed under Drafts, kept across restarts). A file
 * changed on disk meanwhile is shown beside the draft; one deleted on disk can be recreated from
 * it; a save that would push pointers past the index cut asks first.
 */
import { create } from 'zustand';
import { RpcError } from '../../shared/contract/rpc-error.js';
import type { StoredDraft } from '../../shared/contract/drafts.js';
import type { MemoryDoc } from '../../shared/contract/memories.js';
import { indexImpact, type IndexImpact } from '../../shared/index-impact.js';
import { MEMORY_TYPES, type MemoryType, type Scope, defaultScope, scopeRefusal } from '../../shared/memory-types.js';
import { TEAM_DIR } from '../../shared/limits.js';
import { memoryTextTooLarge } from '../../shared/size-text.js';
import { call } from '../transport/transport.js';
import { coalescedReads } from './coalesced-read.js';
import { draftKey, isThisWindow, useDrafts } from './drafts.js';
import { messageOf, type SecretAsk, secretAskOf, sentenceOf } from './errors.js';
import { useNav } from './nav.js';
import { useToasts } from './toasts.js';
import { offerUndo } from './undo.js';

export interface Draft {
  name: string;
  description: string;
  /** null while no valid type is picked (a file whose type is invalid or missing). */
  type: MemoryType | null;
  body: string;
  scope: Scope;
  /** For a new memory: the file name (empty = derived from type and name). */
  file: string;
  /** The frontmatter YAML being repaired, when the file's own cannot be read; else null. */
  frontmatter: string | null;
}

/** What is open: a file of a project's scope, or (file null) the project's new memory. */
export interface EditorTarget {
  dir: string;
  scope: Scope;
  file: string | null;
}

/** How a team memory's path in the memory dir (and its history) begins. */
const TEAM_PREFIX = `${TEAM_DIR}/`;

export function sameTarget(a: EditorTarget | null, b: EditorTarget | null): boolean {
  if (!a || !b) return a === b;
  return a.dir === b.dir && a.file === b.file && (a.file === null || a.scope === b.scope);
}

/** One string per open file (the editor's reads of it are coalesced by it). */
function targetKey(target: EditorTarget): string {
  return JSON.stringify([target.dir, target.scope, target.file]);
}

export function draftOf(doc: MemoryDoc, scope: Scope): Draft {
  return {
    name: doc.name,
    description: doc.description,
    type: doc.type,
    body: doc.body,
    scope,
    file: doc.file,
    frontmatter: doc.frontmatterError ? doc.frontmatter : null,
  };
}

export function emptyDraft(scope?: Scope, type: MemoryType = 'feedback'): Draft {
  return { name: '', description: '', type, body: '', scope: scope ?? defaultScope(type), file: '', frontmatter: null };
}

export function isDirty(doc: MemoryDoc | null, draft: Draft | null): boolean {
  if (!draft) return false;
  if (!doc) return draft.name !== '' || draft.description !== '' || draft.body !== '';
  const base = draftOf(doc, draft.scope);
  return (
    draft.name !== base.name ||
    draft.description !== base.description ||
    draft.type !== base.type ||
    draft.body !== base.body ||
    draft.frontmatter !== base.frontmatter
  );
}

/** Whether the file itself needs repair (saving it as shown fixes it), even with nothing typed. */
export function needsRepair(doc: MemoryDoc | null): boolean {
  return doc !== null && (doc.type === null || doc.frontmatterError !== null || doc.missingFields.length > 0);
}

/** Changing the type of a new memory moves it to that type's default scope (R-TYPES). */
export function withType(draft: Draft, type: MemoryType, isNew: boolean): Draft {
  const scope = isNew ? defaultScope(type) : type === 'user' ? 'private' : draft.scope;
  return { ...draft, type, scope };
}

/** Why this draft cannot be saved as is, or null. */
export function draftProblem(draft: Draft): string | null {
  if (!draft.name.trim()) return 'Give the memory a name.';
  if (!draft.description.trim()) return 'Add a one-line description: recall chooses memories by it.';
  if (/[\r\n]/.test(draft.description)) return 'The description must be one line.';
  if (draft.type === null) return `Pick a type: ${MEMORY_TYPES.join(', ')}.`;
  const size = memoryTextTooLarge(draft.body);
  if (size) return size;
  return scopeRefusal(draft.type, draft.scope);
}

/** The draft as main keeps it. */
export function toStored(target: EditorTarget, memoryDir: string, doc: MemoryDoc | null, draft: Draft): Omit<StoredDraft, 'savedAt'> {
  return {
    dir: target.dir,
    scope: target.file === null ? draft.scope : target.scope,
    file: target.file,
    memoryDir,
    baseText: doc?.text ?? null,
    name: draft.name,
    description: draft.description,
    type: draft.type,
    body: draft.body,
    newFile: target.file === null ? draft.file : '',
    frontmatter: draft.frontmatter,
  };
}

export function fromStored(stored: StoredDraft, doc: MemoryDoc | null): Draft {
  return {
    name: stored.name,
    description: stored.description,
    type: stored.type,
    body: stored.body,
    scope: stored.scope,
    file: stored.file ?? stored.newFile,
    frontmatter: stored.frontmatter ?? (doc?.frontmatterError ? doc.frontmatter : null),
  };
}

/** What opening a file shows, given what is on disk (null: gone) and the draft kept for it. */
export interface Resumed {
  draft: Draft | null;
  /** What is on disk now, when the kept draft started from something else. */
  conflict: string | null;
  /** The file is gone but a draft of it is kept: offer to recreate it. */
  missing: boolean;
  /** When the kept draft was last stored (shown: "Restored your draft from …"). */
  restoredAt: string | null;
}

export function resume(doc: MemoryDoc | null, stored: StoredDraft | null, scope: Scope): Resumed {
  if (!stored) return { draft: doc ? draftOf(doc, scope) : null, conflict: null, missing: false, restoredAt: null };
  const draft = fromStored(stored, doc);
  if (!doc) return { draft, conflict: null, missing: stored.file !== null, restoredAt: stored.savedAt };
  const changed = stored.baseText !== null && (stored.baseText !== doc.text || stored.memoryDir !== doc.memoryDir);
  return { draft, conflict: changed ? doc.text : null, missing: false, restoredAt: stored.savedAt };
}

/** How a save goes: past the cut on purpose, over a change on disk, with secrets allowed on purpose (their fingerprints). */
export interface SaveOptions {
  acceptImpact?: boolean;
  overwrite?: boolean;
  allowSecrets?: string[];
}

interface EditorState {
  target: EditorTarget | null;
  doc: MemoryDoc | null;
  draft: Draft | null;
  /** The memory folder the file was read from (or, for a new memory, the project's). */
  memoryDir: string | null;
  loading: boolean;
  saving: boolean;
  error: string | null;
  /** What is on disk now, when it differs from what the draft started from. */
  conflict: string | null;
  /** The file was deleted on disk while its draft was open. */
  missing: boolean;
  restoredAt: string | null;
  /**
   * Said at once, from main's live events, about the open file: another window has an unsaved
   * draft of it (`draft`), or it was changed elsewhere and is shown as it is now (`reloaded`).
   */
  notice: { kind: 'draft' | 'reloaded'; text: string } | null;
  /** Pointers a pending save would push past the cut: asking before saving. */
  pendingImpact: IndexImpact | null;
  /** The refusal (its sentence, while it is the `error` shown) of a delete of a team memory the sync server holds: it offers Retire instead. */
  retireOffered: string | null;
  /**
   * A save refused because it would add a secret (Claude Code sends every memory to the model),
   * or a rename or a recreate to a name holding one: the refusal's sentence and each secret,
   * asking before doing it again (`retry`) anyway on purpose with `allowSecrets`.
   */
  pendingSecrets: (SecretAsk & { retry: { kind: 'save'; options: SaveOptions } | { kind: 'rename'; to: string } | { kind: 'recreate' } }) | null;
  /** Open a file (or a project's new memory); what was open is kept as a draft if it was edited. */
  open: (target: EditorTarget, opts: { memoryDir: string }) => Promise<void>;
  /** Close the editor, keeping an unsaved edit as a draft. */
  close: () => Promise<void>;
  edit: (patch: Partial<Draft>) => void;
  setType: (type: MemoryType) => void;
  save: (options?: SaveOptions) => Promise<string | null>;
  /** Recreate a file deleted on disk from the draft (with secrets allowed on purpose: their fingerprints). */
  recreate: (allowSecrets?: string[]) => Promise<string | null>;
  remove: () => Promise<boolean>;
  /** Retire the open team memory (memories.retire: its text emptied, its pointers removed, one undo). */
  retire: () => Promise<boolean>;
  /** Rename the open file (with secrets in the new name allowed on purpose: their fingerprints); its new name, or null. */
  rename: (to: string, allowSecrets?: string[]) => Promise<string | null>;
  /**
   * Set the draft aside and show the file as it is on disk — "Discard", or "Take theirs" in a
   * conflict (`notice` says which). The notice's Undo brings the draft back.
   */
  discardDraft: (notice?: string) => Promise<void>;
  /**
   * The file may have changed on disk (watcher, another window): reload if untouched (saying so),
   * else show both. Read by the one coalescing rule (`coalescedReads`): a change made `outside`
   * Memdir (the default) once per burst, Memdir's own at once; never two reads of the file at a time.
   */
  noteChangedOnDisk: (outside?: boolean) => void;
  /** Another window kept (or forgot) a draft: said at once if it is of the open file. */
  noteDraftElsewhere: (event: { dir: string; scope: Scope; file: string | null; window: string | null; kept: boolean }) => void;
  /** Keep this window's edit as the file's draft over another window's (the person chose it). */
  keepMineOver: () => Promise<void>;
}

const initial = {
  target: null,
  doc: null,
  draft: null,
  memoryDir: null,
  loading: false,
  saving: false,
  error: null,
  conflict: null,
  missing: false,
  restoredAt: null,
  notice: null,
  pendingImpact: null,
  pendingSecrets: null,
  retireOffered: null,
};

export const useEditor = create<EditorState>()((set, get) => {
  /**
   * The open file while this editor deletes or renames it: the watcher's event for that change
   * is the editor's own, not a change "on disk while it was open" — taking it so kept what was
   * shown as a draft after its delete had dropped it (a phantom "1 unsaved draft" after Delete,
   * then Undo).
   */
  let changing: EditorTarget | null = null;
  const own = async <T>(target: EditorTarget, work: () => Promise<T>): Promise<T> => {
    changing = target;
    try {
      return await work();
    } finally {
      changing = null;
    }
  };
  /** Keep (or forget) the open draft in the drafts store, as it is now. */
  const persist = () => {
    const { target, doc, draft, memoryDir, missing, conflict } = get();
    if (!target || !draft || !memoryDir) return;
    const ref = { dir: target.dir, scope: target.scope, file: target.file };
    // A draft past the size limit cannot be kept (nor saved); the editor says so, and the last one kept stays.
    if (memoryTextTooLarge(draft.body)) return;
    if (isDirty(doc, draft) || missing || conflict !== null) useDrafts.getState().keep(toStored(target, memoryDir, doc, draft));
    else if (useDrafts.getState().drafts[draftKey(ref)]) void useDrafts.getState().discard(ref);
  };
  /**
   * Before moving on: the open draft goes to the drafts store (synchronously, so a second move
   * made meanwhile finds nothing left to keep), and is written now; the person is told.
   */
  const leave = (): Promise<void> => {
    const { target, doc, draft, saving } = get();
    if (!target || !draft) return Promise.resolve();
    persist();
    // A save still on its way either lands (and drops the draft) or says itself that it failed.
    const kept = isDirty(doc, draft) && !saving ? (target.file ?? 'the new memory') : null;
    set({ ...initial });
    return useDrafts
      .getState()
      .flush()
      .then(() => {
        if (kept) useToasts.getState().show('info', `Kept your unsaved edit to ${kept} as a draft: open it again, or find it under Drafts.`);
      });
  };
  /** The file as it is now, or null when it is not there (`missing` hears main's sentence saying so). */
  const readDoc = async (target: EditorTarget, missing?: (why: string) => void): Promise<MemoryDoc | null> => {
    try {
      return await call('memories.read', { dir: target.dir, scope: target.scope, file: target.file! });
    } catch (error) {
      if (error instanceof RpcError && error.code === 'not-found') {
        missing?.(error.message);
        return null;
      }
      throw error;
    }
  };
  /** Open `target` afresh, as if nothing were open (what was open is not kept as a draft). */
  const reopen = (target: EditorTarget, memoryDir: string): Promise<void> => {
    set({ ...initial });
    return get().open(target, { memoryDir });
  };
  /**
   * The open memory goes on under another name (`next`): an edit not yet saved follows it there,
   * the old name keeps no draft. The one way the editor moves with a file: its own rename, and a
   * recorded change that renamed the file away while it was open (`renamedAway`).
   */
  const moveTo = async (from: EditorTarget, next: EditorTarget): Promise<void> => {
    const { doc, draft, memoryDir } = get();
    if (!memoryDir) return;
    const dirty = isDirty(doc, draft);
    await useDrafts.getState().discard({ dir: from.dir, scope: from.scope, file: from.file });
    if (dirty && draft && doc) useDrafts.getState().keep(toStored(next, memoryDir, { ...doc, file: next.file! }, draft));
    await useDrafts.getState().flush();
    await reopen(next, memoryDir);
  };
  /**
   * Where the open memory went when it is gone from disk because a recorded change renamed it
   * (Memdir's rename in another window, the Undo or Redo of one, Claude Code's `mv` recorded
   * from outside): its name now, from the newest history entry that touched it; null when that
   * entry deleted it (or history cannot say).
   */
  const renamedAway = async (target: EditorTarget): Promise<EditorTarget | null> => {
    const rel = target.scope === 'team' ? `${TEAM_PREFIX}${target.file}` : target.file!;
    const [last] = (await call('history.list', { dir: target.dir, file: rel, limit: 1 })).entries;
    if (!last) return null;
    // A history filtered by one file shows its rename as the file's delete: the whole entry says where it went.
    const { entries } = await call('history.list', { dir: target.dir, limit: 50 });
    const moved = entries.find((e) => e.rev === last.rev)?.files.find((f) => f.status === 'renamed' && f.from === rel);
    if (!moved) return null;
    const team = moved.path.startsWith(TEAM_PREFIX);
    return { dir: target.dir, scope: team ? 'team' : 'private', file: team ? moved.path.slice(TEAM_PREFIX.length) : moved.path };
  };
  /** The open file as it is on disk now, against what the editor holds once the read is back (the person may have typed meanwhile). */
  const checkDisk = async (target: EditorTarget): Promise<void> => {
    const ours = () => sameTarget(changing, target);
    const moved = () => !sameTarget(get().target, target) || get().saving || ours();
    if (moved()) return;
    try {
      const fresh = await readDoc(target);
      if (moved()) return;
      const { doc, draft, missing, conflict } = get();
      if (!fresh) {
        if (missing) return;
        // Renamed, not deleted: the editor goes on under the new name, saying so.
        const next = await renamedAway(target).catch(() => null);
        if (next && sameTarget(get().target, target) && !get().saving) {
          await moveTo(target, next);
          // The page that showed it (the route decides what is open) shows it under the new name.
          const route = useNav.getState().route;
          if (route.view === 'project' && route.dir === target.dir && route.file === target.file && (route.scope ?? 'private') === target.scope)
            useNav.getState().go({ ...route, scope: next.scope, file: next.file! });
          if (sameTarget(get().target, next))
            set({
              notice: {
                kind: 'reloaded',
                text: `${target.file} was renamed to ${next.file}${next.scope === target.scope ? '' : ` (${next.scope})`}: it is shown under its new name.`,
              },
            });
          return;
        }
        if (!sameTarget(get().target, target) || get().missing) return;
        // Deleted on disk while open: keep what was shown as a draft, offer to recreate it.
        set({ missing: true, error: `${target.file} was deleted on disk while it was open. Your version is kept: recreate the file from it, or close.` });
        persist();
        return;
      }
      if (doc && fresh.text === doc.text && !missing) return;
      if (!isDirty(doc, draft) && conflict === null) {
        set({
          doc: fresh,
          draft: draftOf(fresh, target.scope),
          missing: false,
          error: null,
          notice: { kind: 'reloaded', text: `${target.file} was just changed in another window or by another program: it is shown as it is now.` },
        });
        // The draft this window kept while the file was gone (a delete, then its Undo) holds nothing of the person's: it goes.
        if (missing) persist();
      } else {
        set({
          conflict: fresh.text,
          missing: false,
          error: `${target.file} was changed on disk while you were editing it. Both versions are shown: keep yours, or take what is on disk.`,
        });
        persist();
      }
    } catch (error) {
      if (sameTarget(get().target, target)) set({ error: messageOf(error) });
    }
  };
  /** Reads of the open file when it may have changed, keyed by the file (one read at a time, one per burst). */
  const diskReads = coalescedReads(async (key: string) => {
    const target = get().target;
    if (target && target.file !== null && targetKey(target) === key) await checkDisk(target);
  });
  return {
    ...initial,
    async open(target, opts) {
      if (sameTarget(get().target, target)) return;
      const left = leave();
      set({ ...initial, target, loading: true });
      await left;
      try {
        const stored = await useDrafts.getState().find(target);
        if (target.file === null) {
          const draft = stored
            ? fromStored(stored, null)
            : emptyDraft(target.scope === 'team' ? 'team' : undefined, target.scope === 'team' ? 'project' : 'feedback');
          if (sameTarget(get().target, target))
            set({ draft, memoryDir: stored?.memoryDir ?? opts.memoryDir, loading: false, restoredAt: stored?.savedAt ?? null });
          return;
        }
        // Main says why it is not there: gone since Memdir saw it, or never a memory (a mistyped link).
        let why = `There is no memory named ${target.file}.`;
        const doc = await readDoc(target, (said) => (why = said));
        if (!sameTarget(get().target, target)) return;
        if (!doc && !stored) {
          set({ loading: false, error: why });
          return;
        }
        const resumed = resume(doc, stored, target.scope);
        set({
          doc,
          ...resumed,
          memoryDir: doc?.memoryDir ?? stored?.memoryDir ?? opts.memoryDir,
          loading: false,
          error:
            resumed.conflict !== null ? `${target.file} changed on disk since your draft. Both versions are shown: keep yours, or take what is on disk.` : null,
        });
      } catch (error) {
        // The memory dir stays known: a file that cannot be opened (too large) can still be renamed.
        if (sameTarget(get().target, target)) set({ error: messageOf(error), loading: false, memoryDir: opts.memoryDir });
      }
    },
    async close() {
      await leave();
    },
    edit(patch) {
      const draft = get().draft;
      if (!draft) return;
      // Typing again: "shown as it is now" has been read.
      set({ draft: { ...draft, ...patch }, ...(get().notice?.kind === 'reloaded' ? { notice: null } : {}) });
      persist();
    },
    setType(type) {
      const { draft, target } = get();
      if (!draft) return;
      set({ draft: withType(draft, type, target?.file === null) });
      persist();
    },
    async save(options = {}) {
      const { target, draft, doc, memoryDir, conflict } = get();
      if (!target || !draft || !memoryDir) return null;
      const problem = draftProblem(draft);
      if (problem || draft.type === null) {
        set({ error: problem });
        return null;
      }
      set({ saving: true, error: null, pendingSecrets: null });
      const allowSecrets = options.allowSecrets?.length ? { allowSecrets: options.allowSecrets } : {};
      try {
        const fields = { name: draft.name, description: draft.description, type: draft.type };
        if (!options.acceptImpact) {
          const index = await call('index.read', { dir: target.dir, scope: draft.scope });
          // Its pointer could not be written: say so before anything is (as when the index could not be read at all).
          if (index.readOnly) {
            set({
              error: `Nothing was saved: Memdir does not edit this MEMORY.md (${index.readOnly}), so it cannot keep the memory's pointer.`,
              saving: false,
            });
            return null;
          }
          const fileForIndex = target.file ?? (draft.file.trim() || '(new memory)');
          const impact = indexImpact(
            index.text,
            target.file === null
              ? { kind: 'add', title: draft.name, file: fileForIndex, hook: draft.description }
              : { kind: 'update', file: target.file, title: draft.name, hook: draft.description },
          );
          if (impact.newlyCut.length > 0 || (impact.changedIsCut && target.file === null)) {
            set({ pendingImpact: impact, saving: false });
            return null;
          }
        }
        let file: string;
        if (target.file === null) {
          ({ file } = await call('memories.create', {
            dir: target.dir,
            scope: draft.scope,
            memoryDir,
            fields,
            body: draft.body,
            ...(draft.file.trim() ? { file: draft.file.trim() } : {}),
            ...allowSecrets,
          }));
        } else {
          if (!doc) throw new RpcError({ code: 'not-found', message: `${target.file} no longer exists; recreate it from your draft.` });
          // Keeping mine over a change on disk: the save is based on what is there now.
          const baseText = options.overwrite && conflict !== null ? conflict : doc.text;
          ({ file } = await call('memories.update', {
            dir: target.dir,
            scope: target.scope,
            file: target.file,
            memoryDir: doc.memoryDir,
            baseText,
            fields,
            body: draft.body,
            ...(draft.frontmatter !== null ? { frontmatter: draft.frontmatter } : {}),
            ...allowSecrets,
          }));
        }
        const next: EditorTarget = { dir: target.dir, scope: draft.scope, file };
        await useDrafts.getState().discard({ dir: target.dir, scope: target.scope, file: target.file });
        const fresh = await call('memories.read', { dir: next.dir, scope: next.scope, file });
        useToasts.getState().show('info', `Saved ${file}.`);
        // The person may have moved on while it saved: then the saved file is not theirs to show.
        if (!sameTarget(get().target, target)) return null;
        set({ ...initial, target: next, doc: fresh, draft: draftOf(fresh, draft.scope), memoryDir: fresh.memoryDir });
        return file;
      } catch (error) {
        if (!sameTarget(get().target, target)) {
          useToasts.getState().show('error', `${target.file ?? 'The new memory'} was not saved: ${sentenceOf(error)} Your edit is kept as a draft.`);
          return null;
        }
        const ask = secretAskOf(error, options.allowSecrets);
        if (error instanceof RpcError && error.code === 'conflict' && error.current !== undefined)
          set({ conflict: error.current, saving: false, error: error.message });
        // Asked, never saved unasked: the secrets already allowed stay allowed, the impact already accepted stays accepted.
        else if (ask) set({ pendingSecrets: { ...ask, retry: { kind: 'save', options: { ...options, acceptImpact: true } } }, saving: false });
        else set({ error: messageOf(error), saving: false });
        persist();
        return null;
      }
    },
    async recreate(allowSecrets) {
      const { target, draft, memoryDir } = get();
      if (!target || target.file === null || !draft || !memoryDir || draft.type === null) return null;
      set({ pendingSecrets: null, error: null });
      try {
        const { file, rev } = await call('memories.create', {
          dir: target.dir,
          scope: target.scope,
          memoryDir,
          file: target.file,
          fields: { name: draft.name, description: draft.description, type: draft.type },
          body: draft.body,
          ...(allowSecrets?.length ? { allowSecrets } : {}),
        });
        await useDrafts.getState().discard({ dir: target.dir, scope: target.scope, file: target.file });
        const fresh = await call('memories.read', { dir: target.dir, scope: target.scope, file });
        if (sameTarget(get().target, target)) set({ ...initial, target, doc: fresh, draft: draftOf(fresh, target.scope), memoryDir: fresh.memoryDir });
        offerUndo(target.dir, rev, `Recreated ${file} from your draft.`);
        return file;
      } catch (error) {
        // Its name (or the draft) holding a secret is asked about, as a save is.
        const ask = secretAskOf(error, allowSecrets);
        if (ask && sameTarget(get().target, target)) set({ pendingSecrets: { ...ask, retry: { kind: 'recreate' } } });
        else set({ error: messageOf(error) });
        return null;
      }
    },
    async remove() {
      const { target } = get();
      if (!target || target.file === null) return false;
      const deleted = target.file;
      return own(target, async () => {
        try {
          const { rev } = await call('memories.delete', { dir: target.dir, scope: target.scope, file: deleted });
          await useDrafts.getState().discard({ dir: target.dir, scope: target.scope, file: deleted });
          set({ ...initial });
          offerUndo(target.dir, rev, `Deleted ${deleted}. It stays in history.`);
          return true;
        } catch (error) {
          // A team memory the server holds cannot be deleted (it would come back): retiring is how it leaves.
          const refused = target.scope === 'team' && error instanceof RpcError && error.code === 'scope-refused';
          set({ error: messageOf(error), retireOffered: refused ? messageOf(error) : null });
          return false;
        }
      });
    },
    async retire() {
      const { target } = get();
      if (!target || target.file === null || target.scope !== 'team') return false;
      const retired = target.file;
      return own(target, async () => {
        try {
          const { rev } = await call('memories.retire', { dir: target.dir, scope: 'team', file: retired });
          await useDrafts.getState().discard({ dir: target.dir, scope: target.scope, file: retired });
          set({ ...initial });
          offerUndo(target.dir, rev, `Retired team/${retired}: its text is emptied and its index lines removed; the next sync shares that with the team.`);
          return true;
        } catch (error) {
          set({ error: messageOf(error), retireOffered: null });
          return false;
        }
      });
    },
    async rename(to, allowSecrets) {
      const { target, memoryDir } = get();
      if (!target || target.file === null || !memoryDir) return null;
      set({ pendingSecrets: null });
      const from = target.file;
      return own(target, async () => {
        try {
          const { file, rev } = await call('memories.rename', {
            dir: target.dir,
            scope: target.scope,
            from,
            to,
            ...(allowSecrets?.length ? { allowSecrets } : {}),
          });
          // An unsaved edit follows the file to its new name.
          await moveTo(target, { dir: target.dir, scope: target.scope, file });
          offerUndo(target.dir, rev, `Renamed to ${file}.`);
          return file;
        } catch (error) {
          const ask = secretAskOf(error, allowSecrets);
          // A name holding a secret is asked about, as a save is; the secrets already allowed stay allowed.
          if (ask) set({ pendingSecrets: { ...ask, retry: { kind: 'rename', to } } });
          else set({ error: messageOf(error) });
          return null;
        }
      });
    },
    async discardDraft(notice = 'Draft discarded.') {
      const { target, doc, draft, memoryDir } = get();
      if (!target || !draft || !memoryDir) return;
      const kept = toStored(target, memoryDir, doc, draft);
      await useDrafts.getState().discard({ dir: target.dir, scope: target.scope, file: target.file });
      await reopen(target, memoryDir);
      useToasts.getState().show('info', notice, {
        label: 'Undo',
        run: () => {
          // Reopened with the draft kept again: a change on disk since it began shows beside it.
          useDrafts.getState().keep(kept);
          void useDrafts.getState().flush();
          if (sameTarget(get().target, target)) void reopen(target, memoryDir);
        },
      });
    },
    noteChangedOnDisk(outside = true) {
      const { target } = get();
      if (target && target.file !== null) diskReads.changed(targetKey(target), outside);
    },
    noteDraftElsewhere(event) {
      const { target, doc, draft } = get();
      if (!target || !sameTarget(target, { dir: event.dir, scope: event.scope, file: event.file })) return;
      // This window's own draft is the stored one again (kept over the other's): nothing more to say.
      if (isThisWindow(event.window)) {
        if (event.kept && get().notice?.kind === 'draft') set({ notice: null });
        return;
      }
      if (!event.kept) {
        if (get().notice?.kind === 'draft') set({ notice: null });
        return;
      }
      const what = target.file ?? 'the new memory';
      const text = isDirty(doc, draft)
        ? `Another window has an unsaved draft of ${what}: your edit here is only in this window until you keep it.`
        : `Another window has an unsaved draft of ${what}. This window shows ${target.file === null ? 'its own' : 'the file as saved'}.`;
      set({ notice: { kind: 'draft', text } });
    },
    async keepMineOver() {
      const { target, doc, draft, memoryDir } = get();
      if (!target || !draft || !memoryDir) return;
      await useDrafts.getState().keepOver(toStored(target, memoryDir, doc, draft));
      if (sameTarget(get().target, target)) set({ notice: null });
    },
  };
});
