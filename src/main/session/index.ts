/**
 * Session Memory: the running note of a session and its state (R-SESSION).
 * The front door (STYLE.md "The house"): code outside this folder imports only from here.
 */
export { SessionMemory } from './session-memory.js';
export { SessionStore } from './session-state.js';
