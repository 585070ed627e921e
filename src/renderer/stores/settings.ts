/** Memdir's own settings (theme, model connection) and the model's status. */
import { create } from 'zustand';
import type { SettingsView } from '../../shared/contract/recall.js';
import type { ProviderStatus } from '../../shared/recall-types.js';
import { call } from '../transport/transport.js';
import { messageOf } from './errors.js';
import { useToasts } from './toasts.js';

interface SettingsState {
  view: SettingsView | null;
  status: ProviderStatus | null;
  error: string | null;
  load: () => Promise<void>;
  update: (patch: Record<string, unknown>) => Promise<boolean>;
  setApiKey: (key: string | null) => Promise<boolean>;
}

export const useSettings = create<SettingsState>()((set) => ({
  view: null,
  status: null,
  error: null,
  async load() {
    try {
      const [view, status] = await Promise.all([call('settings.get', {}), call('model.status', {})]);
      set({ view, status, error: null });
    } catch (error) {
      set({ error: messageOf(error) });
    }
  },
  async update(patch) {
    try {
      set({ view: await call('settings.update', { patch }), error: null });
      set({ status: await call('model.status', {}) });
      return true;
    } catch (error) {
      set({ error: messageOf(error) });
      return false;
    }
  },
  async setApiKey(key) {
    try {
      set({ view: await call('settings.setApiKey', { key }), error: null });
      set({ status: await call('model.status', {}) });
      useToasts.getState().show('info', key ? 'API key saved.' : 'API key removed.');
      return true;
    } catch (error) {
      set({ error: messageOf(error) });
      return false;
    }
  },
}));

/** The theme in force: the saved setting, or the system's until settings have loaded. */
export function themeOf(view: SettingsView | null): 'light' | 'dark' | 'system' {
  return view?.settings.theme ?? 'system';
}
