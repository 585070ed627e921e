/**
 * Dreams in the renderer: the Dream tab's status (gates, lock, running job), the history of
 * dreams with their diffs and revert, and the dashboard's Dream column. Live progress comes from
 * `job` events (kind `dream`), folded in by `onJob`; the transitions are pure functions below.
 */
import { create } from 'zustand';
import type { DreamOverviewRow, DreamRecord, DreamRevert, DreamStatusView } from '../../shared/contract/dream.js';
import { DREAM_PHASES, type DreamPhase } from '../../shared/contract/dream-phases.js';
import type { Job } from '../../shared/contract/events.js';
import { plural } from '../../shared/size-text.js';
import { call } from '../transport/transport.js';
import { coalescedReads } from './coalesced-read.js';
import { messageOf } from './errors.js';
import { useToasts } from './toasts.js';
import { offerUndo } from './undo.js';

/** One segment of the phase bar. */
export interface PhaseStep {
  phase: DreamPhase;
  label: string;
  state: 'done' | 'active' | 'todo';
}

const LABELS: Record<DreamPhase, string> = { orient: 'Orient', gather: 'Gather', consolidate: 'Consolidate', prune: 'Prune', apply: 'Apply' };

/** The phase bar of a dream job: phases before the current one done, the current active. */
export function phaseSteps(job: Pick<Job, 'phase' | 'state'> | null): PhaseStep[] {
  const current = job?.phase ? DREAM_PHASES.indexOf(job.phase as DreamPhase) : -1;
  const finished = job?.state === 'done';
  return DREAM_PHASES.map((phase, i) => ({ phase, label: LABELS[phase], state: finished || i < current ? 'done' : i === current ? 'active' : 'todo' }));
}

