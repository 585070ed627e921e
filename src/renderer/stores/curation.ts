/**
 * Curation of the open project (R-HEALTH, R-INDEX): Health's fixes with their effect on the
 * loaded part worked out before they are applied, near-duplicate memories and their merge, and
 * Make room. Each write is one history entry; its notice offers Undo, the one undo (undoEntry):
 * only that entry is reversed, and what changed since (Claude Code's writes too) is kept.
 */
import { create } from 'zustand';
import type { Contract } from '../../shared/contract/index.js';
import type { DuplicateMemoryShape, FixRequestShape, IndexImpactShape } from '../../shared/contract/curation.js';
import { sizeAgainstLimits } from '../../shared/index-impact.js';
import type { RoomAction } from '../../shared/index-room.js';
import type { Scope } from '../../shared/memory-types.js';
import { formatCount, plural } from '../../shared/size-text.js';
import { type Problem, fixRequestOf } from '../../shared/problems.js';
import type * as z from 'zod';
import { call } from '../transport/transport.js';
import { messageOf } from './errors.js';
import { useProject } from './project.js';
import { moveMemory } from './team.js';
import { useToasts } from './toasts.js';
import { undoEntry } from './undo.js';

export type FixPreview = z.output<Contract['health.preview']['output']>;

export interface DuplicatePairView {
  kind: 'exact' | 'near' | 'similar';
  score: number;
  a: DuplicateMemoryShape;
  b: DuplicateMemoryShape;
}

/** The same fix (a problem and a preview's entry name it alike). */
export function sameFix(a: FixRequestShape, b: FixRequestShape): boolean {
  return a.kind === b.kind && a.file === b.file && (a.line ?? null) === (b.line ?? null);
}

/** One sentence on what a write did to the loaded part, for its notice. */
export function impactSentence(impact: IndexImpactShape): string {
  const { after } = impact;
  const fits = after.truncated
    ? `from line ${after.firstCutLine} on it is still cut (${after.cut} ${after.cut === 1 ? 'pointer' : 'pointers'})`
    : 'all of it reaches the agent';
  return `MEMORY.md: ${sizeAgainstLimits(after)}; ${fits}.`;
}

/**
 * What Make room did below the cut, counted as its header and its "Drop the N pointers" button
 * count: lines below the cut that hold a pointer (index-cut.ts), before and after.
 */
export function roomResultSentence(impact: IndexImpactShape): string {
  const { before, after } = impact;
  return `${plural(before.cut, 'pointer')} ${before.cut === 1 ? 'was' : 'were'} below the cut, now ${after.cut === 0 ? 'none' : formatCount(after.cut)}.`;
}

interface CurationState {
  dir: string | null;
  /** Per scope: what fixing every fixable problem would do, and each fix alone. */
  previews: Partial<Record<Scope, FixPreview>>;
  pairs: DuplicatePairView[] | null;
  busy: boolean;
  error: string | null;
  /** Make room asked for from elsewhere (Health), for the index view to open. */
  makeRoomFor: Scope | null;
  load: (dir: string, problems: readonly (Problem & { scope: Scope })[]) => Promise<void>;
  fix: (problems: readonly (Problem & { scope: Scope })[], options?: { pastCut?: boolean }) => Promise<void>;
  merge: (keeper: DuplicateMemoryShape, others: readonly DuplicateMemoryShape[]) => Promise<void>;
  makeRoom: (scope: Scope, baseText: string, actions: readonly RoomAction[]) => Promise<boolean>;
  askMakeRoom: (scope: Scope | null) => void;
  /** Health's answer to a `user` memory in the team folder: move it back to private (undoable). */
  moveToPrivate: (file: string) => Promise<void>;
  /** Undo the entry `rev` through the one undo, then reload the project. */
  undo: (rev: string) => Promise<void>;
}

