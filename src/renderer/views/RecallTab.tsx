/**
 * The recall playground: which memories a query would load, chosen by the model side query and
 * by the local ranker, side by side with reasons, scores, latency, tokens and cost; "why not this
 * one?" for any memory; the index that is always loaded, with its cut part.
 */
import { useEffect } from 'react';
import type { ProjectRecallResult } from '../../shared/recall-types.js';
import type { ProjectScan } from '../../shared/scan-types.js';
import { useRecall } from '../stores/recall.js';

function Result({ title, result }: { title: string; result: ProjectRecallResult }) {
  return (
    <section className="recall-result" aria-label={title}>
      <h3>
        {title} <span className="chip">{result.method === 'model' ? `model${result.model ? ` · ${result.model}` : ''}` : 'local ranker'}</span>
      </h3>
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

export function RecallTab({ dir, scan }: { dir: string; scan: ProjectScan }) {
  const { query, running, error, model, local, status, recent, explained } = useRecall();
  const { setQuery, open, run, explain } = useRecall.getState();
  useEffect(() => {
    void open(dir);
  }, [dir, open]);
  const allFiles = [...scan.memories.map((m) => m.file), ...(scan.team?.memories.map((m) => `team/${m.file}`) ?? [])];
  const picked = new Set([...(model?.selected ?? []), ...(local?.selected ?? [])].map((s) => s.file));
  return (
    <div className="recall">
      <form
        className="toolbar"
        onSubmit={(e) => {
          e.preventDefault();
          void run();
        }}
      >
        <input className="grow" aria-label="Query" placeholder="What is the agent about to work on? e.g. write a migration for the orders table" value={query} onChange={(e) => setQuery(e.target.value)} maxLength={20000} />
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
      {model && local && (
        <div className="recall-grid">
          <Result title="Model side query" result={model} />
          <Result title="Local ranker" result={local} />
        </div>
      )}
      {model && (
        <section className="why-not">
          <h3>Why not this one?</h3>
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
                Query terms: {explained.queryTerms.join(', ') || '—'} · matched: {explained.matchedTerms.join(', ') || 'none'} · missing: {explained.missingTerms.join(', ') || 'none'}
              </p>
            </div>
          )}
        </section>
      )}
      {model?.alwaysLoaded && (
        <section>
          <h3>Always loaded: MEMORY.md</h3>
          <p className="muted small">
            {model.alwaysLoaded.loaded.length} pointers reach the agent at every session start
            {model.alwaysLoaded.cut.length > 0 ? `; ${model.alwaysLoaded.cut.length} are cut and never seen: ${model.alwaysLoaded.cut.slice(0, 8).join(', ')}${model.alwaysLoaded.cut.length > 8 ? '…' : ''}` : '.'}
          </p>
        </section>
      )}
    </div>
  );
}
