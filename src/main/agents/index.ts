/**
 * Agents' own memory folders.
 * The front door (STYLE.md "The house"): code outside this folder imports only from here.
 */
export { type AgentsListing, listProjectAgents, loadedAgentIndexText } from './list-agents.js';
