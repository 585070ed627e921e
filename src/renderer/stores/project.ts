/** The open project: its memories (private and team), their filter, its health. */
import { create } from 'zustand';
import type { MemoryType, Scope } from '../../shared/memory-types.js';
import type { MemorySummary, ProjectScan } from '../../shared/scan-types.js';
import type { Problem } from '../../shared/problems.js';
import { call } from '../transport/transport.js';
import { messageOf } from './errors.js';

export interface MemoryFilter {
  text: string;
  type: MemoryType | 'all';
  scope: Scope | 'all';
}

export interface MemoryRow extends MemorySummary {
  /** Whether its pointer reaches the agent, is past the cut, or is missing from the index. */
  indexState: 'loaded' | 'cut' | 'unlisted';
  problems: number;
}

export function memoryRows(scan: ProjectScan): MemoryRow[] {
  const rows: MemoryRow[] = [];
  for (const dir of [scan, scan.team]) {
    if (!dir) continue;
    const loaded = new Set(dir.index.loaded);
    const cut = new Set(dir.index.cut);
    const problems = new Map<string, number>();
    for (const p of dir.problems) if (p.file && p.severity !== 'hint') problems.set(p.file, (problems.get(p.file) ?? 0) + 1);
    for (const m of dir.memories) {
      rows.push({ ...m, indexState: loaded.has(m.file) ? 'loaded' : cut.has(m.file) ? 'cut' : 'unlisted', problems: problems.get(m.file) ?? 0 });
    }
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

export function problemsOf(scan: ProjectScan): (Problem & { scope: Scope })[] {
  return [...scan.problems.map((p) => ({ ...p, scope: 'private' as const })), ...(scan.team?.problems ?? []).map((p) => ({ ...p, scope: 'team' as const }))];
}

interface ProjectState {
  dir: string | null;
  scan: ProjectScan | null;
  rows: MemoryRow[];
  error: string | null;
  filter: MemoryFilter;
  open: (dir: string) => Promise<void>;
  refresh: () => Promise<void>;
  setFilter: (patch: Partial<MemoryFilter>) => void;
}

export const useProject = create<ProjectState>()((set, get) => ({
  dir: null,
  scan: null,
  rows: [],
  error: null,
  filter: { text: '', type: 'all', scope: 'all' },
  async open(dir) {
    if (get().dir !== dir) set({ dir, scan: null, rows: [], error: null });
    await get().refresh();
  },
  async refresh() {
    const dir = get().dir;
    if (!dir) return;
    try {
      const scan = await call('projects.get', { dir });
      // User Timing marks: visible in devtools, and read by `npm run bench renderer`.
      performance.mark('memdir:project-loaded');
      if (get().dir === dir) set({ scan, rows: memoryRows(scan), error: null });
    } catch (error) {
      if (get().dir === dir) set({ error: messageOf(error) });
    }
  },
  setFilter(patch) {
    set({ filter: { ...get().filter, ...patch } });
  },
}));
