/**
 * The running app's context, the demo home and the drafts (its event bus, root and version are in src/main/core).
 * The front door (STYLE.md "The house"): code outside this folder imports only from here.
 */
export { AppContext } from './app-context.js';
export { createDemoHome } from './demo-home.js';
export { discardDraft, keepDraft, listDrafts } from './draft-store.js';
