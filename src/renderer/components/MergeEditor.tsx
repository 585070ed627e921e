/**
 * Resolve one sync conflict: the team's version (on disk now) and mine (kept when the pull
 * overwrote it) side by side, lines only one side has marked, and an editable result that
 * starts as the sync's own three-way merge (where the versions overlap, both sides' lines), or
 * both versions' lines in order when the base is not known. Take the team's, take mine, or
 * save the merge.
 */
import { markdown } from '@codemirror/lang-markdown';
import CodeMirror, { EditorView } from '@uiw/react-codemirror';
import { useMemo, useState } from 'react';
import type { ConflictDetail } from '../../shared/contract/team.js';
import { sideBySide, unionMerge, useTeam } from '../stores/team.js';
import { themeOf, useSettings } from '../stores/settings.js';
import { when } from './format.js';

const extensions = [markdown(), EditorView.lineWrapping];

function Pane({ title, lines, side }: { title: string; lines: ReturnType<typeof sideBySide>; side: 'theirs' | 'mine' }) {
  return (
    <section className="merge-pane" aria-label={title}>
      <h3>{title}</h3>
      <pre>
        {lines
          .filter((l) => l.side === 'both' || l.side === side)
          .map((l, i) => (
            <div key={i} className={l.side === 'both' ? 'merge-line' : `merge-line only-${side}`}>
              {l.text || ' '}
            </div>
          ))}
      </pre>
    </section>
  );
}

export function MergeEditor({ detail }: { detail: ConflictDetail }) {
  const { resolve, closeConflict } = useTeam.getState();
  const busy = useTeam((s) => s.busy);
  const theme = useSettings((s) => themeOf(s.view));
  const lines = useMemo(() => sideBySide(detail.theirs, detail.mine), [detail.theirs, detail.mine]);
  // The sync's own three-way merge when the base is known (overlaps keep both sides, no markers to save by mistake); else both versions' lines in order.
  const [result, setResult] = useState(() => detail.both ?? unionMerge(detail.theirs, detail.mine));
  const { conflict } = detail;
  return (
    <section className="merge" aria-label={`Resolve team/${conflict.key}`}>
      <div className="toolbar">
        <strong>team/{conflict.key}</strong>
        <span className="muted small">
          changed on the server by {conflict.serverUpdatedBy ?? 'someone'}
          {conflict.serverUpdatedAt ? ` (${when(conflict.serverUpdatedAt)})` : ''} while your edit was not pushed yet · kept {when(conflict.createdAt)}
          {conflict.localRev ? ` · in history at ${conflict.localRev.slice(0, 7)}` : ''}
        </span>
        <span className="spacer" />
        <button onClick={closeConflict}>Close</button>
      </div>
      {!conflict.localIsText && <p className="banner warning">Your version is not UTF-8 text; it is shown decoded as well as possible.</p>}
      <div className="merge-sides">
        <Pane title="The team's version (on disk now)" lines={lines} side="theirs" />
        <Pane title="Your version (kept)" lines={lines} side="mine" />
      </div>
      <h3>Result</h3>
      <p className="muted small">Starts as every line of both versions, in order. Edit it, then save: it is written (a history entry) and pushed.</p>
      <div className="merge-result" aria-label="Merged result">
        <CodeMirror value={result} onChange={setResult} extensions={extensions} theme={theme === 'dark' ? 'dark' : 'light'} basicSetup={{ lineNumbers: true, foldGutter: false }} />
      </div>
      <div className="actions">
        <button onClick={() => void resolve('server')} disabled={busy} title="Keep what is on disk; your version stays in history">
          Take the team&apos;s
        </button>
        <button onClick={() => void resolve('mine')} disabled={busy} title="Write your version back and push it">
          Take mine
        </button>
        <button className="primary" onClick={() => void resolve('merge', result)} disabled={busy}>
          Save merge
        </button>
      </div>
    </section>
  );
}
