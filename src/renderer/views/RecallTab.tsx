/**
 * The recall playground, in two clearly named modes:
 *   - Claude Code: exactly Claude Code's request, and what it would load (or why nothing), in a
 *     session like Claude Code's; the memories past its 200-newest cap that can never be recalled
 *     today, with remedies; whether Claude Code's own recall is switched on; the request itself.
 *   - Memdir explained: the model side query (with reasons) and the local ranker side by side,
 *     with scores, latency, tokens and cost; "why not this one?" for any memory.
 * Both show the index that is always loaded, with its cut part.
 */
import { useEffect, useState } from 'react';
import { cutFactsText } from '../../shared/index-cut.js';
import { plural } from '../../shared/size-text.js';
import type { ClaudeCodeRecallResult, ProjectRecallResult } from '../../shared/recall-types.js';
import type { ProjectScan } from '../../shared/scan-types.js';
import { RecallExplanationView } from '../components/RecallExplanation.js';
import { when } from '../components/format.js';
import { useNav } from '../stores/nav.js';
import { type RecallMode, useRecall } from '../stores/recall.js';

function Result({ title, result }: { title: string; result: ProjectRecallResult }) {
  return (
    <section className="recall-result" aria-label={title}>
      <h2>
        {title} <span className="chip">{result.method === 'model' ? `model${result.model ? ` · ${result.model}` : ''}` : 'local ranker'}</span>
      </h2>
      <p className="muted small">
        {Math.round(result.latencyMs)} ms
        {result.tokens ? ` · ${result.tokens.inputTokens.toLocaleString('en-US')} in / ${result.tokens.outputTokens.toLocaleString('en-US')} out tokens` : ''}
        {typeof result.costUsd === 'number' ? ` · ~$${result.costUsd.toFixed(4)}` : ''}
      </p>
      {result.fallbackReason && (
        <p className="banner warning" role="note">
          Fell back to the local ranker: {result.fallbackReason}
        </p>
      )}
      {result.selected.length === 0 ? (
        <p className="muted">No memory selected.</p>
      ) : (
        <ol className="selected">
          {result.selected.map((s) => (
            <li key={s.file}>
              <code>{s.file}</code>
              {s.reason && <div className="small">{s.reason}</div>}
              {s.score !== undefined && <span className="muted small"> score {s.score.toFixed(2)}</span>}
            </li>
          ))}
        </ol>
      )}
      {result.notes.map((n) => (
        <p key={n} className="muted small">
          {n}
        </p>
      ))}
    </section>
  );
}

const OUTCOME_LABELS: Record<ClaudeCodeRecallResult['outcome'], string> = {
  selected: 'loads',
  nothing: 'loads nothing',
  failed: 'failed: loads nothing',
  skipped: 'does not ask',
  'not-sent': 'not sent',
};

/** The memory browser opened on a file of the manifest (`team/…` is a team memory). */
function memoryRoute(dir: string, file: string) {
  const team = /^team[\\/]/.test(file);
  return { view: 'project' as const, dir, tab: 'memories' as const, scope: team ? ('team' as const) : ('private' as const), file: team ? file.slice(5) : file };
}

/** How many never-recallable memories are listed before "and N more". */
const NEVER_SHOWN = 12;

