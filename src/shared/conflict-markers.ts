/**
 * The conflict markers of a three-way merge (`<<<<<<< mine`, `=======`, `>>>>>>> theirs`, as git
 * writes them): how a proposal marks where two versions overlap, and how a merged text that
 * still holds one is told apart, so markers never reach the synced memory.
 */
import { memoryTextTooLarge } from './size-text.js';

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

/**
 * Why a merged text a person saves cannot be written as memory `label`, or null: the one rule of
 * every resolve (team, personal, a relink's or import's conflict, the CLI's `--file` and the app's
 * Save merge). A line that still opens or closes an overlap (named by its number), a NUL (a binary
 * file), half a surrogate pair (not Unicode, so not UTF-8 once written), or more than a memory
 * may hold (TOPIC_MAX_BYTES). Each sentence says nothing was written.
 */
export function mergedTextProblem(label: string, text: string): string | null {
  const marker = findConflictMarker(text);
  if (marker)
    return `The merged text of ${label} still holds a conflict marker on line ${marker.line} (${JSON.stringify(marker.text.slice(0, 80))}); nothing was written. Keep the lines you want, delete the <<<<<<<, ======= and >>>>>>> lines, and save the merge again.`;
  if (text.includes('\0')) return `The merged text of ${label} is binary (it holds a NUL character), not text; nothing was written.`;
  const lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.exec(text);
  if (lone) {
    const line = text.slice(0, lone.index).split('\n').length;
    return `The merged text of ${label} holds a character that is not valid Unicode (half of a surrogate pair) on line ${line}, so it cannot be saved as UTF-8; nothing was written.`;
  }
  const tooLarge = memoryTextTooLarge(text);
  return tooLarge ? `${tooLarge.replace(/\.$/, '')}; nothing was written.` : null;
}
