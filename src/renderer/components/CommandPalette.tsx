/** Ctrl/Cmd+K: jump to any project or memory, or run a command, by typing. */
import { useMemo, useState } from 'react';
import { create } from 'zustand';
import { useApp } from '../stores/app.js';
import { useDream } from '../stores/dream.js';
import { useExtract } from '../stores/extract.js';
import { useNav } from '../stores/nav.js';
import { projectName, useProjects } from '../stores/projects.js';
import { useProject } from '../stores/project.js';
import { useTeam } from '../stores/team.js';
import { useDialogFocus } from './DialogFocus.js';

interface PaletteState {
  open: boolean;
  toggle: () => void;
  close: () => void;
}
export const usePalette = create<PaletteState>()((set, get) => ({ open: false, toggle: () => set({ open: !get().open }), close: () => set({ open: false }) }));

export interface PaletteItem {
  id: string;
  label: string;
  hint: string;
  run: () => void;
}

/** Items whose label contains every typed word, best (earliest match) first. */
export function matchItems(items: PaletteItem[], text: string, limit = 30): PaletteItem[] {
  const words = text.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return items.slice(0, limit);
  return items
    .map((item) => ({ item, hay: `${item.label} ${item.hint}`.toLowerCase() }))
    .filter(({ hay }) => words.every((w) => hay.includes(w)))
    .sort((a, b) => a.hay.indexOf(words[0]!) - b.hay.indexOf(words[0]!))
    .slice(0, limit)
    .map(({ item }) => item);
}

export function CommandPalette() {
  const open = usePalette((s) => s.open);
  return open ? <Palette /> : null;
}

/**
 * The open palette: a modal dialog (Tab stays in it, Escape closes it, focus goes back where it
 * was) around a combobox whose highlighted option a screen reader follows as the arrows move it.
 */
function Palette() {
  const close = usePalette((s) => s.close);
  const go = useNav((s) => s.go);
  const route = useNav((s) => s.route);
  const projects = useProjects((s) => s.projects);
  const rows = useProject((s) => s.rows);
  const dir = route.view === 'project' ? route.dir : null;
  const [text, setText] = useState('');
  const [active, setActive] = useState(0);
  const { ref, onKeyDown } = useDialogFocus<HTMLDivElement>({ onClose: close, modal: true });

  const items = useMemo<PaletteItem[]>(() => {
    const list: PaletteItem[] = [
      { id: 'go-dashboard', label: 'Go to projects', hint: 'dashboard', run: () => go({ view: 'dashboard' }) },
      { id: 'go-settings', label: 'Open settings', hint: 'theme, home', run: () => go({ view: 'settings' }) },
      { id: 'go-agents', label: 'Agent memory', hint: 'sub-agents', run: () => go({ view: 'agents', ...(dir ? { dir } : {}) }) },
      { id: 'demo', label: 'Open demo workspace', hint: 'try Memdir', run: () => void useApp.getState().openDemo() },
      { id: 'review', label: 'Review queue', hint: 'proposed memories, suggestions', run: () => go({ view: 'review', ...(dir ? { dir } : {}) }) },
      { id: 'sessions', label: 'Live sessions', hint: 'session memory notes', run: () => go({ view: 'sessions' }) },
      { id: 'hooks', label: 'Connect to Claude Code', hint: 'hooks, settings', run: () => go({ view: 'settings' }) },
      { id: 'alerts', label: 'Alerts', hint: 'secrets, sync and security alerts', run: () => go({ view: 'alerts' }) },
    ];
    if (dir) {
      list.push(
        { id: 'new', label: 'New memory', hint: 'create', run: () => go({ view: 'project', dir, tab: 'memories', scope: 'private', file: '__new__' }) },
        { id: 'index', label: 'Show MEMORY.md', hint: 'index, cut', run: () => go({ view: 'project', dir, tab: 'index' }) },
        { id: 'health', label: 'Show health problems', hint: 'fix', run: () => go({ view: 'project', dir, tab: 'health' }) },
        { id: 'history', label: 'Show history', hint: 'restore, diff', run: () => go({ view: 'project', dir, tab: 'history' }) },
        { id: 'recall', label: 'Recall playground', hint: 'which memories a query loads', run: () => go({ view: 'project', dir, tab: 'recall' }) },
        { id: 'extract', label: 'Extract memories now', hint: "from this project's transcripts", run: () => void useExtract.getState().extractNow(dir) },
        {
          id: 'dream',
          label: 'Dream now',
          hint: 'consolidate this project',
          // Shows the Dream tab, where the progress and the result appear.
          run: () => {
            go({ view: 'project', dir, tab: 'dream' });
            void useDream.getState().now(dir);
          },
        },
        { id: 'team', label: 'Team sync', hint: 'share memory/team, conflicts, what is waiting', run: () => go({ view: 'project', dir, tab: 'team' }) },
        {
          id: 'team-sync',
          label: 'Sync team memory now',
          hint: 'pull, then push',
          run: () => {
            go({ view: 'project', dir, tab: 'team' });
            void useTeam
              .getState()
              .open(dir)
              .then(() => useTeam.getState().syncNow(dir));
          },
        },
        {
          id: 'dream-tab',
          label: 'Dream status and history',
          hint: 'gates, past dreams, diffs, revert',
          run: () => go({ view: 'project', dir, tab: 'dream' }),
        },
        ...rows.map((m) => ({
          id: `m-${m.scope}-${m.file}`,
          label: m.name,
          hint: `${m.type ?? ''} ${m.scope} ${m.file}`,
          run: () => go({ view: 'project', dir, tab: 'memories', scope: m.scope, file: m.file }),
        })),
      );
    }
    list.push(
      ...projects.map((p) => ({ id: `p-${p.dir}`, label: projectName(p), hint: 'project', run: () => go({ view: 'project', dir: p.dir, tab: 'memories' }) })),
    );
    return list;
  }, [go, dir, rows, projects]);
  const shown = useMemo(() => matchItems(items, text), [items, text]);

  const choose = (item: PaletteItem | undefined) => {
    if (!item) return;
    close();
    item.run();
  };
  return (
    <div className="palette-backdrop" onClick={close}>
      <div
        ref={ref}
        className="palette"
        role="dialog"
        aria-modal="true"
        aria-label="Command palette"
        onClick={(e) => e.stopPropagation()}
        onKeyDown={onKeyDown}
      >
        <input
          role="combobox"
          aria-expanded="true"
          aria-controls="palette-options"
          aria-autocomplete="list"
          {...(shown[active] ? { 'aria-activedescendant': `palette-option-${active}` } : {})}
          aria-label="Type a command, project or memory"
          placeholder="Type a command, project or memory…"
          value={text}
          onChange={(e) => (setText(e.target.value), setActive(0))}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              // Not also a press of the button the focus goes back to as the palette closes.
              e.preventDefault();
              choose(shown[active]);
            } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
              e.preventDefault();
              setActive(e.key === 'ArrowDown' ? Math.min(active + 1, shown.length - 1) : Math.max(active - 1, 0));
            }
          }}
        />
        <ul role="listbox" id="palette-options" aria-label="Matches" tabIndex={-1}>
          {shown.map((item, i) => (
            <li
              key={item.id}
              id={`palette-option-${i}`}
              role="option"
              aria-selected={i === active}
              className={i === active ? 'active' : ''}
              onMouseEnter={() => setActive(i)}
              onClick={() => choose(item)}
            >
              <span>{item.label}</span>
              <span className="muted small">{item.hint}</span>
            </li>
          ))}
        </ul>
      </div>
    </div>
  );
}
