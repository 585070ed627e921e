/**
 * Main's live events (`events.stream`) handed to the stores they concern: a job's progress, an
 * alert, another window's draft (the editor's notice, the Drafts list), a team or personal sync change, a changed project, a navigation asked by the desktop
 * shell; and, when the stream is live again after it dropped, those stores read again (`resync`).
 * Started once by the app's shell on the stream the entry opened (live-stream.ts); returns the stop.
 */
import type { AppEvent, Job } from '../../shared/contract/events.js';
import { useAlerts } from './alerts.js';
import { useApp } from './app.js';
import { useDrafts } from './drafts.js';
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

/**
 * What the page reads again when an event says something changed, written once for each kind:
 * `applyEvent` reads what the event names; `resync` reads them all with `null`, since after a drop
 * which job, project or dir changed is not known: each reads as if every one had.
 */
const readAgain = {
  /** home-changed: where the sidebar says it looks (the projects are read by `projects`, for no open project). */
  home(): Promise<void> {
    return useApp.getState().load();
  },
  /**
   * projects-changed: the dashboard's list and counts; the open project if it is among `dirs`, its
   * editor's file and history. A change made `outside` Memdir is read once per burst (`coalescedReads`):
   * Claude Code, a dream or a `git pull` writing 20 files is up to 20 events, not 20 reads of each.
   */
  projects(dirs: readonly string[] | null, outside = true): void {
    useProjects.getState().onChanged(outside);
    const open = useProject.getState().dir;
    if (open && (dirs === null || dirs.includes(open))) refreshOpenProject(open, outside);
  },
  /** alert: the alerts and the sidebar's count. */
  alerts(): void {
    void useAlerts.getState().load();
  },
  /**
   * job: the jobs bar (a job started, moved on or ended); an extraction that ended left proposals
   * (the review count); a dream that ended changed the Dream tab and the dashboard's column.
   */
  job(job: Job | null): void {
    if (job) useJobs.getState().apply(job);
    else void useJobs.getState().load();
    useExtract.getState().onJob(job);
    useDream.getState().onJob(job);
  },
  /** team-changed: the project's team sync if it is open, and the dashboard's column if it was read. */
  team(dir: string | null): void {
    useTeam.getState().onTeamChanged(dir);
  },
  /** personal-changed: the project's personal sync if it is open (any, for `null`), and the account if it was read. */
  personal(dir: string | null): void {
    usePersonal.getState().onChanged(dir);
  },
};

function applyEvent(event: AppEvent): void {
  switch (event.type) {
    case 'home-changed':
      // This page switched to that home itself (it already shows it): its event, late on a loaded
      // machine, must not take the person back from a project of it they opened meanwhile.
      if (useApp.getState().info?.home === event.home) return;
      void readAgain.home();
      // The page leaves any project of the old home: none of them is read again.
      useNav.getState().go({ view: 'dashboard' });
      return readAgain.projects([]);
    case 'projects-changed':
      return readAgain.projects(event.dirs, event.external);
    case 'alert':
      return readAgain.alerts();
    case 'alerts-changed':
      // The count comes with the event; the list is read again only if it was read.
      return useAlerts.getState().onChanged(event.open);
    case 'job':
      return readAgain.job(event.job);
    case 'team-changed':
      return readAgain.team(event.dir);
    case 'personal-changed':
      return readAgain.personal(event.dir);
    case 'drafts-changed':
      // Another window typed (or let go of) a draft: an editor open on that memory says so at once, the Drafts list and its count follow.
      useDrafts.getState().onChanged(event);
      return useEditor.getState().noteDraftElsewhere(event);
    case 'navigate':
      // A notification clicked or a memdir:// link opened in the desktop app.
      useNav.getState().go(parseRoute(event.hash));
      if (event.message) useToasts.getState().show('error', event.message);
      return;
  }
}

/**
 * The open project changed on disk: its memories, its history once read, the file open in the
 * editor. Read on any page, not only while shown: the project page (and History) open on what
 * the store holds, which must be the memory as it is now.
 */
function refreshOpenProject(open: string, outside: boolean): void {
  useProject.getState().onChanged(open, outside);
  if (useNav.getState().route.view === 'project') useHistory.getState().onChanged(open, outside);
  // Another program, or another Memdir window: the open file may have changed or gone (read once per burst, as the rest).
  useEditor.getState().noteChangedOnDisk(outside);
}

/**
 * The stream is live again after a drop: any event of `applyEvent` may have been published
 * meanwhile and reached no one, so the page reads again what each kind of event would have made
 * it read. The home first: if it was switched meanwhile (another window, the CLI, the host
 * restarted with another --home), the page goes to the dashboard as the home-changed event takes
 * it, and reads no project of the old home. A navigation has nothing to read again: the desktop
 * shell holds one until the page listens, and its IPC stream does not drop.
 */
function resync(): void {
  const shown = useApp.getState().info?.home;
  void readAgain.home().then(() => {
    const now = useApp.getState().info?.home;
    const switched = shown !== undefined && now !== undefined && now !== shown;
    if (switched) useNav.getState().go({ view: 'dashboard' });
    readAgain.projects(switched ? [] : null);
  });
  readAgain.alerts();
  readAgain.job(null);
  readAgain.team(null);
  readAgain.personal(null);
  // Drafts kept or forgotten by other windows meanwhile: the list as main has it now.
  useDrafts.getState().onChanged({ window: null });
}