/** Milliseconds as "850 ms", "4.2 s", "3 min". */
export function duration(ms: number | null): string {
  if (ms === null) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.round(ms / 60_000)} min`;
}

/** "in 5 h", "in 12 min", "now". */
export function until(iso: string | null, now = Date.now()): string | null {
  if (!iso) return null;
  const ms = Date.parse(iso) - now;
  if (Number.isNaN(ms)) return null;
  if (ms <= 0) return 'now';
  if (ms < 3_600_000) return `in ${Math.max(1, Math.round(ms / 60_000))} min`;
  if (ms < 48 * 3_600_000) return `in ${Math.round(ms / 3_600_000)} h`;
  return `in ${Math.round(ms / 86_400_000)} d`;
}

/** What the dashboard's Dream cell says: running, eligible, or what it waits for. */
export function dreamCell(row: DreamOverviewRow | undefined, now = Date.now()): { text: string; tone: 'ok' | 'warning' | 'muted' } {
  if (!row) return { text: '—', tone: 'muted' };
  if (row.running) return { text: 'dreaming…', tone: 'ok' };
  if (row.lastDreamStatus === 'needs-confirmation') return { text: 'waiting for your confirmation', tone: 'warning' };
  if (row.disabled) return { text: 'scheduled dreams off', tone: 'muted' };
  if (row.eligible) return { text: 'eligible now', tone: 'ok' };
  const next = until(row.nextEligibleAt, now);
  // The time gate opening is the earliest it can be: the sessions may still be missing then.
  if (next) return { text: `earliest ${next}`, tone: 'muted' };
  return { text: row.waitingFor ? `waiting: ${row.waitingFor}` : 'not eligible', tone: 'muted' };
}

/** Files a dream changed, and tokens it spent, for the history list. */
export function dreamFacts(d: DreamRecord): { files: number; tokens: number; skipped: number } {
  return {
    files: d.changes.filter((c) => c.status === 'applied').length,
    tokens: d.tokens.input + d.tokens.output,
    skipped: d.changes.filter((c) => c.status === 'skipped').length,
  };
}

/** Whether a job event is the end of a dream of `dir`. */
export function dreamEnded(job: Job, dir: string | null): boolean {
  return job.kind === 'dream' && (dir === null || job.dir === dir) && (job.state === 'done' || job.state === 'failed' || job.state === 'cancelled');
}

interface DreamState {
  dir: string | null;
  status: DreamStatusView | null;
  dreams: DreamRecord[];
  selected: string | null;
  /** The selected dream's diff, and the file it is limited to (null: all). */
  diff: string;
  diffFile: string | null;
  /** The last revert of the selected dream, to show its warnings. */
  revert: DreamRevert | null;
  /** The running dream job of the open project, as job events report it. */
  job: Job | null;
  overview: Record<string, DreamOverviewRow>;
  overviewAt: number;
  busy: boolean;
  error: string | null;
  open: (dir: string) => Promise<void>;
  /** Read the status and the dreams again: one read at a time; calls made during one share the one read after it. */
  refresh: () => Promise<void>;
  /**
   * The open project's memory changed (an Undo of a revert, History's Undo of a dream, any write):
   * read again once per burst (`coalescedReads`). A dream writing 30 files is one read, not 30.
   */
  onMemoryChanged: (dir: string) => void;
  select: (id: string, file?: string | null) => Promise<void>;
  now: (dir: string, allowDeletes?: boolean) => Promise<void>;
  confirm: (id: string) => Promise<void>;
  revertDream: (id: string, overwriteChanged?: boolean) => Promise<void>;
  cancel: () => Promise<void>;
  loadOverview: (force?: boolean) => Promise<void>;
  /**
   * A job changed (`null`: any may have, its events were lost): a dream that ended changed its
   * project's Dream tab, if open, and the dashboard's column, if it was read.
   */
  onJob: (job: Job | null) => void;
}

export const useDream = create<DreamState>()((set, get) => {
  const reads = coalescedReads(async (dir: string) => {
    if (get().dir !== dir) return;
    try {
      const [status, { dreams }] = await Promise.all([call('dream.status', { dir }), call('dream.list', { dir, limit: 100 })]);
      if (get().dir !== dir) return;
      set({ status, dreams, error: null, job: status.running ?? (get().job?.state === 'running' ? get().job : null) });
      const selected = get().selected && dreams.some((d) => d.id === get().selected) ? get().selected : (dreams[0]?.id ?? null);
      if (selected) await get().select(selected, selected === get().selected ? get().diffFile : null);
    } catch (error) {
      if (get().dir === dir) set({ error: messageOf(error) });
    }
  });
  return {
    dir: null,
    status: null,
    dreams: [],
    selected: null,
    diff: '',
    diffFile: null,
    revert: null,
    job: null,
    overview: {},
    overviewAt: 0,
    busy: false,
    error: null,
    async open(dir) {
      if (get().dir !== dir) set({ dir, status: null, dreams: [], selected: null, diff: '', diffFile: null, revert: null, job: null, error: null });
      await get().refresh();
    },
    refresh() {
      const dir = get().dir;
      return dir ? reads.now(dir) : Promise.resolve();
    },
    onMemoryChanged(dir) {
      if (get().dir === dir) reads.changed(dir);
    },
    async select(id, file = null) {
      if (get().selected !== id) set({ revert: null });
      set({ selected: id, diffFile: file });
      try {
        const { diff } = await call('dream.diff', { id, ...(file ? { file } : {}) });
        if (get().selected === id && get().diffFile === file) set({ diff });
      } catch (error) {
        set({ error: messageOf(error) });
      }
    },
    async now(dir, allowDeletes) {
      set({ busy: true });
      try {
        const r = await call('dream.now', { dir, ...(allowDeletes ? { allowDeletes } : {}) });
        if (r.started) useToasts.getState().show('info', 'Dream started.');
        else useToasts.getState().show('error', r.reason ?? 'The dream did not start.');
        if (get().dir === dir) await get().refresh();
      } catch (error) {
        useToasts.getState().show('error', messageOf(error));
      } finally {
        set({ busy: false });
      }
    },
    async confirm(id) {
      set({ busy: true });
      try {
        const r = await call('dream.confirm', { id });
        if (!r.started) useToasts.getState().show('error', r.reason ?? 'The dream was not applied.');
        await get().refresh();
      } catch (error) {
        useToasts.getState().show('error', messageOf(error));
      } finally {
        set({ busy: false });
      }
    },
    async revertDream(id, overwriteChanged) {
      set({ busy: true });
      try {
        const { revert } = await call('dream.revert', { id, ...(overwriteChanged ? { overwriteChanged } : {}) });
        set({ revert });
        const n = revert.restored.length;
        const refused = revert.rev === null && revert.warnings.length > 0;
        const text = refused
          ? `Nothing was reverted: ${plural(revert.warnings.length, 'memory', 'memories')} changed since the dream.`
          : n > 0
            ? `Reverted: ${plural(n, 'file')} put back.`
            : 'Nothing to revert: it is already as before the dream.';
        const dir = get().dir;
        // The revert is one history entry (the dream's undone): its Undo puts the dream's version back, files and index.
        if (dir && revert.rev) offerUndo(dir, revert.rev, text, revert.notes ?? []);
        else useToasts.getState().show(refused ? 'error' : 'info', text);
        await get().refresh();
        set({ revert });
      } catch (error) {
        useToasts.getState().show('error', messageOf(error));
      } finally {
        set({ busy: false });
      }
    },
    async cancel() {
      const job = get().job;
      if (!job) return;
      try {
        await call('jobs.cancel', { id: job.id });
      } catch (error) {
        useToasts.getState().show('error', messageOf(error));
      }
    },
    async loadOverview(force = false) {
      // The dashboard asks each time it shows its rows; one answer serves a few seconds.
      if (!force && Date.now() - get().overviewAt < 5_000) return;
      set({ overviewAt: Date.now() });
      try {
        const { projects } = await call('dream.overview', {});
        set({ overview: Object.fromEntries(projects.map((p) => [p.dir, p])) });
      } catch {
        // The column shows "—"; the Dream tab says what is wrong.
      }
    },
    onJob(job) {
      if (job !== null && job.kind !== 'dream') return;
      if (job !== null && job.dir === get().dir) set({ job });
      if (job === null || dreamEnded(job, null)) {
        if (job === null || job.dir === get().dir) {
          if (job?.state === 'failed' && job.message) useToasts.getState().show('error', `Dream failed: ${job.message}`);
          void get().refresh();
        }
        // A column not read yet is read when the dashboard shows it.
        if (get().overviewAt > 0) void get().loadOverview(true);
      } else if (get().overview[job.dir ?? ''] && !get().overview[job.dir ?? '']!.running) {
        set({ overview: { ...get().overview, [job.dir!]: { ...get().overview[job.dir!]!, running: true } } });
      }
    },
  };
});
