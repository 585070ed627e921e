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

const PATH_LINE = /^\s*(?:[-*+]|\d+\.)?\s*`?(?:\.{0,2}\/|~\/|[A-Za-z]:\\)?(?:[\w.@-]+[\\/])+[\w.@-]+\.[A-Za-z0-9]{1,8}`?(?::\d+)?\s*(?:[-—:(].{0,40})?$/;
const GIT_LINE = /^\s*(?:[-*+]\s*)?(?:commit\s+[0-9a-f]{40}\b|[0-9a-f]{7,12}\s+\S.*|Author:\s.+<.+>|Date:\s+\w{3}\s\w{3}\s)/;
const FENCE = /^\s*(```|~~~)/;

export function detectDerivable(body: string): DerivableHint[] {
  const lines = body.split(/\r?\n/);
  const content = lines.filter((l) => l.trim() !== '');
  if (content.length === 0) return [];
  const hints: DerivableHint[] = [];

  let inFence = false;
  let codeLines = 0;
  let codeChars = 0;
  for (const line of lines) {
    if (FENCE.test(line)) {
      inFence = !inFence;
      continue;
    }
    if (inFence && line.trim() !== '') {
      codeLines++;
      codeChars += line.trim().length;
    }
  }
  // "Mostly" by amount of text, not by line count: a prose paragraph is one long line.
  const contentChars = content.reduce((n, l) => n + l.trim().length, 0);
  if (codeLines >= 5 && codeChars >= contentChars * 0.4) {
    hints.push({ kind: 'code', message: `Mostly a code snippet (${codeLines} lines): code patterns can be read from the code itself. Keep only what was surprising about it.` });
  }

  const pathLines = content.filter((l) => PATH_LINE.test(l)).length;
  if (pathLines >= 3 && pathLines >= content.length * 0.5) {
    hints.push({ kind: 'file-paths', message: `Mostly a list of file paths (${pathLines}): project structure is in the repository. Keep only what is not obvious from it.` });
  }

  const gitLines = content.filter((l) => GIT_LINE.test(l)).length;
  if (gitLines >= 3 && gitLines >= content.length * 0.5) {
    hints.push({ kind: 'git-log', message: `Looks like git history (${gitLines} lines): git is the authority on what changed and who changed it.` });
  }
  return hints;
}
