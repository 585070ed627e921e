/**
 * The one merge behind relink, clone merges and import (issue 18, item 3): memory files from a
 * source area (a memory directory, its team folder, an agent's memory) into the matching target
 * area. A file the target lacks is added; an identical file is there once; a file with the same
 * name and other content is a conflict — the target's stays, the source's is kept for the user.
 * Index lines (MEMORY.md) pointing at files brought over are appended to the target's index
 * while it stays under the cut, as Claude Code loads it (`loadIndexAsClaudeCode`, R-INDEX); what
 * would fall past the cut is left out and named. The source's index never just disappears: where
 * the combined index does not hold every line of it (prose, a line past the cut), it is kept as a
 * conflict for the user, like any file that differs.
 */
import { indexLinks, parseIndex } from '../../shared/index-format.js';
import { loadIndexAsClaudeCode } from '../../shared/index-load.js';
import { INDEX_FILE } from '../../shared/limits.js';

/** Files of one area, relative to its directory (`retros/x.md`), with their bytes. */
export type FileMap = Map<string, Buffer>;

/** What merging one area does. */
export interface AreaPlan {
  area: string;
  add: string[];
  same: string[];
  conflict: string[];
  /** The target's index after the merge, or null when it does not change. */
  index: string | null;
  /** Files (of the source's index) whose lines were added to the target's index. */
  indexAdded: string[];
  /** Files brought over whose index line would fall past the cut: left out of the index. */
  notInIndex: string[];
}

/** The raw index lines of `source` that point at a file (first link of the line), in order, with that file. */
function pointerLines(sourceIndex: string): { file: string; raw: string }[] {
  const parsed = parseIndex(sourceIndex);
  const out: { file: string; raw: string }[] = [];
  const seen = new Set<string>();
  for (const link of indexLinks(parsed)) {
    if (!link.primary || seen.has(link.file)) continue;
    seen.add(link.file);
    out.push({ file: link.file, raw: parsed.lines[link.line - 1]!.raw });
  }
  return out;
}

function append(text: string, line: string): string {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const body = text.replace(/(?:\r?\n)+$/, '');
  return body === '' ? `${line}${eol}` : `${body}${eol}${line}${eol}`;
}

/** Plan the merge of one area (see the module comment). `version`: the Claude Code version whose cut applies. */
export function planArea(area: string, source: FileMap, target: FileMap, options: { version?: string | null } = {}): AreaPlan {
  const plan: AreaPlan = { area, add: [], same: [], conflict: [], index: null, indexAdded: [], notInIndex: [] };
  for (const [file, bytes] of source) {
    if (file === INDEX_FILE) continue;
    const there = target.get(file);
    if (!there) plan.add.push(file);
    else if (there.equals(bytes)) plan.same.push(file);
    else plan.conflict.push(file);
  }
  for (const list of [plan.add, plan.same, plan.conflict]) list.sort();
  const sourceIndex = source.get(INDEX_FILE)?.toString('utf8') ?? null;
  if (sourceIndex === null) return plan;
  const targetIndex = target.get(INDEX_FILE)?.toString('utf8') ?? null;
  if (targetIndex === null) {
    // No index there: the source's comes over as it is, headings, prose and all (nothing to combine with).
    plan.index = sourceIndex;
    plan.indexAdded = pointerLines(sourceIndex).map((p) => p.file);
    plan.add.unshift(INDEX_FILE);
    return plan;
  }
  const base = targetIndex;
  const already = new Set(indexLinks(parseIndex(base)).map((l) => l.file));
  // A conflict keeps the target's file there, so a line pointing at it is never dangling.
  const present = new Set([...plan.add, ...plan.same, ...plan.conflict]);
  let text = base;
  let full = false;
  for (const { file, raw } of pointerLines(sourceIndex)) {
    // A line for a file that is not there would dangle.
    if (already.has(file) || !present.has(file)) continue;
    const next = append(text, raw.trim());
    if (full || loadIndexAsClaudeCode(next, { version: options.version ?? null }).truncated) {
      full = true;
      plan.notInIndex.push(file);
      continue;
    }
    text = next;
    already.add(file);
    plan.indexAdded.push(file);
  }
  if (text !== base) plan.index = text;
  // The source's index leaves with its files: a line of it the combined index does not hold (prose,
  // a line past the cut) would be lost, so then the whole source index is kept as a conflict.
  if (leftBehind(sourceIndex, text, new Set(indexLinks(parseIndex(base)).map((l) => l.file))).length > 0) plan.conflict.push(INDEX_FILE);
  return plan;
}

/**
 * The lines of `sourceIndex` that `combined` does not hold: neither the same line, nor (for a
 * pointer) a line of the target's own for the same file (`targetLinked`). Blank lines and
 * headings are layout, not memory.
 */
function leftBehind(sourceIndex: string, combined: string, targetLinked: ReadonlySet<string>): string[] {
  const held = new Set(parseIndex(combined).lines.map((l) => l.raw.trim()));
  const parsed = parseIndex(sourceIndex);
  const pointerOf = new Map(
    indexLinks(parsed)
      .filter((l) => l.primary)
      .map((l) => [l.line, l.file]),
  );
  return parsed.lines
    .filter((l) => {
      const raw = l.raw.trim();
      if (raw === '' || /^#{1,6}(\s|$)/.test(raw) || held.has(raw)) return false;
      const file = pointerOf.get(l.line);
      return !(file !== undefined && targetLinked.has(file));
    })
    .map((l) => l.raw);
}
