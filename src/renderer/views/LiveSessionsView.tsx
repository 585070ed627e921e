/**
 * Live sessions (R-SESSION): each session's Session Memory note, its counters since the last
 * update and how far it is from the next one (the first note at 10,000 tokens of context; then
 * 5,000 tokens of growth and 3 tool calls, or a last response without tool calls), and the
 * `summary.md` an older Claude Code wrote, where there is one. Refreshed every few seconds.
 */
import { useEffect } from 'react';
import Markdown from 'react-markdown';
import remarkGfm from 'remark-gfm';
import { SESSION_INIT_TOKENS, SESSION_MIN_TOKENS, SESSION_MIN_TOOL_CALLS, type SessionStatus } from '../../shared/contract/session.js';
import { SESSION_HANDBACK_MAX_CHARS } from '../../shared/limits.js';
import { type CardColumn, CardRow, CardTable } from '../components/CardTable.js';
import { when } from '../components/format.js';
import { progressToNext, useSessions } from '../stores/sessions.js';

const REFRESH_MS = 5_000;

function Progress({ label, value, text }: { label: string; value: number; text: string }) {
  return (
    <span className={`meter ${value >= 1 ? 'near' : ''}`}>
      <span className="meter-bar" role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={100} aria-valuenow={Math.round(value * 100)}>
        <span className="meter-fill" style={{ width: `${Math.round(value * 100)}%` }} />
      </span>
      <span className="meter-text">{text}</span>
    </span>
  );
}

function nextUpdate(s: SessionStatus): string {
  if (s.due) return 'due at the next look';
  const needs: string[] = [];
  if (s.tokensToNext > 0) needs.push(`${s.tokensToNext.toLocaleString('en-US')} more tokens${s.started ? '' : ' of context'}`);
  if (s.toolCallsToNext > 0) needs.push(`${s.toolCallsToNext} more tool call${s.toolCallsToNext === 1 ? '' : 's'} (or an answer without tools)`);
  return needs.join(' and ');
}

/**
 * What Claude Code gets back of the note, against its limit for a hook's context: a warning when
 * the note had to be cut. Both counts are of the text handed back (the note under its one-line
 * intro), as Claude Code counts it: a note itself shorter than the limit can be cut with its intro.
 */
export function handBackSentence(handBack: NonNullable<SessionStatus['handBack']>): { warning: boolean; text: string } {
  const limit = SESSION_HANDBACK_MAX_CHARS.toLocaleString('en-US');
  if (handBack.cut)
    return {
      warning: true,
      text: `Under its one-line intro this note comes to ${handBack.wholeChars.toLocaleString('en-US')} characters, more than the ${limit} Claude Code takes from a hook (past that, the agent would see only its first 2 KB). After a compaction or a resume Memdir hands back ${handBack.chars.toLocaleString('en-US')} characters: the note's beginning and its latest lines, with a line saying where the whole note is.`,
    };
  return {
    warning: false,
    text: `After a compaction or a resume Claude Code gets this note back whole: ${handBack.chars.toLocaleString('en-US')} of the ${limit} characters it takes from a hook.`,
  };
}

function HandBack({ handBack }: { handBack: NonNullable<SessionStatus['handBack']> }) {
  const { warning, text } = handBackSentence(handBack);
  return (
    <p className={warning ? 'banner warning' : 'muted small'} aria-label="What Claude Code gets back">
      {text}
    </p>
  );
}

const SESSION_COLUMNS: CardColumn[] = [
  { label: 'Session', bare: true },
  { label: 'Project' },
  { label: 'Context' },
  { label: 'Tokens since update' },
  { label: 'Tool calls since' },
  { label: 'Next update' },
  { label: 'Updates' },
];

