/**
 * Where the user is, as a hash route (so reloads and the back button work in both shells).
 * Parsing and printing are pure and tested (src/shared/routes.ts); the store keeps location.hash
 * in step.
 */
import { create } from 'zustand';
import { type Route, parseRoute, routeToHash } from '../../shared/routes.js';

export { type Route, parseRoute, routeToHash } from '../../shared/routes.js';

interface NavState {
  route: Route;
  go: (route: Route) => void;
  sync: () => void;
}

export const useNav = create<NavState>()((set) => ({
  route: typeof location === 'undefined' ? { view: 'dashboard' } : parseRoute(location.hash),
  go(route) {
    const hash = routeToHash(route);
    if (typeof location !== 'undefined' && location.hash !== hash) location.hash = hash;
    set({ route });
  },
  sync() {
    set({ route: parseRoute(location.hash) });
  },
}));
