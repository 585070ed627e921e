/**
 * The desktop app's own abilities (src/shared/contract/desktop.ts): background work, start at
 * login, the memdir command, opening a memory in other programs. In the browser (headless host)
 * `status.available` is false and the views offer none of it.
 */
import { create } from 'zustand';
import type { DesktopStatus } from '../../shared/contract/desktop.js';
import type { Scope } from '../../shared/memory-types.js';
import { call } from '../transport/transport.js';
import { messageOf } from './errors.js';
import { useToasts } from './toasts.js';

interface DesktopState {
  status: DesktopStatus | null;
  busy: boolean;
  error: string | null;
  load: () => Promise<void>;
  setOpenAtLogin: (on: boolean) => Promise<void>;
  installCommand: () => Promise<void>;
  reveal: (dir: string, scope: Scope, file: string) => Promise<void>;
  open: (dir: string, scope: Scope, file: string) => Promise<void>;
}

export const useDesktop = create<DesktopState>()((set) => {
  const change = async (run: () => Promise<DesktopStatus>) => {
    set({ busy: true });
    try {
      set({ status: await run(), error: null });
    } catch (error) {
      set({ error: messageOf(error) });
    } finally {
      set({ busy: false });
    }
  };
  const outward = async (run: () => Promise<unknown>) => {
    try {
      await run();
    } catch (error) {
      useToasts.getState().show('error', messageOf(error));
    }
  };
  return {
    status: null,
    busy: false,
    error: null,
    async load() {
      try {
        set({ status: await call('desktop.status', {}), error: null });
      } catch (error) {
        set({ error: messageOf(error) });
      }
    },
    setOpenAtLogin: (on) => change(() => call('desktop.setOpenAtLogin', { on })),
    installCommand: () => change(() => call('desktop.installCommand', {})),
    reveal: (dir, scope, file) => outward(() => call('desktop.revealMemory', { dir, scope, file })),
    open: (dir, scope, file) => outward(() => call('desktop.openMemory', { dir, scope, file })),
  };
});
