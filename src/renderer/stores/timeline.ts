/** A project's timeline (issue 14, item 9): memories and MEMORY.md's size after each recorded change. */
import { create } from 'zustand';
import type * as z from 'zod';
import type { Contract } from '../../shared/contract/index.js';
import { call } from '../transport/transport.js';
import { messageOf } from './errors.js';

export type TimelinePoint = z.output<Contract['projects.timeline']['output']>['points'][number];

interface TimelineState {
  dir: string | null;
  /** Null until the first answer for `dir`. */
  points: TimelinePoint[] | null;
  error: string | null;
  /** Read the timeline (again, after a change); another project starts from nothing. */
  load: (dir: string) => Promise<void>;
}

let reads = 0;

export const useTimeline = create<TimelineState>()((set, get) => ({
  dir: null,
  points: null,
  error: null,
  async load(dir) {
    const read = ++reads;
    if (get().dir !== dir) set({ dir, points: null, error: null });
    try {
      const { points } = await call('projects.timeline', { dir });
      if (read === reads) set({ points });
    } catch (error) {
      if (read === reads) set({ error: messageOf(error) });
    }
  },
}));
