/**
 * Browse, sort, filter and pick memories on the left; edit the open one on the right. The editor
 * follows the address: it shows only the memory the route names, of this project — an edit of
 * another file or project is never shown (or saved) here; it waits as a draft.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { MEMORY_TYPES } from '../../shared/memory-types.js';
import type { ProjectScan } from '../../shared/scan-types.js';
import { plural } from '../../shared/size-text.js';
import { ConfirmDelete } from '../components/ConfirmDelete.js';
import { MemoryEditor } from '../components/MemoryEditor.js';
import { MemoryList } from '../components/MemoryList.js';
import { draftKey, useDrafts } from '../stores/drafts.js';
import { type EditorTarget, sameTarget, useEditor } from '../stores/editor.js';
import { type Route, useNav } from '../stores/nav.js';
import {
  type BulkAction,
  MEMORY_SORTS,
  type MemoryRow,
  SORT_LABELS,
  type MemorySort,
  filterMemories,
  rowKey,
  sortMemories,
  useProject,
} from '../stores/project.js';

/** The editor target a route names, or null. */
export function targetOf(route: Extract<Route, { view: 'project' }>): EditorTarget | null {
  if (!route.file) return null;
  return route.file === '__new__'
    ? { dir: route.dir, scope: route.scope ?? 'private', file: null }
    : { dir: route.dir, scope: route.scope ?? 'private', file: route.file };
}

/** What a bulk action under way is doing, in words: "Changing the type of 3,000 memories to reference…". */
function workingWords(action: BulkAction, count: number): string {
  const memories = plural(count, 'memory', 'memories');
  if (action.kind === 'delete') return `Deleting ${memories}…`;
  if (action.kind === 'retire') return `Retiring ${memories}…`;
  if (action.kind === 'set-type') return `Changing the type of ${memories} to ${action.type}…`;
  return `Moving ${memories} to ${action.to === 'team' ? 'the team memory' : 'the private memory'}…`;
}

function BulkBar({ count, onDone }: { count: number; onDone: () => void }) {
  const run = useProject((s) => s.bulk);
  // What is under way, said while it runs (thousands of memories take a while), its buttons off
  // until it is done: a second click would queue the same change again behind the first.
  const [working, setWorking] = useState<string | null>(null);
  // The bar goes when the selection does: focus goes back to the list.
  const bulk = (action: Parameters<typeof run>[0]) => {
    setWorking(workingWords(action, count));
    return run(action)
      .finally(() => setWorking(null))
      .then(onDone);
  };
  const clear = useProject((s) => s.clearSelection);
  const hasTeam = useProject((s) => s.scan?.team !== null);
  const rows = useProject((s) => s.rows);
  const selected = useProject((s) => s.selected);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const deleteButton = useRef<HTMLButtonElement>(null);
  // Named as the list shows them, in its order: a team memory with its folder.
  const names = useMemo(() => rows.filter((r) => selected.has(rowKey(r))).map((r) => (r.scope === 'team' ? `team/${r.file}` : r.file)), [rows, selected]);
  return (
    <div className="bulk-bar" role="toolbar" aria-label="Selected memories" aria-busy={working !== null}>
      <strong role="status">{working ?? `${plural(count, 'memory', 'memories')} selected`}</strong>
      <select
        aria-label="Change the type of the selected memories"
        disabled={working !== null}
        value=""
        onChange={(e) => e.target.value && void bulk({ kind: 'set-type', type: e.target.value as (typeof MEMORY_TYPES)[number] })}
      >
        <option value="">Change type…</option>
        {MEMORY_TYPES.map((t) => (
          <option key={t} value={t}>
            {t}
          </option>
        ))}
      </select>
      <button
        disabled={working !== null}
        onClick={() => void bulk({ kind: 'move', to: 'team' })}
        title={hasTeam ? 'Share them with the team (a user memory always stays private)' : 'Creates the team memory folder'}
      >
        Move to team
      </button>
      <button disabled={working !== null} onClick={() => void bulk({ kind: 'move', to: 'private' })}>
        Move to private
      </button>
      {confirmDelete ? (
        <ConfirmDelete
          names={names}
          onDelete={() => (setConfirmDelete(false), void bulk({ kind: 'delete' }))}
          onKeep={() => setConfirmDelete(false)}
          returnTo={deleteButton}
        />
      ) : (
        <button className="danger" ref={deleteButton} disabled={working !== null} onClick={() => setConfirmDelete(true)}>
          Delete
        </button>
      )}
      <button className="link" disabled={working !== null} onClick={clear}>
        Clear selection
      </button>
    </div>
  );
}

