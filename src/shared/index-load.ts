/**
 * What of MEMORY.md reaches the agent (R-INDEX), computed the way Claude Code computes it — the
 * one place for this rule: scan, health (`over-limit`), the editor's "before you save" warning,
 * dream's Prune, extraction and `memdir show --loaded` all call {@link loadIndexAsClaudeCode}.
 *
 * Claude Code (`truncateEntrypointContent` and its caller, checked against 2.1.332 byte for
 * byte — test/fixtures/claude-code-index/): strip the frontmatter and block comments, trim,
 * keep lines 1–200, then if the kept text is over 25,000 UTF-16 code units cut it at
 * `lastIndexOf('\n', 25000)` (mid-line when line 1 alone is longer); when anything was cut,
 * append a warning paragraph; finally normalise line ends and remove control and invisible
 * format characters. Sizes in the warning are n/1024 with one decimal (`26.3KB`). A file of more
 * than 4 MB ({@link INDEX_FILE_MAX_BYTES}) on disk is not loaded at all: no text, no warning, every
 * line past the cut — its size as the reader stat'ed it (`fileBytes`), not its decoded text's.
 *
 * A sub-agent's MEMORY.md (R-AGENT) goes through the same cut and warning but without the
 * stripping, nor the trim after the scrub (`strip: false`; 2.1.332, test/fixtures/claude-code-agent/).
 *
 * Not replicated: Claude Code 2.1.332 also defuses tag openers that could pass for its own
 * (`<system-reminder` becomes `<\system-reminder`, confusable spellings included). An index
 * holding such a tag differs from the prediction there, and `lastInjected` shows it.
 */
import { INDEX_FILE, INDEX_FILE_MAX_BYTES, INDEX_MAX_CHARS, INDEX_MAX_LINES } from './limits.js';
import { type MappedText, mapLines, sliceMapped, stripBlockComments, stripFrontmatter } from './index-strip.js';
import { utf8Length } from './utf8.js';

/** The first Claude Code version known to word the warning with the detail of what was cut. */
export const DETAILED_WARNING_SINCE = '2.1.332';

/** How the warning paragraph is worded: 2.1.332's detailed one, or 2.1.88's plain one. */
export type WarningWording = 'detailed' | 'plain';

function versionParts(version: string): number[] | null {
  const match = /^(\d+)\.(\d+)\.(\d+)/.exec(version.trim());
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : null;
}

/**
 * The wording a Claude Code version uses: plain before {@link DETAILED_WARNING_SINCE} (2.1.88 and
 * the versions near it), detailed from it on and whenever the version is unknown (the newest
 * known rule). The change landed somewhere between 2.1.88 and 2.1.332; versions in between are
 * taken as plain, the only wording known for them.
 */
export function warningWordingFor(version: string | null | undefined): WarningWording {
  const parts = version ? versionParts(version) : null;
  const since = versionParts(DETAILED_WARNING_SINCE)!;
  if (!parts) return 'detailed';
  for (let i = 0; i < 3; i++) if (parts[i] !== since[i]) return parts[i]! > since[i]! ? 'detailed' : 'plain';
  return 'detailed';
}

/** What of MEMORY.md reaches the agent. */
export interface IndexLoad {
  /** Lines as Claude Code counts them: of the text left after stripping and trimming. */
  lines: number;
  /** Its length in UTF-16 code units: what the 25,000 limit counts (Claude Code calls it bytes). */
  chars: number;
  /** Its size in UTF-8 bytes (what a file manager shows; not what the limit counts). */
  bytes: number;
  overLines: boolean;
  overChars: boolean;
  /** Whether anything was cut (and the warning appended). */
  truncated: boolean;
  /** Lines (of the stripped text) that reach the agent whole. */
  loadedLines: number;
  loadedChars: number;
  loadedBytes: number;
  /** The first file line (1-based) that does not fully reach the agent; null when all of it does. */
  firstCutLine: number | null;
  /**
   * For each line of the stripped, trimmed text, the file line it came from (ascending): lines
   * `0 … loadedLines - 1` reach the agent; file lines absent here are stripped. See {@link lineFate}.
   */
  origin: readonly number[];
  /** Why it was cut, in Claude Code's words (`210 lines (limit: 200)`), or null. */
  reason: string | null;
  /** The warning paragraph Claude Code appends (without `> WARNING: `), or null. */
  warning: string | null;
  wording: WarningWording;
  /** The text exactly as Claude Code injects it (empty: nothing is injected). Worked out on first use. */
  readonly text: string;
}

