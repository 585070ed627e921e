/**
 * "Make room" (R-INDEX: help fix an index past its cut — shorten hooks, merge, move detail into
 * topic files): the choices a person makes, line by line, and the index they lead to. Pure, so
 * the app shows the loaded part live while choosing and main applies exactly the same result —
 * the cut itself is always `loadIndexAsClaudeCode` (through `indexImpact`), never a second rule.
 *
 * Line numbers are lines of the file as it was read (`parseIndex`), so choices never shift
 * under each other.
 */
import { type IndexEntry, type IndexLine, formatIndexEntry, parseIndex, serializeIndex } from './index-format.js';
import { type IndexImpact, indexImpact } from './index-impact.js';
import { INDEX_MAX_CHARS, INDEX_MAX_LINES } from './limits.js';
import type { MemoryType } from './memory-types.js';

/** One choice for one line (or, for `move-lines`, a few lines) of MEMORY.md. */
export type RoomAction =
  /** Replace a pointer's hook with a shorter one. */
  | { kind: 'shorten'; line: number; hook: string }
  /** Keep a short hook in the index and move the long one into the memory's own file. */
  | { kind: 'move-hook'; line: number; hook: string }
  /** Take a line out of the index (a pointer's memory stays: recall still finds it by its description). */
  | { kind: 'drop'; line: number }
  /** Merge the memory this pointer names into the memory of the pointer on line `into`; one pointer stays. */
  | { kind: 'merge'; line: number; into: number }
  /** Move lines (prose, a block of pointers) into a new topic file, one pointer in their place. */
  | { kind: 'move-lines'; lines: number[]; file: string; name: string; description: string; type: MemoryType };

/** What the file side of Make room has to do besides writing the new index. */
export interface RoomResult {
  /** The index after every choice. */
  text: string;
  /** Memory `other` merged into memory `keeper` (paths relative to the index's directory). */
  merges: { keeper: string; other: string }[];
  /** Hook text moved into the body of the memory it describes. */
  details: { file: string; detail: string }[];
  /** Topic files to create from moved lines. */
  created: { file: string; name: string; description: string; type: MemoryType; body: string }[];
  /** Choices that cannot be made, in sentences (nothing is applied while there are any). */
  problems: string[];
}

// The hook rules live with the pointer line (index-format.ts); Make room offers them from here too.
export { LONG_HOOK, shortenHook } from './index-format.js';

function actionLines(action: RoomAction): number[] {
  return action.kind === 'move-lines' ? action.lines : [action.line];
}

/** Apply Make room choices to an index text (see the file comment). */
export function applyRoom(text: string, actions: readonly RoomAction[]): RoomResult {
  const index = parseIndex(text);
  const byLine = new Map<number, IndexLine>(index.lines.map((l) => [l.line, l]));
  const problems: string[] = [];
  const choice = new Map<number, RoomAction>();
  for (const action of actions) {
    for (const line of actionLines(action)) {
      if (!byLine.has(line)) problems.push(`Line ${line} is not in MEMORY.md any more.`);
      else if (choice.has(line)) problems.push(`Line ${line} has two choices; keep one.`);
      else choice.set(line, action);
    }
  }
  const entryAt = (line: number): IndexEntry | null => {
    const l = byLine.get(line);
    return l?.kind === 'entry' ? l : null;
  };
  const merges: RoomResult['merges'] = [];
  const details: RoomResult['details'] = [];
  const created: RoomResult['created'] = [];
  const out: IndexLine[] = [];
  for (const line of index.lines) {
    const action = choice.get(line.line);
    if (!action) {
      out.push(line);
      continue;
    }
    const entry = entryAt(line.line);
    switch (action.kind) {
      case 'drop':
        break;
      case 'shorten':
      case 'move-hook': {
        if (!entry) {
          problems.push(`Line ${line.line} is not a pointer, so it has no hook to shorten.`);
          out.push(line);
          break;
        }
        const hook = action.hook.replace(/\s+/g, ' ').trim();
        out.push({ kind: 'other', line: line.line, raw: formatIndexEntry({ title: entry.title, file: entry.file, hook }) });
        if (action.kind === 'move-hook' && entry.hook.trim() !== '' && entry.hook.trim() !== hook)
          details.push({ file: entry.file, detail: entry.hook.trim() });
        break;
      }
      case 'merge': {
        const keeper = entryAt(action.into);
        if (!entry) problems.push(`Line ${line.line} is not a pointer: only memories can be merged.`);
        else if (!keeper) problems.push(`Line ${action.into} is not a pointer: a memory can only be merged into another memory.`);
        else if (keeper.file === entry.file)
          problems.push(`Lines ${line.line} and ${action.into} point at the same memory; drop the repeat instead of merging.`);
        else if (choice.has(action.into) && choice.get(action.into)!.kind !== 'shorten' && choice.get(action.into)!.kind !== 'move-hook') {
          problems.push(`Line ${line.line} is merged into line ${action.into}, which itself leaves the index; merge into a memory that stays.`);
        } else {
          merges.push({ keeper: keeper.file, other: entry.file });
          break;
        }
        out.push(line);
        break;
      }
      case 'move-lines': {
        if (line.line !== Math.min(...action.lines)) break;
        const body = [...action.lines]
          .sort((a, b) => a - b)
          .map((n) => byLine.get(n)?.raw ?? '')
          .join('\n');
        created.push({ file: action.file, name: action.name, description: action.description, type: action.type, body });
        out.push({ kind: 'other', line: line.line, raw: formatIndexEntry({ title: action.name, file: action.file, hook: action.description }) });
        break;
      }
    }
  }
  // A merged-away memory is gone: its other pointers (repeats no one chose) go with it.
  const gone = new Set(merges.map((m) => m.other));
  const kept = out.filter((l) => !(l.kind === 'entry' && gone.has(l.file)));
  const next = serializeIndex({ ...index, lines: kept.map((l, i) => ({ ...l, line: i + 1 })) });
  return { text: next, merges, details, created, problems };
}

/** What Make room's choices would do to the loaded part: the index after them, counted as Claude Code counts it. */
export function previewRoom(text: string, actions: readonly RoomAction[]): RoomResult & { impact: IndexImpact } {
  const result = applyRoom(text, actions);
  return { ...result, impact: indexImpact(text, { kind: 'replace', text: result.text }) };
}

/** How far over the cut an index is: lines and characters to save (0 when it fits). */
export function roomNeeded(figures: { lines: number; chars: number }): { lines: number; chars: number } {
  return { lines: Math.max(0, figures.lines - INDEX_MAX_LINES), chars: Math.max(0, figures.chars - INDEX_MAX_CHARS) };
}
