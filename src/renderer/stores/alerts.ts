/**
 * The Alerts view: secrets that kept a file from being shared (with open, redact — rename for a
 * secret in a file's name — and allow), and sync and security alerts. The badge count comes with every `alerts-changed` event; the
 * list is loaded when the view opens or the count moves.
 */
import { create } from 'zustand';
import type { AlertRecord, AllowedSecret } from '../../shared/contract/alerts.js';
import { shownFileOf } from '../../shared/alert-file.js';
import { call } from '../transport/transport.js';
import { messageOf } from './errors.js';
import type { Route } from './nav.js';
import { useToasts } from './toasts.js';
import { offerUndo } from './undo.js';

/** Where "open" goes for an alert about a memory file: the memory in its project (team or private). */
export function alertTarget(alert: Pick<AlertRecord, 'dir' | 'file'>): Route | null {
  if (!alert.dir || !alert.file) return null;
  const team = alert.file.startsWith('team/');
  const file = team ? alert.file.slice('team/'.length) : alert.file;
  // The memory browser lists top-level files; a key in a folder opens the project's Team sync tab.
  if (file.includes('/')) return { view: 'project', dir: alert.dir, tab: 'team' };
  return { view: 'project', dir: alert.dir, tab: 'memories', scope: team ? 'team' : 'private', file };
}

/** Open alerts first (as the server sorts them), then the rest; a count for the badge. */
export function splitAlerts(alerts: AlertRecord[]): { open: AlertRecord[]; closed: AlertRecord[] } {
  return { open: alerts.filter((a) => a.status === 'open'), closed: alerts.filter((a) => a.status !== 'open') };
}

interface AlertsState {
  alerts: AlertRecord[];
  allowed: AllowedSecret[];
  open: number;
  loaded: boolean;
  busy: boolean;
  error: string | null;
  load: () => Promise<void>;
  dismiss: (id: string) => Promise<void>;
  redact: (id: string, fingerprint: string) => Promise<void>;
  /** For a secret in a file's name: rename the file (undoable); false when refused. */
  rename: (alert: AlertRecord, fingerprint: string, to: string) => Promise<boolean>;
  allow: (id: string, fingerprint: string, why: string) => Promise<boolean>;
  onChanged: (open: number) => void;
}

export const useAlerts = create<AlertsState>()((set, get) => {
  /** One change of a finding, with the page busy meanwhile: the list is read again after it; an error is a toast. True when it went through. */
  const changeFinding = async (change: () => Promise<void>): Promise<boolean> => {
    set({ busy: true });
    try {
      await change();
      await get().load();
      return true;
    } catch (error) {
      useToasts.getState().show('error', messageOf(error));
      return false;
    } finally {
      set({ busy: false });
    }
  };
  return {
    alerts: [],
    allowed: [],
    open: 0,
    loaded: false,
    busy: false,
    error: null,
    async load() {
      try {
        const { alerts, open, allowed } = await call('alerts.list', {});
        set({ alerts, open, allowed, loaded: true, error: null });
      } catch (error) {
        set({ error: messageOf(error), loaded: true });
      }
    },
    async dismiss(id) {
      try {
        await call('alerts.dismiss', { id });
        await get().load();
      } catch (error) {
        useToasts.getState().show('error', messageOf(error));
      }
    },
    async redact(id, fingerprint) {
      await changeFinding(async () => {
        const { alert } = await call('alerts.redact', { id, fingerprint });
        useToasts
          .getState()
          .show(
            'info',
            alert.status === 'resolved'
              ? `Redacted: ${shownFileOf(alert)} can be shared now (recorded in history).`
              : 'Redacted that finding (recorded in history).',
          );
      });
    },
    rename: (alert, fingerprint, to) =>
      changeFinding(async () => {
        const { file, rev } = await call('alerts.rename', { id: alert.id, fingerprint, to });
        const text = `Renamed ${shownFileOf(alert)} to ${file}; the next sync checks it under its new name.`;
        if (alert.dir) offerUndo(alert.dir, rev, text);
        else useToasts.getState().show('info', text);
      }),
    allow: (id, fingerprint, why) =>
      changeFinding(async () => {
        await call('alerts.allow', { id, fingerprint, why });
        useToasts.getState().show('info', 'Allowed: that exact value no longer blocks sharing in this project.');
      }),
    onChanged(open) {
      set({ open });
      if (get().loaded) void get().load();
    },
  };
});
