/**
 * What Claude Code removes from MEMORY.md before it cuts it (R-INDEX): the frontmatter and
 * block-level `<!-- -->` comments. Each step keeps, for every line of its output, the line of
 * the file it came from, so Memdir can say which pointers of the *file* reach the agent.
 *
 * Replicated from Claude Code 2.1.332 (`parseFrontmatter`, `stripHtmlComments`) and checked
 * against it (test/fixtures/claude-code-index/). Its comment stripping runs a Markdown lexer and
 * drops each top-level HTML block that starts with `<!--` and holds `-->` (keeping what is left of
 * it when that is not blank); a comment inside a list item, a quote or a code block stays. This
 * file models the block structure that decides "top level" — fenced code, list items, HTML blocks
 * (raw-text and block-tag kinds) — not all of CommonMark: an index is a list, not a document.
 */

/** Text whose lines (split at `\n`) each know the 1-based line of the file they came from. */
export interface MappedText {
  text: string;
  /** `origin[i]` = file line of output line `i`; `origin.length` = number of `\n` + 1. */
  origin: number[];
}

/** A file's text, every line its own origin. */
export function mapLines(text: string): MappedText {
  const origin = [1];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) origin.push(origin.length + 1);
  return { text, origin };
}

function newlinesBefore(text: string, end: number): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < end; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** The part `[start, end)` of a mapped text. */
export function sliceMapped(m: MappedText, start: number, end = m.text.length): MappedText {
  const first = newlinesBefore(m.text, start);
  const text = m.text.slice(start, end);
  return { text, origin: m.origin.slice(first, first + newlinesBefore(text, text.length) + 1) };
}

/** Pieces joined; where two pieces meet inside a line, that line keeps the first's origin unless it was empty. */
export function concatMapped(parts: readonly MappedText[]): MappedText {
  let text = '';
  const origin: number[] = [];
  for (const part of parts) {
    if (origin.length === 0) origin.push(...part.origin);
    else {
      const joinedEmpty = text.endsWith('\n') || text === '';
      if (joinedEmpty) origin[origin.length - 1] = part.origin[0]!;
      for (let i = 1; i < part.origin.length; i++) origin.push(part.origin[i]!);
    }
    text += part.text;
  }
  return { text, origin: origin.length ? origin : [1] };
}

/** Claude Code's frontmatter pattern: lenient, and its closing `---` may sit anywhere. */
const FRONTMATTER = /^---\s*\n([\s\S]*?)---\s*\n?/;

/**
 * Claude Code's frontmatter removal: without a BOM, a text starting `---` with another `---`
 * from offset 3 on loses everything up to and including that closing `---` and its line end. The
 * YAML need not parse. (So an index opening with a `---` rule loses its first entries too.)
 */
export function stripFrontmatter(m: MappedText): MappedText {
  const bom = m.text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const body = bom ? m.text.slice(1) : m.text;
  if (body.indexOf('---', 3) < 0) return m;
  const match = FRONTMATTER.exec(body);
  return match ? sliceMapped(m, bom + match[0].length) : m;
}

/** `\r\n` and lone `\r` become `\n` (a lone `\r` starts a line of the same file line). */
function normalizeNewlines(m: MappedText): MappedText {
  if (!m.text.includes('\r')) return m;
  const lines = m.text.split('\n');
  const out: string[] = [];
  const origin: number[] = [];
  lines.forEach((line, i) => {
    const body = i < lines.length - 1 && line.endsWith('\r') ? line.slice(0, -1) : line;
    for (const piece of body.split('\r')) {
      out.push(piece);
      origin.push(m.origin[i]!);
    }
  });
  return { text: out.join('\n'), origin };
}

const BLOCK_TAGS =
  'address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|details|dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|h[1-6]|head|header|hr|html|iframe|legend|li|link|main|menu|menuitem|nav|noframes|ol|optgroup|option|p|param|search|section|summary|table|tbody|td|tfoot|th|thead|title|tr|track|ul';
