/**
 * Three-way line merges of team files (issue 19): the base both sides last agreed on, the
 * local version and the server's. Changes to different lines are merged; changes that overlap
 * (or touch adjacent lines, as git judges them) are a conflict. One merge serves the pull (a
 * clean merge is written and pushed), the conflict view (the proposal with markers) and
 * `memdir team resolve --keep both|merged`.
 */
import { diff3Merge } from 'node-diff3';
import { MARKER_MINE, MARKER_SPLIT, MARKER_THEIRS } from '../../../shared/conflict-markers.js';
import type { LineRange } from '../../../shared/line-union.js';

export interface LineMerge {
  /** No overlapping change: `text` is the merge. */
  clean: boolean;
  /** The merge; where changes overlap, both sides between conflict markers. */
  text: string;
  /** The merge with each overlapping change resolved by keeping both sides (mine, then the server's), no markers. */
  both: string;
  /** Where `both` holds both sides of an overlap: 1-based lines, first to last. */
  bothOverlaps: LineRange[];
  /** The merge with each overlapping change resolved as the server has it (what a pull writes while it keeps the local version as a conflict). */
  serverWins: string;
  /** How many places overlap. */
  conflicts: number;
}

/** Lines of a text, the last one without its newline (a trailing newline gives a last empty line). */
function lines(text: string): string[] {
  return text.split('\n');
}

/** Merge `mine` and `theirs`, both derived from `base`, line by line. */
export function mergeLines(base: string, mine: string, theirs: string, labels: { mine?: string; theirs?: string } = {}): LineMerge {
  const regions = diff3Merge(lines(mine), lines(base), lines(theirs), { excludeFalseConflicts: true });
  const text: string[] = [];
  const both: string[] = [];
  const serverWins: string[] = [];
  const bothOverlaps: LineRange[] = [];
  let conflicts = 0;
  for (const region of regions) {
    if (region.ok) {
      text.push(...region.ok);
      both.push(...region.ok);
      serverWins.push(...region.ok);
      continue;
    }
    const c = region.conflict!;
    conflicts++;
    text.push(`${MARKER_MINE} ${labels.mine ?? 'mine'}`, ...c.a, MARKER_SPLIT, ...c.b, `${MARKER_THEIRS} ${labels.theirs ?? 'server'}`);
    if (c.a.length + c.b.length > 0) bothOverlaps.push({ from: both.length + 1, to: both.length + c.a.length + c.b.length });
    both.push(...c.a, ...c.b);
    serverWins.push(...c.b);
  }
  return { clean: conflicts === 0, text: text.join('\n'), both: both.join('\n'), bothOverlaps, serverWins: serverWins.join('\n'), conflicts };
}
