/**
 * Team sync in the renderer: the Team sync tab of the open project (state, last pull and push,
 * what is waiting, conflicts with their merge editor, moving memories between private and
 * team) and the dashboard's Team column. What it shares with personal sync is in project-sync.ts.
 * `team-changed` events refresh it; the transitions and the words shown are pure functions
 * below, tested without React.
 */
import { create } from 'zustand';
import type { TeamOverviewRow, TeamStatus, WaitingReason } from '../../shared/contract/team.js';
import { resolvedInClaudeCodeStore } from '../../shared/sync-waiting.js';
import type { Scope } from '../../shared/memory-types.js';
import { ago } from '../components/format.js';
import { call } from '../transport/transport.js';
import { coalescedReads } from './coalesced-read.js';
import { askInNotice, messageOf, overruledByOf, type SecretAsk, secretAskOf } from './errors.js';
import { type ProjectSyncSlice, projectSyncSlice, type SyncSide } from './project-sync.js';
import { useToasts } from './toasts.js';
import { offerUndo } from './undo.js';

/**
 * Move a memory between private and team (one history entry; R-TYPES refusals come back as errors), offering Undo.
 * A name holding a secret (it would go into the other MEMORY.md) is asked about: the refusal, masked, with "Move anyway"
 * (to the team: shared by team sync then, the choice recorded as allowed, team/move-scope.ts).
 */
export async function moveMemory(dir: string, file: string, to: Scope, allowSecrets?: string[]): Promise<void> {
  let rev: string | null;
  try {
    ({ rev } = await call('team.move', { dir, file, to, ...(allowSecrets?.length ? { allowSecrets } : {}) }));
  } catch (error) {
    const ask = secretAskOf(error, allowSecrets);
    if (!ask) throw error;
    askMoveAnyway(ask, to, (allow) => moveMemory(dir, file, to, allow));
    return;
  }
  offerUndo(dir, rev, `Moved ${file} to the ${to === 'team' ? 'team' : 'private'} memory.`);
}

/** Ask about a move refused for a secret in a name (one move or a bulk one): "Move anyway", which team sync then shares (team/move-scope.ts). */
export function askMoveAnyway(ask: SecretAsk, to: Scope, anyway: (allowSecrets: string[]) => Promise<unknown>): void {
  askInNotice(ask, 'Move', anyway, to === 'team' ? ', and team sync shares it with your team' : '');
}

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
  'user-memory': 'user memory: stays private',
  'claude-code-store': "synced by Claude Code's own store",
};

/** A short label for why a file waits. */
export function waitingLabel(reason: WaitingReason): string {
  return WAITING_LABELS[reason];
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

interface TeamStoreState extends ProjectSyncSlice<TeamStatus> {
  overview: Record<string, TeamOverviewRow>;
  overviewAt: number;
  connect: (input: { server: string; team: string; token: string; allowHttp?: boolean }) => Promise<boolean>;
  /** The input that overrules the last connect's refusal (`allowHttp`), offered with the error. */
  connectOverruledBy: string | null;
  disconnect: () => Promise<void>;
  move: (file: string, to: Scope) => Promise<void>;
  loadOverview: (force?: boolean) => Promise<void>;
  /** A project's team sync changed (`null`: any may have, its events were lost): its tab if open, and the dashboard's column if it was read, once per burst. */
  onTeamChanged: (dir: string | null) => void;
}

const TEAM_SIDE: SyncSide<TeamStatus> = {
  status: (dir) => call('team.status', { dir }),
  sync: (dir) => call('team.sync', { dir }),
  conflict: (dir, id) => call('team.conflict', { dir, id }),
  resolve: (dir, input) => call('team.resolve', { dir, ...input }),
  resolved(detail, take, { rev, report }) {
    const pushed = report?.push.uploaded.includes(detail.conflict.key);
    if (take === 'server')
      return { text: `Kept the team's version of ${detail.conflict.key}.${rev ? ' Your version is in History: Undo puts it back.' : ''}`, failed: false };
    if (report?.error) return { text: `Saved, but the push failed: ${report.error.message}`, failed: true };
    return {
      text: resolvedInClaudeCodeStore(detail.conflict.key, report?.waiting ?? [], 'team/') ?? `Saved${pushed ? ' and pushed' : ''} ${detail.conflict.key}.`,
      failed: false,
    };
  },
  reopenRefused: true,
};

export const useTeam = create<TeamStoreState>()((set, get) => ({
  ...projectSyncSlice(TEAM_SIDE, set, get),
  overview: {},
  overviewAt: 0,
  connectOverruledBy: null,
  async connect(input) {
    const dir = get().dir;
    if (!dir) return false;
    set({ busy: true, error: null, connectOverruledBy: null });
    try {
      const project = await call('team.connect', { dir, ...input });
      set({ project });
      useToasts.getState().show('info', `Connected to ${project.connection?.team ?? input.team} as ${project.connection?.member ?? '?'}.`);
      void get().loadOverview(true);
      return true;
    } catch (error) {
      set({ error: messageOf(error), connectOverruledBy: overruledByOf(error) });
      return false;
    } finally {
      set({ busy: false });
    }
  },
  disconnect: () =>
    get().onProject(async (dir) => {
      await call('team.disconnect', { dir });
      await get().refresh();
      void get().loadOverview(true);
    }),
  move: (file, to) =>
    get().onProject(async (dir) => {
      await moveMemory(dir, file, to);
      await get().refresh();
    }),
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
    get().onSyncChanged(dir);
    // A column not read yet is read when the dashboard shows it.
    if (get().overviewAt > 0) overviewReads.changed(null);
  },
}));

/** The dashboard's Team column, read again once per burst of team changes (`coalescedReads`). */
const overviewReads = coalescedReads<null>(() => useTeam.getState().loadOverview(true));

export { type SideLine, sideBySide, unionMerge } from '../../shared/line-union.js';
