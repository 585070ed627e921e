/**
 * The memory editor: one memory open (or a new one being written), its draft, and the rules
 * that keep a save from losing anything — a file changed on disk while open is a conflict
 * shown side by side, never overwritten; a save that would push pointers past the index cut
 * asks first.
 */
import { create } from 'zustand';
import { RpcError } from '../../shared/contract/define.js';
import type { MemoryDoc } from '../../shared/contract/memories.js';
import { indexImpact, type IndexImpact } from '../../shared/index-impact.js';
import { type MemoryType, type Scope, defaultScope, scopeRefusal } from '../../shared/memory-types.js';
import { call } from '../transport/transport.js';
import { messageOf } from './errors.js';
import { useToasts } from './toasts.js';

export interface Draft {
  name: string;
  description: string;
  type: MemoryType;
  body: string;
  scope: Scope;
  /** For a new memory: the file name (empty = derived from type and name). */
  file: string;
}

export type EditorTarget = { dir: string; scope: Scope; file: string } | { dir: string; scope: Scope; file: null };

export function draftOf(doc: MemoryDoc, scope: Scope): Draft {
  return { name: doc.name, description: doc.description, type: doc.type ?? 'project', body: doc.body, scope, file: doc.file };
}

export function emptyDraft(scope?: Scope, type: MemoryType = 'feedback'): Draft {
  return { name: '', description: '', type, body: '', scope: scope ?? defaultScope(type), file: '' };
}

export function isDirty(doc: MemoryDoc | null, draft: Draft | null): boolean {
  if (!draft) return false;
  if (!doc) return draft.name !== '' || draft.description !== '' || draft.body !== '';
  return draft.name !== doc.name || draft.description !== doc.description || draft.type !== (doc.type ?? 'project') || draft.body !== doc.body;
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
  return scopeRefusal(draft.type, draft.scope);
}

interface EditorState {
  target: EditorTarget | null;
  doc: MemoryDoc | null;
  draft: Draft | null;
  loading: boolean;
  saving: boolean;
  error: string | null;
  /** What is on disk now, when it differs from what the draft started from. */
  conflict: string | null;
  /** Pointers a pending save would push past the cut: asking before saving. */
  pendingImpact: IndexImpact | null;
  open: (target: EditorTarget) => Promise<void>;
  close: () => void;
  edit: (patch: Partial<Draft>) => void;
  setType: (type: MemoryType) => void;
  save: (options?: { acceptImpact?: boolean; overwrite?: boolean }) => Promise<string | null>;
  remove: () => Promise<boolean>;
  rename: (to: string) => Promise<string | null>;
  reload: () => Promise<void>;
  /** The file changed on disk (watcher): reload if untouched, else flag a conflict. */
  noteChangedOnDisk: () => Promise<void>;
}

