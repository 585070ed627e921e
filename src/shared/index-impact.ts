/**
 * R-INDEX: warn *before* a write pushes entries past the cut. Given the index text and the
 * change about to be made, which pointers would stop reaching the agent — and which would start
 * to? Every writer of MEMORY.md that asks first (the editor, the index editor, Health's fixes,
 * Make room, a merge) reads its answer from here; the cut itself is `loadIndexAsClaudeCode`.
 */
import { addIndexEntry, indexEntries, parseIndex, serializeIndex, splitLoadedEntries, updateIndexEntry } from './index-format.js';
import { loadIndexAsClaudeCode } from './index-load.js';
import { INDEX_MAX_CHARS, INDEX_MAX_LINES } from './limits.js';

export type IndexChange =
  | { kind: 'add'; title: string; file: string; hook: string }
  | { kind: 'update'; file: string; title: string; hook: string }
  | { kind: 'replace'; text: string };

/** The index as Claude Code counts it, in the figures a person reads (R-INDEX). */
export interface IndexFigures {
  lines: number;
  /** UTF-16 code units: what the 25,000 limit counts. */
  chars: number;
  /** Whether anything is past the cut (lines of prose count, not only pointers). */
  truncated: boolean;
  /** Lines that reach the agent whole. */
  loadedLines: number;
  /** The first file line the agent does not get whole, or null. */
  firstCutLine: number | null;
  /** Pointers that reach the agent, and pointers past the cut. */
  loaded: number;
  cut: number;
}

export interface IndexImpact {
  /** Files whose pointers reach the agent now but would not after the change. */
  newlyCut: string[];
  /** Files whose pointers are past the cut now and would reach the agent after the change. */
  newlyLoaded: string[];
  /** Files the index points at now and not at all after the change (a pointer dropped, not moved past the cut). */
  dropped: string[];
  /** Whether the changed/added pointer itself would be past the cut. */
  changedIsCut: boolean;
  before: IndexFigures;
  /** The index after the change, counted as Claude Code counts it. */
  after: IndexFigures;
  /** The text after the change. */
  text: string;
}

/** The figures of an index text (see {@link IndexFigures}). */
function indexFigures(text: string): IndexFigures & { loadedFiles: string[]; cutFiles: string[] } {
  const load = loadIndexAsClaudeCode(text);
  const split = splitLoadedEntries(parseIndex(text), load);
  return {
    lines: load.lines,
    chars: load.chars,
    truncated: load.truncated,
    loadedLines: load.loadedLines,
    firstCutLine: load.firstCutLine,
    loaded: split.loaded.length,
    cut: split.cut.length,
    loadedFiles: split.loaded.map((l) => l.file),
    cutFiles: split.cut.map((l) => l.file),
  };
}

function strip({ loadedFiles: _l, cutFiles: _c, ...figures }: ReturnType<typeof indexFigures>): IndexFigures {
  return figures;
}

/** What `change` does to what the agent loads. */
export function indexImpact(text: string, change: IndexChange): IndexImpact {
  let afterText: string;
  if (change.kind === 'replace') afterText = change.text;
  else {
    const before = parseIndex(text);
    afterText = serializeIndex(change.kind === 'add' ? addIndexEntry(before, change) : updateIndexEntry(before, change.file, change));
  }
  const before = indexFigures(text);
  const after = indexFigures(afterText);
  const cutAfter = new Set(after.cutFiles);
  const loadedAfter = new Set(after.loadedFiles);
  const wasLoaded = new Set(before.loadedFiles);
  const changedFile = change.kind === 'replace' ? null : change.file;
  const pointedAfter = new Set(indexEntries(parseIndex(afterText)).map((e) => e.file));
  return {
    newlyCut: [...cutAfter].filter((f) => wasLoaded.has(f) && !loadedAfter.has(f) && f !== changedFile),
    newlyLoaded: [...new Set(before.cutFiles)].filter((f) => loadedAfter.has(f) && !wasLoaded.has(f)),
    dropped: [...new Set(indexEntries(parseIndex(text)).map((e) => e.file))].filter((f) => !pointedAfter.has(f)),
    changedIsCut: changedFile !== null && cutAfter.has(changedFile),
    before: strip(before),
    after: strip(after),
    text: afterText,
  };
}

/** "215 of 200 lines, 21,599 of 25,000 characters": an index's size against both limits, as every notice says it. */
export function sizeAgainstLimits(f: Pick<IndexFigures, 'lines' | 'chars'>): string {
  const n = (x: number) => x.toLocaleString('en-US');
  return `${n(f.lines)} of ${n(INDEX_MAX_LINES)} lines, ${n(f.chars)} of ${n(INDEX_MAX_CHARS)} characters`;
}

/**
 * "MEMORY.md goes from 409 to 396 lines (31,200 characters)": an index's size before and after a change, in plain words.
 * With `loadedLimits` (an index Claude Code loads), a change says what it loads: "; Claude Code loads at most 200 lines
 * and 25,000 characters" — apart from the figures, never "396 of 200 lines". An unchanged size "stays at 200 lines".
 */
export function sizeChange(
  name: string,
  before: Pick<IndexFigures, 'lines' | 'chars'>,
  after: Pick<IndexFigures, 'lines' | 'chars'>,
  loadedLimits: boolean,
): string {
  const n = (x: number) => x.toLocaleString('en-US');
  if (before.lines === after.lines && before.chars === after.chars) return `${name} stays at ${n(after.lines)} lines`;
  const limits = loadedLimits ? `; Claude Code loads at most ${n(INDEX_MAX_LINES)} lines and ${n(INDEX_MAX_CHARS)} characters` : '';
  const lines = before.lines === after.lines ? `stays at ${n(after.lines)} lines` : `goes from ${n(before.lines)} to ${n(after.lines)} lines`;
  return `${name} ${lines} (${n(after.chars)} characters)${limits}`;
}
