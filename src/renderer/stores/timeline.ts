/** A project's timeline (issue 14, item 9): memories and MEMORY.md's size after each recorded change. */
import { create } from 'zustand';
import type * as z from 'zod';
import type { Contract } from '../../shared/contract/index.js';
import { call } from '../transport/transport.js';
import { coalescedReads } from './coalesced-read.js';
import { messageOf } from './errors.js';

export type TimelinePoint = z.output<Contract['projects.timeline']['output']>['points'][number];

interface TimelineState {
  dir: string | null;
  /** Null until the first answer for `dir`. */
  points: TimelinePoint[] | null;
  error: string | null;
  /** Read the timeline (again, after a change); another project starts from nothing. */
  load: (dir: string) => Promise<void>;
  /** Project `dir`'s memory changed: read its timeline again once per burst of changes if it is the one shown (`coalescedReads`). */
  onChanged: (dir: string) => void;
}

export const useTimeline = create<TimelineState>()((set, get) => {
  const reads = coalescedReads(async (dir: string) => {
    if (get().dir !== dir) return;
    try {
      const { points } = await call('projects.timeline', { dir });
      if (get().dir === dir) set({ points });
    } catch (error) {
      if (get().dir === dir) set({ error: messageOf(error) });
    }
  });
  return {
    dir: null,
    points: null,
    error: null,
    load(dir) {
      if (get().dir !== dir) set({ dir, points: null, error: null });
      return reads.now(dir);
    },
    onChanged(dir) {
      if (get().dir === dir) reads.changed(dir);
    },
  };
});
