/** The open project: its memories (private and team), their filter, order and selection, its health. */
import { create } from 'zustand';
import { plural } from '../../shared/size-text.js';
import type { MemoryType, Scope } from '../../shared/memory-types.js';
import { type IndexState, indexOrderOf, indexStatesOf } from '../../shared/index-state.js';
import type { MemorySummary, ProjectScan } from '../../shared/scan-types.js';
import type { Problem } from '../../shared/problems.js';
import { call } from '../transport/transport.js';
import { coalescedReads } from './coalesced-read.js';
import { askOf, messageOf } from './errors.js';
import { askMoveAnyway } from './team.js';
import { useToasts } from './toasts.js';
import { offerUndo } from './undo.js';
import { groupRefusals, refusalLines } from './bulk-refusals.js';

export interface MemoryFilter {
  text: string;
  type: MemoryType | 'all';
  scope: Scope | 'all';
}

export interface MemoryRow extends MemorySummary {
  /** Whether its pointer reaches the agent, is past the cut, or is missing from the index (a team memory's may be in either index). */
  indexState: IndexState;
  /** Its place in the index order (`indexOrderOf`), or null when no pointer names it. */
  indexOrder: number | null;
  problems: number;
}

export function memoryRows(scan: ProjectScan): MemoryRow[] {
  const rows: MemoryRow[] = [];
  const stateOf = indexStatesOf(scan);
  const orderOf = indexOrderOf(scan);
  for (const dir of [scan, scan.team]) {
    if (!dir) continue;
    const problems = new Map<string, number>();
    for (const p of dir.problems) if (p.file && p.severity !== 'hint') problems.set(p.file, (problems.get(p.file) ?? 0) + 1);
    for (const m of dir.memories) rows.push({ ...m, indexState: stateOf(m), indexOrder: orderOf(m), problems: problems.get(m.file) ?? 0 });
  }
  return rows;
}

export function filterMemories(rows: MemoryRow[], filter: MemoryFilter): MemoryRow[] {
  const words = filter.text.trim().toLowerCase().split(/\s+/).filter(Boolean);
  return rows.filter((m) => {
    if (filter.type !== 'all' && m.type !== filter.type) return false;
    if (filter.scope !== 'all' && m.scope !== filter.scope) return false;
    if (words.length === 0) return true;
    const hay = `${m.name}\n${m.description}\n${m.file}`.toLowerCase();
    return words.every((w) => hay.includes(w));
  });
}

/** The orders a person can put the memory list in; every one is stable (ties by scope, then file). */
export const MEMORY_SORTS = ['index', 'name', 'type', 'changed', 'size'] as const;
export type MemorySort = (typeof MEMORY_SORTS)[number];
export const SORT_LABELS: Record<MemorySort, string> = { index: 'Index order', name: 'Name', type: 'Type', changed: 'Last changed', size: 'Size' };

/**
 * Sorted as asked, stable, never in place. `index` is MEMORY.md's order (`indexOrderOf`: what
 * reaches the agent, then what is past the cut); memories no pointer names come last, by scope
 * then file name.
 */
export function sortMemories(rows: MemoryRow[], sort: MemorySort, descending = false): MemoryRow[] {
  const tie = (a: MemoryRow, b: MemoryRow) => a.scope.localeCompare(b.scope) || a.file.localeCompare(b.file);
  const by: Record<MemorySort, (a: MemoryRow, b: MemoryRow) => number> = {
    index: (a, b) => (a.indexOrder ?? Number.MAX_SAFE_INTEGER) - (b.indexOrder ?? Number.MAX_SAFE_INTEGER),
    name: (a, b) => a.name.localeCompare(b.name, undefined, { sensitivity: 'base' }),
    type: (a, b) => (a.type ?? '~').localeCompare(b.type ?? '~'),
    // Newest first reads naturally; "descending" turns it around like the others.
    changed: (a, b) => b.mtimeMs - a.mtimeMs,
    size: (a, b) => b.bytes - a.bytes,
  };
  const sign = descending ? -1 : 1;
  return [...rows].sort((a, b) => sign * by[sort](a, b) || tie(a, b));
}

