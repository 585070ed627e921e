/** "Connect to Claude Code": the hooks' status, the planned change (a diff) and applying it. */
import { create } from 'zustand';
import type { HooksAction, HooksPlan, HooksStatus } from '../../shared/contract/hooks.js';
import { call } from '../transport/transport.js';
import { messageOf } from './errors.js';
import { useToasts } from './toasts.js';

interface HooksState {
  status: HooksStatus | null;
  /** The change shown to the user, waiting for "Write settings.json". */
  plan: HooksPlan | null;
  busy: boolean;
  error: string | null;
  load: () => Promise<void>;
  preview: (action: HooksAction) => Promise<void>;
  apply: () => Promise<void>;
  cancel: () => void;
}

export const useHooks = create<HooksState>()((set, get) => ({
  status: null,
  plan: null,
  busy: false,
  error: null,
  async load() {
    try {
      set({ status: await call('hooks.status', {}), error: null });
    } catch (error) {
      set({ error: messageOf(error) });
    }
  },
  async preview(action) {
    set({ busy: true });
    try {
      set({ plan: await call('hooks.plan', { action }), error: null });
    } catch (error) {
      set({ error: messageOf(error) });
    } finally {
      set({ busy: false });
    }
  },
  async apply() {
    const plan = get().plan;
    if (!plan) return;
    set({ busy: true });
    try {
      const { status, backup } = await call('hooks.apply', { action: plan.action, baseHash: plan.baseHash });
      set({ status, plan: null, error: null });
      useToasts
        .getState()
        .show(
          'info',
          `${plan.action === 'connect' ? 'Connected to' : 'Disconnected from'} Claude Code.${backup ? ` Previous settings kept in ${backup}.` : ''}`,
        );
    } catch (error) {
      // A file changed since the diff: show the fresh diff rather than a stale one.
      set({ error: messageOf(error), plan: null });
    } finally {
      set({ busy: false });
    }
  },
  cancel() {
    set({ plan: null });
  },
}));
