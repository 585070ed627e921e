/**
 * The floor under the capabilities (issue 17, item 2): the safe file system, the one lock and the
 * memory lock on it, Memdir's data dir, process helpers, the event bus, Memdir's root and version, lazy stack-trace mapping. Capabilities stand on its files directly; the
 * edges (the CLI and the app's handlers) take what they need of it here, through a front door like
 * every capability's.
 */
export { confineOrNull, MemoryFileError, resolveInside } from './confined-path.js';
export { VERSION } from './version.js';
export { inTerminal } from './surface-words.js';
export { processDataDir, resolveDataDir, workInDataDir } from './data-dir.js';
export { mapStackTracesLazily } from './lazy-source-maps.js';
export { isLockHeld, whenNoLockHeld } from './locks-held.js';
