/**
 * What the preload exposes to the page: `window.memdirBridge` with `call` and `subscribe` over
 * two IPC channels — nothing else of Electron or Node reaches the renderer (contextIsolation).
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { CALL_CHANNEL, EVENT_CHANNEL, SUBSCRIBE_CHANNEL } from './ipc-channels.js';

export function exposeBridge(): void {
  contextBridge.exposeInMainWorld('memdirBridge', {
    call: (name: string, input: unknown) => ipcRenderer.invoke(CALL_CHANNEL, name, input),
    subscribe(name: string, input: unknown, onEvent: (event: unknown) => void): () => void {
      const listener = (_e: IpcRendererEvent, event: unknown) => onEvent(event);
      ipcRenderer.on(EVENT_CHANNEL, listener);
      void ipcRenderer.invoke(SUBSCRIBE_CHANNEL, name, input);
      return () => ipcRenderer.removeListener(EVENT_CHANNEL, listener);
    },
  });
}
