/**
 * The memory editor's "this repeats a memory" check: the memories of its scope that say the same
 * thing as the one being written, by the app's one duplicate rule (asked of main).
 */
import { create } from 'zustand';
import type * as z from 'zod';
import type { Contract } from '../../shared/contract/index.js';
import type { InputOf } from '../../shared/contract/define.js';
import { call } from '../transport/transport.js';

export type SimilarMatch = z.output<Contract['memories.similar']['output']>['matches'][number];

interface SimilarState {
  matches: SimilarMatch[];
  /** Ask which memories the text being written repeats. */
  check: (input: InputOf<Contract['memories.similar']>) => Promise<void>;
  /** Nothing written yet: nothing repeats. */
  clear: () => void;
  /** The text changed: an answer still on its way is about the old text and is dropped. */
  forget: () => void;
}

let asked = 0;

export const useSimilar = create<SimilarState>()((set) => ({
  matches: [],
  async check(input) {
    const ask = ++asked;
    try {
      const { matches } = await call('memories.similar', input);
      if (ask === asked) set({ matches });
    } catch {
      // A failed check is no reason to interrupt writing: the warning just stays away.
      if (ask === asked) set({ matches: [] });
    }
  },
  clear() {
    asked++;
    set({ matches: [] });
  },
  forget() {
    asked++;
  },
}));
