/**
 * The dream capability's front door (issue 17): what the app, the API, the CLI and other
 * capabilities may use of `src/main/dream`. Everything else in the folder — the gates, the
 * phases, apply, the records, the lock — is reached through {@link DreamService}, so the app and
 * `memdir dream` run the same code with the same defaults.
 */
export { DreamService } from './dream-service.js';
export type { DreamGateStatus, DreamHost, DreamProjectRef, DreamRunRequest, DreamStart } from './dream-service.js';
export type { DreamProgress, DreamRunResult, DreamSettings } from './run-dream.js';
export { DreamError } from './dream-error.js';
export { DreamCancelledError, DreamLockLostError } from './with-dream-lock.js';
