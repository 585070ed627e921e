/**
 * Main's live events (`events.stream`) handed to the stores they concern: a job's progress, an
 * alert, a team or personal sync change, a changed project, a navigation asked by the desktop
 * shell; and, when the stream is live again after it dropped, those stores read again (`resync`).
 * Started once by the app's shell on the stream the entry opened (live-stream.ts); returns the stop.
 */
import type { AppEvent } from '../../shared/contract/events.js';
import { useAlerts } from './alerts.js';
import { useApp } from './app.js';
import { useDream } from './dream.js';
import { useEditor } from './editor.js';
import { useExtract } from './extract.js';
import { useHistory } from './history.js';
import { useJobs } from './jobs.js';
import { followLiveStream } from './live-stream.js';
import { parseRoute, useNav } from './nav.js';
import { usePersonal } from './personal.js';
import { useProject } from './project.js';
import { useProjects } from './projects.js';
import { useTeam } from './team.js';
import { useToasts } from './toasts.js';

/** Follow main's events until the returned function is called. */
export function followLiveEvents(): () => void {
  return followLiveStream({ onEvent: applyEvent, resync });
}

function applyEvent(event: AppEvent): void {
  if (event.type === 'home-changed') {
    void useApp.getState().load();
    void useProjects.getState().load();
    useNav.getState().go({ view: 'dashboard' });
    return;
  }
  if (event.type === 'job') {
    useJobs.getState().apply(event.job);
    useExtract.getState().onJob(event.job);
    useDream.getState().onJob(event.job);
    return;
  }
  if (event.type === 'alert' || event.type === 'alerts-changed') {
    if (event.type === 'alerts-changed') useAlerts.getState().onChanged(event.open);
    else void useAlerts.getState().load();
    return;
  }
  if (event.type === 'team-changed') {
    useTeam.getState().onTeamChanged(event.dir);
    return;
  }
  if (event.type === 'personal-changed') {
    usePersonal.getState().onChanged(event.dir);
    return;
  }
  if (event.type === 'navigate') {
    // A notification clicked or a memdir:// link opened in the desktop app.
    useNav.getState().go(parseRoute(event.hash));
    if (event.message) useToasts.getState().show('error', event.message);
    return;
  }
  if (event.type === 'projects-changed') {
    void useProjects.getState().load();
    const open = useProject.getState().dir;
    if (open && event.dirs.includes(open)) refreshOpenProject(open);
  }
}

/** The open project changed on disk: its memories, the file open in the editor, its history if shown. */
function refreshOpenProject(open: string): void {
  void useProject.getState().refresh();
  // Another program, or another Memdir window: the open file may have changed or gone.
  void useEditor.getState().noteChangedOnDisk();
  if (useHistory.getState().dir === open && useNav.getState().route.view === 'project') void useHistory.getState().load(open);
}

/**
 * The stream is live again after a drop: any event of `applyEvent` may have been published
 * meanwhile and reached no one, so each store it keeps fresh reads again what it shows — the same
 * reads its events cause, for every dir at once since which ones changed is not known.
 */
function resync(): void {
  // home-changed: the home may have been switched (another window, the CLI); the page stays where it is.
  void useApp.getState().load();
  // projects-changed: the dashboard's list and counts; the open project, its editor's file and history.
  void useProjects.getState().load();
  const open = useProject.getState().dir;
  if (open) refreshOpenProject(open);
  // alert / alerts-changed: the alerts and the sidebar's count.
  void useAlerts.getState().load();
  // job: the jobs bar (a job started, moved on or ended); an extraction that ended left proposals
  // (the review count); a dream that ended changed the Dream tab and the dashboard's column.
  void useJobs.getState().load();
  void useExtract.getState().load();
  void useExtract.getState().loadLog();
  if (useDream.getState().dir) void useDream.getState().refresh();
  if (useDream.getState().overviewAt > 0) void useDream.getState().loadOverview(true);
  // team-changed: the open project's team sync, and the dashboard's column if it was read.
  if (useTeam.getState().dir) void useTeam.getState().refresh();
  if (useTeam.getState().overviewAt > 0) void useTeam.getState().loadOverview(true);
  // personal-changed (for no one dir): the open project's personal sync and the account, if read.
  usePersonal.getState().onChanged(null);
  // navigate: nothing to read again; the desktop shell holds a navigation until the page
  // listens, and its IPC stream does not drop.
}
