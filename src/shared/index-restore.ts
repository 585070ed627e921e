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
  serializeIndex,
  splitLoadedEntries,
  type IndexEntry,
  type IndexLine,
  type ParsedIndex,
} from './index-format.js';
import { loadIndexAsClaudeCode } from './index-load.js';
import { mergeLineRegions } from './line-merge.js';

/** Where a put-back pointer landed. */
export interface PointerPlacement {
  file: string;
  /** 1-based line in the new index. */
  line: number;
  /** `old-position`: where it was; `end`: appended, because at its old place it would be cut; `new`: it had none, a new one where new pointers go. */
  placed: 'old-position' | 'end' | 'new';
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

/** A new pointer line `raw` to `file` where new pointers go: for a memory brought back that no index listed (placed `new`). */
export function addNewPointer(current: ParsedIndex, raw: string, file: string): { index: ParsedIndex; placement: PointerPlacement } {
  const index = insertIndexLine(current, newPointerPlace(current), raw);
  const line = indexEntries(index).find((e) => e.file === file)!.line;
  return { index, placement: { file, line, placed: 'new', loaded: loadedFiles(index).has(file), pushedOut: pushedPastCut(current, index) } };
}

/** What reversing one change on the index does: the text, where the pointers it put back are, and what it could not reverse cleanly. */
export interface IndexReversal {
  text: string;
  placements: PointerPlacement[];
  /**
   * Lines both the change and a later edit changed, as they are now: not reversed (the undo refuses,
   * naming them); with `anyway`, reversed, and these are the lines that went.
   */
  clashes: string[];
  /**
   * The files whose pointer line the change added, edited since, that go all the same because their
   * file goes (a person's edit of that line: an undo asks before, see undoChange).
   */
  dropped: string[];
}

function lineOf(raw: string): IndexLine {
  return parseIndex(`${raw}\n`).lines[0]!;
}

function pointsAt(raw: string, file: string): boolean {
  const l = lineOf(raw);
  return l.kind === 'entry' && l.file === file;
}

function countIn(index: ParsedIndex, file: string): number {
  return index.lines.filter((l) => l.kind === 'entry' && l.file === file).length;
}

/**
 * Where only pointers overlap (the change and a later edit rewrote pointers side by side), the
 * change's pointer edits are reversed one by one, as before the line merge: those it added go when
 * still as it wrote them, those it rewrote go back where nobody changed them since, those it
 * removed come back; a pointer edited since stays as it is now.
 */
function revertPointers(
  mine: string[],
  base: string[],
  theirs: string[],
  files: { inBefore: ReadonlySet<string>; inAfter: ReadonlySet<string>; inNow: ReadonlySet<string>; keptOut: ReadonlySet<string> },
): string[] {
  const theirsByFile = new Map(theirs.map(lineOf).flatMap((l) => (l.kind === 'entry' ? [[l.file, l.raw] as const] : [])));
  const out: string[] = [];
  for (const raw of mine) {
    const l = lineOf(raw);
    if (l.kind !== 'entry' || !base.includes(raw)) out.push(raw);
    else if (files.inBefore.has(l.file)) out.push(theirsByFile.get(l.file) ?? raw);
  }
  for (const raw of theirs) {
    const l = lineOf(raw);
    if (l.kind === 'entry' && !files.inAfter.has(l.file) && !files.inNow.has(l.file) && !files.keptOut.has(l.file)) out.push(raw);
  }
  return out;
}

/**
 * Reverse, on the index as it is `now`, what one change did to it (`before` → `after`), line by
 * line: a three-way merge whose base is `after`, with `now` (what changed since) and `before` (the
 * change undone). Every line the change removed comes back at its place (prose, headings, order
 * too), every line it added goes, every line added since stays; lines both the change and a later
 * edit changed are `clashes` — left as they are now, or with `anyway` put back as they were. The
 * pointers it added go too when their file goes with the undo (`removedFiles`), even edited since;
 * a pointer it removed comes back at its old place when it reaches the agent there, else at the
 * end (see {@link reinsertPointer}), never twice. The pointers of `keptOut` files do not come back
 * (their memory is back under another name).
 */
export function revertIndexChange(
  now: string,
  before: string,
  after: string,
  removedFiles: ReadonlySet<string> = new Set(),
  keptOut: ReadonlySet<string> = new Set(),
  opts: { anyway?: boolean } = {},
): IndexReversal {
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
    return { text: before, placements, clashes: [], dropped: [] };
  }
  const n = parseIndex(now);
  const inAfter = new Set(indexEntries(a).map((e) => e.file));
  const inBefore = new Set(indexEntries(b).map((e) => e.file));
  const inNow = new Set(indexEntries(n).map((e) => e.file));
  // A pointer the change added whose memory the undo removes goes, however it reads now.
  const goes = (l: IndexLine) => l.kind === 'entry' && removedFiles.has(l.file) && inAfter.has(l.file) && !inBefore.has(l.file);
  // A pointer the change removed does not come back for a memory back under another name.
  const staysOut = (l: IndexLine) => l.kind === 'entry' && !inAfter.has(l.file) && keptOut.has(l.file) && !inNow.has(l.file);
  const addedAs = new Map(indexEntries(a).map((e) => [e.file, e.raw]));
  const dropped = [...new Set(n.lines.flatMap((l) => (l.kind === 'entry' && goes(l) && l.raw !== addedAs.get(l.file) ? [l.file] : [])))];
  const raws = (index: ParsedIndex, drop: (l: IndexLine) => boolean) => index.lines.filter((l) => !drop(l)).map((l) => l.raw);
  const merged: string[] = [];
  const clashes: string[] = [];
  for (const region of mergeLineRegions(raws(a, goes), raws(n, goes), raws(b, staysOut), { besideInsertions: true })) {
    if ('ok' in region) {
      merged.push(...region.ok);
      continue;
    }
    const { mine, base, theirs } = region.conflict;
    const pointersOnly = [...mine, ...base, ...theirs].every((raw) => raw.trim() === '' || lineOf(raw).kind === 'entry');
    if (pointersOnly) {
      merged.push(...revertPointers(mine, base, theirs, { inBefore, inAfter, inNow, keptOut }));
      continue;
    }
    const changedSince = mine.length > 0 ? mine : base;
    clashes.push(...changedSince.filter((l) => l.trim() !== '' && !theirs.includes(l)));
    merged.push(...(opts.anyway ? theirs : mine));
  }
  // A pointer the change removed that is back since (Claude Code wrote it again): once, as it is now.
  for (const file of inNow) {
    if (inAfter.has(file) || !inBefore.has(file)) continue;
    const kept = new Set(n.lines.filter((l) => l.kind === 'entry' && l.file === file).map((l) => l.raw));
    const at = merged.flatMap((raw, i) => (pointsAt(raw, file) ? [i] : []));
    // The lines not as they are now go first, then later copies.
    const extra = [...at.filter((i) => !kept.has(merged[i]!)), ...at.filter((i) => kept.has(merged[i]!)).reverse()].slice(0, at.length - countIn(n, file));
    for (const i of extra.sort((x, y) => y - x)) merged.splice(i, 1);
  }
  const shape = n.lines.length > 0 || now !== '' ? n : b;
  let index: ParsedIndex = {
    ...withLines(shape, merged.length === 0 ? [] : parseIndex(`${merged.join('\n')}\n`).lines),
    finalNewline: shape.finalNewline || merged.length === 0,
  };
  // The pointers put back: at their old place when they reach the agent there, else where new pointers go.
  const placements: PointerPlacement[] = [];
  for (const file of inBefore) {
    if (inAfter.has(file) || inNow.has(file) || keptOut.has(file)) continue;
    const at = index.lines.findIndex((l) => l.kind === 'entry' && l.file === file);
    if (at === -1) continue;
    const without = withLines(
      index,
      index.lines.filter((_, i) => i !== at),
    );
    let placed: PointerPlacement['placed'] = 'old-position';
    if (!loadedFiles(index).has(file)) {
      index = insertIndexLine(without, newPointerPlace(without), index.lines[at]!.raw);
      placed = 'end';
    }
    const line = index.lines.findIndex((l) => l.kind === 'entry' && l.file === file) + 1;
    placements.push({ file, line, placed, loaded: loadedFiles(index).has(file), pushedOut: pushedPastCut(without, index) });
  }
  return { text: serializeIndex(index), placements, clashes, dropped };
}