/** Claude Code's `formatFileSize`: bytes below 1 KB, else KB/MB/GB with one decimal, `.0` dropped. */
export function formatIndexSize(units: number): string {
  const kb = units / 1024;
  if (kb < 1) return `${units} bytes`;
  const one = (n: number) => n.toFixed(1).replace(/\.0$/, '');
  if (kb < 1024) return `${one(kb)}KB`;
  const mb = kb / 1024;
  return mb < 1024 ? `${one(mb)}MB` : `${one(mb / 1024)}GB`;
}

/** Claude Code's line shortening (`PW`: the warning's quoted line, a built index's hooks): at most `max` units, at a word end when one is past half-way. */
export function shortenLine(line: string, max: number): string {
  if (line.length <= max) return line;
  let head = line.slice(0, max - 1);
  const last = head.charCodeAt(head.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) head = head.slice(0, -1);
  const space = head.search(/\s\S*$/);
  const words = space === -1 ? '' : head.slice(0, space).trimEnd();
  return `${words.length > max / 2 ? words : head.trimEnd()}\u2026`;
}

// Claude Code's control-character scrub: C0/C1 controls (tab and newline kept), format, private
// use, unassigned, lone surrogate and default-ignorable code points — ZWNJ, ZWJ and VS15/16 kept.
const CONTROL = /(?!\u200c|\u200d|\ufe0e|\ufe0f)[\0-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\p{Cf}\p{Co}\p{Cn}\p{Cs}\p{DI}]/gu;

/** Text without what Claude Code removes from the index when it loads it (control, format and invisible characters; see above). */
export function dropInvisible(text: string): string {
  return text.replace(CONTROL, '');
}

function scrub(text: string): string {
  return text.replace(/\r\n?|[\u2028\u2029]/g, '\n').replace(CONTROL, '');
}

function countLines(text: string): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

export interface IndexLoadOptions {
  /** The Claude Code version the user runs (from their newest transcript); it only changes the warning's wording. */
  version?: string | null;
  /**
   * How to measure a text's UTF-8 bytes: {@link utf8Length} unless the caller has a native measure
   * giving the same count (main passes `Buffer.byteLength`: a scan measures every index).
   */
  byteLength?: (text: string) => number;
  /**
   * Whether frontmatter and block comments are stripped first (default true: the main memory's
   * MEMORY.md). A sub-agent's MEMORY.md (R-AGENT) is loaded without that step, and its text is
   * not trimmed again after the control-character scrub: false (observed with 2.1.332,
   * test/fixtures/claude-code-agent/observed-agent.json).
   */
  strip?: boolean;
  /**
   * The file's size in bytes as its reader stat'ed it: what Claude Code's 4 MB rule judges. A
   * file holding bytes that are not UTF-8 decodes to more (each becomes a 3-byte U+FFFD), so the
   * text's own length is not its size. Without it (a text not read from a file: an edit, a
   * prediction) the text's UTF-8 length stands in.
   */
  fileBytes?: number;
}

/**
 * MEMORY.md as Claude Code loads it (see the file comment).
 */
