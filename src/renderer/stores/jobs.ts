/** Background jobs (dreams, extraction, sync) as main reports them. */
import { create } from 'zustand';
import type { Job } from '../../shared/contract/events.js';
import { call } from '../transport/transport.js';
import { messageOf } from './errors.js';
import { useToasts } from './toasts.js';

/** Fold one job update into the list (newest first), keeping the latest state of each job. */
export function withJob(jobs: Job[], job: Job): Job[] {
  const rest = jobs.filter((j) => j.id !== job.id);
  return [job, ...rest].slice(0, 50);
}

interface JobsState {
  jobs: Job[];
  load: () => Promise<void>;
  apply: (job: Job) => void;
  cancel: (id: string) => Promise<void>;
}

export const useJobs = create<JobsState>()((set, get) => ({
  jobs: [],
  async load() {
    try {
      set({ jobs: (await call('jobs.list', {})).jobs });
    } catch {
      // The list refills from events.
    }
  },
  apply(job) {
    set({ jobs: withJob(get().jobs, job) });
  },
  async cancel(id) {
    try {
      await call('jobs.cancel', { id });
    } catch (error) {
      useToasts.getState().show('error', messageOf(error));
    }
  },
}));
