/**
 * Edit one memory: its frontmatter as a form, its body in CodeMirror with a preview, the R-NOTSAVE
 * hints as you type, and every way a save could lose something asked about first. A bad file is
 * shown for repair: an invalid or missing type is marked and must be picked, missing fields are
 * marked, frontmatter that cannot be read stays editable as YAML.
 */
import { markdown } from '@codemirror/lang-markdown';
import { EditorView } from '@uiw/react-codemirror';
import { useEffect, useMemo, useRef, useState } from 'react';
import Markdown from 'react-markdown';
import remarkGfm from 'remark-gfm';
import { MEMORY_TYPES, TYPE_DESCRIPTIONS, type Scope } from '../../shared/memory-types.js';
import { detectDerivable } from '../../shared/not-worth-saving.js';
import { memoryTextTooLarge, plural } from '../../shared/size-text.js';
import { useDesktop } from '../stores/desktop.js';
import { useProject } from '../stores/project.js';
import { RepeatWarning } from './RepeatWarning.js';
import { Breakable } from './Breakable.js';
import { SecretConfirm } from './SecretConfirm.js';
import { CodeEditor } from './CodeEditor.js';
import { ConfirmDelete } from './ConfirmDelete.js';
import { Question } from './DialogFocus.js';
import { type Draft, draftProblem, isDirty, needsRepair, type SaveOptions, useEditor } from '../stores/editor.js';
import { themeOf, useSettings } from '../stores/settings.js';
import { Time } from './Time.js';

const extensions = [markdown(), EditorView.lineWrapping];

/** YAML for the form's fields, to start a repair over (JSON strings are valid YAML scalars). */
export function frontmatterFromFields(draft: Pick<Draft, 'name' | 'description' | 'type'>): string {
  return [`name: ${JSON.stringify(draft.name)}`, `description: ${JSON.stringify(draft.description)}`, ...(draft.type ? [`type: ${draft.type}`] : [])].join(
    '\n',
  );
}

function FieldNote({ id, text }: { id: string; text: string | null }) {
  return text ? (
    <span id={id} className="field-problem" role="note">
      {text}
    </span>
  ) : null;
}

/** The new file name, asked for in place (Cancel: `onChange(null)`). */
function RenameForm({ value, onChange, onRename }: { value: string; onChange: (name: string | null) => void; onRename: () => void }) {
  return (
    <span className="inline-form">
      {/* Enter renames, Escape cancels: inside the editor's form, Enter would otherwise submit a save. */}
      <input
        aria-label="New file name"
        value={value}
        autoFocus
        onChange={(e) => onChange(e.target.value)}
        onKeyDown={(e) => {
          if (e.key !== 'Enter' && e.key !== 'Escape') return;
          e.preventDefault();
          if (e.key === 'Enter') onRename();
          else onChange(null);
        }}
      />
      <button type="button" onClick={onRename}>
        Rename
      </button>
      <button type="button" onClick={() => onChange(null)}>
        Cancel
      </button>
    </span>
  );
}

