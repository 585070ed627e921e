/**
 * Less optimizing while the headless host starts (issue 16, bench start). From the process's
 * start to the dashboard's first list the host runs code once — its modules' top level, the scan
 * cache's decode, one scan — and V8 sends function after function to TurboFan on background
 * threads, compiled code that mostly never runs again: about 170 ms of CPU beside the 270 ms of
 * the host's own thread, on the two cores the browser needs to load and paint the page. With ten
 * times V8's interrupt budget only the truly hot code is optimized (a cold start's parse loops
 * still are: turning TurboFan off instead made a start without a cache half again slower); V8's
 * own budget is back once the app has started.
 *
 * Node's documentation of `v8.setFlagsFromString` warns that changing settings after the VM has
 * started "may result in unpredictable behavior, including crashes and data loss; or it may simply
 * do nothing". This flag is an integer V8 reads each time it sets a function's budget (so a change
 * only moves when functions are optimized), V8 11.3 does not freeze its flags after start, and it is
 * changed only under that V8 (Node 20): under another, nothing is changed. A flag change alters V8's
 * flag hash, which makes V8 refuse code caches made under the other value: Memdir keeps none.
 */
import v8 from 'node:v8';

/**
 * V8's own `--interrupt-budget` in the Node Memdir runs on (bytes of bytecode run before a function
 * is weighed for optimizing); start-tiering.test.ts checks it against `node --v8-options`.
 */
export const V8_INTERRUPT_BUDGET = 67_584;

/** The V8 (major.minor) that budget is read from: under another V8 (another Node) the start is left to V8 alone. */
export const V8_OF_BUDGET = '11.3';

/** The flags that raise the budget for the start and put V8's own back, or null under a V8 whose own budget is not known. */
export function budgetFlags(version: string): { start: string; started: string } | null {
  // Putting back a budget another V8 does not have would leave the app tuned wrong for good.
  if (!version.startsWith(`${V8_OF_BUDGET}.`)) return null;
  return { start: `--interrupt-budget=${10 * V8_INTERRUPT_BUDGET}`, started: `--interrupt-budget=${V8_INTERRUPT_BUDGET}` };
}

/** Raises V8's interrupt budget for the start; the function it returns puts V8's own back (once). */
export function optimizeLessWhileStarting(version = process.versions.v8): () => void {
  const flags = budgetFlags(version);
  if (!flags) return () => {};
  v8.setFlagsFromString(flags.start);
  let started = false;
  return () => {
    if (started) return;
    started = true;
    v8.setFlagsFromString(flags.started);
  };
}
