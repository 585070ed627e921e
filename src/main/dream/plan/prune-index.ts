/**
 * R-DREAM-PHASES, Prune: `MEMORY.md` after a dream — dangling pointers out, orphans in,
 * repeated pointers merged (and pointers to merged-away memories retargeted to their keeper),
 * ordered so what matters most is loaded first, and inside its limit (R-INDEX) with room to
 * spare for the entries Claude Code appends before the next dream.
 *
 * Order: within each run of consecutive pointers (headings and prose stay where they are),
 * `user`, then `feedback`, `project`, `reference`, memories flagged stale last; otherwise the
 * author's order. Budget: at most {@link INDEX_TARGET} (80 % of 200 lines and of 25,000 UTF-16
 * code units, counted after Claude Code's stripping). Over
 * it, long hooks are shortened first, then the lowest-priority pointers leave the index. Their
 * files stay: recall still finds them by their frontmatter (R-RECALL-SELECT scans every topic
 * file), and the report names them.
 */
import { type IndexLine, type ParsedIndex, formatIndexEntry, indexLinks, parseIndex, serializeIndex } from '../../../shared/index-format.js';
import { loadIndexAsClaudeCode } from '../../../shared/index-load.js';
import { shortenHook } from '../../../shared/index-room.js';
import { INDEX_MAX_CHARS, INDEX_MAX_LINES } from '../../../shared/limits.js';
import type { MemoryType } from '../../../shared/memory-types.js';

/** What Prune aims for: the limits less a fifth, room for what is appended before the next dream. */
export const INDEX_TARGET = { lines: Math.floor(INDEX_MAX_LINES * 0.8), chars: Math.floor(INDEX_MAX_CHARS * 0.8) };

/** A topic file as Prune sees it (names relative to the index's own directory). */
export interface IndexTopic {
  file: string;
  /** Title for a new pointer (the memory's name). */
  title: string;
  /** Hook for a new pointer (the memory's description). */
  hook: string;
  type: MemoryType | null;
  stale: boolean;
}

/** Inputs of {@link pruneIndex}. */
export interface PruneIndexInput {
  /** The index as it is (null: there is none). */
  text: string | null;
  /** The topic files there will be. */
  topics: readonly IndexTopic[];
  /** Merged-away file → keeper: their pointers point at the keeper. */
  retarget?: ReadonlyMap<string, string>;
  /** Description changes: a hook that repeated the old description gets the new one. */
  descriptions?: ReadonlyMap<string, { from: string; to: string }>;
  /** Whether a pointer target that is not a topic file here exists anyway (a subfolder file). */
  existsOther?: (file: string) => boolean;
  target?: { lines: number; chars: number };
}

/** What Prune did, for the report. */
export interface PruneIndexResult {
  /** The new index text (null: no index needed — there was none and there are no memories). */
  text: string | null;
  dropped: string[];
  added: string[];
  deduped: string[];
  retargeted: string[];
  refreshedHooks: string[];
  shortenedHooks: number;
  /** Pointers left out to stay inside the budget (their files remain, found by recall). */
  leftOut: string[];
  reordered: boolean;
  /** The new index as Claude Code counts it (R-INDEX): lines and UTF-16 code units. */
  lines: number;
  chars: number;
}

const TYPE_RANK: Record<MemoryType, number> = { user: 0, feedback: 1, project: 2, reference: 3 };

interface Pointer {
  file: string;
  title: string;
  hook: string;
  raw: string;
  /** Position in the original text (new pointers come after everything). */
  pos: number;
}

type Row = { kind: 'line'; line: IndexLine } | { kind: 'block'; pointers: Pointer[] };

function render(rows: Row[], base: ParsedIndex, hookMax: number | null): string {
  const lines: IndexLine[] = [];
  for (const row of rows) {
    if (row.kind === 'line') lines.push(row.line);
    else
      for (const p of row.pointers)
        lines.push({
          kind: 'other',
          line: 0,
          raw: hookMax !== null && p.hook.length > hookMax ? formatIndexEntry({ title: p.title, file: p.file, hook: shortenHook(p.hook, hookMax) }) : p.raw,
        });
  }
  return serializeIndex({ ...base, lines, finalNewline: lines.length > 0 ? true : base.finalNewline });
}

