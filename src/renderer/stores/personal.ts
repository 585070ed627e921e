/**
 * Personal sync in the renderer (issue 18, item 5): Settings → Personal sync (connect this
 * machine, with the passphrase warning and a second typing of it before a new space's passphrase
 * is set) and the open project's personal sync (on/off, state, sync now, conflicts in the merge
 * editor), sharing its project part with team sync (project-sync.ts). `personal-changed` events
 * refresh it; the words shown are pure functions below.
 */
import { create } from 'zustand';
import type { PersonalProjectStatus, PersonalStatus } from '../../shared/contract/personal.js';
import { resolvedInClaudeCodeStore } from '../../shared/sync-waiting.js';
import { call } from '../transport/transport.js';
import { coalescedReads } from './coalesced-read.js';
import { messageOf, overruledByOf } from './errors.js';
import { type ProjectSyncSlice, projectSyncSlice, type SyncSide } from './project-sync.js';
import { useToasts } from './toasts.js';

/** Why the connect form cannot be sent yet, or null when it can. */
export function connectProblem(
  input: { server: string; token: string; passphrase: string; again: string; acknowledged: boolean },
  step: 'connect' | 'confirm',
  minChars: number,
): string | null {
  if (!input.server.trim() || !input.token.trim() || !input.passphrase) return "Give the server, this machine's token and your passphrase.";
  if (step === 'confirm') {
    if ([...input.passphrase].length < minChars) return `A new passphrase needs at least ${minChars} characters.`;
    if (input.again !== input.passphrase) return 'Type the same passphrase twice.';
    if (!input.acknowledged) return 'Confirm that you have read what losing the passphrase means.';
  }
  return null;
}

/** The headline of a project's personal sync. */
export function personalHeadline(status: PersonalProjectStatus): string {
  if (!status.account) return 'This machine is not connected to a personal space.';
  if (!status.enabled) return 'Your private memory of this project stays on this machine.';
  switch (status.state) {
    case 'syncing':
      return 'Syncing…';
    case 'error':
      return `Sync error: ${status.error?.message ?? 'unknown'}`;
    case 'conflicts':
      return `${status.conflicts.length} conflict${status.conflicts.length === 1 ? '' : 's'} to resolve: your versions are kept until you choose.`;
    case 'pending':
      return `${status.waiting.length} file${status.waiting.length === 1 ? '' : 's'} not on your other machines yet.`;
    case 'never-synced':
      return 'On, not synced yet.';
    default:
      return 'In step with your other machines.';
  }
}

interface PersonalStoreState extends ProjectSyncSlice<PersonalProjectStatus> {
  /** This machine's personal account (Settings → Personal sync). */
  status: PersonalStatus | null;
  /** Set when the server's space has no passphrase yet: the warning to confirm before it is set. */
  confirm: string | null;
  /** Why the account could not be read or connected (the project's own trouble is `error`). */
  accountError: string | null;
  /** The input that overrules the last connect's refusal (`allowHttp`), offered with the error. */
  connectOverruledBy: string | null;
  load: () => Promise<void>;
  connect: (input: { server: string; token: string; passphrase: string; allowHttp?: boolean; acknowledged?: boolean }) => Promise<boolean>;
  cancelConfirm: () => void;
  disconnect: () => Promise<void>;
  enable: (identity?: string) => Promise<void>;
  disable: () => Promise<void>;
  /** Personal sync changed for `dir` (`null`: the account, or any project): the open project's and the account, if read, once per burst. */
  onChanged: (dir: string | null) => void;
}

const PERSONAL_SIDE: SyncSide<PersonalProjectStatus> = {
  status: (dir) => call('personal.project', { dir }),
  sync: (dir) => call('personal.sync', { dir }),
  conflict: (dir, id) => call('personal.conflict', { dir, id }),
  resolve: (dir, input) => call('personal.resolve', { dir, ...input }),
  resolved(detail, take, { rev, report }) {
    if (take === 'server')
      return {
        text: `Kept your other machine's version of ${detail.conflict.key}.${rev ? ' Your version is in History: Undo puts it back.' : ''}`,
        failed: false,
      };
    if (report?.error) return { text: `Saved, but the push failed: ${report.error.message}`, failed: true };
    return { text: resolvedInClaudeCodeStore(detail.conflict.key, report?.waiting ?? []) ?? `Saved ${detail.conflict.key}.`, failed: false };
  },
  reopenRefused: false,
};

export const usePersonal = create<PersonalStoreState>()((set, get) => ({
  ...projectSyncSlice(PERSONAL_SIDE, set, get),
  status: null,
  confirm: null,
  accountError: null,
  connectOverruledBy: null,
  async load() {
    try {
      set({ status: await call('personal.status', {}) });
    } catch (error) {
      set({ accountError: messageOf(error) });
    }
  },
  async connect(input) {
    set({ busy: true, accountError: null, connectOverruledBy: null });
    try {
      const result = await call('personal.connect', input);
      if (result.outcome === 'needs-acknowledgement') {
        set({ confirm: result.warning });
        return false;
      }
      set({ status: result.status, confirm: null });
      useToasts
        .getState()
        .show(
          'info',
          result.created ? 'Your passphrase is set. Every other machine needs it.' : `Connected to ${result.status.account?.user ?? 'your'}'s personal space.`,
        );
      if (get().dir) await get().refresh();
      return true;
    } catch (error) {
      set({ accountError: messageOf(error), connectOverruledBy: overruledByOf(error) });
      return false;
    } finally {
      set({ busy: false });
    }
  },
  cancelConfirm() {
    set({ confirm: null });
  },
  async disconnect() {
    set({ busy: true });
    try {
      await call('personal.disconnect', {});
      await get().load();
      if (get().dir) await get().refresh();
    } catch (error) {
      useToasts.getState().show('error', messageOf(error));
    } finally {
      set({ busy: false });
    }
  },
  async enable(identity) {
    const dir = get().dir;
    if (!dir) return;
    set({ busy: true, error: null });
    try {
      set({ project: await call('personal.enable', { dir, ...(identity ? { identity } : {}) }) });
    } catch (error) {
      set({ error: messageOf(error) });
    } finally {
      set({ busy: false });
    }
  },
  disable: () =>
    get().onProject(async (dir) => {
      await call('personal.disable', { dir });
      await get().refresh();
    }),
  onChanged(dir) {
    get().onSyncChanged(dir);
    if (get().status) accountReads.changed(null);
  },
}));

/** This machine's personal account, read again once per burst of personal sync changes (`coalescedReads`). */
const accountReads = coalescedReads<null>(() => usePersonal.getState().load());
