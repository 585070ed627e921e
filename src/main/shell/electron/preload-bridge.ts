/**
 * What the preload exposes to the page: `window.memdirBridge` with `call` and `subscribe` over
 * two IPC channels — nothing else of Electron or Node reaches the renderer (contextIsolation).
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { CALL_CHANNEL, EVENT_CHANNEL, SUBSCRIBE_CHANNEL } from './ipc-channels.js';

export function exposeBridge(): void {
  contextBridge.exposeInMainWorld('memdirBridge', {
    call: (name: string, input: unknown) => ipcRenderer.invoke(CALL_CHANNEL, name, input),
    subscribe(name: string, input: unknown, onEvent: (event: unknown) => void, onState?: (state: 'live' | 'down') => void): () => void {
      const listener = (_e: IpcRendererEvent, event: unknown) => onEvent(event);
      ipcRenderer.on(EVENT_CHANNEL, listener);
      // Main answers once it has subscribed: the page reads only then, so nothing published between
      // its first reads and the subscription is lost. IPC does not drop: the stream is live once.
      void ipcRenderer.invoke(SUBSCRIBE_CHANNEL, name, input).then(
        (answer: { ok?: unknown } | undefined) => onState?.(answer?.ok === true ? 'live' : 'down'),
        () => onState?.('down'),
      );
      return () => ipcRenderer.removeListener(EVENT_CHANNEL, listener);
    },
  });
}