/** A memory's key in the list and the selection: `private/a.md`, `team/b.md`. */
export function rowKey(row: { scope: Scope; file: string }): string {
  return `${row.scope}/${row.file}`;
}

/** The selection after a click: plain toggles one, shift extends from the anchor over the rows as shown. */
export function toggleSelection(selected: ReadonlySet<string>, rows: MemoryRow[], key: string, anchor: string | null, range: boolean): Set<string> {
  const next = new Set(selected);
  if (range && anchor) {
    const keys = rows.map(rowKey);
    const [from, to] = [keys.indexOf(anchor), keys.indexOf(key)].sort((a, b) => a - b);
    if (from !== -1 && to !== undefined && to !== -1) {
      for (const k of keys.slice(from, to + 1)) next.add(k);
      return next;
    }
  }
  if (next.has(key)) next.delete(key);
  else next.add(key);
  return next;
}

export type BulkAction = { kind: 'delete' } | { kind: 'retire' } | { kind: 'set-type'; type: MemoryType } | { kind: 'move'; to: Scope };

/** A memory a bulk action names. */
export interface BulkItem {
  scope: Scope;
  file: string;
}

export function problemsOf(scan: ProjectScan): (Problem & { scope: Scope })[] {
  return [...scan.problems.map((p) => ({ ...p, scope: 'private' as const })), ...(scan.team?.problems ?? []).map((p) => ({ ...p, scope: 'team' as const }))];
}

interface ProjectState {
  dir: string | null;
  scan: ProjectScan | null;
  rows: MemoryRow[];
  error: string | null;
  filter: MemoryFilter;
  sort: MemorySort;
  descending: boolean;
  /** Memories picked for a bulk action (rowKey), and the last one clicked (for shift ranges). */
  selected: ReadonlySet<string>;
  anchor: string | null;
  open: (dir: string) => Promise<void>;
  /** Read the open project now (one read at a time: calls made during one share the one after it). */
  refresh: () => Promise<void>;
  /** Project `dir`'s memory changed: read it again once per burst of changes if it is the one open (`coalescedReads`). */
  onChanged: (dir: string, outside: boolean) => void;
  setFilter: (patch: Partial<MemoryFilter>) => void;
  setSort: (sort: MemorySort, descending?: boolean) => void;
  select: (key: string, rows: MemoryRow[], range?: boolean) => void;
  clearSelection: () => void;
  /**
   * Apply one action to every selected memory: one history entry, one Undo. A move left for a
   * secret in a name is asked about; "Move anyway" runs it again (`again`) for those memories.
   */
  bulk: (action: BulkAction, again?: { dir: string; items: BulkItem[]; allowSecrets?: string[] }) => Promise<void>;
}

