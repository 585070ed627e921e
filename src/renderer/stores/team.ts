/**
 * Team sync in the renderer: the Team sync tab of the open project (state, last pull and push,
 * what is waiting, conflicts with their merge editor, moving memories between private and
 * team) and the dashboard's Team column. `team-changed` events refresh it; the transitions and
 * the words shown are pure functions below, tested without React.
 */
import { create } from 'zustand';
import type { ConflictDetail, ConflictResolution, SyncReport, TeamOverviewRow, TeamStatus, WaitingReason } from '../../shared/contract/team.js';
import type { Scope } from '../../shared/memory-types.js';
import { ago } from '../components/format.js';
import { call } from '../transport/transport.js';
import { messageOf } from './errors.js';
import { useToasts } from './toasts.js';
import { offerUndo } from './undo.js';

/** What the dashboard's Team cell says. */
export function teamCell(
  row: TeamOverviewRow | undefined,
  hasTeamDir: boolean,
  now = Date.now(),
): { text: string; tone: 'ok' | 'warning' | 'error' | 'muted'; detail: string | null } {
  if (!row) return { text: hasTeamDir ? 'local only' : '—', tone: 'muted', detail: null };
  const last = row.lastSyncAt ? ago(Date.parse(row.lastSyncAt), now) : null;
  switch (row.state) {
    case 'syncing':
      return { text: 'syncing…', tone: 'ok', detail: null };
    case 'error':
      return { text: 'sync error', tone: 'error', detail: row.error };
    case 'conflicts':
      return { text: `${row.conflicts} conflict${row.conflicts === 1 ? '' : 's'}`, tone: 'warning', detail: last ? `synced ${last}` : null };
    case 'pending':
      return { text: `${row.waiting} waiting`, tone: 'warning', detail: last ? `synced ${last}` : null };
    case 'never-synced':
      return { text: 'not synced yet', tone: 'muted', detail: row.team };
    case 'not-connected':
      return { text: 'local only', tone: 'muted', detail: null };
    case 'synced':
      return { text: 'synced', tone: 'ok', detail: last ? `${row.team} · ${last}` : row.team };
  }
}

const WAITING_LABELS: Record<WaitingReason, string> = {
  pending: 'to push',
  secret: 'holds a secret',
  'invalid-key': 'name not allowed',
  'too-large': 'too large',
  'not-utf8': 'not UTF-8',
  binary: 'binary',
  symlink: 'link refused',
  hardlink: 'hard link refused',
  'not-a-file': 'not a file',
  'too-deep': 'too deep',
  'server-moved': 'changed on the server',
  refused: 'refused by the server',
};

