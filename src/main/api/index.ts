/** Every handler of the contract, one file per domain; the transports call `createDispatcher`. */
import { type AppContext } from '../app/index.js';
import { agentHandlers } from './agents.js';
import { alertHandlers } from './alerts.js';
import { appHandlers } from './app.js';
import { claudeSettingsHandlers } from './claude-settings.js';
import { curationHandlers } from './curation.js';
import { desktopHandlers } from './desktop.js';
import { type Dispatcher, type Handlers, createDispatcher } from './dispatch.js';
import { draftHandlers } from './drafts.js';
import { dreamHandlers } from './dream.js';
import { eventHandlers, subscribers } from './events.js';
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

/**
 * The calls answered while the app's background services are still starting (AppContext.open):
 * the dashboard's first screen, whose handlers read only the home and its scan. Every other call
 * waits for the services, so none sees them half started.
 */
const ANSWERED_WHILE_STARTING: ReadonlySet<unknown> = new Set(['app.info', 'projects.list']);

export function createAppDispatcher(ctx: AppContext): Dispatcher {
  const dispatcher = createDispatcher(ctx, HANDLERS, subscribers);
  return {
    async call(name, input) {
      if (!ANSWERED_WHILE_STARTING.has(name)) {
        try {
          await ctx.servicesStarted;
        } catch (error) {
          return { ok: false, error: { code: 'internal', message: `Memdir could not start: ${(error as Error).message}` } };
        }
      }
      const result = await dispatcher.call(name, input);
      // Background services held back for the dashboard's first list start once it is answered.
      if (name === 'projects.list') ctx.firstListAnswered();
      return result;
    },
    subscribe: dispatcher.subscribe,
  };
}
