/**
 * Recall explained (issue 14, item 7): every memory's fate for the query in words, the model's own
 * reason when it chose, and the query's words it matched highlighted in its name and description
 * as they are written — never stems.
 */
import { Fragment, type ReactNode } from 'react';
import type { RecallExplanation } from '../../shared/recall-types.js';
import './curation.css';

type Candidate = RecallExplanation['candidates'][number];

const FATE_LABEL: Record<Candidate['fate'], string> = {
  chosen: 'chosen',
  outranked: 'outranked',
  'not-chosen': 'not chosen by the model',
  'not-offered': 'not offered',
  'already-loaded': 'already loaded',
};

/** `text` with the highlighted ranges of `field` marked. */
function marked(text: string, field: 'name' | 'description', highlights: Candidate['highlights']): ReactNode {
  const ranges = highlights.filter((h) => h.field === field).sort((a, b) => a.start - b.start);
  if (ranges.length === 0) return text;
  const out: ReactNode[] = [];
  let at = 0;
  for (const [i, r] of ranges.entries()) {
    if (r.start < at) continue;
    out.push(text.slice(at, r.start));
    out.push(
      <mark key={i} className="term">
        {text.slice(r.start, r.end)}
      </mark>,
    );
    at = r.end;
  }
  out.push(text.slice(at));
  return out;
}

function Row({ c }: { c: Candidate }) {
  return (
    <li data-file={c.file} data-fate={c.fate}>
      <span className={`fate badge ${c.fate === 'chosen' ? 'ok' : c.fate === 'outranked' || c.fate === 'not-chosen' ? 'warning' : ''}`}>
        {FATE_LABEL[c.fate]}
      </span>{' '}
      <strong>{marked(c.name, 'name', c.highlights)}</strong> <code className="small">{c.file}</code>
      <div className="small">{c.description ? marked(c.description, 'description', c.highlights) : <span className="muted">(no description)</span>}</div>
      <div className="small muted">{c.reason}</div>
      {c.matched.length > 0 && (
        <div className="small">
          Matched:{' '}
          {c.matched.map((m, i) => (
            <Fragment key={i}>
              {i > 0 && '; '}“{m.query}” → {m.memory.join(', ')}
              {m.synonym ? ' (synonym)' : ''}
            </Fragment>
          ))}
        </div>
      )}
    </li>
  );
}

export function RecallExplanationView({ explanation, title }: { explanation: RecallExplanation; title: string }) {
  const chosen = explanation.candidates.filter((c) => c.fate === 'chosen');
  const others = explanation.candidates.filter((c) => c.fate !== 'chosen');
  return (
    <section className="recall-result" aria-label={title}>
      <h2>{title}</h2>
      <p className="small" aria-label="Query words">
        Your words:{' '}
        {explanation.queryWords.length === 0
          ? 'none the ranker can search.'
          : explanation.queryWords.map((q, i) => (
              <Fragment key={q.term}>
                {i > 0 && ', '}“{q.words.join(' / ') || q.term}”{q.synonyms.length > 0 ? ` (also as ${q.synonyms.slice(0, 4).join(', ')})` : ''}
              </Fragment>
            ))}
      </p>
      <h3>Chosen</h3>
      {chosen.length === 0 ? (
        <p className="muted small">Nothing.</p>
      ) : (
        <ul className="fate-list">
          {chosen.map((c) => (
            <Row key={c.file} c={c} />
          ))}
        </ul>
      )}
      <h3>Not chosen, and why</h3>
      {others.length === 0 ? (
        <p className="muted small">No other memory matched any word of the query.</p>
      ) : (
        <ul className="fate-list" aria-label="Not chosen">
          {others.map((c) => (
            <Row key={c.file} c={c} />
          ))}
        </ul>
      )}
      {explanation.unmatched.count > 0 && (
        <details className="small">
          <summary>
            {explanation.unmatched.count} {explanation.unmatched.count === 1 ? 'memory shares' : 'memories share'} no word with the query
          </summary>
          <p className="muted">{explanation.unmatched.reason}</p>
          <p>
            {explanation.unmatched.files.join(', ')}
            {explanation.unmatched.count > explanation.unmatched.files.length ? ', …' : ''}
          </p>
        </details>
      )}
    </section>
  );
}
