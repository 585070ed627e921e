/**
 * Claude Code's hooks: installing them in settings.json, the command they run, and the app's side of them.
 * The front door (STYLE.md "The house"): code outside this folder imports only from here.
 */
export { AutoMemory } from './auto-memory.js';
export { applyHooksChange, planHooksChange, readHooksStatus } from './claude-settings-hooks.js';
export { installedMemdirCommand } from './hook-command.js';
