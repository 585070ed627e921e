/**
 * Every handler of the contract, one file per domain. Loaded by the dispatcher (index.ts) with
 * import() for the first call past the dashboard's first screen: its code (every capability's
 * front door) is not needed for the first list, and the host loaded it before that list (issue 16).
 */
import { agentHandlers } from './agents.js';
import { alertHandlers } from './alerts.js';
import { appHandlers } from './app.js';
import { claudeSettingsHandlers } from './claude-settings.js';
import { curationHandlers } from './curation.js';
import { desktopHandlers } from './desktop.js';
import type { Handlers } from './dispatch.js';

/** Every call's declaration, loaded with their handlers (the first screen's dispatcher has its own few, index.ts). */
export { CONTRACT } from '../../shared/contract/index.js';
import { draftHandlers } from './drafts.js';
import { dreamHandlers } from './dream.js';
import { eventHandlers } from './events.js';
import { extractHandlers } from './extract.js';
import { hookHandlers } from './hooks.js';
import { identityHandlers } from './identity.js';
import { memoryHandlers } from './memories.js';
import { personalHandlers } from './personal.js';
import { projectHandlers } from './projects.js';
import { recallHandlers } from './recall.js';
import { sessionHandlers } from './session.js';
import { teamHandlers } from './team.js';

export const HANDLERS: Handlers = {
  ...appHandlers,
  ...projectHandlers,
  ...memoryHandlers,
  ...curationHandlers,
  ...draftHandlers,
  ...agentHandlers,
  ...eventHandlers,
  ...recallHandlers,
  ...extractHandlers,
  ...sessionHandlers,
  ...hookHandlers,
  ...claudeSettingsHandlers,
  ...dreamHandlers,
  ...teamHandlers,
  ...personalHandlers,
  ...alertHandlers,
  ...desktopHandlers,
  ...identityHandlers,
};
