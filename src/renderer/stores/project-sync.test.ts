/** The sync slice's resolution notices (team and personal share them), tested without React or a browser. */
import { describe, expect, it } from 'vitest';
import type { ConflictDetail } from '../../shared/contract/team.js';
import { type ProjectSyncSlice, projectSyncSlice, type SyncSide } from './project-sync.js';
import { useToasts } from './toasts.js';

describe('a conflict resolution saved with its push failed (review s45-2 #5)', () => {
  it('says the push failed as an error, and offers the Undo of the entry it wrote', async () => {
    // What main answered (the entry written, the push refused): the slice's one input here.
    const side: SyncSide<null> = {
      status: async () => null,
      sync: async () => {
        throw new Error('not asked');
      },
      conflict: async () => {
        throw new Error('not asked');
      },
      resolve: async () => ({ rev: '3cf96d2a1b', report: null }),
      resolved: () => ({ text: 'Saved, but the push failed: the server is not reachable.', failed: true }),
      reopenRefused: false,
    };
    let state = {} as ProjectSyncSlice<null>;
    const set = (partial: Partial<ProjectSyncSlice<null>>) => (state = { ...state, ...partial });
    state = projectSyncSlice(side, set, () => state);
    set({ dir: '-w', detail: { conflict: { id: 'c1', key: 'a.md' }, theirsSha: null } as unknown as ConflictDetail });
    await state.resolve('both');
    const [toast] = useToasts.getState().toasts.slice(-1);
    expect(toast).toMatchObject({ kind: 'error', text: 'Saved, but the push failed: the server is not reachable.', action: { label: 'Undo' } });
  });
});
