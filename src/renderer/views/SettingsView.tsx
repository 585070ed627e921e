/** Where Memdir looks, how it looks, and how it reaches a model. */
import { useEffect, useState } from 'react';
import type { AppInfo } from '../../shared/contract/app.js';
import { MODEL_TASKS, PROVIDER_CHOICES, THEMES } from '../../shared/app-settings.js';
import { ExtractionSettings } from '../components/ExtractionSettings.js';
import { PersonalSyncSettings } from '../components/PersonalSyncSettings.js';
import { useApp } from '../stores/app.js';
import { useClaudeSettings } from '../stores/claude-settings.js';
import { useDesktop } from '../stores/desktop.js';
import { messageOf } from '../stores/errors.js';
import { useNav } from '../stores/nav.js';
import { useSettings } from '../stores/settings.js';

/** Where the home came from, in the words the user chose it by. */
const HOME_SOURCE: Record<AppInfo['homeSource'], string> = {
  default: "Claude Code's default: $CLAUDE_CONFIG_DIR is not set",
  env: 'from $CLAUDE_CONFIG_DIR',
  flag: 'from --home',
  settings: 'chosen here',
  demo: 'the demo workspace',
};
import { teamCell, useTeam } from '../stores/team.js';

const PROVIDER_LABELS: Record<(typeof PROVIDER_CHOICES)[number], string> = {
  auto: 'Automatic (API key, else Claude Code CLI, else offline)',
  anthropic: 'Anthropic API',
  'claude-cli': 'Claude Code CLI (claude -p)',
  offline: 'Offline (local ranker and rules only)',
};

// One empty list for "not loaded yet": a selector returning a new [] on every call never settles (React error #185, the page goes blank).
const NO_FOLDERS: readonly string[] = [];

/** Folders holding the user's projects: where a moved project's new place is looked for (issue 18). */
function WorkspaceSettings() {
  const saved = useSettings((s) => s.view?.settings.workspaces.folders ?? NO_FOLDERS);
  const update = useSettings((s) => s.update);
  const [draft, setDraft] = useState<string | null>(null);
  const text = draft ?? saved.join('\n');
  return (
    <fieldset>
      <legend>Workspaces</legend>
      <p className="muted">
        Folders where you keep your projects, one per line. When a project is moved or renamed, its memory is left behind; Memdir looks for the project here
        (two levels deep) and matches it by its repository&apos;s remote and first commit.
      </p>
      <textarea aria-label="Workspace folders" rows={3} value={text} placeholder="/home/me/src" onChange={(e) => setDraft(e.target.value)} />
      <div className="inline-form">
        <button
          disabled={draft === null}
          onClick={() =>
            void update({
              workspaces: {
                folders: text
                  .split('\n')
                  .map((l) => l.trim())
                  .filter(Boolean),
              },
            }).then((ok) => ok && setDraft(null))
          }
        >
          Save workspaces
        </button>
      </div>
    </fieldset>
  );
}

