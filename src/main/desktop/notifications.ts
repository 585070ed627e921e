/**
 * Which events become system notifications in the desktop app: secret alerts (a memory that
 * would have shared a credential) and sync conflicts (a pull kept your unpushed edit) — the two
 * that need the user. Everything else shows in the app only. A click opens the place to act.
 */
import type { AppEvent } from '../../shared/contract/events.js';
import { routeToHash } from '../../shared/routes.js';

export interface DesktopNotification {
  title: string;
  body: string;
  /** Where a click sends the window. */
  hash: string;
}

/** The notification for `event`, or null for events that do not warrant one. */
export function notificationFor(event: AppEvent): DesktopNotification | null {
  if (event.type === 'alert' && event.alert.kind === 'secret') {
    return { title: event.alert.title, body: event.alert.message, hash: routeToHash({ view: 'alerts' }) };
  }
  if (event.type === 'team-changed' && event.newConflicts && event.newConflicts.length > 0) {
    const keys = event.newConflicts;
    const named = keys.length === 1 ? `team/${keys[0]}` : `${keys.length} team memories`;
    return {
      title: keys.length === 1 ? 'A team memory changed on both sides' : 'Team memories changed on both sides',
      body: `${named}: your unpushed edit was kept as a conflict. Choose which version stays.`,
      hash: routeToHash({ view: 'project', dir: event.dir, tab: 'team' }),
    };
  }
  if (event.type === 'personal-changed' && event.dir && event.newConflicts && event.newConflicts.length > 0) {
    const keys = event.newConflicts;
    return {
      title: keys.length === 1 ? 'A memory changed on two of your machines' : 'Memories changed on two of your machines',
      body: `${keys.length === 1 ? keys[0] : `${keys.length} memories`}: your edit here was kept as a conflict. Choose which version stays.`,
      hash: routeToHash({ view: 'project', dir: event.dir, tab: 'team' }),
    };
  }
  return null;
}
