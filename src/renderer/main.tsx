/**
 * Renderer entry: pick the transport, open the event stream and ask for the dashboard's data, then
 * load and render the UI.
 * The entry is small on purpose: the stream and the first screen's calls leave before React and the
 * views are even fetched, so the host works on them while the UI's code loads (issue 16).
 */
import { createBridgeTransport } from './transport/bridge-transport.js';
import { createHttpTransport, takeToken } from './transport/http-transport.js';
import { type Bridge, setTransport } from './transport/transport.js';
import { useApp } from './stores/app.js';
import { openLiveStream } from './stores/live-stream.js';
import { useProjects } from './stores/projects.js';
import './styles.css';

declare global {
  interface Window {
    memdirBridge?: Bridge;
  }
}

function start(): void {
  const root = document.getElementById('root')!;
  if (window.memdirBridge) setTransport(createBridgeTransport(window.memdirBridge));
  else {
    const token = takeToken(window.location, window.sessionStorage, window.history);
    if (!token) {
      void import('./render.js').then((ui) => ui.renderBlocked(root));
      return;
    }
    setTransport(createHttpTransport(token));
  }
  // The event stream first: nothing is read before it is live, or a change published between a
  // read and the subscription would never reach the page (live-stream.ts). Then the two calls the
  // host answers while its services start (the sidebar's home and the projects), and the UI, whose
  // views read as they mount, renders while they are answered.
  const live = openLiveStream();
  void live.then(() => {
    void useApp.getState().load();
    void useProjects.getState().load();
  });
  void Promise.all([import('./render.js'), live]).then(([ui]) => ui.renderApp(root));
}

start();