/** Prune the index (see the file comment). Pure. */
export function pruneIndex(input: PruneIndexInput): PruneIndexResult {
  const target = input.target ?? INDEX_TARGET;
  const base = parseIndex(input.text ?? '');
  const topics = new Map(input.topics.map((t) => [t.file, t]));
  const result: PruneIndexResult = {
    text: input.text,
    dropped: [],
    added: [],
    deduped: [],
    retargeted: [],
    refreshedHooks: [],
    shortenedHooks: 0,
    leftOut: [],
    reordered: false,
    lines: 0,
    chars: 0,
  };
  const seen = new Set<string>();
  const rows: Row[] = [];
  let pos = 0;
  for (const line of base.lines) {
    pos++;
    if (line.kind !== 'entry') {
      rows.push({ kind: 'line', line });
      continue;
    }
    let file = line.file;
    let raw = line.raw;
    let hook = line.hook;
    const keeper = input.retarget?.get(file);
    if (keeper !== undefined) {
      result.retargeted.push(`${file} → ${keeper}`);
      file = keeper;
      raw = formatIndexEntry({ title: line.title, file, hook });
    }
    const known = topics.has(file);
    const plainName = !file.includes('/') && !file.startsWith('..');
    // A pointer leaving the directory is not Prune's to judge (health reports it as unsafe).
    const outside = file === '..' || file.startsWith('../');
    if (!known && !outside && (plainName || !(input.existsOther?.(file) ?? true))) {
      result.dropped.push(file);
      continue;
    }
    if (seen.has(file)) {
      result.deduped.push(file);
      continue;
    }
    seen.add(file);
    const change = input.descriptions?.get(file);
    if (change && hook.trim() === change.from.trim() && change.to !== change.from) {
      hook = change.to;
      raw = formatIndexEntry({ title: line.title, file, hook });
      result.refreshedHooks.push(file);
    }
    const pointer: Pointer = { file, title: line.title, hook, raw, pos };
    const last = rows.at(-1);
    if (last?.kind === 'block') last.pointers.push(pointer);
    else rows.push({ kind: 'block', pointers: [pointer] });
  }
  // A memory the index already links some other way (`- See [T](f.md).`) is not missing from it.
  const entryLines = new Set(base.lines.filter((l) => l.kind === 'entry').map((l) => l.line));
  const linkedElsewhere = new Set(
    indexLinks(base)
      .filter((l) => !(l.primary && entryLines.has(l.line)))
      .map((l) => l.file),
  );
  const orphans = input.topics
    .filter((t) => !seen.has(t.file) && !linkedElsewhere.has(t.file))
    .sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  if (orphans.length > 0) {
    const fresh = orphans.map((t, i) => ({
      file: t.file,
      title: t.title,
      hook: t.hook,
      raw: formatIndexEntry({ title: t.title, file: t.file, hook: t.hook }),
      pos: pos + 1 + i,
    }));
    result.added.push(...orphans.map((t) => t.file));
    // Into the last run of pointers, or after everything when there is none.
    let lastBlock: Row | undefined;
    for (let i = rows.length - 1; i >= 0; i--)
      if (rows[i]!.kind === 'block') {
        lastBlock = rows[i];
        break;
      }
    if (lastBlock?.kind === 'block') lastBlock.pointers.push(...fresh);
    else rows.push({ kind: 'block', pointers: fresh });
  }

  const rank = (p: Pointer): number => {
    const t = topics.get(p.file);
    return (t?.type ? TYPE_RANK[t.type] : 4) + (t?.stale ? 10 : 0);
  };
  for (const row of rows) {
    if (row.kind !== 'block') continue;
    const before = row.pointers.map((p) => p.file).join('\n');
    // Pointers to other things (a team file, a subfolder) keep their place; memories move around them.
    const movable = row.pointers.filter((p) => topics.has(p.file)).sort((a, b) => rank(a) - rank(b) || a.pos - b.pos);
    row.pointers = row.pointers.map((p) => (topics.has(p.file) ? movable.shift()! : p));
    if (row.pointers.map((p) => p.file).join('\n') !== before) result.reordered = true;
  }

  const fits = (text: string) => {
    const load = loadIndexAsClaudeCode(text);
    return load.lines <= target.lines && load.chars <= target.chars;
  };
  let hookMax: number | null = null;
  let text = render(rows, base, null);
  // Shorter hooks save characters, never lines: shortened only when the size is what is over.
  for (const max of [100, 60]) {
    if (loadIndexAsClaudeCode(text).chars <= target.chars) break;
    hookMax = max;
    text = render(rows, base, hookMax);
  }
  if (hookMax !== null) result.shortenedHooks = rows.flatMap((r) => (r.kind === 'block' ? r.pointers : [])).filter((p) => p.hook.length > hookMax!).length;
  // Still over: the lowest-priority pointers leave, the last of equals first.
  const all = rows.flatMap((r) => (r.kind === 'block' ? r.pointers : []));
  const byPriority = [...all].sort((a, b) => rank(b) - rank(a) || b.pos - a.pos);
  while (!fits(text) && byPriority.length > 0) {
    // Drop roughly the excess at once, then re-measure: one render per round, not per pointer.
    const load = loadIndexAsClaudeCode(text);
    const perLine = load.chars / Math.max(1, load.lines);
    const excess = Math.max(load.lines - target.lines, Math.ceil((load.chars - target.chars) / Math.max(1, perLine)), 1);
    const victims = new Set(byPriority.splice(0, excess));
    for (const row of rows) if (row.kind === 'block') row.pointers = row.pointers.filter((p) => !victims.has(p));
    result.leftOut.push(...[...victims].map((p) => p.file));
    text = render(rows, base, hookMax);
  }
  if (input.text === null && all.length === 0) {
    result.text = null;
    return result;
  }
  result.text = text;
  const load = loadIndexAsClaudeCode(text);
  result.lines = load.lines;
  result.chars = load.chars;
  return result;
}
