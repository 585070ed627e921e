/** Timeline of a project's memory: who changed what (Memdir, Claude Code, a dream…), diffs, restores. */
import { useEffect } from 'react';
import { DiffView } from '../components/DiffView.js';
import { when } from '../components/format.js';
import { useHistory } from '../stores/history.js';

export function HistoryTab({ dir }: { dir: string }) {
  const { entries, deleted, selected, diff, error } = useHistory();
  const { load, select, restore } = useHistory.getState();
  useEffect(() => {
    void load(dir);
  }, [dir, load]);
  const current = entries.find((e) => e.rev === selected);
  return (
    <div className="split">
      <div className="pane list-pane">
        {error && <div className="banner error">{error}</div>}
        {deleted.length > 0 && (
          <details className="deleted" open>
            <summary>Deleted memories ({deleted.length})</summary>
            <ul>
              {deleted.map((d) => (
                <li key={`${d.path}-${d.deletedIn}`}>
                  <code>{d.path}</code> <span className="muted small">{when(d.time)}</span>{' '}
                  <button className="small" onClick={() => void restore(d.rev, d.path)}>
                    Restore
                  </button>
                </li>
              ))}
            </ul>
          </details>
        )}
        <ol className="timeline" aria-label="History">
          {entries.map((e) => (
            <li key={e.rev} className={e.rev === selected ? 'selected' : ''}>
              <button className="timeline-item" onClick={() => void select(e.rev)} aria-current={e.rev === selected}>
                <span className={`chip source-${e.source}`}>{e.source}</span>
                <span className="timeline-summary">{e.summary}</span>
                <span className="muted small">
                  {when(e.time)} · {e.files.length} file{e.files.length === 1 ? '' : 's'}
                </span>
              </button>
            </li>
          ))}
        </ol>
        {entries.length === 0 && !error && <p className="muted">No history yet: it starts with the first change Memdir records.</p>}
      </div>
      <div className="pane">
        {current && (
          <>
            <div className="toolbar">
              <strong>{current.summary}</strong>
              <span className="spacer" />
              <button onClick={() => void restore(current.rev)} title="Put every memory back as it was right after this change">
                Restore whole snapshot
              </button>
            </div>
            <DiffView diff={diff} onRestoreFile={(file, deletedHere) => void restore(deletedHere ? `${current.rev}~1` : current.rev, file)} />
          </>
        )}
      </div>
    </div>
  );
}
