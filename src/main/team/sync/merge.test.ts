import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BaseStore } from '../sync-state.js';
import { unionWithOverlaps } from '../../../shared/line-union.js';
import { mergeLines } from '../../../shared/line-merge.js';

describe('three-way line merge of team files', () => {
  const base = '# Deploys\n\n## Staging\nFreeze on Fridays.\n\n## Production\nTwo approvals.\n';

  it('merges changes to different lines, keeping the final newline', () => {
    const mine = base.replace('Freeze on Fridays.', 'Freeze on Fridays after 15:00.');
    const theirs = base.replace('Two approvals.', 'Two approvals, one from SRE.');
    const merged = mergeLines(base, mine, theirs);
    expect(merged).toMatchObject({ clean: true, conflicts: 0 });
    expect(merged.text).toBe('# Deploys\n\n## Staging\nFreeze on Fridays after 15:00.\n\n## Production\nTwo approvals, one from SRE.\n');
  });

  it('the same change on both sides is no conflict', () => {
    const both = base.replace('Two approvals.', 'Three approvals.');
    expect(mergeLines(base, both, both)).toMatchObject({ clean: true, text: both });
  });

  it('overlapping changes are a conflict: markers in the proposal, both sides kept by "both"', () => {
    const mine = base.replace('Two approvals.', 'Two approvals from the owners.');
    const theirs = base.replace('Two approvals.', 'One approval is enough.');
    const merged = mergeLines(base, mine, theirs, { mine: 'mine', theirs: 'server (ann)' });
    expect(merged.clean).toBe(false);
    expect(merged.conflicts).toBe(1);
    expect(merged.text).toContain('<<<<<<< mine\nTwo approvals from the owners.\n=======\nOne approval is enough.\n>>>>>>> server (ann)');
    expect(merged.both).toBe(base.replace('Two approvals.', 'Two approvals from the owners.\nOne approval is enough.'));
    // Lines 7 and 8 of "both" hold the two sides: the merge editor marks them.
    expect(merged.bothOverlaps).toEqual([{ from: 7, to: 8 }]);
    expect(merged.serverWins).toBe(theirs);
  });

  it('where one place overlaps, the other changes still merge', () => {
    const mine = base.replace('Freeze on Fridays.', 'Freeze on Fridays and holidays.').replace('Two approvals.', 'Two approvals from the owners.');
    const theirs = base.replace('Two approvals.', 'One approval is enough.');
    const merged = mergeLines(base, mine, theirs);
    expect(merged.clean).toBe(false);
    expect(merged.serverWins).toBe(theirs.replace('Freeze on Fridays.', 'Freeze on Fridays and holidays.'));
  });
});

describe('both versions with no common base', () => {
  it("every line of both, common lines once; where one side's lines stand next to the other's, they are marked", () => {
    const mine = '# On call\nAlice on Mondays.\nEscalate to #ops.\nPage twice.\n';
    const theirs = '# On call\nBob on Mondays.\nEscalate to #ops.\n';
    expect(unionWithOverlaps(theirs, mine)).toEqual({
      text: '# On call\nBob on Mondays.\nAlice on Mondays.\nEscalate to #ops.\nPage twice.\n',
      // "Page twice." only adds a line: nothing stands against it.
      overlaps: [{ from: 2, to: 3 }],
    });
  });
});

describe('base versions kept for merges', () => {
  it('are pruned to the ones the state still names', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-bases-'));
    try {
      const bases = new BaseStore(dir);
      const a = 'a'.repeat(64);
      const b = 'b'.repeat(64);
      bases.save(a, 'first\n');
      bases.save(b, 'second\n');
      await bases.prune(new Set([b]));
      expect(await bases.read(a)).toBeNull();
      expect((await bases.read(b))?.toString()).toBe('second\n');
      expect(await bases.read('../../etc/passwd')).toBeNull();
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