const HTML_RAW = /^ {0,3}<(script|pre|style|textarea)(?=[\s>]|$)/i;
const HTML_BLOCK = new RegExp(`^ {0,3}</?(?:${BLOCK_TAGS})(?=[\\s/>]|$)`, 'i');
const FENCE = /^( {0,3})(`{3,}|~{3,})/;
const LIST_ITEM = /^( {0,3})([-+*]|\d{1,9}[.)])([ \t]+|$)/;
const COMMENT_START = /^ {0,3}<!--/;

function indentOf(line: string): number {
  let n = 0;
  for (const ch of line) {
    if (ch === ' ') n++;
    else if (ch === '\t') n += 4 - (n % 4);
    else break;
  }
  return n;
}

/**
 * The top-level comment blocks of a `\n`-only text, as `[start, end)` offsets: from the line
 * starting `<!--` (up to three spaces in) through the end of the line holding the first `-->`,
 * plus the blank lines after it — the span of the HTML block Claude Code's lexer produces.
 */
function commentBlocks(text: string): [number, number][] {
  const lines = text.split('\n');
  const starts: number[] = [];
  let offset = 0;
  for (const line of lines) {
    starts.push(offset);
    offset += line.length + 1;
  }
  const blocks: [number, number][] = [];
  let fence: { char: string; length: number } | null = null;
  let rawTag: string | null = null;
  let untilBlank = false;
  let listIndent: number | null = null;
  let sawBlank = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const blank = line.trim() === '';
    if (fence) {
      const close = FENCE.exec(line);
      if (close && close[2]![0] === fence.char && close[2]!.length >= fence.length && line.slice(close[0].length).trim() === '') fence = null;
      continue;
    }
    if (rawTag) {
      if (line.toLowerCase().includes(`</${rawTag}>`)) rawTag = null;
      continue;
    }
    if (untilBlank) {
      if (blank) untilBlank = false;
      continue;
    }
    if (listIndent !== null) {
      if (blank) {
        sawBlank = true;
        continue;
      }
      // Indented to the item's content: inside the item, never top level.
      if (indentOf(line) >= listIndent) continue;
      const item = LIST_ITEM.exec(line);
      if (item) {
        listIndent = itemContentIndent(item);
        sawBlank = false;
        continue;
      }
      // Less indented, straight after the item's text: a lazy continuation unless it starts a block.
      if (!sawBlank && !COMMENT_START.test(line) && !FENCE.test(line) && !HTML_RAW.test(line) && !HTML_BLOCK.test(line)) continue;
      listIndent = null;
    }
    if (blank) continue;
    const fenceOpen = FENCE.exec(line);
    if (fenceOpen && !(fenceOpen[2]![0] === '`' && line.slice(fenceOpen[0].length).includes('`'))) {
      fence = { char: fenceOpen[2]![0]!, length: fenceOpen[2]!.length };
      continue;
    }
    if (COMMENT_START.test(line)) {
      const from = starts[i]! + line.indexOf('<!--');
      const after = text.slice(from + 4);
      const close = /^-?>/.exec(after) ? 0 : after.indexOf('-->');
      if (close === -1) break; // An unclosed comment runs to the end and is kept whole.
      const closeAt = from + 4 + close;
      let end = text.indexOf('\n', closeAt);
      if (end === -1) end = text.length;
      while (text[end] === '\n') end++;
      blocks.push([starts[i]!, end]);
      while (i + 1 < lines.length && starts[i + 1]! < end) i++;
      continue;
    }
    const raw = HTML_RAW.exec(line);
    if (raw) {
      if (!line.toLowerCase().includes(`</${raw[1]!.toLowerCase()}>`)) rawTag = raw[1]!.toLowerCase();
      continue;
    }
    if (HTML_BLOCK.test(line)) {
      untilBlank = true;
      continue;
    }
    const item = LIST_ITEM.exec(line);
    if (item) {
      listIndent = itemContentIndent(item);
      sawBlank = false;
    }
  }
  return blocks;
}

function itemContentIndent(item: RegExpExecArray): number {
  const spaces = indentOf(item[3]!);
  const width = item[1]!.length + item[2]!.length;
  // No text after the marker, or a code block after it: the content starts one space in.
  return width + (item[3] === '' || spaces >= 5 ? 1 : spaces);
}

const COMMENT = /<!--[\s\S]*?-->/g;

/**
 * Claude Code's block-comment removal. Untouched (CRLF and all) when nothing is removed; else
 * line ends are normalised to `\n`, each top-level comment block is dropped, and what is left of
 * a block (text after `-->` on its last line) is kept unless it is blank.
 */
export function stripBlockComments(m: MappedText): MappedText {
  if (!m.text.includes('<!--')) return m;
  const norm = normalizeNewlines(m);
  const blocks = commentBlocks(norm.text);
  if (blocks.length === 0) return m;
  const parts: MappedText[] = [];
  let at = 0;
  for (const [start, end] of blocks) {
    parts.push(sliceMapped(norm, at, start));
    const block = sliceMapped(norm, start, end);
    const rest: MappedText[] = [];
    let from = 0;
    for (const match of block.text.matchAll(COMMENT)) {
      rest.push(sliceMapped(block, from, match.index));
      from = match.index + match[0].length;
    }
    rest.push(sliceMapped(block, from));
    const left = concatMapped(rest);
    if (left.text.trim() !== '') parts.push(left);
    at = end;
  }
  parts.push(sliceMapped(norm, at));
  return concatMapped(parts);
}
