/** Every unsaved draft, in every project: open it where it belongs, or throw it away (with Undo). */
import { useEffect, useMemo } from 'react';
import { plural } from '../../shared/size-text.js';
import { Time } from '../components/Time.js';
import { isIndexDraft, sortDrafts, useDrafts } from '../stores/drafts.js';
import { useNav } from '../stores/nav.js';
import { projectName, useProjects } from '../stores/projects.js';

export function DraftsView() {
  const drafts = useDrafts((s) => s.drafts);
  const loaded = useDrafts((s) => s.loaded);
  const projects = useProjects((s) => s.projects);
  const go = useNav((s) => s.go);
  const list = useMemo(() => sortDrafts(Object.values(drafts)), [drafts]);
  useEffect(() => {
    void useDrafts.getState().load();
  }, []);
  const projectOf = (dir: string) => {
    const p = projects.find((x) => x.dir === dir);
    return p ? projectName(p) : dir;
  };
  return (
    <section>
      <header className="view-head">
        <h1>Drafts</h1>
        <span className="muted">{plural(list.length, 'unsaved draft')}</span>
      </header>
      <p className="muted small">
        An edit you leave without saving — another memory, another project, a closed window — waits here until you save or discard it.
      </p>
      {loaded && list.length === 0 && <p className="placeholder">No drafts: every edit is saved. Unsaved edits appear here when you move on without saving.</p>}
      <ul className="drafts" aria-label="Drafts">
        {list.map((d) => (
          <li key={`${d.dir}/${d.scope}/${d.file ?? ''}`}>
            <div>
              <strong>{d.name || d.file || 'Untitled memory'}</strong>{' '}
              <span className="muted small">{d.file ? `${d.scope === 'team' ? 'team/' : ''}${d.file}` : 'new memory'}</span>
              <div className="muted small">
                {projectOf(d.dir)} · last edited <Time at={d.savedAt} />
              </div>
            </div>
            <span className="spacer" />
            <button
              onClick={() =>
                go(
                  isIndexDraft(d)
                    ? { view: 'project', dir: d.dir, tab: 'index', scope: d.scope, file: d.file! }
                    : { view: 'project', dir: d.dir, tab: 'memories', scope: d.scope, file: d.file ?? '__new__' },
                )
              }
              aria-label={`Open the draft of ${d.file ?? 'a new memory'} in ${projectOf(d.dir)}`}
            >
              Open
            </button>
            <button className="danger" onClick={() => void useDrafts.getState().throwAway(d)} aria-label={`Discard the draft of ${d.file ?? 'a new memory'}`}>
              Discard
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