/** A placement in words, for the toast and the CLI. */
export function describePlacement(p: PointerPlacement, indexName: string): string {
  const where = `line ${p.line} of ${indexName}`;
  const it = `The pointer to ${p.file}`;
  const pushed = p.pushedOut.length > 0 ? ` It pushes ${p.pushedOut.join(', ')} past the cut.` : '';
  if (p.placed === 'new')
    return p.loaded
      ? `${it} is new, at ${where}: it had none.${pushed}`
      : `${it} is new, at ${where}: it had none, and it is past the cut: the agent will not see it until the index is shortened.`;
  if (!p.loaded) return `${it} is back at ${where}, past the cut: the agent will not see it until the index is shortened.`;
  return p.placed === 'old-position'
    ? `${it} is back at ${where}, where it was.${pushed}`
    : `${it} is back at ${where}: at its old place it would have been cut.${pushed}`;
}

/** Which describePlacement sentence a note is: the index it names and whether the pointer is past the cut; null for any other sentence. */
export function placementOf(note: string): { index: string; cut: boolean } | null {
  const m = /^The pointer to .+ is back at line \d+ of (.+?)(, past the cut: |, where it was\.|: at its old place it would have been cut\.)/u.exec(note);
  return m ? { index: m[1]!, cut: m[2] === ', past the cut: ' } : null;
}
