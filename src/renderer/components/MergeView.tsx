/**
 * Two versions of one memory side by side, the lines only one side has marked, and an editable
 * result: the merge editor every conflict uses — a team sync's (MergeEditor) and a relink's or
 * clone merge's (IdentityPanels). The caller names the sides and gives the actions.
 */
import { markdown } from '@codemirror/lang-markdown';
import { Decoration, type DecorationSet, EditorView, type Extension, StateField } from '@uiw/react-codemirror';
import { CodeEditor } from './CodeEditor.js';
import { type ReactNode, useMemo, useState } from 'react';
import { type LineRange, type SideLine, sideBySide } from '../../shared/line-union.js';
import type { SecretRefusal } from '../stores/errors.js';
import { themeOf, useSettings } from '../stores/settings.js';
import { SecretConfirm } from './SecretConfirm.js';

const extensions = [markdown(), EditorView.lineWrapping];
const overlapLine = Decoration.line({ class: 'merge-overlap', attributes: { title: 'Both versions overlap here: keep what should stay' } });

/** Marks the lines of the first text that hold both sides of an overlap; the marks follow the user's edits. */
function markLines(ranges: readonly LineRange[]): Extension {
  return StateField.define<DecorationSet>({
    create(state) {
      const marks = [];
      for (const { from, to } of ranges) for (let n = from; n <= Math.min(to, state.doc.lines); n++) marks.push(overlapLine.range(state.doc.line(n).from));
      return Decoration.set(marks, true);
    },
    update: (marks, tr) => marks.map(tr.changes),
    provide: (field) => EditorView.decorations.from(field),
  });
}

function Pane({ title, lines, side }: { title: string; lines: SideLine[]; side: 'theirs' | 'mine' }) {
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

/** One button under the result: it gets the result as edited. */
export interface MergeAction {
  label: string;
  title?: string;
  primary?: boolean;
  run: (result: string) => void;
}

export function MergeView(props: {
  label: string;
  heading: ReactNode;
  subtitle: ReactNode;
  theirs: { title: string; text: string };
  mine: { title: string; text: string };
  /** The text the result starts from: the one "keep both" of the conflict (the same text `--keep both` writes). */
  initial: string;
  /** Lines of `initial` where both sides of an overlap stand: marked in the result, and counted above it. */
  overlaps?: readonly LineRange[];
  note: string;
  busy: boolean;
  actions: MergeAction[];
  onClose: () => void;
  banner?: ReactNode;
  /** The merge was refused for a secret it would hold: asked here, saved anyway with the result as it stands. */
  secrets?: { refusal: SecretRefusal; saveAnyway: (result: string) => void; back: () => void } | null;
}) {
  const theme = useSettings((s) => themeOf(s.view));
  const lines = useMemo(() => sideBySide(props.theirs.text, props.mine.text), [props.theirs.text, props.mine.text]);
  const [result, setResult] = useState(props.initial);
  // Marked once, on the text the editor starts from; the marks then move with the edits.
  const [resultExtensions] = useState(() => (props.overlaps?.length ? [...extensions, markLines(props.overlaps)] : extensions));
  const overlapCount = props.overlaps?.length ?? 0;
  return (
    <section className="merge" aria-label={props.label}>
      <div className="toolbar">
        <strong>{props.heading}</strong>
        <span className="muted small">{props.subtitle}</span>
        <span className="spacer" />
        <button onClick={props.onClose}>Close</button>
      </div>
      {props.banner}
      <div className="merge-sides">
        <Pane title={props.theirs.title} lines={lines} side="theirs" />
        <Pane title={props.mine.title} lines={lines} side="mine" />
      </div>
      <h3>Result</h3>
      <p className="muted small">{props.note}</p>
      {overlapCount > 0 && (
        <p className="banner warning" role="note">
          {overlapCount === 1 ? 'One place' : `${overlapCount} places`} where the versions overlap {overlapCount === 1 ? 'holds' : 'hold'} both sides, marked
          below (lines {props.overlaps!.map((r) => (r.from === r.to ? `${r.from}` : `${r.from}–${r.to}`)).join(', ')}): keep what should stay there before you
          save.
        </p>
      )}
      <div className="merge-result">
        <CodeEditor
          label="Merged result"
          value={result}
          onChange={setResult}
          extensions={resultExtensions}
          theme={theme === 'dark' ? 'dark' : 'light'}
          basicSetup={{ lineNumbers: true, foldGutter: false }}
        />
      </div>
      {props.secrets && (
        <SecretConfirm
          refusal={props.secrets.refusal}
          saveAnyway={() => props.secrets?.saveAnyway(result)}
          back={props.secrets.back}
          backLabel="Keep editing"
          busy={props.busy}
        />
      )}
      <div className="actions">
        {props.actions.map((a) => (
          <button key={a.label} className={a.primary ? 'primary' : undefined} title={a.title} onClick={() => a.run(result)} disabled={props.busy}>
            {a.label}
          </button>
        ))}
      </div>
    </section>
  );
}
