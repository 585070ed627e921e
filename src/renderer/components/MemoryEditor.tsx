/**
 * Edit one memory: its frontmatter as a form, its body in CodeMirror with a preview, the R-NOTSAVE
 * hints as you type, and every way a save could lose something asked about first.
 */
import { markdown } from '@codemirror/lang-markdown';
import CodeMirror, { EditorView } from '@uiw/react-codemirror';
import { useEffect, useMemo, useState } from 'react';
import Markdown from 'react-markdown';
import remarkGfm from 'remark-gfm';
import { MEMORY_TYPES, TYPE_DESCRIPTIONS, type Scope } from '../../shared/memory-types.js';
import { detectDerivable } from '../../shared/not-worth-saving.js';
import { useDesktop } from '../stores/desktop.js';
import { RepeatWarning } from './RepeatWarning.js';
import { draftProblem, isDirty, useEditor } from '../stores/editor.js';
import { themeOf, useSettings } from '../stores/settings.js';

const extensions = [markdown(), EditorView.lineWrapping];

export function MemoryEditor({ onClosed, onSaved }: { onClosed: () => void; onSaved: (file: string, scope: Scope) => void }) {
  const { target, doc, draft, loading, saving, error, conflict, pendingImpact } = useEditor();
  const { edit, setType, save, remove, rename, reload } = useEditor.getState();
  const theme = useSettings((s) => themeOf(s.view));
  const desktop = useDesktop((s) => s.status?.available ?? false);
  const [preview, setPreview] = useState(false);
  const [renaming, setRenaming] = useState<string | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const hints = useMemo(() => detectDerivable(draft?.body ?? ''), [draft?.body]);
  const isNew = target?.file === null;
  const dirty = isDirty(doc, draft);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.metaKey || e.ctrlKey) && e.key.toLowerCase() === 's') {
        e.preventDefault();
        void save().then((file) => file && onSaved(file, useEditor.getState().target!.scope));
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [save, onSaved]);

  if (loading) return <p className="muted">Opening…</p>;
  if (!draft || !target) {
    return (
      <div>
        {error && <div className="banner error">{error}</div>}
        <button onClick={onClosed}>Close</button>
      </div>
    );
  }
  const problem = draftProblem(draft);
  const doSave = async (options?: { acceptImpact?: boolean; overwrite?: boolean }) => {
    const file = await save(options);
    if (file) onSaved(file, useEditor.getState().target!.scope);
  };
  const cmTheme = theme === 'dark' || (theme === 'system' && window.matchMedia('(prefers-color-scheme: dark)').matches) ? 'dark' : 'light';

  return (
    <form className="editor" aria-label={isNew ? 'New memory' : `Edit ${target.file}`} onSubmit={(e) => (e.preventDefault(), void doSave())}>
      <div className="editor-head">
        <h2>{isNew ? 'New memory' : target.file}</h2>
        {!isNew && doc && <span className="muted small">{doc.layout === 'nested' ? 'nested metadata layout (kept)' : ''}</span>}
        <span className="spacer" />
        {desktop && !isNew && target.file && (
          <>
            <button type="button" onClick={() => void useDesktop.getState().reveal(target.dir, target.scope, target.file!)}>
              Reveal in file manager
            </button>
            <button type="button" onClick={() => void useDesktop.getState().open(target.dir, target.scope, target.file!)}>
              Open in editor
            </button>
          </>
        )}
        <button type="button" onClick={onClosed} disabled={saving}>
          Close
        </button>
      </div>
      {error && (
        <div className="banner error" role="alert">
          {error}
        </div>
      )}
      {conflict !== null && (
        <div className="conflict" role="region" aria-label="Conflict">
          <p>
            <strong>Changed on disk.</strong> Another program changed this file while you were editing. Nothing has been overwritten: compare and choose.
          </p>
          <div className="conflict-sides">
            <div>
              <h3>Yours (not saved)</h3>
              <pre>{draft.body}</pre>
            </div>
            <div>
              <h3>On disk now</h3>
              <pre>{conflict}</pre>
            </div>
          </div>
          <button type="button" className="primary" onClick={() => void doSave({ overwrite: true })}>
            Keep mine (save over it)
          </button>
          <button type="button" onClick={() => void reload()}>
            Take theirs (discard my edit)
          </button>
        </div>
      )}
      {pendingImpact && (
        <div className="banner warning" role="alertdialog" aria-label="Index limit warning">
          <p>
            {pendingImpact.changedIsCut && 'This memory\'s pointer would land past the MEMORY.md cut, so the agent would never see it. '}
            {pendingImpact.newlyCut.length > 0 && `Saving would push ${pendingImpact.newlyCut.length} other pointer(s) past the cut: ${pendingImpact.newlyCut.slice(0, 5).join(', ')}${pendingImpact.newlyCut.length > 5 ? '…' : ''}. `}
            Shorten the description or merge memories first, or save anyway.
          </p>
          <button type="button" onClick={() => void doSave({ acceptImpact: true })}>
            Save anyway
          </button>
          <button type="button" onClick={() => useEditor.setState({ pendingImpact: null })}>
            Go back
          </button>
        </div>
      )}
      <div className="form-grid">
        <label>
          Name
          <input value={draft.name} onChange={(e) => edit({ name: e.target.value })} required maxLength={200} />
        </label>
        <label>
          Type
          <select value={draft.type} onChange={(e) => setType(e.target.value as typeof draft.type)} aria-describedby="type-help">
            {MEMORY_TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
        <label className="wide">
          Description <span className="muted small">(one line — recall chooses memories by it)</span>
          <input value={draft.description} onChange={(e) => edit({ description: e.target.value })} maxLength={1000} />
        </label>
        <label>
          Scope
          <select value={draft.scope} onChange={(e) => edit({ scope: e.target.value as Scope })} disabled={!isNew}>
            <option value="private">private</option>
            <option value="team" disabled={draft.type === 'user'}>
              team{draft.type === 'user' ? ' (never for user memories)' : ''}
            </option>
          </select>
        </label>
        {isNew && (
          <label>
            File name <span className="muted small">(optional)</span>
            <input value={draft.file} placeholder={`${draft.type}_….md`} onChange={(e) => edit({ file: e.target.value })} />
          </label>
        )}
        <p id="type-help" className="muted small wide">
          {TYPE_DESCRIPTIONS[draft.type]}
        </p>
      </div>
      <div className="body-head">
        <span>Body</span>
        <span className="spacer" />
        <button type="button" className={preview ? '' : 'active'} onClick={() => setPreview(false)} aria-pressed={!preview}>
          Edit
        </button>
        <button type="button" className={preview ? 'active' : ''} onClick={() => setPreview(true)} aria-pressed={preview}>
          Preview
        </button>
      </div>
      {preview ? (
        <div className="preview markdown">
          <Markdown remarkPlugins={[remarkGfm]}>{draft.body}</Markdown>
        </div>
      ) : (
        <CodeMirror value={draft.body} height="280px" extensions={extensions} theme={cmTheme} onChange={(value) => edit({ body: value })} aria-label="Memory body" basicSetup={{ lineNumbers: false, foldGutter: false }} />
      )}
      {hints.length > 0 && (
        <ul className="hints" aria-label="What not to save">
          {hints.map((h) => (
            <li key={h.kind}>💡 {h.message}</li>
          ))}
        </ul>
      )}
      <RepeatWarning dir={target.dir} scope={draft.scope} file={target.file} name={draft.name} description={draft.description} body={draft.body} />
      {doc && doc.problems.length > 0 && (
        <ul className="problems">
          {doc.problems.map((p, i) => (
            <li key={i} className={p.severity}>
              {p.message}
            </li>
          ))}
        </ul>
      )}
      {doc && doc.otherKeys.length > 0 && <p className="muted small">Other frontmatter kept as is: {doc.otherKeys.join(', ')}</p>}
      <div className="actions">
        <button type="submit" className="primary" disabled={saving || (!dirty && !isNew) || problem !== null} title={problem ?? 'Save (Ctrl+S)'}>
          {saving ? 'Saving…' : isNew ? 'Create memory' : 'Save'}
        </button>
        {problem && dirty && <span className="muted small">{problem}</span>}
        <span className="spacer" />
        {!isNew && renaming === null && (
          <button type="button" onClick={() => setRenaming(target.file ?? '')}>
            Rename
          </button>
        )}
        {renaming !== null && (
          <span className="inline-form">
            <input aria-label="New file name" value={renaming} onChange={(e) => setRenaming(e.target.value)} />
            <button
              type="button"
              onClick={() =>
                void rename(renaming).then((file) => {
                  if (file) {
                    setRenaming(null);
                    onSaved(file, target.scope);
                  }
                })
              }
            >
              Rename
            </button>
            <button type="button" onClick={() => setRenaming(null)}>
              Cancel
            </button>
          </span>
        )}
        {!isNew && !confirmDelete && (
          <button type="button" className="danger" onClick={() => setConfirmDelete(true)}>
            Delete
          </button>
        )}
        {confirmDelete && (
          <span className="inline-form">
            <span>Delete {target.file}? It stays in history.</span>
            <button type="button" className="danger" onClick={() => void remove().then((ok) => ok && onClosed())}>
              Delete
            </button>
            <button type="button" onClick={() => setConfirmDelete(false)}>
              Keep
            </button>
          </span>
        )}
      </div>
    </form>
  );
}
