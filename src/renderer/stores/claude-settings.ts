/** Claude Code's own settings that Memdir writes for the user: the autoDreamEnabled switch. */
import { create } from 'zustand';
import type { AutoDreamSetting } from '../../shared/contract/claude-settings.js';
import { call } from '../transport/transport.js';
import { messageOf } from './errors.js';
import { useToasts } from './toasts.js';

interface ClaudeSettingsState {
  autoDream: AutoDreamSetting | null;
  busy: boolean;
  error: string | null;
  load: () => Promise<void>;
  setAutoDream: (enabled: boolean) => Promise<void>;
}

export const useClaudeSettings = create<ClaudeSettingsState>()((set) => ({
  autoDream: null,
  busy: false,
  error: null,
  async load() {
    try {
      set({ autoDream: await call('claudeSettings.autoDream', {}), error: null });
    } catch (error) {
      set({ error: messageOf(error) });
    }
  },
  async setAutoDream(enabled) {
    set({ busy: true });
    try {
      const { changed, backup, ...autoDream } = await call('claudeSettings.setAutoDream', { enabled });
      set({ autoDream, error: null });
      if (changed)
        useToasts
          .getState()
          .show('info', `Wrote "autoDreamEnabled": ${enabled} to ${autoDream.settingsFile}.${backup ? ` Previous version kept in ${backup}.` : ''}`);
    } catch (error) {
      set({ error: messageOf(error) });
    } finally {
      set({ busy: false });
    }
  },
}));
