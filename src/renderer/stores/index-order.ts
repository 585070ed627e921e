/**
 * Reordering MEMORY.md by hand (issue 14, bulk curation): lines are dragged (or moved with the
 * keyboard) and the cut is recomputed for every order shown, so a person sees which pointers
 * would fall past it before anything is written. Saving is one history entry, with one Undo.
 */
import { create } from 'zustand';
import { RpcError } from '../../shared/contract/rpc-error.js';
import { type IndexLine, type ParsedIndex, parseIndex, serializeIndex, splitLoadedEntries } from '../../shared/index-format.js';
import { lineFate, loadIndexAsClaudeCode } from '../../shared/index-load.js';
import type { Scope } from '../../shared/memory-types.js';
import { call } from '../transport/transport.js';
import { messageOf } from './errors.js';
import { offerUndo } from './undo.js';

/** `lines` with the line at `from` moved to position `to` (0-based, clamped); renumbered. */
export function moveLine(index: ParsedIndex, from: number, to: number): ParsedIndex {
  const lines = [...index.lines];
  const target = Math.max(0, Math.min(lines.length - 1, to));
  if (from < 0 || from >= lines.length || from === target) return index;
  const [moved] = lines.splice(from, 1);
  lines.splice(target, 0, moved!);
  return { ...index, lines: lines.map((l, i) => ({ ...l, line: i + 1 })) };
}

/**
 * Where the cut falls in this order — the 0-based position of the first line that does not fully
 * reach the agent, or null — which pointers it cuts, and each line's fate, by Claude Code's own
 * rule (`loadIndexAsClaudeCode`: stripping, the line and UTF-16 limits).
 */
export function cutOf(index: ParsedIndex): { firstCut: number | null; cut: string[]; fate: ('loaded' | 'cut' | 'hidden')[] } {
  const load = loadIndexAsClaudeCode(serializeIndex(index));
  return {
    firstCut: load.firstCutLine === null ? null : load.firstCutLine - 1,
    cut: splitLoadedEntries(index, load).cut.map((e) => e.file),
    fate: index.lines.map((_, i) => lineFate(load, i + 1)),
  };
}

/** How a line is named to a person (screen readers, the move buttons). */
export function lineLabel(line: IndexLine): string {
  return line.kind === 'entry' ? line.title || line.file : line.raw.trim() || 'blank line';
}

interface IndexOrderState {
  dir: string | null;
  scope: Scope;
  base: string | null;
  index: ParsedIndex | null;
  error: string | null;
  saving: boolean;
  start: (dir: string, scope: Scope) => Promise<void>;
  move: (from: number, to: number) => void;
  save: () => Promise<boolean>;
  cancel: () => void;
}

export const useIndexOrder = create<IndexOrderState>()((set, get) => ({
  dir: null,
  scope: 'private',
  base: null,
  index: null,
  error: null,
  saving: false,
  async start(dir, scope) {
    set({ dir, scope, base: null, index: null, error: null });
    try {
      const { text, readOnly } = await call('index.read', { dir, scope });
      if (get().dir !== dir || get().scope !== scope) return;
      if (readOnly) set({ error: `MEMORY.md cannot be reordered: ${readOnly}.` });
      else set({ base: text, index: parseIndex(text) });
    } catch (error) {
      set({ error: messageOf(error) });
    }
  },
  move(from, to) {
    const index = get().index;
    if (index) set({ index: moveLine(index, from, to) });
  },
  async save() {
    const { dir, scope, base, index } = get();
    if (!dir || base === null || !index) return false;
    set({ saving: true, error: null });
    try {
      const { rev } = await call('index.save', { dir, scope, text: serializeIndex(index), baseText: base });
      set({ dir: null, base: null, index: null, saving: false });
      offerUndo(dir, rev, 'Saved the new order of MEMORY.md.');
      return true;
    } catch (error) {
      set({
        saving: false,
        error:
          error instanceof RpcError && error.code === 'conflict'
            ? `${error.message} Nothing was written; start over to reorder what is there now.`
            : messageOf(error),
      });
      return false;
    }
  },
  cancel() {
    set({ dir: null, base: null, index: null, error: null });
  },
}));
