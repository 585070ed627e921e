/**
 * Settings for writing memories: extraction (on/off, apply directly or review first), Session
 * Memory, and "Connect to Claude Code" — the hooks change to settings.json is shown as a diff and
 * written only when the user confirms.
 */
import { useEffect } from 'react';
import { useHooks } from '../stores/hooks.js';
import { useSettings } from '../stores/settings.js';
import { DiffView } from './DiffView.js';

function HooksSection() {
  const { status, plan, busy, error } = useHooks();
  const { load, preview, apply, cancel } = useHooks.getState();
  useEffect(() => {
    void load();
  }, [load]);
  return (
    <fieldset>
      <legend>Claude Code hooks</legend>
      <p className="muted small">
        Connected, Claude Code tells Memdir when a turn ends (Stop), before it compacts (PreCompact) and when a session ends (SessionEnd), and after a
        compaction or a resume it gets the session&apos;s Session Memory note back (SessionStart). Without hooks, Memdir watches the transcripts instead, which
        is slower to notice the end of a turn, and the note never reaches Claude Code.
      </p>
      {/* Not connected, Claude Code sends no hook event at all: the line says what Memdir does instead. */}
      {status && (
        <p>
          <span className={`badge ${status.connected === 'all' ? 'ok' : status.connected === 'partial' ? 'warning' : ''}`}>
            {status.connected === 'all' ? 'connected' : status.connected === 'partial' ? 'partly connected' : 'not connected'}
          </span>{' '}
          <code>{status.settingsFile}</code>
          <span className="muted small">
            {' '}
            ·{' '}
            {status.connected === 'none'
              ? 'Claude Code sends no hook events; Memdir watches the transcripts'
              : status.listening
                ? 'Memdir receives the hook events'
                : 'hook events are spooled until Memdir runs'}
            {status.spooled ? ` · ${status.spooled} waiting` : ''}
          </span>
        </p>
      )}
      {status?.problems.map((p) => (
        <div key={p} className="banner warning">
          {p}
        </div>
      ))}
      {!plan && (
        <div className="inline-form">
          <button disabled={busy} onClick={() => void preview('connect')}>
            {status?.connected === 'all' ? 'Reconnect…' : 'Connect to Claude Code…'}
          </button>
          {status && status.connected !== 'none' && (
            <button disabled={busy} onClick={() => void preview('disconnect')}>
              Disconnect…
            </button>
          )}
        </div>
      )}
      {plan && (
        <div className="hooks-plan" aria-label="Planned change to settings.json">
          {plan.problems.map((p) => (
            <div key={p} className="banner error">
              {p}
            </div>
          ))}
          {plan.warnings.map((w) => (
            <div key={w} className="banner warning">
              {w}
            </div>
          ))}
          {plan.problems.length === 0 && !plan.changed && (
            <p>Nothing to change: {plan.action === 'connect' ? 'the hooks are already there.' : 'there are no Memdir hooks.'}</p>
          )}
          {plan.changed && (
            <>
              <p>
                This change will be written to <code>{plan.settingsFile}</code> (the previous version is kept beside it as{' '}
                <code>settings.json.memdir-backup</code>):
              </p>
              <DiffView diff={plan.diff} />
              <p className="muted small">Only these lines change: every other byte of the file stays as it is.</p>
            </>
          )}
          <div className="inline-form">
            {plan.changed && plan.problems.length === 0 && (
              <button className="primary" disabled={busy} onClick={() => void apply()}>
                Write settings.json
              </button>
            )}
            <button onClick={cancel}>{plan.changed ? 'Cancel' : 'Close'}</button>
          </div>
        </div>
      )}
      {error && <div className="banner error">{error}</div>}
    </fieldset>
  );
}

export function ExtractionSettings() {
  const view = useSettings((s) => s.view);
  const update = useSettings((s) => s.update);
  if (!view) return null;
  const extraction = view.settings.extraction;
  const session = view.settings.session;
  return (
    <>
      <fieldset>
        <legend>Extraction</legend>
        <label className="radio">
          <input type="checkbox" checked={extraction.enabled} onChange={(e) => void update({ extraction: { enabled: e.target.checked } })} /> Extract memories
          after each turn
        </label>
        <p className="muted small">
          Claude Code&apos;s own setting wins: with autoMemoryEnabled off (or CLAUDE_CODE_DISABLE_AUTO_MEMORY), nothing is written automatically.
        </p>
        <label className="radio">
          <input type="radio" name="extraction-mode" checked={extraction.mode === 'review'} onChange={() => void update({ extraction: { mode: 'review' } })} />{' '}
          Review first: proposals wait in the Review queue
        </label>
        <label className="radio">
          <input type="radio" name="extraction-mode" checked={extraction.mode === 'apply'} onChange={() => void update({ extraction: { mode: 'apply' } })} />{' '}
          Apply directly: written at once (doubtful ones still wait for review)
        </label>
      </fieldset>
      <fieldset>
        <legend>Session Memory</legend>
        <label className="radio">
          <input type="checkbox" checked={session.enabled} onChange={(e) => void update({ session: { enabled: e.target.checked } })} /> Keep a note per live
          session
        </label>
        <label className="stack">
          A session idle this long is over (minutes)
          <input
            type="number"
            min={5}
            max={10080}
            defaultValue={session.idleMinutes}
            onBlur={(e) => Number(e.target.value) !== session.idleMinutes && void update({ session: { idleMinutes: Number(e.target.value) } })}
          />
        </label>
      </fieldset>
      <HooksSection />
    </>
  );
}
