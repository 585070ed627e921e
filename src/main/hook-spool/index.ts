/**
 * The hook spool: what runs inside the process Claude Code starts for a hook (`memdir hook <event>`
 * and the installed shell command) and the folder it leaves events in for the app to take. Kept
 * apart from `hooks/` (the app's side: installing hooks, draining, extraction) so that the hook
 * process loads this folder alone — it runs on every session start (bench `hook`).
 * The front door (STYLE.md "The house"): code outside this folder imports only from here.
 */
export { type HookEvent, parseHookPayload } from './hook-payload.js';
export { coalesceHookEvents, countSpooled, drainSpool, spoolDir, spoolHookCommand, watchSpool } from './hook-spool.js';
export { HOOK_LOG_FILE, logHookProblem, runHook } from './run-hook.js';
