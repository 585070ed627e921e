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
 * `v8.setFlagsFromString` after start is what Node documents as allowed but unsupported: V8
 * reads this flag each time it sets a function's budget, so a change applies from then on. Under a
 * V8 other than the one the budget was read from, nothing is changed.
 */
import v8 from 'node:v8';

/**
 * V8's own `--interrupt-budget` in the Node Memdir runs on (bytes of bytecode run before a function
 * is weighed for optimizing); start-tiering.test.ts checks it against `node --v8-options`.
 */
export const V8_INTERRUPT_BUDGET = 67_584;

/** The V8 (major.minor) that budget is read from: under another V8 (another Node) the start is left to V8 alone. */
export const V8_OF_BUDGET = '11.3';

/** The budget while the host starts: ten times V8's own. */
export const START_INTERRUPT_BUDGET = 10 * V8_INTERRUPT_BUDGET;

/** Raises V8's interrupt budget for the start; the function it returns puts V8's own back (once). */
export function optimizeLessWhileStarting(version = process.versions.v8): () => void {
  // Putting back a budget another V8 does not have would leave the app tuned wrong for good.
  if (!version.startsWith(`${V8_OF_BUDGET}.`)) return () => {};
  v8.setFlagsFromString(`--interrupt-budget=${START_INTERRUPT_BUDGET}`);
  let started = false;
  return () => {
    if (started) return;
    started = true;
    v8.setFlagsFromString(`--interrupt-budget=${V8_INTERRUPT_BUDGET}`);
  };
}
