/**
 * The three-way line merge (node-diff3): the base both sides started from, and two versions made
 * from it. Changes to different lines are merged; changes that overlap (or touch adjacent lines, as
 * git judges them) are a conflict — unless, with `besideInsertions`, one side only added lines just
 * before or after lines the other changed: then both stay (what Claude Code appends next to an
 * edit is kept). One merge serves team sync's pull and conflicts (`memdir team resolve`), undoing
 * a change to MEMORY.md (index-restore.ts) and saving MEMORY.md over a change made on disk since.
 */
import { diff3Merge } from 'node-diff3';
import { MARKER_MINE, MARKER_SPLIT, MARKER_THEIRS } from './conflict-markers.js';
import type { LineRange } from './line-union.js';

/** A run of the merge: lines both agree on, or a place where both changed the same base lines. */
export type MergeRegion = { ok: string[] } | { conflict: { mine: string[]; base: string[]; theirs: string[] } };

function startsWith(lines: string[], prefix: string[]): boolean {
  return prefix.length <= lines.length && prefix.every((l, i) => lines[i] === l);
}

function endsWith(lines: string[], suffix: string[]): boolean {
  return suffix.length <= lines.length && suffix.every((l, i) => lines[lines.length - suffix.length + i] === l);
}

/**
 * An overlap where one side only added lines before or after the base lines the other changed:
 * the other's change with those added lines beside it; null when both really changed the same lines.
 */
function besideChange(mine: string[], base: string[], theirs: string[]): string[] | null {
  if (startsWith(mine, base)) return [...theirs, ...mine.slice(base.length)];
  if (endsWith(mine, base)) return [...mine.slice(0, mine.length - base.length), ...theirs];
  if (startsWith(theirs, base)) return [...mine, ...theirs.slice(base.length)];
  if (endsWith(theirs, base)) return [...theirs.slice(0, theirs.length - base.length), ...mine];
  return null;
}

/** Merge line arrays: agreed runs and conflicts, in order. */
export function mergeLineRegions(base: string[], mine: string[], theirs: string[], opts: { besideInsertions?: boolean } = {}): MergeRegion[] {
  const out: MergeRegion[] = [];
  const push = (lines: string[]) => {
    const last = out[out.length - 1];
    if (last && 'ok' in last) last.ok.push(...lines);
    else out.push({ ok: [...lines] });
  };
  for (const region of diff3Merge(mine, base, theirs, { excludeFalseConflicts: true })) {
    if (region.ok) {
      push(region.ok);
      continue;
    }
    const c = region.conflict!;
    const beside = opts.besideInsertions ? besideChange(c.a, c.o, c.b) : null;
    if (beside) push(beside);
    else out.push({ conflict: { mine: c.a, base: c.o, theirs: c.b } });
  }
  return out;
}

export interface LineMerge {
  /** No overlapping change: `text` is the merge. */
  clean: boolean;
  /** The merge; where changes overlap, both sides between conflict markers. */
  text: string;
  /** The merge with each overlapping change resolved by keeping both sides (mine, then theirs), no markers. */
  both: string;
  /** Where `both` holds both sides of an overlap: 1-based lines, first to last. */
  bothOverlaps: LineRange[];
  /** The merge with each overlapping change resolved as theirs has it (what a pull writes while it keeps the local version as a conflict). */
  serverWins: string;
  /** The merge with each overlapping change resolved as mine has it. */
  mineWins: string;
  /** How many places overlap. */
  conflicts: number;
  /** The lines theirs has where the versions overlap (not blank), first to last: what a refusal quotes. */
  theirsInConflict: string[];
}

/** Merge `mine` and `theirs`, both derived from `base`, line by line (see the file comment for `besideInsertions`). */
export function mergeLines(
  base: string,
  mine: string,
  theirs: string,
  labels: { mine?: string; theirs?: string } = {},
  opts: { besideInsertions?: boolean } = {},
): LineMerge {
  const regions = mergeLineRegions(base.split('\n'), mine.split('\n'), theirs.split('\n'), opts);
  const text: string[] = [];
  const both: string[] = [];
  const serverWins: string[] = [];
  const mineWins: string[] = [];
  const bothOverlaps: LineRange[] = [];
  const theirsInConflict: string[] = [];
  let conflicts = 0;
  for (const region of regions) {
    if ('ok' in region) {
      for (const out of [text, both, serverWins, mineWins]) out.push(...region.ok);
      continue;
    }
    const c = region.conflict;
    conflicts++;
    text.push(`${MARKER_MINE} ${labels.mine ?? 'mine'}`, ...c.mine, MARKER_SPLIT, ...c.theirs, `${MARKER_THEIRS} ${labels.theirs ?? 'server'}`);
    if (c.mine.length + c.theirs.length > 0) bothOverlaps.push({ from: both.length + 1, to: both.length + c.mine.length + c.theirs.length });
    both.push(...c.mine, ...c.theirs);
    serverWins.push(...c.theirs);
    mineWins.push(...c.mine);
    theirsInConflict.push(...c.theirs.filter((l) => l.trim() !== ''));
  }
  return {
    clean: conflicts === 0,
    text: text.join('\n'),
    both: both.join('\n'),
    bothOverlaps,
    serverWins: serverWins.join('\n'),
    mineWins: mineWins.join('\n'),
    conflicts,
    theirsInConflict,
  };
}