/** Which projects share their team memory, and where; each links to its Team sync tab. */
function TeamSettings() {
  const overview = useTeam((s) => s.overview);
  useEffect(() => {
    void useTeam.getState().loadOverview(true);
  }, []);
  const rows = Object.values(overview);
  return (
    <fieldset>
      <legend>Team</legend>
      <p className="muted">
        Share a project&apos;s <code>memory/team/</code> through a Memdir sync server: open the project&apos;s <strong>Team sync</strong> tab to connect it.
        Files holding a secret are never uploaded; deletions are never pushed; a pull never loses an unpushed edit (it is kept as a conflict).
      </p>
      {rows.length === 0 ? (
        <p className="muted small">No project is connected.</p>
      ) : (
        <table className="grid" aria-label="Connected projects">
          <tbody>
            {rows.map((r) => {
              const cell = teamCell(r, true);
              return (
                <tr key={r.dir}>
                  <td>
                    <button className="link" onClick={() => useNav.getState().go({ view: 'project', dir: r.dir, tab: 'team' })}>
                      {r.dir}
                    </button>
                  </td>
                  <td className="small">
                    {r.team} at {r.server}
                  </td>
                  <td>{cell.text}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </fieldset>
  );
}

/** The autoDreamEnabled switch: written to Claude Code's settings.json, read back from it. */
function DreamSettings() {
  const { autoDream, busy, error } = useClaudeSettings();
  const { load, setAutoDream } = useClaudeSettings.getState();
  useEffect(() => {
    void load();
  }, [load]);
  return (
    <fieldset>
      <legend>Dreaming</legend>
      {autoDream && (
        <>
          <label className="radio">
            <input
              type="checkbox"
              disabled={busy || autoDream.problems.length > 0}
              checked={autoDream.inForce}
              onChange={(e) => void setAutoDream(e.target.checked)}
            />{' '}
            Dream on a schedule (<code>autoDreamEnabled</code>)
          </label>
          <p className="muted small">
            Written to <code>{autoDream.settingsFile}</code>, where Claude Code reads it too — only that value changes.{' '}
            {autoDream.value === null ? 'Your settings do not set it now: the default is in force.' : `Your settings set it to ${autoDream.value}.`} A
            project&apos;s own <code>.claude/settings.json</code> or <code>settings.local.json</code> can still decide otherwise: each project&apos;s Dream tab
            shows what is in force. &quot;Dream now&quot; always works.
          </p>
          {[...autoDream.problems, ...autoDream.warnings].map((p) => (
            <div key={p} className="banner warning">
              {p}
            </div>
          ))}
        </>
      )}
      {error && <div className="banner error">{error}</div>}
    </fieldset>
  );
}

function ModelSettings() {
  const { view, status, error } = useSettings();
  const { update, setApiKey } = useSettings.getState();
  const [key, setKey] = useState('');
  const [baseURL, setBaseURL] = useState<string | null>(null);
  if (!view) return <p className="muted">Loading…</p>;
  const model = view.settings.model;
  return (
    <fieldset>
      <legend>Model</legend>
      {status && (
        <p>
          <span className={`badge ${status.state === 'online' ? 'ok' : status.state === 'error' ? 'error' : ''}`}>{status.state}</span> {status.reason}
        </p>
      )}
      <label className="stack">
        Provider
        <select value={model.provider} onChange={(e) => void update({ model: { provider: e.target.value } })}>
          {PROVIDER_CHOICES.map((p) => (
            <option key={p} value={p}>
              {PROVIDER_LABELS[p]}
            </option>
          ))}
        </select>
      </label>
      <div className="inline-form">
        <label className="stack">
          Anthropic API key {view.apiKey.fromEnv && <span className="muted small">(ANTHROPIC_API_KEY is set and wins)</span>}
          <input
            type="password"
            autoComplete="off"
            placeholder={view.apiKey.stored ? '•••••••• saved' : 'sk-ant-…'}
            value={key}
            onChange={(e) => setKey(e.target.value)}
          />
        </label>
        <button disabled={key.trim().length < 10} onClick={() => void setApiKey(key.trim()).then((ok) => ok && setKey(''))}>
          Save key
        </button>
        {view.apiKey.stored && <button onClick={() => void setApiKey(null)}>Remove key</button>}
      </div>
      <p className="muted small">
        {view.apiKey.encrypted
          ? 'Keys are encrypted with your system keychain.'
          : "Keys are stored unencrypted in Memdir's data folder (file mode 0600): the headless host has no system keychain."}
      </p>
      <div className="inline-form">
        <label className="stack">
          Base URL (gateway)
          <input placeholder="https://api.anthropic.com" value={baseURL ?? model.baseURL ?? ''} onChange={(e) => setBaseURL(e.target.value)} />
        </label>
        <button
          disabled={baseURL === null}
          onClick={() => void update({ model: { baseURL: baseURL?.trim() ? baseURL.trim() : null } }).then((ok) => ok && setBaseURL(null))}
        >
          Save
        </button>
      </div>
      <div className="form-grid">
        {MODEL_TASKS.map((task) => (
          <label key={task}>
            Model for {task}
            <input
              defaultValue={model.models[task]}
              onBlur={(e) => e.target.value !== model.models[task] && void update({ model: { models: { [task]: e.target.value } } })}
            />
          </label>
        ))}
      </div>
      {error && <div className="banner error">{error}</div>}
      {view.problems.map((p) => (
        <div key={p} className="banner warning">
          {p}
        </div>
      ))}
    </fieldset>
  );
}

/** The desktop app only: what runs in the background, start at login, the memdir command. */
function DesktopSettings() {
  const { status, busy, error } = useDesktop();
  useEffect(() => {
    void useDesktop.getState().load();
  }, []);
  if (!status?.available) return null;
  const { setOpenAtLogin, installCommand } = useDesktop.getState();
  return (
    <fieldset>
      <legend>Desktop app</legend>
      <p>
        Extraction, automatic dreams and team sync run only while Memdir runs.{' '}
        {status.background.length > 0
          ? `Now on: ${status.background.join('; ')} — so closing the window keeps Memdir in the tray (Quit from the tray menu).`
          : 'None is on now, so closing the window quits Memdir.'}
      </p>
      {status.openAtLogin !== null && (
        <label className="radio">
          <input type="checkbox" checked={status.openAtLogin} disabled={busy} onChange={(e) => void setOpenAtLogin(e.target.checked)} /> Start at login
        </label>
      )}
      <div className="inline-form">
        <button disabled={busy || !status.command.installable || status.command.installed} onClick={() => void installCommand()}>
          {status.command.installed ? 'The memdir command is installed' : 'Install the memdir command'}
        </button>
        {status.command.path && <code className="small">{status.command.path}</code>}
      </div>
      {status.command.note && <p className="muted small">{status.command.note}</p>}
      {error && <div className="banner error">{error}</div>}
    </fieldset>
  );
}

export function SettingsView() {
  const { info, busy } = useApp();
  const { setHome, openDemo } = useApp.getState();
  const theme = useSettings((s) => s.view?.settings.theme ?? 'system');
  const update = useSettings((s) => s.update);
  const [home, setHomeDraft] = useState('');
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    void useSettings.getState().load();
  }, []);
  return (
    <section className="settings">
      <header className="view-head">
        <h1>Settings</h1>
      </header>
      <fieldset>
        <legend>Claude Code home</legend>
        <p>
          Looking at <code>{info?.home}</code> {info && !info.homeExists && <span className="badge warning">not found</span>}
          {info && <span className="muted small"> ({HOME_SOURCE[info.homeSource]})</span>}
        </p>
        <div className="inline-form">
          <input aria-label="Another home" placeholder="/path/to/.claude" value={home} onChange={(e) => setHomeDraft(e.target.value)} />
          <button
            disabled={busy || !home.trim()}
            onClick={() =>
              void setHome(home.trim()).then(
                () => setHomeDraft(''),
                (e: unknown) => setError(messageOf(e)),
              )
            }
          >
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
        <p className="muted small">Memdir&apos;s own data (history, locks, settings, demo): {info?.dataDir}</p>
      </fieldset>
      <fieldset>
        <legend>Theme</legend>
        {THEMES.map((t) => (
          <label key={t} className="radio">
            <input type="radio" name="theme" checked={theme === t} onChange={() => void update({ theme: t })} /> {t}
          </label>
        ))}
      </fieldset>
      <DesktopSettings />
      <ModelSettings />
      <ExtractionSettings />
      <DreamSettings />
      <TeamSettings />
      <PersonalSyncSettings />
      <WorkspaceSettings />
      <p className="muted small">Memdir {info?.version}</p>
    </section>
  );
}