function ClaudeCodeResult({ dir, result }: { dir: string; result: ClaudeCodeRecallResult }) {
  const go = useNav((s) => s.go);
  const never = result.neverRecalled;
  return (
    <>
      {result.claudeCodeSwitch.state !== 'on' && (
        <p className={`banner ${result.claudeCodeSwitch.state === 'off' ? 'warning' : ''}`} role="note" aria-label="Claude Code's recall switch">
          Claude Code's own recall is {result.claudeCodeSwitch.state}: {result.claudeCodeSwitch.reason}
        </p>
      )}
      <section className="recall-result" aria-label="Claude Code would load">
        <h2>
          Claude Code {result.claudeCodeVersion} <span className="chip">{OUTCOME_LABELS[result.outcome]}</span>
        </h2>
        <p className="muted small">
          {Math.round(result.latencyMs)} ms
          {/* Model and list only where a request was built: a prompt Claude Code does not ask about offers nothing to no model. */}
          {result.request ? ` · ${result.model}` : ''}
          {result.tokens ? ` · ${result.tokens.inputTokens.toLocaleString('en-US')} in / ${result.tokens.outputTokens.toLocaleString('en-US')} out tokens` : ''}
          {typeof result.costUsd === 'number' ? ` · ~$${result.costUsd.toFixed(4)}` : ''}
          {result.request ? ` · ${result.manifest.offered} of ${result.manifest.candidates} topic files offered` : ''}
        </p>
        {result.reason && (
          <p className={result.outcome === 'failed' || result.outcome === 'not-sent' ? 'banner warning' : 'muted'} role="note">
            {result.reason}
          </p>
        )}
        {result.selected.length > 0 && (
          <ol className="selected">
            {result.selected.map((s, i) => (
              <li key={`${s.file}-${i}`}>
                <code>{s.file}</code>
              </li>
            ))}
          </ol>
        )}
        {result.dropped.length > 0 && (
          <p className="muted small">
            Not loaded:{' '}
            {result.dropped.map((d, i) => (
              <span key={`${d.file}-${i}`}>
                {i > 0 && ', '}
                <code>{d.file}</code> ({d.reason})
              </span>
            ))}
          </p>
        )}
        {result.notes.map((n) => (
          <p key={n} className="muted small">
            {n}
          </p>
        ))}
      </section>
      <p className="muted small" aria-label="Session">
        Session:{' '}
        {result.session.turns === 0
          ? 'no query answered yet'
          : `${result.session.turns} ${result.session.turns === 1 ? 'query' : 'queries'} so far (the next query's selector sees them and its answers)`}
        {result.session.surfaced.length > 0 ? ` · already loaded, never again this session: ${result.session.surfaced.join(', ')}` : ''}{' '}
        <button className="link" onClick={() => useRecall.getState().newSession()}>
          New session
        </button>
      </p>
      {never.count > 0 && (
        <section className="recall-result" aria-label="Never recalled today">
          <h2>
            Never recalled today <span className="badge warning">{never.count}</span>
          </h2>
          <p className="small">
            Claude Code offers its selector only the {result.manifest.offered} newest topic files.{' '}
            {never.count === 1 ? 'This memory is' : `These ${never.count} memories are`} older than {never.cutoff ? when(never.cutoff) : 'the cut'}, so no query
            can load {never.count === 1 ? 'it' : 'them'}:
          </p>
          <ul className="small">
            {never.files.slice(0, NEVER_SHOWN).map((f) => (
              <li key={f.file}>
                <button className="link" onClick={() => go(memoryRoute(dir, f.file))}>
                  {f.file}
                </button>{' '}
                <span className="muted">{new Date(f.mtime).toLocaleDateString()}</span>
              </li>
            ))}
          </ul>
          {never.count > NEVER_SHOWN && <p className="muted small">…and {never.count - NEVER_SHOWN} more.</p>}
          <p className="small">To make room:</p>
          <ul className="small">
            {never.remedies.map((r) => (
              <li key={r}>{r}</li>
            ))}
          </ul>
          <button onClick={() => go({ view: 'project', dir, tab: 'dream' })}>Open Dream</button>
        </section>
      )}
      {result.request && (
        <details className="recall-request">
          <summary>The request Claude Code {result.outcome === 'not-sent' ? 'would send' : 'sends'}</summary>
          <p className="muted small">
            model {result.request.model} · max_tokens {result.request.max_tokens}
            {result.request.thinking ? ` · thinking ${result.request.thinking.type}` : ''} · answer schema {'{"selected_memories": string[]}'}
          </p>
          <h3>System</h3>
          <pre>{result.request.system.map((b) => b.text).join('\n')}</pre>
          {result.request.messages.map((m, i) => (
            <div key={i}>
              <h3>{m.role}</h3>
              <pre>{m.content.map((b) => b.text).join('\n')}</pre>
            </div>
          ))}
          {result.answer !== null && (
            <>
              <h3>Answer</h3>
              <pre>{result.answer}</pre>
            </>
          )}
        </details>
      )}
    </>
  );
}

