/**
 * MEMORY.md as the agent sees it: the loaded part and the cut part visibly apart, with the load
 * meter; editing shows, before saving, which pointers the new text would push past the cut.
 */
import { markdown } from '@codemirror/lang-markdown';
import CodeMirror, { EditorView } from '@uiw/react-codemirror';
import { useEffect, useMemo, useState } from 'react';
import { RpcError } from '../../shared/contract/define.js';
import { computeIndexLoad, parseIndex, splitLoadedEntries } from '../../shared/index-format.js';
import { indexImpact } from '../../shared/index-impact.js';
import { INDEX_MAX_BYTES, INDEX_MAX_LINES } from '../../shared/limits.js';
import type { Scope } from '../../shared/memory-types.js';
import type { ProjectScan } from '../../shared/scan-types.js';
import { LoadMeter } from '../components/LoadMeter.js';
import { messageOf } from '../stores/errors.js';
import { useProject } from '../stores/project.js';
import { useToasts } from '../stores/toasts.js';
import { call } from '../transport/transport.js';

const INDEX_EXTENSIONS = [markdown(), EditorView.lineWrapping];

export function IndexTab({ dir, scan }: { dir: string; scan: ProjectScan }) {
  const [scope, setScope] = useState<Scope>('private');
  const [text, setText] = useState<string | null>(null);
  const [draft, setDraft] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const summary = scope === 'team' ? scan.team?.index : scan.index;
  const reload = useProject((s) => s.refresh);

  useEffect(() => {
    let live = true;
    setDraft(null);
    call('index.read', { dir, scope })
      .then((r) => live && setText(r.text))
      .catch((e: unknown) => live && setError(messageOf(e)));
    return () => {
      live = false;
    };
  }, [dir, scope, scan]);

  const shown = draft ?? text ?? '';
  const view = useMemo(() => {
    const load = computeIndexLoad(shown);
    const parsed = parseIndex(shown);
    const { cut } = splitLoadedEntries(parsed, load);
    return { load, lines: parsed.lines, cutCount: cut.length };
  }, [shown]);
  const impact = useMemo(() => (draft !== null && text !== null ? indexImpact(text, { kind: 'replace', text: draft }) : null), [draft, text]);

  const save = async () => {
    if (draft === null || text === null) return;
    try {
      await call('index.save', { dir, scope, text: draft, baseText: text });
      useToasts.getState().show('info', 'Saved MEMORY.md.');
      setText(draft);
      setDraft(null);
      await reload();
    } catch (e) {
      setError(e instanceof RpcError && e.code === 'conflict' ? `${e.message} Your text is still in the editor; reload to see theirs.` : messageOf(e));
    }
  };

  return (
    <div className="index-tab">
      <div className="toolbar">
        {scan.team && (
          <select aria-label="Which index" value={scope} onChange={(e) => setScope(e.target.value as Scope)}>
            <option value="private">Private MEMORY.md</option>
            <option value="team">Team MEMORY.md</option>
          </select>
        )}
        {summary && <LoadMeter index={summary} />}
      </div>
      {error && <div className="banner error">{error}</div>}
      {draft === null ? (
        <>
          <p className="muted small">
            Claude Code loads only the first {INDEX_MAX_LINES} lines or {INDEX_MAX_BYTES.toLocaleString('en-US')} bytes of this file at the start of every session, and cuts the rest silently.
          </p>
          <ol className="index-lines" aria-label="MEMORY.md lines">
            {view.lines.map((l) => {
              const isCut = view.load.firstCutLine !== null && l.line >= view.load.firstCutLine;
              return (
                <li key={l.line} className={`${isCut ? 'cut' : 'loaded'} ${l.kind}`} value={l.line}>
                  {view.load.firstCutLine === l.line && (
                    <div className="cut-line" role="separator">
                      ✂ The agent never sees anything below this line ({view.cutCount} pointers cut)
                    </div>
                  )}
                  <code>{l.raw || ' '}</code>
                </li>
              );
            })}
          </ol>
          <button onClick={() => setDraft(text ?? '')}>Edit MEMORY.md</button>
        </>
      ) : (
        <>
          <CodeMirror value={draft} height="420px" extensions={INDEX_EXTENSIONS} onChange={setDraft} aria-label="MEMORY.md text" />
          <p className={impact && (impact.newlyCut.length > 0 || impact.after.cut > 0) ? 'banner warning' : 'muted small'}>
            After saving: {view.load.lines} lines, {view.load.bytes.toLocaleString('en-US')} bytes
            {impact && impact.after.cut > 0 ? `, ${impact.after.cut} pointers past the cut` : ', everything reaches the agent'}
            {impact && impact.newlyCut.length > 0 ? ` — newly cut: ${impact.newlyCut.join(', ')}` : ''}
          </p>
          <div className="actions">
            <button className="primary" onClick={() => void save()}>
              Save MEMORY.md
            </button>
            <button onClick={() => setDraft(null)}>Cancel</button>
          </div>
        </>
      )}
    </div>
  );
}
