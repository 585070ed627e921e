/**
 * Extraction: memories proposed from a session's transcript, the review queue and the turn-end watcher.
 * The front door (STYLE.md "The house"): code outside this folder imports only from here.
 */
export { ExtractBusyError, extractTranscript, isInternalProject, projectOfTranscript } from './extract-memories.js';
export { ExtractPartlySavedError } from './extraction-run.js';
export { ExtractionService } from './extraction-service.js';
export { ExtractionStore } from './extraction-store.js';
export { noSessionsToExtract } from './no-sessions.js';
export { acceptProposal, rejectProposal } from './review-queue.js';
export { TurnEndWatcher } from './turn-end-watcher.js';
