/**
 * The api's front door: the dispatcher every transport calls (`createAppDispatcher`), over every
 * handler of the contract (handlers.ts, one file per domain).
 */
import type { AppContext } from '../app/index.js';
import { appHandlers } from './app.js';
import { type Dispatcher, type Handlers, createDispatcher } from './dispatch.js';
import { subscribers } from './events.js';
import { projectHandlers } from './projects.js';
import { appContract } from '../../shared/contract/app.js';
import type { Contract, SubscriptionName } from '../../shared/contract/index.js';
import { eventsContract } from '../../shared/contract/events.js';
import { projectsContract } from '../../shared/contract/projects.js';

/**
 * The calls answered while the app's background services are still starting (AppContext.open):
 * the dashboard's first screen, whose handlers read only the home and its scan. Every other call
 * waits for the services, so none sees them half started.
 */
const FIRST_SCREEN = {
  'app.info': appHandlers['app.info'],
  'projects.list': projectHandlers['projects.list'],
} satisfies Partial<Handlers>;
const ANSWERED_WHILE_STARTING: ReadonlySet<unknown> = new Set(Object.keys(FIRST_SCREEN));
/**
 * Their declarations, and the event stream's: the other domains' schemas load with their handlers.
 * Checked against the whole contract: every first-screen call and every subscription (all of them
 * are served here) must be declared in it as CONTRACT declares them, or the build fails.
 */
const FIRST_SCREEN_CONTRACT = { ...appContract, ...projectsContract, ...eventsContract } satisfies Pick<Contract, keyof typeof FIRST_SCREEN | SubscriptionName>;

export function createAppDispatcher(ctx: AppContext): Dispatcher {
  const firstScreen = createDispatcher(ctx, FIRST_SCREEN_CONTRACT, FIRST_SCREEN, subscribers);
  // The other handlers' code (every capability's) is read when the first of them is called, after
  // the services have started: the host's first list does not wait for it (issue 16, bench start).
  let everything: Promise<Dispatcher> | null = null;
  const loadEverything = () =>
    (everything ??= import('./handlers.js').then(({ CONTRACT, HANDLERS }) => createDispatcher(ctx, CONTRACT, HANDLERS, subscribers)));
  return {
    async call(name, input) {
      if (ANSWERED_WHILE_STARTING.has(name)) {
        const result = await firstScreen.call(name, input);
        // Background services held back for the dashboard's first list start once it is answered.
        if (name === 'projects.list') ctx.firstListAnswered();
        return result;
      }
      try {
        await ctx.servicesStarted;
      } catch (error) {
        return { ok: false, error: { code: 'internal', message: `Memdir could not start: ${(error as Error).message}` } };
      }
      return (await loadEverything()).call(name, input);
    },
    subscribe: firstScreen.subscribe,
  };
}
