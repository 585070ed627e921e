/** Where Memdir looks, how it looks, and the slots for model and team settings. */
import { useState } from 'react';
import { type Theme, useApp } from '../stores/app.js';
import { messageOf } from '../stores/errors.js';

export function SettingsView() {
  const { info, theme, busy } = useApp();
  const { setTheme, setHome, openDemo } = useApp.getState();
  const [home, setHomeDraft] = useState('');
  const [error, setError] = useState<string | null>(null);
  return (
    <section className="settings">
      <header className="view-head">
        <h1>Settings</h1>
      </header>
      <fieldset>
        <legend>Claude Code home</legend>
        <p>
          Looking at <code>{info?.home}</code> {info && !info.homeExists && <span className="badge warning">not found</span>}
          <span className="muted small"> ({info?.homeSource})</span>
        </p>
        <div className="inline-form">
          <input aria-label="Another home" placeholder="/path/to/.claude" value={home} onChange={(e) => setHomeDraft(e.target.value)} />
          <button disabled={busy || !home.trim()} onClick={() => void setHome(home.trim()).then(() => setHomeDraft(''), (e: unknown) => setError(messageOf(e)))}>
            Use this home
          </button>
          <button disabled={busy} onClick={() => void setHome(null).catch((e: unknown) => setError(messageOf(e)))}>
            Back to the default
          </button>
          <button disabled={busy} onClick={() => void openDemo()}>
            Open demo workspace
          </button>
        </div>
        {error && <div className="banner error">{error}</div>}
        <p className="muted small">Memdir&apos;s own data (history, locks, demo): {info?.dataDir}</p>
      </fieldset>
      <fieldset>
        <legend>Theme</legend>
        {(['system', 'light', 'dark'] as Theme[]).map((t) => (
          <label key={t} className="radio">
            <input type="radio" name="theme" checked={theme === t} onChange={() => setTheme(t)} /> {t}
          </label>
        ))}
      </fieldset>
      <fieldset disabled>
        <legend>Model</legend>
        <p className="muted">Recall, extraction and dreams can use a model (Anthropic API or the Claude Code CLI). Until one is set up, Memdir works offline with its local ranker and rules.</p>
      </fieldset>
      <fieldset disabled>
        <legend>Team</legend>
        <p className="muted">Share a project&apos;s team memory through a Memdir sync server. Not connected.</p>
      </fieldset>
      <p className="muted small">Memdir {info?.version}</p>
    </section>
  );
}
