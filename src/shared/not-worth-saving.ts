/**
 * R-NOTSAVE: only what cannot be derived from the project is worth saving. These checks spot
 * memories that mostly repeat what the code or git already say: file path lists, code
 * snippets, git history. They are hints, never errors: a memory may keep the one surprising
 * detail about such a thing.
 */
export interface DerivableHint {
  kind: 'file-paths' | 'code' | 'git-log';
  message: string;
}

/** A line that is a file path (a list item, maybe with `:line` and a short note). */
export const PATH_LINE = /^\s*(?:[-*+]|\d+\.)?\s*`?(?:\.{0,2}\/|~\/|[A-Za-z]:\\)?(?:[\w.@-]+[\\/])+[\w.@-]+\.[A-Za-z0-9]{1,8}`?(?::\d+)?\s*(?:[-—:(].{0,40})?$/;
/** A line of `git log` output: a commit header, a short hash and subject, an author or a date. */
export const GIT_LINE = /^\s*(?:[-*+]\s*)?(?:commit\s+[0-9a-f]{40}\b|[0-9a-f]{7,12}\s+\S.*|Author:\s.+<.+>|Date:\s+\w{3}\s\w{3}\s)/;
/** A code fence opening or closing. */
export const FENCE = /^\s*(```|~~~)/;

/** Fewer code lines than this never make a memory "mostly a code snippet". */
export const MIN_CODE_LINES = 5;

/** What the hints are decided from: non-blank lines, and how many of them are code, paths, git. */
export interface DerivableCounts {
  content: number;
  codeLines: number;
  pathLines: number;
  gitLines: number;
  /**
   * Characters (trimmed, UTF-16 units) of the code lines and of all non-blank lines: "mostly code"
   * is judged by amount of text. Counted only from {@link MIN_CODE_LINES} code lines on (below
   * that they decide nothing, and a scan would have to decode every body to count them); 0 below.
   */
  codeChars: number;
  contentChars: number;
}

/** Count a body's lines the way the hints need them (lines split on `\n` or `\r\n`). */
export function countDerivable(body: string): DerivableCounts {
  const counts: DerivableCounts = { content: 0, codeLines: 0, pathLines: 0, gitLines: 0, codeChars: 0, contentChars: 0 };
  let inFence = false;
  for (const line of body.split(/\r?\n/)) {
    const blank = line.trim() === '';
    if (!blank) counts.content++;
    if (FENCE.test(line)) inFence = !inFence;
    else if (inFence && !blank) counts.codeLines++;
    if (blank) continue;
    if (PATH_LINE.test(line)) counts.pathLines++;
    if (GIT_LINE.test(line)) counts.gitLines++;
  }
  if (counts.codeLines >= MIN_CODE_LINES) Object.assign(counts, derivableChars(body));
  return counts;
}

/**
 * The characters "mostly code" is weighed by: trimmed UTF-16 units of the lines inside code
 * fences, and of every non-blank line. (A CR before a line's LF is trimmed with the line.)
 */
export function derivableChars(body: string): Pick<DerivableCounts, 'codeChars' | 'contentChars'> {
  let codeChars = 0;
  let contentChars = 0;
  let inFence = false;
  for (const line of body.split('\n')) {
    const chars = line.trim().length;
    if (chars === 0) continue;
    contentChars += chars;
    if (FENCE.test(line)) inFence = !inFence;
    else if (inFence) codeChars += chars;
  }
  return { codeChars, contentChars };
}

/** The hints these counts call for. */
export function derivableHints(counts: DerivableCounts): DerivableHint[] {
  const { content, codeLines, pathLines, gitLines, codeChars, contentChars } = counts;
  if (content === 0) return [];
  const hints: DerivableHint[] = [];
  // "Mostly" by amount of text, not by line count: a prose paragraph is one long line.
  if (codeLines >= MIN_CODE_LINES && codeChars >= contentChars * 0.4) {
    hints.push({
      kind: 'code',
      message: `Mostly a code snippet (${codeLines} lines): code patterns can be read from the code itself. Keep only what was surprising about it.`,
    });
  }
  if (pathLines >= 3 && pathLines >= content * 0.5) {
    hints.push({
      kind: 'file-paths',
      message: `Mostly a list of file paths (${pathLines}): project structure is in the repository. Keep only what is not obvious from it.`,
    });
  }
  if (gitLines >= 3 && gitLines >= content * 0.5) {
    hints.push({ kind: 'git-log', message: `Looks like git history (${gitLines} lines): git is the authority on what changed and who changed it.` });
  }
  return hints;
}

export function detectDerivable(body: string): DerivableHint[] {
  return derivableHints(countDerivable(body));
}