export function MemoriesTab({ route, scan }: { route: Extract<Route, { view: 'project' }>; scan: ProjectScan }) {
  const rows = useProject((s) => s.rows);
  const filter = useProject((s) => s.filter);
  const sort = useProject((s) => s.sort);
  const descending = useProject((s) => s.descending);
  const picked = useProject((s) => s.selected);
  const { setFilter, setSort, select } = useProject.getState();
  const go = useNav((s) => s.go);
  const editorTarget = useEditor((s) => s.target);
  const drafts = useDrafts((s) => s.drafts);
  const search = useRef<HTMLInputElement>(null);
  const list = useRef<HTMLDivElement>(null);
  const memoryDir = useRef(scan.memoryDir);
  memoryDir.current = scan.memoryDir;
  const visible = useMemo(() => sortMemories(filterMemories(rows, filter), sort, descending), [rows, filter, sort, descending]);
  const draftRows = useMemo(
    () => new Set(rows.filter((r) => drafts[draftKey({ dir: route.dir, scope: r.scope, file: r.file })]).map(rowKey)),
    [rows, drafts, route.dir],
  );
  const hasNewDraft = Boolean(drafts[draftKey({ dir: route.dir, scope: 'private', file: null })]);
  const routeTarget = targetOf(route);
  const bound = routeTarget !== null && sameTarget(editorTarget, routeTarget);

  // The memory opened from the keyboard: its Name field takes the focus once it is shown (after
  // its read, which one animation frame did not wait for: the focus stayed in the list).
  const [keyboardOpened, setKeyboardOpened] = useState<string | null>(null);
  const openRow = useCallback(
    (row: MemoryRow, how: 'pointer' | 'keyboard') => {
      setKeyboardOpened(how === 'keyboard' ? rowKey(row) : null);
      go({ view: 'project', dir: route.dir, tab: 'memories', scope: row.scope, file: row.file });
    },
    [go, route.dir],
  );
  const pickRow = useCallback((row: MemoryRow, range: boolean) => select(rowKey(row), visible, range), [select, visible]);
  const newMemory = useCallback(() => go({ view: 'project', dir: route.dir, tab: 'memories', scope: 'private', file: '__new__' }), [go, route.dir]);

  // The route decides what is open: another file, another project or no file at all moves the
  // editor on (an unsaved edit is kept as a draft by the editor store).
  const routeKey = routeTarget ? `${routeTarget.dir}\0${routeTarget.scope}\0${routeTarget.file ?? ''}` : null;
  useEffect(() => {
    const target = targetOf(route);
    if (target) void useEditor.getState().open(target, { memoryDir: memoryDir.current });
    else void useEditor.getState().close();
    // routeKey stands for the route's target: the effect runs when (and only when) that changes.
  }, [routeKey]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const typing = e.target instanceof HTMLElement && (e.target.matches('input, textarea, select') || e.target.closest('.cm-editor'));
      if ((e.key === '/' && !typing) || ((e.metaKey || e.ctrlKey) && e.key.toLowerCase() === 'f')) {
        e.preventDefault();
        search.current?.focus();
      } else if (((e.metaKey || e.ctrlKey) && e.altKey && e.key.toLowerCase() === 'n') || (e.key === 'n' && !typing && !e.metaKey && !e.ctrlKey)) {
        e.preventDefault();
        newMemory();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [newMemory]);

  const closeEditor = useCallback(() => {
    go({ view: 'project', dir: route.dir, tab: 'memories' });
    // Focus goes back to the list, on the memory that was open.
    requestAnimationFrame(() => list.current?.focus());
  }, [go, route.dir]);

  const filtered = filter.text.trim() !== '' || filter.type !== 'all' || filter.scope !== 'all';
  // Memories of the list the agent never sees (marked "cut"), private and team; pointers below the cut to files that are gone are Health's dangling links.
  const cutRows = rows.filter((r) => r.indexState === 'cut').length;
  return (
    <div className="split">
      <div className="pane list-pane">
        <div className="toolbar">
          <input
            ref={search}
            type="search"
            aria-label="Search memories"
            placeholder="Search memories  ( / )"
            value={filter.text}
            onChange={(e) => setFilter({ text: e.target.value })}
          />
          <select aria-label="Filter by type" value={filter.type} onChange={(e) => setFilter({ type: e.target.value as typeof filter.type })}>
            <option value="all">All types</option>
            {MEMORY_TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
          <select aria-label="Filter by scope" value={filter.scope} onChange={(e) => setFilter({ scope: e.target.value as typeof filter.scope })}>
            <option value="all">Private and team</option>
            <option value="private">Private</option>
            <option value="team">Team</option>
          </select>
          <select aria-label="Sort memories by" value={sort} onChange={(e) => setSort(e.target.value as MemorySort, descending)}>
            {MEMORY_SORTS.map((s) => (
              <option key={s} value={s}>
                {SORT_LABELS[s]}
              </option>
            ))}
          </select>
          <button
            aria-label={descending ? 'Order: reversed (click for the usual order)' : 'Order: usual (click to reverse)'}
            aria-pressed={descending}
            onClick={() => setSort(sort, !descending)}
            title="Reverse the order"
          >
            {descending ? '↑' : '↓'}
          </button>
          <button className="primary" onClick={newMemory} title="New memory (n)">
            {hasNewDraft ? 'New memory (draft)' : 'New memory'}
          </button>
        </div>
        {picked.size > 0 ? (
          <BulkBar count={picked.size} onDone={() => list.current?.focus()} />
        ) : (
          <div className="muted small list-count">
            {visible.length === rows.length ? plural(rows.length, 'memory', 'memories') : `${visible.length} of ${plural(rows.length, 'memory', 'memories')}`}
            {cutRows > 0 && ` · ${cutRows} past the index cut`}
            {draftRows.size > 0 && ` · ${plural(draftRows.size, 'unsaved draft')}`}
            {rows.length > 0 && ' · Space or Ctrl+click to select several'}
          </div>
        )}
        {rows.length === 0 ? (
          <div className="placeholder">
            <p>No memories in this project yet.</p>
            <p className="muted">Claude Code writes them as you work; or write the first one yourself.</p>
            <button className="primary" onClick={newMemory}>
              Write a memory
            </button>
          </div>
        ) : visible.length === 0 ? (
          <div className="placeholder">
            <p>
              {filtered ? 'No memory matches these filters (the search reads names, descriptions and file names, not the text inside).' : 'Nothing to show.'}
            </p>
            <button onClick={() => setFilter({ text: '', type: 'all', scope: 'all' })}>Clear the filters</button>
          </div>
        ) : (
          <MemoryList
            rows={visible}
            open={bound && editorTarget?.file ? rowKey({ scope: editorTarget.scope, file: editorTarget.file }) : null}
            picked={picked}
            drafts={draftRows}
            onOpen={openRow}
            onPick={pickRow}
            listRef={list}
          />
        )}
      </div>
      <div className="pane editor-pane">
        {bound ? (
          <MemoryEditor
            focusName={editorTarget?.file != null && keyboardOpened === rowKey({ scope: editorTarget.scope, file: editorTarget.file })}
            onClosed={closeEditor}
            onSaved={(file, scope) => go({ view: 'project', dir: route.dir, tab: 'memories', scope, file })}
            onDeleted={closeEditor}
          />
        ) : routeTarget ? (
          <p className="muted">Opening…</p>
        ) : (
          <div className="muted placeholder">Choose a memory to read or edit it, or press n for a new one.</div>
        )}
      </div>
    </div>
  );
}