export const useEditor = create<EditorState>()((set, get) => ({
  target: null,
  doc: null,
  draft: null,
  loading: false,
  saving: false,
  error: null,
  conflict: null,
  pendingImpact: null,
  async open(target) {
    set({ target, doc: null, draft: null, error: null, conflict: null, pendingImpact: null, loading: target.file !== null });
    if (target.file === null) {
      set({ draft: emptyDraft(target.scope === 'team' ? 'team' : undefined, target.scope === 'team' ? 'project' : 'feedback') });
      return;
    }
    try {
      const doc = await call('memories.read', { dir: target.dir, scope: target.scope, file: target.file });
      if (get().target === target) set({ doc, draft: draftOf(doc, target.scope), loading: false });
    } catch (error) {
      if (get().target === target) set({ error: messageOf(error), loading: false });
    }
  },
  close() {
    set({ target: null, doc: null, draft: null, error: null, conflict: null, pendingImpact: null });
  },
  edit(patch) {
    const draft = get().draft;
    if (draft) set({ draft: { ...draft, ...patch } });
  },
  setType(type) {
    const { draft, target } = get();
    if (draft) set({ draft: withType(draft, type, target?.file === null) });
  },
  async save(options = {}) {
    const { target, draft, doc } = get();
    if (!target || !draft) return null;
    const problem = draftProblem(draft);
    if (problem) {
      set({ error: problem });
      return null;
    }
    set({ saving: true, error: null });
    try {
      const fields = { name: draft.name, description: draft.description, type: draft.type };
      if (!options.acceptImpact) {
        const index = await call('index.read', { dir: target.dir, scope: draft.scope });
        const fileForIndex = target.file ?? (draft.file.trim() || '(new memory)');
        const impact = indexImpact(index.text, target.file === null ? { kind: 'add', title: draft.name, file: fileForIndex, hook: draft.description } : { kind: 'update', file: target.file, title: draft.name, hook: draft.description });
        if (impact.newlyCut.length > 0 || (impact.changedIsCut && target.file === null)) {
          set({ pendingImpact: impact, saving: false });
          return null;
        }
      }
      let file: string;
      if (target.file === null) {
        ({ file } = await call('memories.create', { dir: target.dir, scope: draft.scope, fields, body: draft.body, ...(draft.file.trim() ? { file: draft.file.trim() } : {}) }));
      } else {
        const baseText = options.overwrite ? (get().conflict ?? doc?.text) : doc?.text;
        ({ file } = await call('memories.update', { dir: target.dir, scope: target.scope, file: target.file, fields, body: draft.body, ...(baseText !== undefined ? { baseText } : {}) }));
      }
      const next: EditorTarget = { dir: target.dir, scope: draft.scope, file };
      const fresh = await call('memories.read', next);
      set({ target: next, doc: fresh, draft: draftOf(fresh, draft.scope), saving: false, conflict: null, pendingImpact: null });
      useToasts.getState().show('info', `Saved ${file}.`);
      return file;
    } catch (error) {
      if (error instanceof RpcError && error.code === 'conflict') set({ conflict: error.current ?? '', saving: false, error: error.message });
      else set({ error: messageOf(error), saving: false });
      return null;
    }
  },
  async remove() {
    const { target } = get();
    if (!target || target.file === null) return false;
    try {
      const { rev } = await call('memories.delete', { dir: target.dir, scope: target.scope, file: target.file });
      const deleted = target.file;
      get().close();
      const undo = rev ? { label: 'Undo', run: () => void call('history.restore', { dir: target.dir, rev: `${rev}~1`, file: target.scope === 'team' ? `team/${deleted}` : deleted }) } : undefined;
      useToasts.getState().show('info', `Deleted ${deleted}. It stays in history.`, undo);
      return true;
    } catch (error) {
      set({ error: messageOf(error) });
      return false;
    }
  },
  async rename(to) {
    const { target } = get();
    if (!target || target.file === null) return null;
    try {
      const { file } = await call('memories.rename', { dir: target.dir, scope: target.scope, from: target.file, to });
      await get().open({ dir: target.dir, scope: target.scope, file });
      useToasts.getState().show('info', `Renamed to ${file}.`);
      return file;
    } catch (error) {
      set({ error: messageOf(error) });
      return null;
    }
  },
  async reload() {
    const target = get().target;
    if (target) await get().open(target);
  },
  async noteChangedOnDisk() {
    const { target, doc, draft } = get();
    if (!target || target.file === null || !doc || get().saving) return;
    try {
      const fresh = await call('memories.read', { dir: target.dir, scope: target.scope, file: target.file });
      if (fresh.text === doc.text) return;
      if (!isDirty(doc, draft)) set({ doc: fresh, draft: draftOf(fresh, target.scope) });
      else set({ conflict: fresh.text, error: `${target.file} was changed on disk while you were editing it. Both versions are shown: keep yours, take theirs, or copy between them.` });
    } catch (error) {
      set({ error: messageOf(error) });
    }
  },
}));
