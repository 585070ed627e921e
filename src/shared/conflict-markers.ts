/**
 * The conflict markers of a three-way merge (`<<<<<<< mine`, `=======`, `>>>>>>> theirs`, as git
 * writes them): how a proposal marks where two versions overlap, and how a merged text that
 * still holds one is told apart, so markers never reach the synced memory.
 */

/** Opens an overlap; mine follow. */
export const MARKER_MINE = '<<<<<<<';
/** Between mine and theirs. */
export const MARKER_SPLIT = '=======';
/** Closes an overlap, after theirs. */
export const MARKER_THEIRS = '>>>>>>>';

/**
 * The first line (1-based) of `text` that opens or closes an overlap, or null. A lone `=======`
 * is not taken for one: it underlines a Markdown heading as well.
 */
export function findConflictMarker(text: string): { line: number; text: string } | null {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.replace(/\r$/, '');
    if (isMarker(line, MARKER_MINE) || isMarker(line, MARKER_THEIRS)) return { line: i + 1, text: line };
  }
  return null;
}

function isMarker(line: string, marker: string): boolean {
  return line.startsWith(marker) && (line.length === marker.length || line[marker.length] === ' ');
}