/** A short label for why a file waits. */
export function waitingLabel(reason: WaitingReason): string {
  return WAITING_LABELS[reason];
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

/** The headline of the Team sync tab. */
export function stateHeadline(status: TeamStatus): string {
  switch (status.state) {
    case 'not-connected':
      return 'Not connected: the team memory stays on this machine.';
    case 'syncing':
      return 'Syncing…';
    case 'error':
      return `Sync error: ${status.error?.message ?? 'unknown'}`;
    case 'conflicts':
      return `${status.conflicts.length} conflict${status.conflicts.length === 1 ? '' : 's'} to resolve: your versions are kept until you choose.`;
    case 'pending':
      return `${status.waiting.length} file${status.waiting.length === 1 ? '' : 's'} not on the server yet.`;
    case 'never-synced':
      return 'Connected, not synced yet.';
    case 'synced':
      return 'In step with the team.';
  }
}

interface TeamStoreState {
  dir: string | null;
  status: TeamStatus | null;
  overview: Record<string, TeamOverviewRow>;
  overviewAt: number;
  /** The conflict open in the merge editor. */
  detail: ConflictDetail | null;
  busy: boolean;
  error: string | null;
  open: (dir: string) => Promise<void>;
  refresh: () => Promise<void>;
  connect: (input: { server: string; team: string; token: string; allowHttp?: boolean }) => Promise<boolean>;
  disconnect: () => Promise<void>;
  syncNow: (dir?: string) => Promise<void>;
  openConflict: (id: string) => Promise<void>;
  closeConflict: () => void;
  resolve: (take: ConflictResolution, text?: string) => Promise<void>;
  move: (file: string, to: Scope) => Promise<void>;
  loadOverview: (force?: boolean) => Promise<void>;
  onTeamChanged: (dir: string) => void;
}

export const useTeam = create<TeamStoreState>()((set, get) => ({
  dir: null,
  status: null,
  overview: {},
  overviewAt: 0,
  detail: null,
  busy: false,
  error: null,
  async open(dir) {
    if (get().dir !== dir) set({ dir, status: null, detail: null, error: null });
    await get().refresh();
  },
  async refresh() {
    const dir = get().dir;
    if (!dir) return;
    try {
      const status = await call('team.status', { dir });
      if (get().dir === dir) set({ status, error: null });
    } catch (error) {
      set({ error: messageOf(error) });
    }
  },
  async connect(input) {
    const dir = get().dir;
    if (!dir) return false;
    set({ busy: true, error: null });
    try {
      const status = await call('team.connect', { dir, ...input });
      set({ status });
      useToasts.getState().show('info', `Connected to ${status.connection?.team ?? input.team} as ${status.connection?.member ?? '?'}.`);
      void get().loadOverview(true);
      return true;
    } catch (error) {
      set({ error: messageOf(error) });
      return false;
    } finally {
      set({ busy: false });
    }
  },
  async disconnect() {
    const dir = get().dir;
    if (!dir) return;
    set({ busy: true });
    try {
      await call('team.disconnect', { dir });
      await get().refresh();
      void get().loadOverview(true);
    } catch (error) {
      useToasts.getState().show('error', messageOf(error));
    } finally {
      set({ busy: false });
    }
  },
  async syncNow(dir) {
    const target = dir ?? get().dir;
    if (!target) return;
    set({ busy: true });
    try {
      const report = await call('team.sync', { dir: target });
      const message = reportMessage(report);
      useToasts.getState().show(message.kind, message.text);
      if (get().dir === target) await get().refresh();
    } catch (error) {
      useToasts.getState().show('error', messageOf(error));
    } finally {
      set({ busy: false });
    }
  },
  async openConflict(id) {
    const dir = get().dir;
    if (!dir) return;
    try {
      set({ detail: await call('team.conflict', { dir, id }) });
    } catch (error) {
      useToasts.getState().show('error', messageOf(error));
    }
  },
  closeConflict() {
    set({ detail: null });
  },
  async resolve(take, text) {
    const { dir, detail } = get();
    if (!dir || !detail) return;
    set({ busy: true });
    try {
      const result = await call('team.resolve', { dir, id: detail.conflict.id, take, ...(text !== undefined ? { text } : {}), theirsSha: detail.theirsSha });
      set({ detail: null });
      const pushed = result.report?.push.uploaded.includes(detail.conflict.key);
      const said =
        take === 'server'
          ? `Kept the team's version of ${detail.conflict.key}.`
          : result.report?.error
            ? `Saved, but the push failed: ${result.report.error.message}`
            : `Saved${pushed ? ' and pushed' : ''} ${detail.conflict.key}.`;
      // The resolution is one history entry; its Undo puts the file back as it was before.
      if (result.report?.error) useToasts.getState().show('error', said);
      else offerUndo(dir, result.rev, said);
      await get().refresh();
    } catch (error) {
      useToasts.getState().show('error', messageOf(error));
      await get().openConflict(detail.conflict.id);
    } finally {
      set({ busy: false });
    }
  },
  async move(file, to) {
    const dir = get().dir;
    if (!dir) return;
    set({ busy: true });
    try {
      const { rev } = await call('team.move', { dir, file, to });
      offerUndo(dir, rev, `Moved ${file} to the ${to === 'team' ? 'team' : 'private'} memory.`);
      await get().refresh();
    } catch (error) {
      useToasts.getState().show('error', messageOf(error));
    } finally {
      set({ busy: false });
    }
  },
  async loadOverview(force = false) {
    if (!force && Date.now() - get().overviewAt < 5_000) return;
    set({ overviewAt: Date.now() });
    try {
      const { projects } = await call('team.overview', {});
      set({ overview: Object.fromEntries(projects.map((p) => [p.dir, p])) });
    } catch {
      // The column falls back to "local only"; the Team sync tab says what is wrong.
    }
  },
  onTeamChanged(dir) {
    if (get().dir === dir) void get().refresh();
    void get().loadOverview(true);
  },
}));

export { type SideLine, sideBySide, unionMerge } from '../../shared/line-union.js';
