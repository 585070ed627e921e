/**
 * Where the user is in the app, as a hash route (`#/p/<dir>/history`): printed and parsed here,
 * in one place, because the renderer keeps location.hash in step with it and main sends the
 * renderer to a place (a notification clicked, a `memdir://` link opened). Pure.
 */
import type { Scope } from './memory-types.js';

/** A place in the app. */
export type Route =
  | { view: 'dashboard' }
  | { view: 'project'; dir: string; tab: 'memories' | 'index' | 'history' | 'health' | 'recall' | 'dream' | 'team'; scope?: Scope; file?: string }
  | { view: 'agents'; dir?: string }
  | { view: 'settings' }
  | { view: 'review'; dir?: string }
  | { view: 'sessions' }
  | { view: 'alerts' }
  | { view: 'drafts' };

const enc = encodeURIComponent;

/** The hash of a place. */
export function routeToHash(route: Route): string {
  switch (route.view) {
    case 'dashboard':
      return '#/';
    case 'settings':
      return '#/settings';
    case 'agents':
      return route.dir ? `#/agents/${enc(route.dir)}` : '#/agents';
    case 'review':
      return route.dir ? `#/review/${enc(route.dir)}` : '#/review';
    case 'sessions':
      return '#/sessions';
    case 'alerts':
      return '#/alerts';
    case 'drafts':
      return '#/drafts';
    case 'project': {
      const base = `#/p/${enc(route.dir)}/${route.tab}`;
      return route.file ? `${base}/${route.scope ?? 'private'}/${enc(route.file)}` : base;
    }
  }
}

/** The place a hash names; anything unknown is the dashboard. */
export function parseRoute(hash: string): Route {
  const parts = hash
    .replace(/^#\/?/, '')
    .split('/')
    .filter(Boolean)
    .map((p) => {
      try {
        return decodeURIComponent(p);
      } catch {
        return p;
      }
    });
  if (parts[0] === 'settings') return { view: 'settings' };
  if (parts[0] === 'agents') return parts[1] ? { view: 'agents', dir: parts[1] } : { view: 'agents' };
  if (parts[0] === 'review') return parts[1] ? { view: 'review', dir: parts[1] } : { view: 'review' };
  if (parts[0] === 'sessions') return { view: 'sessions' };
  if (parts[0] === 'alerts') return { view: 'alerts' };
  if (parts[0] === 'drafts') return { view: 'drafts' };
  if (parts[0] === 'p' && parts[1]) {
    const tab =
      parts[2] === 'index' || parts[2] === 'history' || parts[2] === 'health' || parts[2] === 'recall' || parts[2] === 'dream' || parts[2] === 'team'
        ? parts[2]
        : 'memories';
    const scope: Scope = parts[3] === 'team' ? 'team' : 'private';
    return parts[4] ? { view: 'project', dir: parts[1], tab, scope, file: parts[4] } : { view: 'project', dir: parts[1], tab };
  }
  return { view: 'dashboard' };
}
