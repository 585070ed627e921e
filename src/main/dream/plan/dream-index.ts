/**
 * Prune applied to a memory dir's two indexes (`MEMORY.md` and `team/MEMORY.md`), from any view
 * of the topic files: the staged plan (the Prune phase, a preview) or the disk after the topic
 * changes were applied (apply recomputes, so a change skipped for a conflict never leaves the
 * index pointing at a file that is not there).
 */
import { INDEX_FILE, TEAM_DIR } from '../../../shared/limits.js';
import type { Scope } from '../../../shared/memory-types.js';
import { parseTopicFile } from '../../memdir/index.js';
import { relOf, scopeOf } from './memory-snapshot.js';
import { type IndexTopic, type PruneIndexResult, pruneIndex } from './prune-index.js';

/** What the consolidation phase tells Prune (relative paths). */
export interface IndexContext {
  retarget: ReadonlyMap<string, string>;
  stale: ReadonlySet<string>;
  descriptions: ReadonlyMap<string, { from: string; to: string }>;
}

/** A view of the topic files of one scope. */
export interface TopicView {
  /** Relative paths of the topic files there are. */
  rels: readonly string[];
  /** Their text (null: unreadable, still there). */
  textOf: (rel: string) => string | null;
  /** Whether a non-topic path exists (pointers into subfolders). */
  exists: (rel: string) => boolean;
}

/** The index of a scope (`MEMORY.md` or `team/MEMORY.md`). */
export function indexRelOf(scope: Scope): string {
  return relOf(scope, INDEX_FILE);
}

function inScope(map: ReadonlyMap<string, unknown>, scope: Scope): Map<string, string> {
  const out = new Map<string, string>();
  for (const [from, to] of map as ReadonlyMap<string, string>) {
    const a = scopeOf(from);
    const b = scopeOf(to);
    if (a.scope === scope && b.scope === scope) out.set(a.name, b.name);
  }
  return out;
}

/** Prune of one scope's index: the new text and what changed, for the report. */
export function pruneScope(scope: Scope, indexText: string | null, view: TopicView, ctx: IndexContext): PruneIndexResult {
  const topics: IndexTopic[] = view.rels.map((rel) => {
    const text = view.textOf(rel);
    const name = scopeOf(rel).name;
    const topic = text === null ? null : parseTopicFile(text, name);
    return {
      file: name,
      title: topic?.meta.name ?? name.replace(/\.md$/i, ''),
      hook: topic?.meta.description ?? '',
      type: topic?.meta.type ?? null,
      stale: ctx.stale.has(rel),
    };
  });
  const descriptions = new Map<string, { from: string; to: string }>();
  for (const [rel, change] of ctx.descriptions) {
    const s = scopeOf(rel);
    if (s.scope === scope) descriptions.set(s.name, change);
  }
  return pruneIndex({
    text: indexText,
    topics,
    retarget: inScope(ctx.retarget, scope),
    descriptions,
    existsOther: (file) => view.exists(scope === 'team' ? `${TEAM_DIR}/${file}` : file),
  });
}

/** One sentence on what Prune did. */
export function describePrune(rel: string, r: PruneIndexResult): string {
  const parts: string[] = [];
  const list = (files: string[]) => `${files.slice(0, 5).join(', ')}${files.length > 5 ? `, and ${files.length - 5} more` : ''}`;
  if (r.dropped.length) parts.push(`dropped ${r.dropped.length} dangling pointer(s) (${list(r.dropped)})`);
  if (r.retargeted.length) parts.push(`pointed ${r.retargeted.length} pointer(s) at the memory they were merged into`);
  if (r.deduped.length) parts.push(`merged ${r.deduped.length} repeated pointer(s) (${list(r.deduped)})`);
  if (r.added.length) parts.push(`added ${r.added.length} memory(ies) missing from it (${list(r.added)})`);
  if (r.refreshedHooks.length) parts.push(`refreshed ${r.refreshedHooks.length} hook(s) that repeated a changed description`);
  if (r.reordered) parts.push('ordered so user and feedback memories load first and stale ones last');
  if (r.shortenedHooks) parts.push(`shortened ${r.shortenedHooks} long hook(s)`);
  if (r.leftOut.length)
    parts.push(
      `left ${r.leftOut.length} pointer(s) out to stay inside the limit with room to spare (${list(r.leftOut)}; their files remain and recall still finds them)`,
    );
  const size = `now ${r.lines} lines, ${r.chars.toLocaleString('en')} characters of 200 / 25,000`;
  return `${rel}: ${parts.length ? parts.join('; ') : 'tidied'} — ${size}.`;
}
