/**
 * Jobs: background work (dreams, extraction, sync) run with an AbortSignal, progress published as
 * events, never twice at once for the same key.
 * The front door (STYLE.md "The house"): code outside this folder imports only from here.
 */
export { JobBusyError, JobRunner } from './job-runner.js';
