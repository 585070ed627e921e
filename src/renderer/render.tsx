/** The UI's root, loaded by the entry (main.tsx) while the event stream opens, and rendered once it is live. */
import { createRoot } from 'react-dom/client';
import { App } from './App.js';

export function renderApp(element: HTMLElement): void {
  createRoot(element).render(<App />);
}

/** A browser opened without the link Memdir printed: nothing can be asked without its token. */
export function renderBlocked(element: HTMLElement): void {
  createRoot(element).render(
    <main className="blocked">
      <h1>Memdir</h1>
      <p>This page needs the link Memdir printed when it started (it carries a one-time token). Open that link instead.</p>
    </main>,
  );
}
