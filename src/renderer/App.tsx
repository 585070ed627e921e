/** The shell of the UI: navigation, live events, theme, keyboard, palette, toasts. */
import {
  type KeyboardEvent as ReactKeyboardEvent,
  type MouseEvent as ReactMouseEvent,
  type RefObject,
  Suspense,
  lazy,
  useEffect,
  useRef,
  useState,
} from 'react';
import { CommandPalette, usePalette } from './components/CommandPalette.js';
import { FOCUSABLE } from './components/DialogFocus.js';
import { ConnectionBanner } from './components/ConnectionBanner.js';
import { JobsBar } from './components/JobsBar.js';
import { FocusHint } from './components/FocusHint.js';
import { Toasts } from './components/Toasts.js';
import { useAlerts } from './stores/alerts.js';
import { useApp } from './stores/app.js';
import { useConnection } from './stores/connection.js';
import { useDesktop } from './stores/desktop.js';
import { useDrafts } from './stores/drafts.js';
import { totalPending, useExtract } from './stores/extract.js';
import { useJobs } from './stores/jobs.js';
import { useNav } from './stores/nav.js';
import { themeOf, useSettings } from './stores/settings.js';
import { projectName, useProjects } from './stores/projects.js';
import { followLiveEvents } from './stores/live-events.js';
import { Dashboard } from './views/Dashboard.js';

// Every view but the dashboard is loaded when first opened: with them went the editor
// (CodeMirror), Markdown, diffs and charts, which the first paint does not need (issue 16).
const AgentsView = lazy(() => import('./views/AgentsView.js').then((m) => ({ default: m.AgentsView })));
const AlertsView = lazy(() => import('./views/AlertsView.js').then((m) => ({ default: m.AlertsView })));
const DraftsView = lazy(() => import('./views/DraftsView.js').then((m) => ({ default: m.DraftsView })));
const LiveSessionsView = lazy(() => import('./views/LiveSessionsView.js').then((m) => ({ default: m.LiveSessionsView })));
const ProjectView = lazy(() => import('./views/ProjectView.js').then((m) => ({ default: m.ProjectView })));
const ReviewView = lazy(() => import('./views/ReviewView.js').then((m) => ({ default: m.ReviewView })));
const SettingsView = lazy(() => import('./views/SettingsView.js').then((m) => ({ default: m.SettingsView })));

function useLiveEvents(): void {
  useEffect(() => followLiveEvents(), []);
}

function useTheme(): void {
  const theme = useSettings((s) => themeOf(s.view));
  useEffect(() => {
    const media = window.matchMedia('(prefers-color-scheme: dark)');
    const apply = () => document.documentElement.setAttribute('data-theme', theme === 'system' ? (media.matches ? 'dark' : 'light') : theme);
    apply();
    media.addEventListener('change', apply);
    return () => media.removeEventListener('change', apply);
  }, [theme]);
}

function useKeyboard(): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const mod = e.metaKey || e.ctrlKey;
      if (mod && e.key.toLowerCase() === 'k') {
        e.preventDefault();
        usePalette.getState().toggle();
      }
    };
    window.addEventListener('keydown', onKey);
    const onHash = () => useNav.getState().sync();
    window.addEventListener('hashchange', onHash);
    // The address may have changed since the route was read (while the UI's code loaded, before
    // anything listened): a link or the back button used then is followed, not lost.
    onHash();
    return () => {
      window.removeEventListener('keydown', onKey);
      window.removeEventListener('hashchange', onHash);
    };
  }, []);
}

const TAB_LABELS = {
  memories: 'Memories',
  index: 'MEMORY.md',
  health: 'Health',
  history: 'History',
  recall: 'Recall playground',
  dream: 'Dream',
  team: 'Team sync',
} as const;

/** A sidebar entry's class, and `aria-current` on the one shown: a screen reader says which view is open, not only the highlight. */
function navItem(current: boolean, kind = '') {
  return { className: ['nav-item', kind, current ? 'active' : ''].filter(Boolean).join(' '), 'aria-current': current ? ('page' as const) : undefined };
}

