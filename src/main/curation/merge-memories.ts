/**
 * Merging memories that say the same thing — one way for the whole app: a dream's offline rules
 * (R-DREAM-PHASES, Consolidate), Health's duplicates and Make room all compose the merged text
 * with {@link composeMerge}. The keeper keeps its frontmatter and body, gains every paragraph the
 * others said that it did not, and ends with the list of both sources; the others are deleted —
 * or, a team memory the sync server holds, retired ({@link takeAwayMerged}) — their text is in the
 * keeper and their whole history stays in Memdir's history, restorable.
 */
import { indexEntries, parseIndex, removeIndexEntries, retargetIndexEntries, serializeIndex } from '../../shared/index-format.js';
import { type IndexImpact, indexImpact } from '../../shared/index-impact.js';
import { INDEX_FILE } from '../../shared/limits.js';
import type { MemoryType } from '../../shared/memory-types.js';
import { isoDay } from '../../shared/day-dates.js';
import { type HistoryEntry, transact } from '../history/index.js';
import { checkMemoryPath, inScope, MemoryError, parseTopicFile, readText, retireMemoryFile, serializeTopicFile, type Where } from '../memdir/index.js';
import { removeFileConfined, writeFileAtomic } from '../core/safe-fs.js';
import { featuresOf, jaccard, normalizeForExact, sameSet } from './memory-similarity.js';

/** `---` fence, YAML, closing fence (as topic-file.ts reads it). */
const FRONTMATTER = /^(\uFEFF)?---[ \t]*(\r?\n)(?:([\s\S]*?)\r?\n)?---[ \t]*(?:\r?\n|$)/;

/** A topic file's text split into frontmatter (verbatim) and body. */
export function splitTopicText(text: string): { head: string; body: string } {
  const m = FRONTMATTER.exec(text);
  return m ? { head: m[0], body: text.slice(m[0].length) } : { head: '', body: text };
}

/** A memory about to be merged. */
export interface MergeSource {
  /** Path relative to the memory directory, as the sources list names it. */
  rel: string;
  name: string;
  description: string;
  type: MemoryType;
  body: string;
  /** The whole file (its frontmatter is kept for the keeper). */
  text: string;
  session: string | null;
}

/** A topic file's text as a merge source (null when its type is not one of the four: it cannot be rewritten safely). */
export function mergeSourceOf(rel: string, text: string): MergeSource | null {
  const topic = parseTopicFile(text, rel);
  if (topic.meta.type === null) return null;
  return {
    rel,
    name: topic.meta.name,
    description: topic.meta.description,
    type: topic.meta.type,
    body: splitTopicText(text).body,
    text,
    session: topic.meta.originSessionId,
  };
}

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/gu;

function mostlyCjk(text: string): boolean {
  const letters = text.replace(/[\s\d\p{P}\p{S}]/gu, '');
  return letters.length > 0 && (text.match(CJK)?.length ?? 0) / letters.length > 0.4;
}

function paragraphs(body: string): string[] {
  return body
    .replace(/\r\n/g, '\n')
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean);
}

/**
 * The keeper's new text: its body, then the paragraphs of the others it does not already say
 * (the same words and numbers count as said), then who it was merged from and when — in
 * Chinese when the keeper is. `by` names who merged them in that line.
 */
export function composeMerge(
  keeper: MergeSource,
  others: readonly MergeSource[],
  options: { now: Date; by: 'dream' | 'user' },
): { text: string; added: number } {
  const kept = paragraphs(keeper.body);
  const added: string[] = [];
  for (const other of others) {
    for (const p of paragraphs(other.body)) {
      const fp = featuresOf(p);
      const known = [...kept, ...added].some(
        (k) => normalizeForExact(k) === normalizeForExact(p) || (sameSet(featuresOf(k).numbers, fp.numbers) && jaccard(featuresOf(k).words, fp.words) >= 0.8),
      );
      if (!known) added.push(p);
    }
  }
  const day = isoDay(options.now);
  const zh = mostlyCjk(keeper.text);
  const sourceLine = (c: MergeSource) => `- \`${c.rel}\` — ${c.description || c.name}${c.session ? ` (${zh ? '会话' : 'session'} ${c.session})` : ''}`;
  const heading =
    options.by === 'dream'
      ? zh
        ? `_${day} 的整理（dream）合并自：_`
        : `_Merged by a dream on ${day} from:_`
      : zh
        ? `_${day} 合并自：_`
        : `_Merged on ${day} from:_`;
  const sources = [heading, ...[keeper, ...others].map(sourceLine)].join('\n');
  const body = `${keeper.body.replace(/\s+$/, '')}\n\n${added.length > 0 ? `${added.join('\n\n')}\n\n` : ''}${sources}\n`;
  const description = keeper.description || others.find((o) => o.description)?.description || '';
  const text = serializeTopicFile(
    { name: keeper.name, description, type: keeper.type },
    body.startsWith('\n') ? body : `\n${body.replace(/^\n+/, '')}`,
    keeper.text,
  );
  return { text, added: added.length };
}

/**
 * The index after merging: pointers to a merged-away memory leave — or, when the keeper has no
 * pointer of its own, the first of them points at the keeper (its place and hook kept).
 */
