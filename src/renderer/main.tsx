/** Renderer entry: pick the transport, then render the app. */
import { createRoot } from 'react-dom/client';
import { App } from './App.js';
import { createBridgeTransport } from './transport/bridge-transport.js';
import { createHttpTransport, takeToken } from './transport/http-transport.js';
import { type Bridge, setTransport } from './transport/transport.js';
import './styles.css';

declare global {
  interface Window {
    memdirBridge?: Bridge;
  }
}

function start(): void {
  const root = createRoot(document.getElementById('root')!);
  if (window.memdirBridge) setTransport(createBridgeTransport(window.memdirBridge));
  else {
    const token = takeToken(window.location, window.sessionStorage, window.history);
    if (!token) {
      root.render(
        <main className="blocked">
          <h1>Memdir</h1>
          <p>This page needs the link Memdir printed when it started (it carries a one-time token). Open that link instead.</p>
        </main>,
      );
      return;
    }
    setTransport(createHttpTransport(token));
  }
  root.render(<App />);
}

start();
