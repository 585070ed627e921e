/** Timeline of a project's memory: who changed what (Memdir, Claude Code, a dream…), diffs, restores. */
import { useEffect } from 'react';
import { DiffView } from '../components/DiffView.js';
import { useDialogFocus } from '../components/DialogFocus.js';
import { plural } from '../../shared/size-text.js';
import { Time } from '../components/Time.js';
import type { HistoryEntryShape } from '../../shared/contract/common.js';
import { PLAN_WORDS, type PendingRestore, describePlan, entryOf, restorableFrom, useHistory } from '../stores/history.js';

/**
 * "Restore whole snapshot" asks first: the files that will change, and how; Undo afterwards is one
 * click. A modal question: Tab stays in it, Escape cancels, focus goes back to the button that asked.
 */
function ConfirmSnapshot({ pending }: { pending: PendingRestore }) {
  const { confirmSnapshot, cancelSnapshot } = useHistory.getState();
  const { ref, onKeyDown } = useDialogFocus<HTMLDivElement>({ onClose: cancelSnapshot, modal: true });
  return (
    <div ref={ref} className="dialog" role="dialog" aria-modal="true" aria-labelledby="restore-title" onKeyDown={onKeyDown} tabIndex={-1}>
      <h2 id="restore-title">Restore the whole snapshot?</h2>
      <p>
        Every memory goes back to how it was right after “{pending.summary}” (<Time at={pending.time} />
        ). {describePlan(pending.changes)}
      </p>
      {pending.changes.length > 0 && (
        <ul className="plan" aria-label="Files that will change">
          {pending.changes.map((c) => (
            <li key={c.path}>
              <code>{c.path}</code>{' '}
              <span className={`badge ${c.status === 'deleted' || c.status === 'retired' ? 'error' : c.status === 'added' ? 'ok' : ''}`}>
                {PLAN_WORDS[c.status]}
              </span>
            </li>
          ))}
        </ul>
      )}
      <p className="muted small">Nothing is lost: the current state stays in history, and Undo puts it back in one click.</p>
      <div className="actions">
        <button className="primary" onClick={() => void confirmSnapshot()} disabled={pending.changes.length === 0}>
          Restore {plural(pending.changes.length, 'file')}
        </button>
        <button onClick={cancelSnapshot}>Cancel</button>
      </div>
    </div>
  );
}

/** A list of history entries, one button each: choosing one shows what it did. */
function Timeline({ label, entries, selected }: { label: string; entries: HistoryEntryShape[]; selected: string | null }) {
  const { select } = useHistory.getState();
  return (
    <ol className="timeline" aria-label={label}>
      {entries.map((e) => (
        <li key={e.rev} className={e.rev === selected ? 'selected' : ''}>
          <button className="timeline-item" onClick={() => void select(e.rev)} aria-current={e.rev === selected}>
            <span className={`chip source-${e.source}`}>{e.source}</span>
            <span className="timeline-summary">{e.summary}</span>
            <span className="muted small">
              <Time at={e.time} /> · {plural(e.files.length, 'file')}
            </span>
          </button>
        </li>
      ))}
    </ol>
  );
}

export function HistoryTab({ dir }: { dir: string }) {
  const { loaded, entries, imported, deleted, selected, diff, error, pendingRestore } = useHistory();
  const { load, restore, planSnapshot } = useHistory.getState();
  useEffect(() => {
    void load(dir);
  }, [dir, load]);
  const current = entryOf({ entries, imported }, selected);
  const restorable = current !== undefined && restorableFrom({ entries, imported }, current.rev);
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
                  <code>{d.path}</code>{' '}
                  <span className="muted small">
                    deleted <Time at={d.time} />
                  </span>{' '}
                  <button className="small" onClick={() => void restore(d.rev, d.path)} aria-label={`Restore ${d.path}`}>
                    Restore
                  </button>
                </li>
              ))}
            </ul>
          </details>
        )}
        <Timeline label="History" entries={entries} selected={selected} />
        {imported.map((h) => (
          <details key={h.id} className="imported-history" open>
            <summary>
              Imported history{h.source ? ` from ${h.source}` : ''} ({plural(h.entries.length, 'change')}){h.undone ? ' — undone' : ''}
            </summary>
            <p className="muted small">
              Brought in by import {h.id}
              {h.importedAt && (
                <>
                  {' '}
                  (<Time at={h.importedAt} />)
                </>
              )}
              {h.undone
                ? ', undone since: choose a change to see what it held; nothing is restored from it.'
                : ': choose a change to see it, and restore a file or the whole snapshot from it.'}
            </p>
            <Timeline label={`Imported history ${h.id}`} entries={h.entries} selected={selected} />
          </details>
        ))}
        {!loaded && !error && <p className="muted">Reading the history…</p>}
        {loaded && entries.length === 0 && !error && (
          <p className="muted">
            No history yet: it starts with the first change Memdir records — edit, create or delete a memory, or let Claude Code write one.
          </p>
        )}
      </div>
      <div className="pane">
        {pendingRestore && <ConfirmSnapshot pending={pendingRestore} />}
        {current && (
          <>
            <div className="toolbar">
              <strong>{current.summary}</strong>
              <span className="spacer" />
              {restorable && (
                <button onClick={() => void planSnapshot(current.rev)} title="Put every memory back as it was right after this change (asks first)">
                  Restore whole snapshot…
                </button>
              )}
            </div>
            <DiffView
              diff={diff}
              {...(restorable
                ? { onRestoreFile: (file: string, deletedHere: boolean) => void restore(deletedHere ? `${current.rev}~1` : current.rev, file) }
                : {})}
            />
          </>
        )}
        {!current && entries.length > 0 && <p className="muted placeholder">Choose a change on the left to see what it did.</p>}
      </div>
    </div>
  );
}