export function LiveSessionsView() {
  const { sessions, loaded, error, selected } = useSessions();
  const { load, select, updateNow } = useSessions.getState();
  useEffect(() => {
    void load();
    const timer = setInterval(() => void load(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [load]);
  const current = sessions.find((s) => s.sessionId === selected) ?? null;
  return (
    <section className="sessions">
      <header className="view-head">
        <h1>Live sessions</h1>
      </header>
      <p className="muted small">
        Memdir keeps a Session Memory note for each Claude Code session (Claude Code 2.1.332 keeps none): current task, files changed, errors met, where the
        workflow stands. It is started once the context reaches {SESSION_INIT_TOKENS.toLocaleString('en-US')} tokens, then updated when it grew by{' '}
        {SESSION_MIN_TOKENS.toLocaleString('en-US')} tokens and {SESSION_MIN_TOOL_CALLS} tool calls happened since (or the last answer needed none), and before
        a compaction. With the hooks connected, Claude Code gets the note back after a compaction or a <code>--resume</code>. It is removed once the session has
        been idle for the time set in Settings.
      </p>
      {error && <div className="banner error">{error}</div>}
      {loaded && sessions.length === 0 && (
        <p className="muted">No live session. Sessions appear here while Claude Code works (connect the hooks in Settings, or keep Memdir open).</p>
      )}
      {sessions.length > 0 && (
        <CardTable label="Sessions" columns={SESSION_COLUMNS}>
          {sessions.map((s) => {
            const progress = progressToNext(s);
            return (
              <CardRow key={s.sessionId} className={`clickable${s.sessionId === selected ? ' selected' : ''}`} onClick={() => select(s.sessionId)}>
                <td>
                  {/* The row's click, for the keyboard too (s44: only the first session's note could be read without a mouse). */}
                  <button
                    className="link"
                    onClick={(e) => (e.stopPropagation(), select(s.sessionId))}
                    aria-current={s.sessionId === selected}
                    title="Show this session's note"
                  >
                    <code>{s.sessionId.slice(0, 8)}</code>
                  </button>
                  {s.endedAt && <span className="chip">ended</span>}
                </td>
                <td className="small">{s.projectPath ?? s.project}</td>
                <td className="num">{s.contextTokens.toLocaleString('en-US')}</td>
                <td>
                  <Progress
                    label="Tokens toward the next update"
                    value={progress.tokens}
                    text={
                      s.started
                        ? `${s.tokensSinceUpdate.toLocaleString('en-US')} / ${SESSION_MIN_TOKENS.toLocaleString('en-US')}`
                        : `${s.contextTokens.toLocaleString('en-US')} / ${SESSION_INIT_TOKENS.toLocaleString('en-US')} to start`
                    }
                  />
                </td>
                <td>
                  <Progress
                    label="Tool calls toward the next update"
                    value={progress.tools}
                    text={
                      s.lastResponseUsedTools ? `${s.toolCallsSinceUpdate} / ${SESSION_MIN_TOOL_CALLS}` : `${s.toolCallsSinceUpdate} · answered without tools`
                    }
                  />
                </td>
                <td className="small">{nextUpdate(s)}</td>
                <td className="small">
                  {s.updates}
                  {s.lastUpdateAt ? ` · ${when(s.lastUpdateAt)}` : ''}
                </td>
              </CardRow>
            );
          })}
        </CardTable>
      )}
      {current && (
        <section className="session-note" aria-label="Session Memory note">
          <div className="toolbar">
            <h2>Note of {current.sessionId.slice(0, 8)}</h2>
            <button onClick={() => void updateNow(current.sessionId)}>Update now</button>
            {current.method && <span className="chip">{current.method === 'model' ? 'written by a model' : 'offline, from the transcript'}</span>}
          </div>
          {current.fallbackReason && <p className="banner warning">The model was not used: {current.fallbackReason}</p>}
          {current.note ? (
            <div className="markdown">
              <Markdown remarkPlugins={[remarkGfm]}>{current.note}</Markdown>
            </div>
          ) : (
            <p className="muted">No note yet: {nextUpdate(current)}.</p>
          )}
          {current.noteFile && <p className="muted small">{current.noteFile}</p>}
          {current.handBack && <HandBack handBack={current.handBack} />}
          {current.endedAt && <p className="muted small">Claude Code ended this session at {when(current.endedAt)}; the note is kept in case it is resumed.</p>}
          {current.claudeCodeSummary && (
            <section aria-label="Claude Code's own session summary">
              <h3>Claude Code&apos;s own summary</h3>
              <p className="muted small">
                Written by an older Claude Code (its Session Memory, behind a flag) on {when(current.claudeCodeSummary.modifiedAt)}:{' '}
                <code>{current.claudeCodeSummary.file}</code>
                {current.claudeCodeSummary.truncated ? ' (only its beginning is shown)' : ''}
              </p>
              <div className="markdown">
                <Markdown remarkPlugins={[remarkGfm]}>{current.claudeCodeSummary.text}</Markdown>
              </div>
            </section>
          )}
        </section>
      )}
    </section>
  );
}
