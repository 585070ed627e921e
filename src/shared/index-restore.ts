/**
 * Putting index pointers back (issue 14, "undo is whole"): a memory restored from history gets
 * its MEMORY.md pointer back at its old place when it still reaches the agent there, and undoing
 * a change reverses what that change did to the index without touching what changed since.
 * Whether a pointer reaches the agent is asked of the one cut rule (`loadIndexAsClaudeCode`).
 */
import {
  indexEntries,
  insertIndexLine,
  newPointerPlace,
  parseIndex,
  removeIndexEntries,
  serializeIndex,
  splitLoadedEntries,
  type IndexEntry,
  type IndexLine,
  type ParsedIndex,
} from './index-format.js';
import { loadIndexAsClaudeCode } from './index-load.js';

/** Where a put-back pointer landed. */
export interface PointerPlacement {
  file: string;
  /** 1-based line in the new index. */
  line: number;
  /** `old-position`: where it was; `end`: appended, because at its old place it would be cut. */
  placed: 'old-position' | 'end';
  /** Whether it reaches the agent (above the cut). */
  loaded: boolean;
  /** Pointers that reached the agent before and are pushed past the cut by this one. */
  pushedOut: string[];
}

function withLines(index: ParsedIndex, lines: IndexLine[]): ParsedIndex {
  return { ...index, lines: lines.map((l, i) => ({ ...l, line: i + 1 })), finalNewline: index.finalNewline || lines.length > 0 };
}

const HEADING = /^ {0,3}#{1,6}(?:\s|$)/;

function isHeading(line: IndexLine | undefined): boolean {
  return line !== undefined && line.kind === 'other' && HEADING.test(line.raw);
}

/**
 * The 0-based place in `current` that matches `entry`'s place in `old`, within its section (the
 * lines under the heading above it): just after the nearest line above it in the section that is
 * still there (the same pointer, or the same text), else just before the nearest such line below
 * it; else, when its heading is still there, at the end of that section — under the heading and
 * the blank line below it when the section is empty now; else where a new pointer goes.
 */
function oldPlace(current: ParsedIndex, old: ParsedIndex, entry: IndexEntry): number {
  const find = (line: IndexLine): number => {
    if (line.raw.trim() === '') return -1;
    const byFile = line.kind === 'entry' ? current.lines.findIndex((l) => l.kind === 'entry' && l.file === line.file) : -1;
    return byFile !== -1 ? byFile : current.lines.findIndex((l) => l.raw === line.raw);
  };
  const at = entry.line - 1;
  let heading = at - 1;
  while (heading >= 0 && !isHeading(old.lines[heading])) heading--;
  for (let i = at - 1; i > heading; i--) {
    const found = find(old.lines[i]!);
    if (found !== -1) return found + 1;
  }
  for (let i = at + 1; i < old.lines.length && !isHeading(old.lines[i]); i++) {
    const found = find(old.lines[i]!);
    if (found !== -1) return found;
  }
  const start = heading === -1 ? -1 : find(old.lines[heading]!);
  if (start === -1 || !isHeading(current.lines[start])) return newPointerPlace(current);
  let end = start + 1;
  while (end < current.lines.length && !isHeading(current.lines[end])) end++;
  let last = end - 1;
  while (last > start && current.lines[last]!.raw.trim() === '') last--;
  if (last > start) return last + 1;
  return current.lines[start + 1]?.raw.trim() === '' ? start + 2 : start + 1;
}

function loadedFiles(index: ParsedIndex): Set<string> {
  return new Set(splitLoadedEntries(index, loadIndexAsClaudeCode(serializeIndex(index))).loaded.map((e) => e.file));
}

/**
 * The pointers that reached the agent in `was` and are pushed past the cut in `now`: still in
 * `now`'s index, no longer loaded. A pointer `now` no longer has at all (an undone rename's new
 * name) was removed, not pushed out.
 */
function pushedPastCut(was: ParsedIndex, now: ParsedIndex): string[] {
  const loaded = loadedFiles(now);
  const listed = new Set(indexEntries(now).map((e) => e.file));
  return [...loadedFiles(was)].filter((f) => listed.has(f) && !loaded.has(f));
}

/**
 * Put `file`'s pointer from `old` back into `current`: at its old place when it reaches the
 * agent there, else at the end. Null when `old` had no pointer to it or `current` has one.
 */