/**
 * In a narrow window (a 1280 px window at 200 % zoom is 640 CSS px; base.css's @media rule) the
 * sidebar folds away behind a Menu button at the top: a disclosure, not a dialog. Opening it takes
 * the focus to the view shown; Escape or the button closes it and gives the focus back to the
 * button; choosing a view closes it and takes the focus to that view (the entry chosen is no longer
 * drawn). In a wide window the button is not drawn and the sidebar is always there.
 */
function Sidebar() {
  const [open, setOpen] = useState(false);
  const toggle = useRef<HTMLButtonElement>(null);
  const nav = useRef<HTMLElement>(null);
  useEffect(() => {
    if (!open) return;
    const items = nav.current?.querySelectorAll<HTMLElement>('.nav-item');
    (nav.current?.querySelector<HTMLElement>('.nav-item[aria-current]') ?? items?.[0])?.focus();
  }, [open]);
  const close = () => {
    setOpen(false);
    toggle.current?.focus();
  };
  const onKeyDown = (e: ReactKeyboardEvent) => {
    if (e.key !== 'Escape' || !open) return;
    e.preventDefault();
    close();
  };
  const onClick = (e: ReactMouseEvent) => {
    if (!open || !(e.target instanceof Element) || !e.target.closest('.nav-item')) return;
    setOpen(false);
    document.querySelector<HTMLElement>('main.content')?.focus();
  };
  return (
    <>
      <header className="topbar">
        <div className="brand">Memdir</div>
        <button ref={toggle} className="menu-toggle" aria-expanded={open} aria-controls="main-nav" onClick={() => setOpen((o) => !o)} onKeyDown={onKeyDown}>
          <span aria-hidden="true">☰ </span>Menu
        </button>
      </header>
      {/* Keyboard handlers on the nav only catch what its own buttons pass up (Escape, a chosen view). */}
      <nav ref={nav} id="main-nav" className={open ? 'sidebar open' : 'sidebar'} aria-label="Main" onKeyDown={onKeyDown} onClick={onClick}>
        <SidebarItems />
      </nav>
    </>
  );
}

function SidebarItems() {
  const route = useNav((s) => s.route);
  const go = useNav((s) => s.go);
  const projects = useProjects((s) => s.projects);
  const info = useApp((s) => s.info);
  const pending = useExtract((s) => totalPending(s.pending));
  const alerts = useAlerts((s) => s.open);
  const drafts = useDrafts((s) => Object.keys(s.drafts).length);
  const openDir = route.view === 'project' ? route.dir : null;
  const current = openDir ? projects.find((p) => p.dir === openDir) : null;
  return (
    <>
      <div className="brand">Memdir</div>
      <button {...navItem(route.view === 'dashboard')} onClick={() => go({ view: 'dashboard' })}>
        Projects
      </button>
      {openDir && (
        <div className="nav-project">
          <div className="nav-project-name" title={current ? projectName(current) : openDir}>
            {current ? projectName(current).split('/').pop() : openDir}
          </div>
          {(['memories', 'index', 'health', 'history', 'recall', 'dream', 'team'] as const).map((tab) => (
            <button key={tab} {...navItem(route.view === 'project' && route.tab === tab, 'sub')} onClick={() => go({ view: 'project', dir: openDir, tab })}>
              {TAB_LABELS[tab]}
            </button>
          ))}
        </div>
      )}
      <button {...navItem(route.view === 'agents')} onClick={() => go({ view: 'agents', ...(openDir ? { dir: openDir } : {}) })}>
        Agent memory
      </button>
      <button {...navItem(route.view === 'review')} onClick={() => go({ view: 'review', ...(openDir ? { dir: openDir } : {}) })}>
        Review queue{' '}
        {pending > 0 && (
          <span className="badge warning" aria-label={`${pending} waiting`}>
            {pending}
          </span>
        )}
      </button>
      <button {...navItem(route.view === 'drafts')} onClick={() => go({ view: 'drafts' })}>
        Drafts{' '}
        {drafts > 0 && (
          <span className="badge" aria-label={`${drafts} unsaved`}>
            {drafts}
          </span>
        )}
      </button>
      <button {...navItem(route.view === 'sessions')} onClick={() => go({ view: 'sessions' })}>
        Live sessions
      </button>
      <button {...navItem(route.view === 'alerts')} onClick={() => go({ view: 'alerts' })}>
        Alerts{' '}
        {alerts > 0 && (
          <span className="badge error" aria-label={`${alerts} open`}>
            {alerts}
          </span>
        )}
      </button>
      <button {...navItem(route.view === 'settings')} onClick={() => go({ view: 'settings' })}>
        Settings
      </button>
      <div className="sidebar-foot">
        <button className="link" onClick={() => usePalette.getState().toggle()} title="Command palette">
          ⌘K / Ctrl+K
        </button>
        {info && (
          <div className="muted small" title={info.home}>
            {info.homeSource === 'demo' ? 'Demo workspace' : info.home}
          </div>
        )}
      </div>
    </>
  );
}

