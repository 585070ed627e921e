/**
 * What lies past an index's cut (R-INDEX), as three facts that are never added up — the one
 * place that says what each "cut" number counts, for the scan, `memdir show`, the dashboard, the
 * memory list, the MEMORY.md tab, Health, Make room and recall alike:
 *
 * - **pointers past the cut**: lines below the cut that point at a file (`index.cut`, a repeat
 *   counted again) — what Make room works on, line by line;
 * - **memories past the cut**: memories of the directory the agent never sees at session start,
 *   because every link to them is below the cut — for a team memory, MEMORY.md's cut: the client
 *   does not load team/MEMORY.md (index-state.ts's rule; the memory list's rows marked "cut");
 * - **pointers to missing files** among those: they name a file that does not exist (Health's
 *   dangling links), so they are not memories at all.
 *
 * A pointer past the cut can also be neither: a repeat of a memory that is loaded higher up, or a
 * link to a file that exists but is not a memory. So the two smaller numbers need not add up to
 * the first, and a sentence that shows more than one names each.
 */
import { type ParsedIndex, splitLoadedEntries } from './index-format.js';
import type { IndexLoad } from './index-load.js';
import { type IndexReach, NO_REACH, indexReachOf } from './index-state.js';
import type { Problem } from './problems.js';
import { plural } from './size-text.js';

/** The files past the cut an index summary carries, besides `cut` itself (see the file comment). */
export interface CutFacts {
  /** Memories whose every pointer is past the cut, in index order, each once. */
  cutMemories: string[];
  /** Pointers past the cut that name a file that does not exist, one per pointer (as `cut`). */
  cutMissing: string[];
}

/** Files the index points at that do not exist: the targets of Health's dangling links (the one rule for "missing"). */
export function missingFilesOf(problems: readonly Pick<Problem, 'code' | 'target'>[]): Set<string> {
  const missing = new Set<string>();
  for (const p of problems) if (p.code === 'dangling-link' && p.target !== undefined) missing.add(p.target);
  return missing;
}

/**
 * The pointers of `pointers` (an index's `loaded` or `cut`, one per line) that name a file that
 * does not exist, in order (`missingOf` asked only when there are any): `cutMissing` below the
 * cut, `loadedMissing` above it — a pointer the agent is given to nothing, never a loaded memory.
 */
export function missingPointersOf(pointers: readonly string[], missingOf: () => ReadonlySet<string>): string[] {
  if (pointers.length === 0) return [];
  const missing = missingOf();
  return pointers.filter((file) => missing.has(file));
}

/**
 * The memories and the missing files past an index's cut. `index.reach` is what the index's links
 * name, on lines that reach the agent and past the cut (index-state.ts: any link lists a memory);
 * `index.cutPointers` its pointers past the cut (`cut`); `memories` the directory's memories;
 * `missingOf` the files its index names that do not exist, asked only when a pointer is past the
 * cut (the caller asks it for `loadedMissing` too, and keeps its answer); `parent` the team files the main
 * index's links name, for a team directory (whose own index reaches nothing: NO_REACH).
 */
export function cutFactsOf(
  index: { reach: IndexReach; cutPointers: readonly string[] },
  memories: readonly { file: string }[],
  missingOf: () => ReadonlySet<string>,
  parent: IndexReach = NO_REACH,
): CutFacts {
  const { reach } = index;
  if (reach.cut.length === 0 && parent.cut.length === 0) return { cutMemories: [], cutMissing: [] };
  const files = new Set(memories.map((m) => m.file));
  const loaded = new Set([...reach.loaded, ...parent.loaded]);
  const cutMemories = new Set<string>();
  for (const file of [...reach.cut, ...parent.cut]) if (files.has(file) && !loaded.has(file)) cutMemories.add(file);
  return { cutMemories: [...cutMemories], cutMissing: missingPointersOf(index.cutPointers, missingOf) };
}

/**
 * What the cut of MEMORY.md's text hides, for the places that work on its lines (Health's
 * over-limit sentence, the MEMORY.md tab, Make room's before and after): the lines below the cut
 * that hold a pointer, and cutFactsOf over `dir`'s memories and Health's missing files. (A team
 * memory MEMORY.md's cut hides is past the cut in the team's count, not here; team/MEMORY.md,
 * which the client does not load, has no cut.)
 */
export function cutOfIndex(
  parsed: ParsedIndex,
  load: IndexLoad,
  dir: { memories: readonly { file: string }[]; problems: readonly Pick<Problem, 'code' | 'target'>[] } | null,
): { lines: number[]; facts: CutFacts } {
  const split = splitLoadedEntries(parsed, load);
  const facts = cutFactsOf({ reach: indexReachOf(parsed, load), cutPointers: split.cut.map((l) => l.file) }, dir?.memories ?? [], () =>
    missingFilesOf(dir?.problems ?? []),
  );
  return { lines: split.cut.map((l) => l.line), facts };
}

/**
 * "29 memories past the cut · 45 pointers to missing files": what the agent misses, then the
 * pointers below the cut that name nothing; empty when neither is there. With `names`, the first
 * that many memories are named ("2 memories past the cut (a.md, b.md)").
 */
export function cutFactsText(facts: { cutMemories: readonly string[]; cutMissing: readonly unknown[] }, options: { names?: number } = {}): string {
  const parts: string[] = [];
  const { cutMemories: memories } = facts;
  const names = options.names ?? 0;
  const named = names > 0 ? ` (${memories.slice(0, names).join(', ')}${memories.length > names ? ', …' : ''})` : '';
  if (memories.length > 0) parts.push(`${plural(memories.length, 'memory', 'memories')} past the cut${named}`);
  if (facts.cutMissing.length > 0) parts.push(`${plural(facts.cutMissing.length, 'pointer')} to missing files`);
  return parts.join(' · ');
}

/**
 * "75 pointers (29 memories past the cut · 45 pointers to missing files)": the pointer lines below
 * the cut, then what they are — for the places that work on lines (the MEMORY.md tab, Make room).
 */
export function cutPointersText(pointers: number, facts: { cutMemories: readonly string[]; cutMissing: readonly unknown[] }): string {
  const what = cutFactsText(facts);
  return `${plural(pointers, 'pointer')}${what ? ` (${what})` : ''}`;
}
