/**
 * The running app's context, the demo home and the drafts (its event bus, root and version move to core: s23-proto).
 * The front door (STYLE.md "The house"): code outside this folder imports only from here.
 */
export { AppContext } from './app-context.js';
export { createDemoHome } from './demo-home.js';
export { discardDraft, keepDraft, listDrafts } from './draft-store.js';