/**
 * The view's name while `main` must be a tab stop: it scrolls and holds nothing focusable (Agents at user level in
 * a 320 px window), so the keyboard could not scroll it (axe's scrollable-region-focusable) — its tabIndex -1 also
 * takes it out of the Tab order Chromium gives a scroller. Otherwise null: main stays -1, no extra stop before a
 * view's first control. Checked once a frame at most, when main's size, nodes or text change.
 */
function useScrollStop(main: RefObject<HTMLElement | null>): string | null {
  const [stop, setStop] = useState<string | null>(null);
  useEffect(() => {
    const el = main.current;
    if (!el) return;
    let frame = 0;
    const check = () => {
      frame = 0;
      const scrolls = el.scrollHeight > el.clientHeight + 1 && !el.querySelector(FOCUSABLE);
      setStop(scrolls ? el.querySelector('h1')?.textContent?.trim() || 'View' : null);
    };
    const later = () => (frame ||= requestAnimationFrame(check));
    const resize = new ResizeObserver(later);
    resize.observe(el);
    const mutation = new MutationObserver(later);
    // characterData: data that changes only a view's words (React sets the text node's value) can make it scroll.
    mutation.observe(el, { childList: true, subtree: true, characterData: true, attributes: true, attributeFilter: ['disabled', 'tabindex', 'href'] });
    later();
    return () => {
      cancelAnimationFrame(frame);
      resize.disconnect();
      mutation.disconnect();
    };
  }, [main]);
  return stop;
}

export function App() {
  useTheme();
  useKeyboard();
  useLiveEvents();
  const route = useNav((s) => s.route);
  const error = useApp((s) => s.error);
  // While Memdir does not answer, the connection banner says why the reads fail: once.
  const connected = useConnection((s) => s.status === 'live');
  const main = useRef<HTMLElement>(null);
  const scrollStop = useScrollStop(main);
  useEffect(() => {
    // app.info and projects.list were asked by the entry (main.tsx), once the event stream was live.
    void useJobs.getState().load();
    void useSettings.getState().load();
    void useExtract.getState().load();
    void useAlerts.getState().load();
    void useDesktop.getState().load();
    void useDrafts.getState().load();
    // A draft typed a moment ago is written before the window goes.
    const flush = () => void useDrafts.getState().flush();
    window.addEventListener('pagehide', flush);
    return () => window.removeEventListener('pagehide', flush);
  }, []);
  return (
    <div className="layout">
      <Sidebar />
      {/* tabIndex -1: where the focus goes when what held it went away with nothing better to take it (a dismissed notice),
          and a Menu choice; 0 while it scrolls with nothing focusable in it (useScrollStop). */}
      <main ref={main} className="content" tabIndex={scrollStop ? 0 : -1} aria-label={scrollStop ?? undefined}>
        <ConnectionBanner />
        {error && connected && (
          <div className="banner error" role="alert">
            {error}
          </div>
        )}
        {route.view === 'dashboard' && <Dashboard />}
        <Suspense fallback={null}>
          {route.view === 'project' && <ProjectView route={route} />}
          {route.view === 'agents' && <AgentsView {...(route.dir ? { dir: route.dir } : {})} />}
          {route.view === 'settings' && <SettingsView />}
          {route.view === 'review' && <ReviewView {...(route.dir ? { dir: route.dir } : {})} />}
          {route.view === 'sessions' && <LiveSessionsView />}
          {route.view === 'alerts' && <AlertsView />}
          {route.view === 'drafts' && <DraftsView />}
        </Suspense>
      </main>
      <CommandPalette />
      <JobsBar />
      <Toasts />
      <FocusHint />
    </div>
  );
}
