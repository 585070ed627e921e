/**
 * Two versions of a text side by side, line by line (a longest-common-subsequence line diff),
 * and their union: every line of both, common lines once. Pure: the merge editor's panes, its
 * first proposal, and a merge that keeps both versions of a file (relink conflicts) share it.
 */
/** One line of the side-by-side view: in both versions, only the team's, or only mine. */
export interface SideLine {
  text: string;
  side: 'both' | 'theirs' | 'mine';
}

/** Split two versions into aligned runs of lines (a line diff), for the merge editor's panes. */
export function sideBySide(theirs: string, mine: string): SideLine[] {
  const a = theirs.split('\n');
  const b = mine.split('\n');
  // Longest common subsequence over lines: memories are short, so the quadratic table is fine.
  const n = a.length;
  const m = b.length;
  if (n * m > 4_000_000) return [...a.map((text) => ({ text, side: 'theirs' as const })), ...b.map((text) => ({ text, side: 'mine' as const }))];
  const lcs: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--) lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const out: SideLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      out.push({ text: a[i]!, side: 'both' });
      i++;
      j++;
    } else if (lcs[i + 1]![j]! >= lcs[i]![j + 1]!) out.push({ text: a[i++]!, side: 'theirs' });
    else out.push({ text: b[j++]!, side: 'mine' });
  }
  while (i < n) out.push({ text: a[i++]!, side: 'theirs' });
  while (j < m) out.push({ text: b[j++]!, side: 'mine' });
  return out;
}

/** Lines `from` to `to` of a text (1-based, both included). */
export interface LineRange {
  from: number;
  to: number;
}

/** A first proposal for the merged text: every line of both versions, in order, common lines once. */
export function unionMerge(theirs: string, mine: string): string {
  return unionWithOverlaps(theirs, mine).text;
}

/**
 * The union of two versions, and where it holds lines of both side by side that neither shares
 * (the versions disagree there: one side's lines stand next to the other's, to keep one of them).
 */
export function unionWithOverlaps(theirs: string, mine: string): { text: string; overlaps: LineRange[] } {
  const lines = sideBySide(theirs, mine);
  const overlaps: LineRange[] = [];
  for (let i = 0; i < lines.length; ) {
    if (lines[i]!.side === 'both') {
      i++;
      continue;
    }
    const from = i;
    while (i < lines.length && lines[i]!.side !== 'both') i++;
    const run = lines.slice(from, i);
    if (run.some((l) => l.side === 'mine') && run.some((l) => l.side === 'theirs')) overlaps.push({ from: from + 1, to: i });
  }
  return { text: lines.map((l) => l.text).join('\n'), overlaps };
}