export function indexAfterMerge(indexText: string, keeper: string, others: readonly string[]): string {
  let parsed = parseIndex(indexText);
  for (const other of others) {
    const keeperListed = indexEntries(parsed).some((e) => e.file === keeper);
    const first = indexEntries(parsed).find((e) => e.file === other);
    if (!first) continue;
    if (!keeperListed) {
      parsed = retargetIndexEntries(
        removeIndexEntries(
          parsed,
          other,
          new Set(
            indexEntries(parsed)
              .filter((e) => e.file === other && e.line !== first.line)
              .map((e) => e.line),
          ),
        ),
        other,
        keeper,
      );
    } else parsed = removeIndexEntries(parsed, other);
  }
  return serializeIndex(parsed);
}

/**
 * Take the merged-away memories of a merge out — the one way for Make room and Health's merges: a
 * team memory the sync server holds is retired instead (its text emptied: team/shared-keys.ts's
 * rule, R-SYNC — a deleted one would come back with the next sync), the rest deleted. For team
 * memories, MEMORY.md's pointers to them (`team/x.md`, the ones Claude Code loads) follow the
 * team index's: gone, or the first pointed at the keeper when it has none there. The files
 * retired (paths in the memory directory), and the sentence saying so.
 */
export async function takeAwayMerged(where: Where, merges: ReadonlyMap<string, readonly string[]>): Promise<{ retired: string[]; note: string | null }> {
  const rels = [...merges.values()].flat().map((o) => inScope(where.scope, o));
  if (where.scope !== 'team') {
    for (const rel of rels) await removeFileConfined(where.memoryDir, rel);
    return { retired: [], note: null };
  }
  // Loaded here: team sync's code waits until a team memory is merged (first-list-code.test.ts).
  const { retiredInsteadOfDeleted, retiredNote } = await import('../team/index.js');
  const retire = await retiredInsteadOfDeleted(where.memoryDir, where.dataDir);
  const retired = rels.filter(retire);
  for (const rel of rels) {
    if (retired.includes(rel)) await retireMemoryFile(where.memoryDir, rel);
    else await removeFileConfined(where.memoryDir, rel);
  }
  const before = await readText(where.memoryDir, INDEX_FILE);
  if (before !== null) {
    let after = before;
    for (const [keeper, others] of merges)
      after = indexAfterMerge(
        after,
        inScope('team', keeper),
        others.map((o) => inScope('team', o)),
      );
    if (after !== before) await writeFileAtomic(where.memoryDir, INDEX_FILE, after);
  }
  return { retired, note: retiredNote(retired) };
}

/** What a merge did. */
export interface MergeResult {
  keeper: string;
  merged: string[];
  /** Paragraphs the keeper gained from the others. */
  added: number;
  impact: IndexImpact;
  entry: HistoryEntry | null;
  /** Merged-away team memories the sync server holds, retired (emptied) instead of deleted ({@link takeAwayMerged}); paths in the memory directory. */
  retired: string[];
  /** The sentence saying so, null when none was. */
  note: string | null;
}

/**
 * Merge `others` into `keeper` (files of one scope, relative to it) as one history entry: the
 * keeper rewritten by {@link composeMerge}, the others deleted, their pointers gone or pointed at
 * the keeper. With `expect`, a file whose text changed since it was shown is a conflict and
 * nothing is written.
 */
export async function mergeMemories(
  where: Where,
  input: { keeper: string; others: readonly string[]; expect?: Readonly<Record<string, string>>; now?: Date },
): Promise<MergeResult> {
  const keeper = checkMemoryPath(input.keeper);
  const others = [...new Set(input.others.map(checkMemoryPath))].filter((f) => f !== keeper);
  if (others.length === 0) throw new MemoryError('invalid-input', 'Pick at least one other memory to merge into this one.');
  const summary = `Merge ${others.join(', ')} into ${keeper}`;
  const { result, entry } = await transact(
    where.memoryDir,
    {
      source: 'manual',
      summary,
      body: `${others.map((o) => `${inScope(where.scope, o)}: its text is now in ${inScope(where.scope, keeper)}; restore it from the entry before this one.`).join('\n')}`,
      ...(where.dataDir ? { dataDir: where.dataDir } : {}),
    },
    async () => {
      const sources: MergeSource[] = [];
      for (const file of [keeper, ...others]) {
        const rel = inScope(where.scope, file);
        const text = await readText(where.memoryDir, rel);
        if (text === null) throw new MemoryError('not-found', `${rel} no longer exists; nothing was merged.`);
        const shown = input.expect?.[file];
        if (shown !== undefined && shown !== text)
          throw new MemoryError('conflict', `${rel} changed since it was shown; look at it again before merging.`, text);
        const source = mergeSourceOf(rel, text);
        if (!source)
          throw new MemoryError('invalid-input', `${rel} has no valid type (user, feedback, project or reference); fix its frontmatter before merging.`);
        sources.push(source);
      }
      const [first, ...rest] = sources;
      const merged = composeMerge(first!, rest, { now: input.now ?? new Date(), by: 'user' });
      await writeFileAtomic(where.memoryDir, inScope(where.scope, keeper), merged.text);
      const taken = await takeAwayMerged(where, new Map([[keeper, others]]));
      const indexRel = inScope(where.scope, INDEX_FILE);
      const before = (await readText(where.memoryDir, indexRel)) ?? '';
      const after = indexAfterMerge(before, keeper, others);
      if (after !== before) await writeFileAtomic(where.memoryDir, indexRel, after);
      return { added: merged.added, impact: indexImpact(before, { kind: 'replace', text: after }), ...taken };
    },
  );
  return { keeper, merged: others, added: result.added, impact: result.impact, entry, retired: result.retired, note: result.note };
}