export function reinsertPointer(current: ParsedIndex, old: ParsedIndex, file: string): { index: ParsedIndex; placement: PointerPlacement } | null {
  const entry = indexEntries(old).find((e) => e.file === file);
  if (!entry || indexEntries(current).some((e) => e.file === file)) return null;
  let index = insertIndexLine(current, oldPlace(current, old, entry), entry.raw);
  let placed: PointerPlacement['placed'] = 'old-position';
  let loaded = loadedFiles(index);
  if (!loaded.has(file)) {
    index = insertIndexLine(current, newPointerPlace(current), entry.raw);
    placed = 'end';
    loaded = loadedFiles(index);
  }
  const line = indexEntries(index).find((e) => e.file === file)!.line;
  return { index, placement: { file, line, placed, loaded: loaded.has(file), pushedOut: pushedPastCut(current, index) } };
}

/**
 * Reverse, on the index as it is `now`, what one change did to it (`before` → `after`): the
 * pointers it removed come back (see {@link reinsertPointer}), the pointers it added go (those
 * still as it wrote them, or whose file the undo removes), the pointers it rewrote go back where
 * nobody changed them since. Everything else in `now` — later edits, other pointers — stays.
 * The pointers of `keptOut` files do not come back (their memory is back under another name).
 * `dropped`: the files whose pointer line the change added, edited since, that go all the same
 * because their file goes (a person's edit of that line: an undo asks before, see undoChange).
 */
export function revertIndexChange(
  now: string,
  before: string,
  after: string,
  removedFiles: ReadonlySet<string> = new Set(),
  keptOut: ReadonlySet<string> = new Set(),
): { text: string; placements: PointerPlacement[]; dropped: string[] } {
  const b = parseIndex(before);
  const a = parseIndex(after);
  if (now === after && keptOut.size === 0) {
    // Nothing changed the index since: it goes back byte for byte; say where the pointers are.
    const loaded = loadedFiles(b);
    const gone = new Set(indexEntries(a).map((e) => e.file));
    const pushedOut = pushedPastCut(a, b);
    const placements = indexEntries(b)
      .filter((e) => !gone.has(e.file))
      .map((e): PointerPlacement => ({ file: e.file, line: e.line, placed: 'old-position', loaded: loaded.has(e.file), pushedOut }));
    return { text: before, placements, dropped: [] };
  }
  const dropped: string[] = [];
  let index = parseIndex(now);
  const beforeEntries = new Map(indexEntries(b).map((e) => [e.file, e]));
  const afterEntries = new Map(indexEntries(a).map((e) => [e.file, e]));
  for (const [file, added] of afterEntries) {
    if (beforeEntries.has(file)) continue;
    const going = indexEntries(index).filter((e) => e.file === file && (e.raw === added.raw || removedFiles.has(file)));
    if (going.some((e) => e.raw !== added.raw)) dropped.push(file);
    if (going.length > 0) index = removeIndexEntries(index, file, new Set(going.map((e) => e.line)));
  }
  for (const [file, was] of beforeEntries) {
    const rewritten = afterEntries.get(file);
    if (!rewritten || rewritten.raw === was.raw) continue;
    index = withLines(
      index,
      index.lines.map((l) => (l.kind === 'entry' && l.file === file && l.raw === rewritten.raw ? parseIndex(was.raw).lines[0]! : l)),
    );
  }
  const placements: PointerPlacement[] = [];
  for (const file of beforeEntries.keys()) {
    if (afterEntries.has(file) || keptOut.has(file)) continue;
    const put = reinsertPointer(index, b, file);
    if (!put) continue;
    index = put.index;
    placements.push(put.placement);
  }
  return { text: serializeIndex(index), placements, dropped };
}

/** A placement in words, for the toast and the CLI. */
export function describePlacement(p: PointerPlacement, indexName: string): string {
  const where = `line ${p.line} of ${indexName}`;
  const it = `The pointer to ${p.file}`;
  if (!p.loaded) return `${it} is back at ${where}, past the cut: the agent will not see it until the index is shortened.`;
  const pushed = p.pushedOut.length > 0 ? ` It pushes ${p.pushedOut.join(', ')} past the cut.` : '';
  return p.placed === 'old-position'
    ? `${it} is back at ${where}, where it was.${pushed}`
    : `${it} is back at ${where}: at its old place it would have been cut.${pushed}`;
}