function MemdirExplained({ scan }: { scan: ProjectScan }) {
  const { model, local, explained, recalled } = useRecall();
  const { explain } = useRecall.getState();
  const [why, setWhy] = useState<'model' | 'local'>('model');
  const shown = why === 'model' ? model : local;
  const allFiles = [...scan.memories.map((m) => m.file), ...(scan.team?.memories.map((m) => `team/${m.file}`) ?? [])];
  const picked = new Set([...(model?.selected ?? []), ...(local?.selected ?? [])].map((s) => s.file));
  return (
    <>
      {model && local && (
        <div className="recall-grid">
          <Result title="Model side query" result={model} />
          <Result title="Local ranker" result={local} />
        </div>
      )}
      {model && (
        <p className="muted small" aria-label="Memdir session">
          Session: {recalled.length === 0 ? 'nothing recalled yet' : `already recalled, never chosen again: ${recalled.join(', ')}`}{' '}
          <button className="link" onClick={() => useRecall.getState().newSession()}>
            New session
          </button>
        </p>
      )}
      {shown?.explanation && (
        <>
          <div className="toolbar" role="group" aria-label="Explain which choice">
            <span className="small">Why each memory was or was not chosen by</span>
            <button type="button" className={why === 'model' ? 'active' : ''} aria-pressed={why === 'model'} onClick={() => setWhy('model')}>
              {model?.method === 'model' ? 'the model' : 'the model column (local fallback)'}
            </button>
            <button type="button" className={why === 'local' ? 'active' : ''} aria-pressed={why === 'local'} onClick={() => setWhy('local')}>
              the local ranker
            </button>
          </div>
          <RecallExplanationView explanation={shown.explanation} title={why === 'model' ? 'Why: model side query' : 'Why: local ranker'} />
        </>
      )}
      {model && (
        <section className="why-not">
          <h2>Why not this one?</h2>
          <select aria-label="A memory that was not picked" defaultValue="" onChange={(e) => e.target.value && void explain(e.target.value)}>
            <option value="">Choose a memory…</option>
            {allFiles
              .filter((f) => !picked.has(f))
              .map((f) => (
                <option key={f} value={f}>
                  {f}
                </option>
              ))}
          </select>
          {explained && (
            <div className="explanation" aria-label="Explanation">
              <p>{explained.summary}</p>
              <p className="muted small">
                Query terms: {explained.queryTerms.join(', ') || '—'} · matched: {explained.matchedTerms.join(', ') || 'none'} · missing:{' '}
                {explained.missingTerms.join(', ') || 'none'}
              </p>
            </div>
          )}
        </section>
      )}
    </>
  );
}

const MODES: { mode: RecallMode; label: string; help: string }[] = [
  { mode: 'claude-code', label: 'Claude Code', help: "Exactly Claude Code's request and rules: what it would load." },
  { mode: 'memdir', label: 'Memdir explained', help: "Memdir's own prompt with reasons, beside its local ranker." },
];

export function RecallTab({ dir, scan }: { dir: string; scan: ProjectScan }) {
  const { query, running, error, status, recent, mode, claudeCode, model, local } = useRecall();
  const { setQuery, setMode, open, run } = useRecall.getState();
  useEffect(() => {
    void open(dir);
  }, [dir, open]);
  const ran = mode === 'claude-code' ? claudeCode !== null : model !== null && local !== null;
  return (
    <div className="recall">
      <div className="toolbar" role="group" aria-label="Recall mode">
        {MODES.map((m) => (
          <button
            key={m.mode}
            type="button"
            className={mode === m.mode ? 'active' : ''}
            aria-pressed={mode === m.mode}
            title={m.help}
            onClick={() => setMode(m.mode)}
          >
            {m.label}
          </button>
        ))}
        <span className="muted small">{MODES.find((m) => m.mode === mode)!.help}</span>
      </div>
      <form
        className="toolbar"
        onSubmit={(e) => {
          e.preventDefault();
          void run();
        }}
      >
        <input
          className="grow"
          aria-label="Query"
          placeholder="What is the agent about to work on? e.g. write a migration for the orders table"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          maxLength={20000}
        />
        <button className="primary" type="submit" disabled={running}>
          {running ? 'Recalling…' : 'Recall'}
        </button>
        {status && (
          <span className={`badge ${status.state === 'online' ? 'ok' : status.state === 'error' ? 'error' : ''}`} title={status.reason}>
            model {status.state}
          </span>
        )}
      </form>
      {status && status.state !== 'online' && <p className="muted small">{status.reason}</p>}
      {error && <div className="banner error">{error}</div>}
      {recent.length > 0 && (
        <p className="muted small">
          Recent:{' '}
          {recent.slice(0, 6).map((r) => (
            <button key={`${r.project}-${r.query}`} className="link chip" onClick={() => setQuery(r.query)}>
              {r.query.length > 40 ? `${r.query.slice(0, 40)}…` : r.query}
            </button>
          ))}
        </p>
      )}
      {mode === 'claude-code' && claudeCode && <ClaudeCodeResult dir={dir} result={claudeCode} />}
      {mode === 'memdir' && <MemdirExplained scan={scan} />}
      {ran && scan.index.exists && (
        <section>
          <h2>Always loaded: MEMORY.md</h2>
          <p className="muted small">
            {scan.index.loaded.length} pointers reach the agent at every session start
            {/* Past the cut as every place counts it (index-cut.ts): the memories never seen, then the pointers that name nothing. */}
            {scan.index.cut.length > 0
              ? `; never seen: ${cutFactsText(scan.index, { names: 8 }) || `${plural(scan.index.cut.length, 'pointer')} below the cut, none of them a memory's only one`}.`
              : '.'}
          </p>
        </section>
      )}
    </div>
  );
}
