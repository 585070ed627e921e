/**
 * Agents' own memory folders.
 * The front door (STYLE.md "The house"): code outside this folder imports only from here.
 */
export { listAgentMemories, otherLaunchDirWarnings } from './agent-memory.js';
