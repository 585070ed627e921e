/** Memdir's own data directory (history, locks, caches, settings, session notes). The front door: others import from here. */
export { resolveDataDir } from './data-dir.js';
