/** Every handler of the contract, one file per domain; the transports call `createDispatcher`. */
import type { AppContext } from '../app/app-context.js';
import { agentHandlers } from './agents.js';
import { appHandlers } from './app.js';
import { type Dispatcher, type Handlers, createDispatcher } from './dispatch.js';
import { eventHandlers, subscribers } from './events.js';
import { memoryHandlers } from './memories.js';
import { projectHandlers } from './projects.js';
import { recallHandlers } from './recall.js';

export const HANDLERS: Handlers = { ...appHandlers, ...projectHandlers, ...memoryHandlers, ...agentHandlers, ...eventHandlers, ...recallHandlers };

export function createAppDispatcher(ctx: AppContext): Dispatcher {
  return createDispatcher(ctx, HANDLERS, subscribers);
}
