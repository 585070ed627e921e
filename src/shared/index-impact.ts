/**
 * R-INDEX: warn *before* a write pushes entries past the cut. Given the index text and the
 * change about to be made, which pointers would stop reaching the agent?
 */
import { addIndexEntry, parseIndex, serializeIndex, splitLoadedEntries, updateIndexEntry } from './index-format.js';
import { loadIndexAsClaudeCode } from './index-load.js';

export type IndexChange = { kind: 'add'; title: string; file: string; hook: string } | { kind: 'update'; file: string; title: string; hook: string } | { kind: 'replace'; text: string };

export interface IndexImpact {
  /** Files whose pointers reach the agent now but would not after the change. */
  newlyCut: string[];
  /** Whether the changed/added pointer itself would be past the cut. */
  changedIsCut: boolean;
  /** The index after the change, counted as Claude Code counts it (R-INDEX). */
  after: { lines: number; chars: number; cut: number };
}

export function indexImpact(text: string, change: IndexChange): IndexImpact {
  const before = parseIndex(text);
  const beforeSplit = splitLoadedEntries(before, loadIndexAsClaudeCode(text));
  let afterText: string;
  if (change.kind === 'replace') afterText = change.text;
  else if (change.kind === 'add') afterText = serializeIndex(addIndexEntry(before, change));
  else afterText = serializeIndex(updateIndexEntry(before, change.file, change));
  const afterLoad = loadIndexAsClaudeCode(afterText);
  const afterSplit = splitLoadedEntries(parseIndex(afterText), afterLoad);
  const cutAfter = new Set(afterSplit.cut.map((e) => e.file));
  const wasLoaded = new Set(beforeSplit.loaded.map((e) => e.file));
  const changedFile = change.kind === 'replace' ? null : change.file;
  return {
    newlyCut: [...cutAfter].filter((f) => wasLoaded.has(f) && f !== changedFile),
    changedIsCut: changedFile !== null && cutAfter.has(changedFile),
    after: { lines: afterLoad.lines, chars: afterLoad.chars, cut: afterSplit.cut.length },
  };
}
