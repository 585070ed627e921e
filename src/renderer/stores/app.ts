/** The app: where it looks (home, demo), theme, connection. */
import { create } from 'zustand';
import type { AppInfo } from '../../shared/contract/app.js';
import { call } from '../transport/transport.js';
import { messageOf } from './errors.js';
import { useNav } from './nav.js';
import { useProjects } from './projects.js';

interface AppState {
  info: AppInfo | null;
  error: string | null;
  busy: boolean;
  load: () => Promise<void>;
  openDemo: () => Promise<void>;
  setHome: (home: string | null) => Promise<void>;
}

export const useApp = create<AppState>()((set) => ({
  info: null,
  error: null,
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
      // The new home's dashboard, whichever comes first: this answer or the switch's home-changed event (which then leaves the page where it is).
      useNav.getState().go({ view: 'dashboard' });
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
      // The new home's dashboard, whichever comes first: this answer or the switch's home-changed event (which then leaves the page where it is).
      useNav.getState().go({ view: 'dashboard' });
      await useProjects.getState().load();
    } catch (error) {
      set({ error: messageOf(error) });
      throw error;
    } finally {
      set({ busy: false });
    }
  },
}));