/** `focusName`: the memory was opened from the keyboard, so its Name field takes the focus once the memory is shown. */
export function MemoryEditor({
  onClosed,
  onSaved,
  onDeleted,
  focusName = false,
}: {
  onClosed: () => void;
  onSaved: (file: string, scope: Scope) => void;
  onDeleted: () => void;
  focusName?: boolean;
}) {
  const { target, doc, draft, loading, saving, error, conflict, missing, restoredAt, notice, pendingImpact, pendingSecrets, retireOffered } = useEditor();
  const { edit, setType, save, remove, retire, rename, recreate, discardDraft } = useEditor.getState();
  const theme = useSettings((s) => themeOf(s.view));
  const desktop = useDesktop((s) => s.status?.available ?? false);
  const [preview, setPreview] = useState(false);
  const [renaming, setRenaming] = useState<string | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [confirmRetire, setConfirmRetire] = useState(false);
  // A memory too large to open (over 1 MB) is not edited here, but it can still be renamed and deleted.
  const tooLarge = useProject((s) => (target?.file ? (s.rows.find((r) => r.scope === target.scope && r.file === target.file)?.tooLarge ?? false) : false));
  const hints = useMemo(() => detectDerivable(draft?.body ?? ''), [draft?.body]);
  const isNew = target?.file === null;
  const dirty = isDirty(doc, draft);

  const conflictRef = useRef<HTMLDivElement>(null);
  const keepMineRef = useRef<HTMLButtonElement>(null);
  const errorRef = useRef<HTMLDivElement>(null);
  const deleteButton = useRef<HTMLButtonElement>(null);
  const retireButton = useRef<HTMLButtonElement>(null);
  /**
   * After an action the person took (Save, Rename, Delete…): what it refused is said at the top of
   * the editor, often scrolled away from the button at the bottom, where the button looked dead.
   */
  const revealRefusal = () => requestAnimationFrame(() => errorRef.current?.scrollIntoView({ block: 'nearest' }));
  /**
   * The one save (button, Enter, Ctrl+S). While a change on disk stands, a plain save is that
   * choice: both versions are brought into view with the choice focused — they sit at the top of
   * the editor, often scrolled away from the body being typed in, where a refused save looked like
   * a button that did nothing.
   */
  const doSave = async (options?: SaveOptions) => {
    if (useEditor.getState().conflict !== null && !options?.overwrite) {
      conflictRef.current?.scrollIntoView({ block: 'nearest' });
      keepMineRef.current?.focus({ preventScroll: true });
      return;
    }
    const file = await save(options);
    if (file) onSaved(file, useEditor.getState().target!.scope);
    else revealRefusal();
  };
  const saveNow = useRef(doSave);
  saveNow.current = doSave;

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.metaKey || e.ctrlKey) && e.key.toLowerCase() === 's') {
        e.preventDefault();
        void saveNow.current();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const doRename = async (to: string, allowSecrets?: string[]) => {
    const scope = target?.scope;
    const file = await rename(to, allowSecrets);
    if (file && scope) {
      setRenaming(null);
      onSaved(file, scope);
    } else revealRefusal();
  };

  // The refusal of a person's action, where they look (revealRefusal); a held team memory's delete refusal
  // offers Retire — also in the view of one too large to open.
  const errorBanner = error && (
    <div className="banner error" role="alert" ref={errorRef}>
      {error}
      {retireOffered === error && (
        <>
          {' '}
          <button type="button" className="danger" onClick={() => void retire().then((ok) => ok && onDeleted())}>
            Retire instead
          </button>
        </>
      )}
    </div>
  );

  if (loading) return <p className="muted">Opening…</p>;
  if (!draft || !target) {
    return (
      <div>
        {errorBanner}
        <button onClick={onClosed}>Close</button>
        {tooLarge && renaming === null && !confirmDelete && (
          <button type="button" onClick={() => setRenaming(target?.file ?? '')}>
            Rename
          </button>
        )}
        {tooLarge && renaming !== null && <RenameForm value={renaming} onChange={setRenaming} onRename={() => void doRename(renaming)} />}
        {pendingSecrets?.retry.kind === 'rename' && (
          <SecretConfirm
            refusal={pendingSecrets}
            verb="Rename"
            saveAnyway={() => pendingSecrets.retry.kind === 'rename' && void doRename(pendingSecrets.retry.to, pendingSecrets.allowSecrets)}
            back={() => useEditor.setState({ pendingSecrets: null })}
          />
        )}
        {tooLarge && !confirmDelete && (
          <button type="button" className="danger" ref={deleteButton} onClick={() => setConfirmDelete(true)}>
            Delete
          </button>
        )}
        {tooLarge && confirmDelete && (
          <ConfirmDelete
            names={[target?.file ?? '']}
            onDelete={() => void remove().then((ok) => ok && onDeleted())}
            onKeep={() => setConfirmDelete(false)}
            returnTo={deleteButton}
          />
        )}
      </div>
    );
  }
  const problem = draftProblem(draft);
  const repair = needsRepair(doc);
  const cmTheme = theme === 'dark' || (theme === 'system' && window.matchMedia('(prefers-color-scheme: dark)').matches) ? 'dark' : 'light';
  const missingField = (field: 'name' | 'description' | 'type') =>
    doc?.missingFields.includes(field) && !dirty ? `The file has no ${field}: ${field === 'type' ? 'pick one' : 'this is what a save writes'}.` : null;
  const typeNote =
    draft.type === null
      ? doc?.rawType
        ? `"${doc.rawType}" is not a type: pick one of ${MEMORY_TYPES.join(', ')}.`
        : `No type: pick one of ${MEMORY_TYPES.join(', ')}.`
      : null;
  // Said on its own (with what to do), whatever else the draft still lacks.
  const sizeProblem = memoryTextTooLarge(draft.body);

  return (
    <form className="editor" aria-label={isNew ? 'New memory' : `Edit ${target.file}`} onSubmit={(e) => (e.preventDefault(), void doSave())}>
      <div className="editor-head">
        <h2>{isNew ? 'New memory' : <Breakable text={target.file ?? ''} />}</h2>
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
        <button type="button" onClick={onClosed} disabled={saving} title={dirty ? 'Close; your unsaved edit is kept as a draft' : 'Close'}>
          Close
        </button>
      </div>
      {restoredAt && (
        <div className="banner info" role="status">
          Restored your unsaved draft from <Time at={restoredAt} />.{' '}
          <button type="button" className="link" onClick={() => void discardDraft()}>
            Discard draft
          </button>
        </div>
      )}
      {notice && (
        <div className="banner info" role="status" aria-label={notice.kind === 'draft' ? 'Another window' : 'Changed elsewhere'}>
          {notice.text}{' '}
          {notice.kind === 'draft' && dirty && (
            <button type="button" className="link" onClick={() => void useEditor.getState().keepMineOver()}>
              Keep mine instead
            </button>
          )}
        </div>
      )}
      {errorBanner}
      {missing && (
        <div className="conflict" role="region" aria-label="Deleted on disk">
          <p>
            <strong>Deleted on disk.</strong> {target.file} is gone from the memory folder; your version below is kept as a draft.
          </p>
          <button type="button" className="primary" onClick={() => void recreate()} disabled={draft.type === null}>
            Recreate {target.file} from this draft
          </button>
          <button type="button" onClick={() => void discardDraft().then(onClosed)}>
            Let it go (discard the draft)
          </button>
        </div>
      )}
      {conflict !== null && (
        <div className="conflict" role="region" aria-label="Conflict" ref={conflictRef}>
          <p>
            <strong>Changed on disk.</strong> This file changed outside this editor while you had unsaved edits. Nothing has been overwritten: compare and
            choose.
          </p>
          <div className="conflict-sides">
            <div>
              <h3>Yours (not saved)</h3>
              <pre>{`name: ${draft.name}\ndescription: ${draft.description}\ntype: ${draft.type ?? '(none)'}\n\n${draft.body}`}</pre>
            </div>
            <div>
              <h3>On disk now</h3>
              <pre>{conflict}</pre>
            </div>
          </div>
          <button type="button" className="primary" ref={keepMineRef} onClick={() => void doSave({ overwrite: true })} disabled={problem !== null}>
            Keep mine (save over it)
          </button>
          <button type="button" onClick={() => void discardDraft('Showing the version on disk; your draft was set aside.')}>
            Take theirs (set my edit aside)
          </button>
        </div>
      )}
      {pendingImpact && (
        <Question
          label="Index limit warning"
          role="alertdialog"
          className="banner warning"
          inline={false}
          onClose={() => useEditor.setState({ pendingImpact: null })}
        >
          <p>
            {pendingImpact.changedIsCut && "This memory's pointer would land past the MEMORY.md cut, so the agent would never see it. "}
            {pendingImpact.newlyCut.length > 0 &&
              `Saving would push ${plural(pendingImpact.newlyCut.length, 'other pointer')} past the cut: ${pendingImpact.newlyCut.slice(0, 5).join(', ')}${pendingImpact.newlyCut.length > 5 ? '…' : ''}. `}
            Shorten the description or merge memories first, or save anyway.
          </p>
          <button type="button" onClick={() => void doSave({ acceptImpact: true })}>
            Save anyway
          </button>
          <button type="button" onClick={() => useEditor.setState({ pendingImpact: null })} autoFocus>
            Go back
          </button>
        </Question>
      )}
      {pendingSecrets && (
        <SecretConfirm
          refusal={pendingSecrets}
          verb={{ save: 'Save', rename: 'Rename', recreate: 'Recreate' }[pendingSecrets.retry.kind]}
          saveAnyway={() => {
            const { retry, allowSecrets } = pendingSecrets;
            void (retry.kind === 'rename'
              ? doRename(retry.to, allowSecrets)
              : retry.kind === 'recreate'
                ? recreate(allowSecrets)
                : doSave({ ...retry.options, allowSecrets }));
          }}
          back={() => useEditor.setState({ pendingSecrets: null })}
        />
      )}
      <div className="form-grid">
        <label>
          Name
          <input
            name="name"
            aria-label="Name"
            autoFocus={focusName}
            value={draft.name}
            onChange={(e) => edit({ name: e.target.value })}
            required
            maxLength={200}
            aria-invalid={missingField('name') !== null || undefined}
            aria-describedby="name-note"
          />
          <FieldNote id="name-note" text={missingField('name')} />
        </label>
        <label>
          Type
          <select
            name="type"
            aria-label="Type"
            value={draft.type ?? ''}
            onChange={(e) => e.target.value && setType(e.target.value as (typeof MEMORY_TYPES)[number])}
            aria-invalid={draft.type === null || undefined}
            aria-describedby={draft.type === null ? 'type-note' : 'type-help'}
          >
            {draft.type === null && <option value="">{doc?.rawType ? `"${doc.rawType}" (not a type)` : '(no type)'} — pick one</option>}
            {MEMORY_TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
          <FieldNote id="type-note" text={typeNote} />
        </label>
        <label className="wide">
          Description <span className="muted small">(one line — recall chooses memories by it)</span>
          <input
            name="description"
            aria-label="Description"
            value={draft.description}
            onChange={(e) => edit({ description: e.target.value })}
            maxLength={1000}
            aria-invalid={missingField('description') !== null || undefined}
            aria-describedby="description-note"
          />
          <FieldNote id="description-note" text={missingField('description')} />
        </label>
        <label>
          Scope
          <select name="scope" value={draft.scope} onChange={(e) => edit({ scope: e.target.value as Scope })} disabled={!isNew}>
            <option value="private">private</option>
            <option value="team" disabled={draft.type === 'user'}>
              team{draft.type === 'user' ? ' (never for user memories)' : ''}
            </option>
          </select>
        </label>
        {isNew && (
          <label>
            File name <span className="muted small">(optional)</span>
            <input name="file" value={draft.file} placeholder={`${draft.type ?? 'type'}_….md`} onChange={(e) => edit({ file: e.target.value })} />
          </label>
        )}
        <p id="type-help" className="muted small wide">
          {draft.type ? TYPE_DESCRIPTIONS[draft.type] : ''}
        </p>
      </div>
      {draft.frontmatter !== null && (
        <div className="frontmatter-repair" role="group" aria-label="Frontmatter">
          <p className="field-problem" role="note">
            {doc?.frontmatterError ?? 'The frontmatter cannot be read.'} Repair it here; the fields above are written on top of it when you save.
          </p>
          <label>
            Frontmatter (YAML)
            <textarea
              name="frontmatter"
              rows={Math.min(12, draft.frontmatter.split('\n').length + 1)}
              value={draft.frontmatter}
              onChange={(e) => edit({ frontmatter: e.target.value })}
              spellCheck={false}
            />
          </label>
          <button type="button" onClick={() => edit({ frontmatter: frontmatterFromFields(draft) })}>
            Rebuild it from the fields
          </button>
        </div>
      )}
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
        <CodeEditor
          label="Memory body"
          value={draft.body}
          height="280px"
          extensions={extensions}
          theme={cmTheme}
          onChange={(value) => edit({ body: value })}
          basicSetup={{ lineNumbers: false, foldGutter: false }}
        />
      )}
      {sizeProblem && (
        <p className="banner error" role="alert">
          {sizeProblem} Move the bulk of it into a file of the project and keep the memory to what is worth remembering.
        </p>
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
        <ul className="problems" aria-label="Problems in this file">
          {doc.problems.map((p, i) => (
            <li key={i} className={p.severity}>
              {p.message}
            </li>
          ))}
        </ul>
      )}
      {doc && doc.otherKeys.length > 0 && <p className="muted small">Other frontmatter kept as is: {doc.otherKeys.join(', ')}</p>}
      <div className="actions">
        <button
          type="submit"
          className="primary"
          disabled={saving || (!dirty && !isNew && !repair) || problem !== null || missing}
          title={problem ?? 'Save (Ctrl+S)'}
        >
          {saving ? 'Saving…' : isNew ? 'Create memory' : repair && !dirty ? 'Save repaired file' : 'Save'}
        </button>
        {problem && (dirty || repair) && problem !== sizeProblem && <span className="muted small">{problem}</span>}
        {conflict !== null && (
          <span className="muted small" role="status" aria-label="Not saved">
            Not saved: {target.file} changed on disk. Compare both versions above: keep yours or take what is on disk.
          </span>
        )}
        {dirty && !isNew && !restoredAt && (
          <button type="button" className="link" onClick={() => void discardDraft()}>
            Discard changes
          </button>
        )}
        <span className="spacer" />
        {!isNew && renaming === null && !missing && (
          <button type="button" onClick={() => setRenaming(target.file ?? '')}>
            Rename
          </button>
        )}
        {renaming !== null && <RenameForm value={renaming} onChange={setRenaming} onRename={() => void doRename(renaming)} />}
        {/* A held team memory's way out that the team sees (R-SYNC: a deletion never propagates); one never pushed is simply deleted. */}
        {!isNew && doc?.heldByServer === true && !confirmRetire && !confirmDelete && !missing && (
          <button type="button" className="danger" ref={retireButton} onClick={() => setConfirmRetire(true)}>
            Retire
          </button>
        )}
        {confirmRetire && (
          <Question label="Confirm retire" onClose={() => setConfirmRetire(false)} returnTo={retireButton}>
            <span>
              Retire team/{target.file}? Its text is emptied and its index lines removed; the next sync shares that with the team. Undo brings it back.
            </span>
            <button
              type="button"
              className="danger"
              onClick={() => void retire().then((ok) => (ok ? onDeleted() : (setConfirmRetire(false), revealRefusal())))}
            >
              Retire
            </button>
            <button type="button" onClick={() => setConfirmRetire(false)} autoFocus>
              Keep
            </button>
          </Question>
        )}
        {!isNew && !confirmDelete && !confirmRetire && !missing && (
          <button type="button" className="danger" ref={deleteButton} onClick={() => setConfirmDelete(true)}>
            Delete
          </button>
        )}
        {confirmDelete && (
          <ConfirmDelete
            names={[target.file ?? '']}
            onDelete={() => void remove().then((ok) => (ok ? onDeleted() : (setConfirmDelete(false), revealRefusal())))}
            onKeep={() => setConfirmDelete(false)}
            returnTo={deleteButton}
          />
        )}
      </div>
    </form>
  );
}
