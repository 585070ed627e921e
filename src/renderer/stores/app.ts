/** The app: where it looks (home, demo), theme, connection. */
import { create } from 'zustand';
import type { AppInfo } from '../../shared/contract/app.js';
import { call } from '../transport/transport.js';
import { messageOf } from './errors.js';
import { useProjects } from './projects.js';

export type Theme = 'light' | 'dark' | 'system';
const THEME_KEY = 'memdir.theme';

interface AppState {
  info: AppInfo | null;
  error: string | null;
  theme: Theme;
  busy: boolean;
  load: () => Promise<void>;
  openDemo: () => Promise<void>;
  setHome: (home: string | null) => Promise<void>;
  setTheme: (theme: Theme) => void;
}

function storedTheme(): Theme {
  const value = typeof localStorage === 'undefined' ? null : localStorage.getItem(THEME_KEY);
  return value === 'light' || value === 'dark' ? value : 'system';
}

export const useApp = create<AppState>()((set) => ({
  info: null,
  error: null,
  theme: storedTheme(),
  busy: false,
  async load() {
    try {
      set({ info: await call('app.info', {}), error: null });
    } catch (error) {
      set({ error: messageOf(error) });
    }
  },
  async openDemo() {
    set({ busy: true });
    try {
      set({ info: await call('app.openDemo', {}), error: null });
      await useProjects.getState().load();
    } catch (error) {
      set({ error: messageOf(error) });
    } finally {
      set({ busy: false });
    }
  },
  async setHome(home) {
    set({ busy: true });
    try {
      set({ info: await call('app.setHome', { home }), error: null });
      await useProjects.getState().load();
    } catch (error) {
      set({ error: messageOf(error) });
      throw error;
    } finally {
      set({ busy: false });
    }
  },
  setTheme(theme) {
    localStorage.setItem(THEME_KEY, theme);
    set({ theme });
  },
}));
