/**
 * Near-duplicate memories (the same fact said twice), side by side, with a merge that keeps
 * both: the kept memory gains what the other said and lists both sources; the other is deleted
 * and stays in history — one history entry, one Undo.
 */
import { useState } from 'react';
import type { DuplicateMemoryShape } from '../../shared/contract/curation.js';
import { type DuplicatePairView, useCuration } from '../stores/curation.js';
import { exactTime } from './format.js';
import './curation.css';

const KIND_LABEL = { exact: 'same body', near: 'near-duplicate', similar: 'says the same' } as const;

function Side({ memory, title }: { memory: DuplicateMemoryShape; title: string }) {
  return (
    <section className="dup-side" aria-label={title}>
      <h3>
        {memory.name} <span className="chip">{memory.type ?? 'no type'}</span>
      </h3>
      <p className="muted small">
        <code>{memory.file}</code> · changed {exactTime(memory.mtimeMs)}
      </p>
      <p>{memory.description || <span className="muted">(no description)</span>}</p>
      <pre>{memory.body.trim() || '(empty body)'}</pre>
    </section>
  );
}

function Pair({ pair }: { pair: DuplicatePairView }) {
  const [open, setOpen] = useState(false);
  const busy = useCuration((s) => s.busy);
  const merge = useCuration((s) => s.merge);
  const label = `${pair.a.file} and ${pair.b.file}`;
  return (
    <li className="dup-pair" aria-label={`Duplicates: ${label}`}>
      <div className="toolbar">
        <span className="badge warning">{KIND_LABEL[pair.kind]}</span>
        <span>
          <strong>{pair.a.name}</strong> <code className="small">{pair.a.file}</code> and <strong>{pair.b.name}</strong>{' '}
          <code className="small">{pair.b.file}</code>
        </span>
        <span className="muted small">{Math.round(pair.score * 100)}% alike</span>
        <span className="spacer" />
        <button onClick={() => setOpen(!open)} aria-expanded={open}>
          {open ? 'Hide' : 'Compare'}
        </button>
      </div>
      {open && (
        <>
          <div className="dup-sides">
            <Side memory={pair.a} title={`Left: ${pair.a.file}`} />
            <Side memory={pair.b} title={`Right: ${pair.b.file}`} />
          </div>
          <div className="actions">
            <button className="primary" disabled={busy} onClick={() => void merge(pair.a, [pair.b])}>
              Keep {pair.a.file}, merge {pair.b.file} into it
            </button>
            <button disabled={busy} onClick={() => void merge(pair.b, [pair.a])}>
              Keep {pair.b.file}, merge {pair.a.file} into it
            </button>
            <span className="muted small">
              The kept memory gains what the other says and lists both; the other stays in history. One Undo brings both back.
            </span>
          </div>
        </>
      )}
    </li>
  );
}

export function Duplicates({ pairs }: { pairs: readonly DuplicatePairView[] }) {
  return (
    <section className="duplicates" aria-label="Duplicate memories">
      <h2>Duplicates</h2>
      {pairs.length === 0 ? (
        <p className="muted small">No memory says what another already says.</p>
      ) : (
        <>
          <p className="small">
            {pairs.length === 1 ? 'One pair of memories says' : `${pairs.length} pairs of memories say`} the same thing twice: both are loaded or offered to
            recall, and they can drift apart. Compare them and merge.
          </p>
          <ul className="dup-list">
            {pairs.map((p) => (
              <Pair key={`${p.a.file}|${p.b.file}`} pair={p} />
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