export function loadIndexAsClaudeCode(raw: string, options: IndexLoadOptions = {}): IndexLoad {
  const wording = warningWordingFor(options.version);
  const byteLength = options.byteLength ?? utf8Length;
  const file = mapLines(raw);
  const stripped = options.strip === false ? file : stripBlockComments(stripFrontmatter(file));
  const lead = stripped.text.length - stripped.text.trimStart().length;
  const trimmed: MappedText = sliceMapped(stripped, lead, lead + stripped.text.trim().length);
  const n = trimmed.text;
  // `origin` has one entry per line of `n` (see MappedText): no second walk to count them.
  const lines = n === '' ? 0 : trimmed.origin.length;
  const chars = n.length;
  const overLines = lines > INDEX_MAX_LINES;
  const overChars = chars > INDEX_MAX_CHARS;
  const origin = n === '' ? [] : trimmed.origin;
  const base = { lines, chars, bytes: byteLength(n), overLines, overChars, origin, wording };
  // The scrub is the costly part and only `show --loaded` and the index view need the text.
  // The main memory's text is trimmed again after the scrub; a sub-agent's is not (2.1.332).
  const lazyText = (source: string) => {
    let text: string | null = null;
    return () => (text ??= options.strip === false ? scrub(source) : scrub(source).trim());
  };
  // Claude Code skips a MEMORY.md over 4 MB whole, before any cut: the agent gets nothing (2.1.332).
  // It judges the file's size, not the decoded text's (observed-size.json, the not-UTF-8 case).
  const fileBytes = options.strip === false ? 0 : (options.fileBytes ?? byteLength(raw));
  if (fileBytes > INDEX_FILE_MAX_BYTES)
    return {
      ...base,
      truncated: true,
      loadedLines: 0,
      loadedChars: 0,
      loadedBytes: 0,
      firstCutLine: origin[0] ?? null,
      reason: `${fileBytes.toLocaleString('en-US')} bytes (limit: ${INDEX_FILE_MAX_BYTES.toLocaleString('en-US')}) \u2014 Claude Code skips a file this large and loads none of it`,
      warning: null,
      text: '',
    };
  if (!overLines && !overChars) {
    const text = lazyText(n);
    return {
      ...base,
      truncated: false,
      loadedLines: lines,
      loadedChars: chars,
      loadedBytes: base.bytes,
      firstCutLine: null,
      reason: null,
      warning: null,
      get text() {
        return text();
      },
    };
  }

  let kept = overLines ? n.split('\n').slice(0, INDEX_MAX_LINES).join('\n') : n;
  if (kept.length > INDEX_MAX_CHARS) {
    const at = kept.lastIndexOf('\n', INDEX_MAX_CHARS);
    kept = kept.slice(0, at > 0 ? at : INDEX_MAX_CHARS);
  }
  // Whole lines kept; 0 when line 1 itself was cut short.
  const keptLines = n[kept.length] === '\n' ? countLines(kept) : 0;
  const nextStart = kept.length + 1;
  const nextEnd = n.indexOf('\n', nextStart);
  const nextLine = n.slice(nextStart, nextEnd < 0 ? undefined : nextEnd).trim();
  const reason =
    overChars && !overLines
      ? `${formatIndexSize(chars)} (limit: ${formatIndexSize(INDEX_MAX_CHARS)}) \u2014 index entries are too long`
      : overLines && !overChars
        ? `${lines} lines (limit: ${INDEX_MAX_LINES})`
        : `${lines} lines and ${formatIndexSize(chars)}`;
  const detail =
    keptLines === 0
      ? `everything after the first ${kept.length} characters of line 1 was cut off`
      : `${lines - keptLines} of ${lines} lines were cut off, starting at line ${keptLines + 1}${nextLine ? ` ("${shortenLine(nextLine, 80)}")` : ''}`;
  const keep = 'Keep index entries to one line under ~200 chars; move detail into topic files.';
  const warning =
    wording === 'detailed'
      ? `${INDEX_FILE} is ${reason}. Only part of it was loaded: ${detail}. ${keep}`
      : `${INDEX_FILE} is ${reason}. Only part of it was loaded. ${keep}`;
  const text = lazyText(`${kept}\n\n> WARNING: ${warning}`);
  return {
    ...base,
    truncated: true,
    loadedLines: keptLines,
    loadedChars: kept.length,
    loadedBytes: byteLength(kept),
    firstCutLine: trimmed.origin[keptLines]!,
    reason,
    warning,
    get text() {
      return text();
    },
  };
}

/** What happens to a line of the file: it reaches the agent, is past the cut, or is stripped first. */
export function lineFate(load: IndexLoad, line: number): 'loaded' | 'cut' | 'hidden' {
  // `origin` ascends: the first output line that came from `line`, by binary search.
  const { origin } = load;
  let lo = 0;
  let hi = origin.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (origin[mid]! < line) lo = mid + 1;
    else hi = mid;
  }
  if (lo === origin.length || origin[lo] !== line) return 'hidden';
  // A file line split in two (a lone CR) is loaded only when all of it is.
  let last = lo;
  while (last + 1 < origin.length && origin[last + 1] === line) last++;
  return last < load.loadedLines ? 'loaded' : 'cut';
}