export const useCuration = create<CurationState>()((set, get) => ({
  dir: null,
  previews: {},
  pairs: null,
  busy: false,
  error: null,
  makeRoomFor: null,
  async load(dir, problems) {
    if (get().dir !== dir) set({ dir, previews: {}, pairs: null, error: null });
    try {
      const previews: Partial<Record<Scope, FixPreview>> = {};
      const fixesOf = (scope: Scope) =>
        problems
          .filter((p) => p.scope === scope)
          .map(fixRequestOf)
          .filter((f) => f !== null);
      // In the order "Fix all" applies them: the team's pointers on MEMORY.md as the private fixes leave it.
      const first = fixesOf('private');
      for (const scope of ['private', 'team'] as const) {
        const fixes = fixesOf(scope);
        if (fixes.length > 0) previews[scope] = await call('health.preview', { dir, scope, fixes, ...(scope === 'team' && first.length > 0 ? { first } : {}) });
      }
      const { pairs } = await call('duplicates.list', { dir });
      if (get().dir === dir) set({ previews, pairs, error: null });
    } catch (error) {
      if (get().dir === dir) set({ error: messageOf(error) });
    }
  },
  async fix(problems, options = {}) {
    const dir = get().dir;
    if (!dir) return;
    set({ busy: true });
    for (const scope of ['private', 'team'] as const) {
      const fixes = problems
        .filter((p) => p.scope === scope)
        .map(fixRequestOf)
        .filter((f) => f !== null);
      if (fixes.length === 0) continue;
      try {
        const { applied, heldBack, impact, rev } = await call('health.fix', { dir, scope, fixes, ...(options.pastCut ? { pastCut: true } : {}) });
        const held =
          heldBack.length > 0
            ? ` ${heldBack.length === 1 ? '1 orphan was' : `${heldBack.length} orphans were`} held back: ${heldBack.length === 1 ? 'its pointer' : 'their pointers'} would fall below the cut.`
            : '';
        const text = `${applied === 1 ? 'Fixed 1 problem.' : `Fixed ${applied} problems.`}${held} ${impactSentence(impact)}`;
        useToasts.getState().show('info', text, rev ? { label: 'Undo', run: () => void get().undo(rev) } : undefined);
      } catch (error) {
        useToasts.getState().show('error', messageOf(error));
      }
    }
    set({ busy: false });
    await useProject.getState().refresh();
  },
  async moveToPrivate(file) {
    const dir = get().dir;
    if (!dir) return;
    set({ busy: true });
    try {
      await moveMemory(dir, file, 'private');
    } catch (error) {
      useToasts.getState().show('error', messageOf(error));
    } finally {
      set({ busy: false });
    }
    await useProject.getState().refresh();
  },
  async merge(keeper, others) {
    const dir = get().dir;
    if (!dir) return;
    set({ busy: true });
    try {
      const expect = Object.fromEntries([keeper, ...others].map((m) => [m.file, m.text]));
      const { rev, merged } = await call('duplicates.merge', { dir, keeper: keeper.file, others: others.map((o) => o.file), expect });
      useToasts
        .getState()
        .show(
          'info',
          `Merged ${merged.join(', ')} into ${keeper.file}. ${merged.length === 1 ? 'It stays' : 'They stay'} in history.`,
          rev ? { label: 'Undo', run: () => void get().undo(rev) } : undefined,
        );
    } catch (error) {
      useToasts.getState().show('error', messageOf(error));
    } finally {
      set({ busy: false });
    }
    await useProject.getState().refresh();
  },
  async makeRoom(scope, baseText, actions) {
    const dir = get().dir ?? useProject.getState().dir;
    if (!dir) return false;
    set({ busy: true });
    try {
      const { rev, impact, notes, retired } = await call('index.makeRoom', { dir, scope, baseText, actions: [...actions] });
      useToasts
        .getState()
        .show(
          'info',
          `Made room: ${roomResultSentence(impact)} ${impactSentence(impact)}${notes.length > 0 ? ` ${notes.length === 1 ? notes[0] : `${notes.length} memories changed too.`}` : ''}${retired ? ` ${retired}` : ''}`,
          rev ? { label: 'Undo', run: () => void get().undo(rev) } : undefined,
        );
      return true;
    } catch (error) {
      useToasts.getState().show('error', messageOf(error));
      return false;
    } finally {
      set({ busy: false });
      await useProject.getState().refresh();
    }
  },
  askMakeRoom(scope) {
    set({ makeRoomFor: scope });
  },
  async undo(rev) {
    const dir = get().dir ?? useProject.getState().dir;
    if (!dir) return;
    await undoEntry(dir, rev);
    await useProject.getState().refresh();
  },
}));
