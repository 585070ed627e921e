/**
 * A crash at a named step of an extraction run: the hooks make the run throw right after the
 * step's effects are on disk, as a process killed there would leave things (the journal kept,
 * the cursor not committed).
 */
import type { ExtractHooks, ExtractStep } from '../extract-memories.js';

/** What a run stopped by {@link crashAt} throws. */
export class SimulatedCrash extends Error {
  override readonly name = 'SimulatedCrash';
}

/** Hooks that stop a run dead right after `step`. */
export function crashAt(step: ExtractStep): ExtractHooks {
  return {
    afterStep: (reached) => {
      if (reached === step) throw new SimulatedCrash(`simulated crash after ${step}`);
    },
  };
}