export const useProject = create<ProjectState>()((set, get) => {
  const reads = coalescedReads(async (dir: string) => {
    if (get().dir !== dir) return;
    try {
      const scan = await call('projects.get', { dir });
      // User Timing marks: visible in devtools, and read by `npm run bench renderer`.
      performance.mark('memdir:project-loaded');
      if (get().dir !== dir) return;
      const rows = memoryRows(scan);
      // A selected memory that is gone (deleted, moved) leaves the selection.
      const present = new Set(rows.map(rowKey));
      const selected = new Set([...get().selected].filter((k) => present.has(k)));
      set({ scan, rows, error: null, selected });
    } catch (error) {
      if (get().dir === dir) set({ error: messageOf(error) });
    }
  });
  return {
    dir: null,
    scan: null,
    rows: [],
    error: null,
    filter: { text: '', type: 'all', scope: 'all' },
    sort: 'index',
    descending: false,
    selected: new Set(),
    anchor: null,
    async open(dir) {
      if (get().dir !== dir) set({ dir, scan: null, rows: [], error: null, selected: new Set(), anchor: null });
      await get().refresh();
    },
    refresh() {
      const dir = get().dir;
      return dir ? reads.now(dir) : Promise.resolve();
    },
    onChanged(dir, outside) {
      if (get().dir === dir) reads.changed(dir, outside);
    },
    setFilter(patch) {
      set({ filter: { ...get().filter, ...patch } });
    },
    setSort(sort, descending = false) {
      set({ sort, descending });
    },
    select(key, rows, range = false) {
      set({ selected: toggleSelection(get().selected, rows, key, get().anchor, range), anchor: key });
    },
    clearSelection() {
      set({ selected: new Set(), anchor: null });
    },
    async bulk(action, again) {
      const { selected, rows } = get();
      const dir = again?.dir ?? get().dir;
      const items = again?.items ?? rows.filter((r) => selected.has(rowKey(r))).map((r) => ({ scope: r.scope, file: r.file }));
      if (!dir || items.length === 0) return;
      try {
        const { rev, done, refused } = await call('memories.bulk', {
          dir,
          items,
          action,
          ...(again?.allowSecrets ? { allowSecrets: again.allowSecrets } : {}),
        });
        const what =
          action.kind === 'delete'
            ? 'Deleted'
            : action.kind === 'retire'
              ? 'Retired'
              : action.kind === 'move'
                ? `Moved to ${action.to === 'team' ? 'the team memory' : 'the private memory'}:`
                : `Changed to ${action.type}:`;
        // Those left for a secret in their name are asked about on their own, as a single move is.
        const asked = action.kind === 'move' ? refused.filter((r) => r.secrets?.length) : [];
        const others = refused.filter((r) => !asked.includes(r));
        // One left is said in the line; more are grouped by reason, each file named, behind "Show which and why".
        const groups = groupRefusals(others);
        const left =
          others.length === 0
            ? ''
            : others.length === 1
              ? ` 1 memory left as it was: ${others[0]!.reason}`
              : ` ${plural(others.length, 'memory', 'memories')} left as they were, for ${groups.length === 1 ? 'one reason' : plural(groups.length, 'reason', 'reasons')}.`;
        const more = others.length > 1 ? { details: refusalLines(groups), detailsLabel: 'Show which and why' } : undefined;
        if (done.length > 0 || others.length > 0) offerUndo(dir, rev, `${what} ${plural(done.length, 'memory', 'memories')}.${left}`, [], more);
        if (action.kind === 'move' && asked.length > 0) {
          const ask = askOf({ message: asked.map((r) => r.reason).join(' '), secrets: asked.flatMap((r) => r.secrets ?? []) }, again?.allowSecrets);
          const items = asked.map(({ scope, file }) => ({ scope, file }));
          askMoveAnyway(ask, action.to, (allowSecrets) => get().bulk(action, { dir, items, allowSecrets }));
        }
        // Team memories the sync server holds are not deleted (they would come back): retiring is how they leave, one click, one undo.
        const held = action.kind === 'delete' ? refused.filter((r) => r.heldByServer).map(({ scope, file }) => ({ scope, file })) : [];
        if (held.length > 0) {
          const one = held.length === 1;
          useToasts
            .getState()
            .show(
              'info',
              `${held.map((h) => `team/${h.file}`).join(', ')} ${one ? 'is' : 'are'} shared with the team (the sync server holds ${one ? 'it' : 'them'}): retire ${one ? 'it' : 'them'} instead — ${one ? 'its' : 'their'} text emptied and index lines removed; the next sync shares that.`,
              { label: 'Retire instead', run: () => void get().bulk({ kind: 'retire' }, { dir, items: held }) },
            );
        }
        if (get().dir === dir) set({ selected: new Set(refused.map(rowKey)), anchor: null });
      } catch (error) {
        useToasts.getState().show('error', messageOf(error));
      }
      if (get().dir === dir) await get().refresh();
    },
  };
});
