/**
 * Where a topic file's frontmatter ends and its body starts (the split gray-matter made), and where
 * a line of the file is in the terms the editor shows: a frontmatter field, or a line of the body.
 * Pure text work: the topic-file reader splits with it, a refused save (secrets/save-guard.ts) places a secret with it.
 */
const OPEN_FENCE = /---[ \t]*\r?\n/y;

/**
 * Where a topic file's frontmatter and body are, as offsets into `text` from `start` (just past
 * a BOM). Only ASCII delimiters are looked at, so the same offsets hold for the file's bytes read
 * as latin1: the scanner splits bytes and the editor splits text with this one function.
 * - `none`: no opening fence; the body starts at `start`.
 * - `unclosed`: an opening fence that never closes.
 * - `closed`: the YAML is `[yamlStart, yamlEnd)` (the opening line's end included, as gray-matter
 *   gives it), the body starts after the closing fence and one line ending.
 */
export interface FrontmatterSpan {
  fence: 'none' | 'unclosed' | 'closed';
  yamlStart: number;
  yamlEnd: number;
  bodyStart: number;
}

/** Whether only spaces or tabs follow `i` up to a line ending (`\n`, `\r\n`) or the end of the text. */
function fenceLineEnds(text: string, i: number): boolean {
  let c = text.charCodeAt(i);
  while (c === 0x20 || c === 0x09) c = text.charCodeAt(++i);
  return i >= text.length || c === 0x0a || (c === 0x0d && text.charCodeAt(i + 1) === 0x0a);
}

export function locateFrontmatter(text: string, start: number): FrontmatterSpan {
  OPEN_FENCE.lastIndex = start;
  if (!OPEN_FENCE.test(text)) return { fence: 'none', yamlStart: start, yamlEnd: start, bodyStart: start };
  // Closed: a `---` at the start of a line from the opening line's end on, then only spaces or tabs
  // to the end of its line or of the text (`---[ \t]*(?:\r?\n|$)`). Found with indexOf rather than a
  // lazy regex over the whole header: this runs for every file of a scan.
  let nl = OPEN_FENCE.lastIndex - 1;
  if (!(text.startsWith('---', nl + 1) && fenceLineEnds(text, nl + 4))) {
    do nl = text.indexOf('\n---', nl + 1);
    while (nl !== -1 && !fenceLineEnds(text, nl + 4));
    if (nl === -1) return { fence: 'unclosed', yamlStart: start, yamlEnd: start, bodyStart: start };
  }
  // gray-matter's split: the YAML runs to the first "\n---", the body starts after it, minus one "\r" and one "\n".
  const yamlStart = start + 3;
  const yamlEnd = text.indexOf('\n---', yamlStart);
  let bodyStart = yamlEnd + 4;
  if (text.charCodeAt(bodyStart) === 0x0d) bodyStart++;
  if (text.charCodeAt(bodyStart) === 0x0a) bodyStart++;
  return { fence: 'closed', yamlStart, yamlEnd, bodyStart };
}

/**
 * Where 1-based `line` of topic-file `text` is, in words a person finds in the editor, which shows
 * the fields and the body (without the frontmatter, without line numbers): "in its description
 * field (line 3 of the file)", "at line 4 of its body (line 9 of the file)", or "at line 9" for a file
 * without frontmatter. The file's line stays in the words: the CLI speaks of files.
 */
export function placeOfLine(text: string, line: number): string {
  const span = locateFrontmatter(text, text.charCodeAt(0) === 0xfeff ? 1 : 0);
  if (span.fence !== 'closed') return `at line ${line}`;
  const linesBefore = (end: number) => text.slice(0, end).split('\n').length - 1;
  const bodyFirst = linesBefore(span.bodyStart) + 1;
  if (line >= bodyFirst) return `at line ${line - bodyFirst + 1} of its body (line ${line} of the file)`;
  // A line of the frontmatter: the top-level key it belongs to (a value may run over several lines).
  const lines = text.split('\n');
  for (let i = Math.min(line, lines.length) - 1; i >= 1; i--) {
    const key = /^([A-Za-z_][\w-]*)\s*:/.exec(lines[i] ?? '');
    if (key) return `in its ${key[1]} field (line ${line} of the file)`;
  }
  return `in its frontmatter (line ${line} of the file)`;
}
