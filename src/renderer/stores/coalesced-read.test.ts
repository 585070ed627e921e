/** The one rule for reading again when memory changes: one read per burst, never two at once, the last change always read. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { coalescedReads } from './coalesced-read.js';

/** A query whose reads end when the test says, each answering what the "disk" held as it began. */
function query() {
  let disk = 0;
  const started: number[] = [];
  const ends: (() => void)[] = [];
  let shown: number | null = null;
  let inFlight = 0;
  let most = 0;
  const reads = coalescedReads(async (key: string) => {
    expect(key).toBe('-p');
    const seen = disk;
    started.push(seen);
    most = Math.max(most, ++inFlight);
    await new Promise<void>((r) => ends.push(r));
    inFlight--;
    shown = seen;
  });
  return {
    reads,
    change: () => ++disk,
    get disk() {
      return disk;
    },
    started,
    /** End the oldest read still running. */
    end: async () => {
      ends.shift()!();
      await vi.advanceTimersByTimeAsync(0);
    },
    get shown() {
      return shown;
    },
    get most() {
      return most;
    },
  };
}

describe('coalescedReads', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('reads a burst of 20 changes twice (at once, then once the second is over), and ends on the last one', async () => {
    const q = query();
    for (let i = 0; i < 20; i++) {
      q.change();
      q.reads.changed('-p');
      await vi.advanceTimersByTimeAsync(i === 0 ? 0 : 40);
      if (i === 0) await q.end();
    }
    expect(q.started).toEqual([1]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(q.started).toEqual([1, 20]);
    await q.end();
    expect(q.shown).toBe(20);
  });

  it('never runs two reads of a key at once; a change during a read is read after it', async () => {
    const q = query();
    q.change();
    q.reads.changed('-p');
    await vi.advanceTimersByTimeAsync(0);
    // The read is under way (it answers 1) when the second change comes, long after the spacing.
    await vi.advanceTimersByTimeAsync(5_000);
    q.change();
    q.reads.changed('-p');
    q.reads.changed('-p');
    expect(q.started).toEqual([1]);
    await q.end();
    expect(q.shown).toBe(1);
    expect(q.started).toEqual([1, 2]);
    await q.end();
    expect(q.shown).toBe(2);
    expect(q.most).toBe(1);
  });

  it("reads at once for the page's own action, and once more after a read under way, however many ask", async () => {
    const q = query();
    const first = q.reads.now('-p');
    q.change();
    const asked = [q.reads.now('-p'), q.reads.now('-p'), q.reads.now('-p')];
    expect(q.started).toEqual([0]);
    await q.end();
    await first;
    expect(q.started).toEqual([0, 1]);
    await q.end();
    await Promise.all(asked);
    expect(q.shown).toBe(1);
    expect(q.started).toEqual([0, 1]);
  });

  it('reads another key at once, not after the first one', async () => {
    const started: string[] = [];
    const reads = coalescedReads(async (key: string) => {
      started.push(key);
      await new Promise(() => undefined);
    });
    void reads.now('-a');
    void reads.now('-b');
    reads.changed('-c');
    expect(started).toEqual(['-a', '-b', '-c']);
  });
});
