/**
 * Main's live events (`events.stream`) handed to the stores they concern: a job's progress, an
 * alert, a team or personal sync change, a changed project, a navigation asked by the desktop
 * shell. Started once by the app's shell; returns the unsubscribe.
 */
import { subscribe } from '../transport/transport.js';
import { useAlerts } from './alerts.js';
import { useApp } from './app.js';
import { useDream } from './dream.js';
import { useEditor } from './editor.js';
import { useExtract } from './extract.js';
import { useHistory } from './history.js';
import { useJobs } from './jobs.js';
import { parseRoute, useNav } from './nav.js';
import { usePersonal } from './personal.js';
import { useProject } from './project.js';
import { useProjects } from './projects.js';
import { useTeam } from './team.js';
import { useToasts } from './toasts.js';

/** Follow main's events until the returned function is called. */
export function followLiveEvents(): () => void {
  return subscribe('events.stream', {}, (event) => {
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
      if (open && event.dirs.includes(open)) {
        void useProject.getState().refresh();
        // Another program, or another Memdir window: the open file may have changed or gone.
        void useEditor.getState().noteChangedOnDisk();
        if (useHistory.getState().dir === open && useNav.getState().route.view === 'project') void useHistory.getState().load(open);
      }
    }
  });
}
