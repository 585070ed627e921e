/** Browse and filter memories on the left; edit the open one on the right. */
import { useCallback, useEffect, useMemo, useRef } from 'react';
import { MEMORY_TYPES } from '../../shared/memory-types.js';
import type { ProjectScan } from '../../shared/scan-types.js';
import { MemoryEditor } from '../components/MemoryEditor.js';
import { MemoryList } from '../components/MemoryList.js';
import { useEditor } from '../stores/editor.js';
import { type Route, useNav } from '../stores/nav.js';
import { type MemoryRow, filterMemories, useProject } from '../stores/project.js';

export function MemoriesTab({ route, scan }: { route: Extract<Route, { view: 'project' }>; scan: ProjectScan }) {
  const rows = useProject((s) => s.rows);
  const filter = useProject((s) => s.filter);
  const setFilter = useProject((s) => s.setFilter);
  const go = useNav((s) => s.go);
  const openEditor = useEditor((s) => s.open);
  const target = useEditor((s) => s.target);
  const search = useRef<HTMLInputElement>(null);
  const visible = useMemo(() => filterMemories(rows, filter), [rows, filter]);
  const openRow = useCallback((row: MemoryRow) => go({ view: 'project', dir: route.dir, tab: 'memories', scope: row.scope, file: row.file }), [go, route.dir]);

  useEffect(() => {
    if (route.file === '__new__') void openEditor({ dir: route.dir, scope: route.scope ?? 'private', file: null });
    else if (route.file) void openEditor({ dir: route.dir, scope: route.scope ?? 'private', file: route.file });
  }, [openEditor, route.dir, route.file, route.scope]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const typing = e.target instanceof HTMLElement && (e.target.matches('input, textarea, select') || e.target.closest('.cm-editor'));
      if ((e.key === '/' && !typing) || ((e.metaKey || e.ctrlKey) && e.key.toLowerCase() === 'f')) {
        e.preventDefault();
        search.current?.focus();
      } else if (((e.metaKey || e.ctrlKey) && e.altKey && e.key.toLowerCase() === 'n') || (e.key === 'n' && !typing && !e.metaKey && !e.ctrlKey)) {
        e.preventDefault();
        go({ view: 'project', dir: route.dir, tab: 'memories', scope: 'private', file: '__new__' });
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [go, route.dir]);

  const selected = target && target.file ? `${target.scope}/${target.file}` : null;
  return (
    <div className="split">
      <div className="pane list-pane">
        <div className="toolbar">
          <input ref={search} type="search" aria-label="Search memories" placeholder="Search memories  ( / )" value={filter.text} onChange={(e) => setFilter({ text: e.target.value })} />
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
          <button className="primary" onClick={() => go({ view: 'project', dir: route.dir, tab: 'memories', scope: 'private', file: '__new__' })} title="New memory (n)">
            New memory
          </button>
        </div>
        <div className="muted small list-count">
          {visible.length} of {rows.length} memories
          {scan.index.cut.length > 0 && ` · ${scan.index.cut.length} past the index cut`}
        </div>
        <MemoryList rows={visible} selected={selected} onOpen={openRow} />
      </div>
      <div className="pane editor-pane">
        {target ? (
          <MemoryEditor
            onClosed={() => go({ view: 'project', dir: route.dir, tab: 'memories' })}
            onSaved={(file, scope) => go({ view: 'project', dir: route.dir, tab: 'memories', scope, file })}
          />
        ) : (
          <div className="muted placeholder">Choose a memory to read or edit it, or press n for a new one.</div>
        )}
      </div>
    </div>
  );
}
