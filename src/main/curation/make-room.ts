/**
 * Make room (R-INDEX): apply the choices made in the app — hooks shortened or moved into their
 * memories, pointers dropped, memories merged, lines moved into a new topic file — as one history
 * entry, so one undo brings everything back. The index text comes from `applyRoom`, the very
 * function the app previewed with; this side only does the file work and checks it again now.
 */
import { type IndexImpact, indexImpact } from '../../shared/index-impact.js';
import { type RoomAction, applyRoom } from '../../shared/index-room.js';
import { INDEX_FILE } from '../../shared/limits.js';
import { scopeRefusal } from '../../shared/memory-types.js';
import { type HistoryEntry, transact } from '../history/index.js';
import { checkMemoryPath, checkNewFileName, inScope, MemoryError, readText, refuseTakenName, serializeTopicFile, type Where } from '../memdir/index.js';
import { writeFileAtomic } from '../core/safe-fs.js';
import { composeMerge, mergeSourceOf, takeAwayMerged } from './merge-memories.js';

/** What Make room did. */
export interface MakeRoomResult {
  impact: IndexImpact;
  entry: HistoryEntry | null;
  /** What else changed besides MEMORY.md, in sentences. */
  notes: string[];
  /** Which merged-away team memories were retired instead of deleted (the sync server holds them), in a sentence; null when none. */
  retired: string | null;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * Apply Make room choices to the index of `where` (see the file comment). `baseText` is the
 * index the choices were made on: when MEMORY.md changed since, nothing is written (a conflict).
 */
export async function makeRoom(where: Where, input: { baseText: string; actions: readonly RoomAction[]; now?: Date }): Promise<MakeRoomResult> {
  if (input.actions.length === 0) throw new MemoryError('invalid-input', 'Choose at least one line to shorten, merge, move or drop.');
  const indexRel = inScope(where.scope, INDEX_FILE);
  const kinds = new Set(input.actions.map((a) => a.kind));
  const summary = `Make room in ${indexRel}: ${[...kinds].join(', ')} (${plural(input.actions.length, 'choice')})`;
  const { result, entry } = await transact(where.memoryDir, { source: 'manual', summary, ...(where.dataDir ? { dataDir: where.dataDir } : {}) }, async () => {
    const current = (await readText(where.memoryDir, indexRel)) ?? '';
    if (current !== input.baseText) throw new MemoryError('conflict', `${indexRel} changed since you started making room; look at it again.`, current);
    // A new memory's name is checked, and put in the one form Memdir writes, before the index is
    // worked out: its pointer then names the file as written (a decomposed name typed would dangle).
    const actions = input.actions.map((a) => (a.kind === 'move-lines' ? { ...a, file: checkNewFileName(a.file) } : a));
    const room = applyRoom(current, actions);
    if (room.problems.length > 0) throw new MemoryError('invalid-input', room.problems[0]!);
    const notes: string[] = [];

    // Check everything before the first write: a refused choice leaves every file as it was.
    const created = room.created;
    for (const c of created) {
      const refusal = scopeRefusal(c.type, where.scope);
      if (refusal) throw new MemoryError('scope-refused', refusal);
      if (!c.name.trim()) throw new MemoryError('invalid-input', `The new memory ${c.file} needs a name.`);
      // Taken as written, or in another Unicode form or letter case: the new file would sit beside a memory looking the same, or replace it.
      await refuseTakenName(where.memoryDir, inScope(where.scope, c.file), 'pick another name for the moved lines.');
    }
    const texts = new Map<string, string>();
    const load = async (file: string): Promise<string> => {
      const name = checkMemoryPath(file);
      const known = texts.get(name);
      if (known !== undefined) return known;
      const text = await readText(where.memoryDir, inScope(where.scope, name));
      if (text === null) throw new MemoryError('not-found', `${inScope(where.scope, name)} does not exist, so nothing can be moved into it or merged with it.`);
      texts.set(name, text);
      return text;
    };
    const byKeeper = new Map<string, string[]>();
    for (const m of room.merges) byKeeper.set(m.keeper, [...(byKeeper.get(m.keeper) ?? []), m.other]);
    for (const file of [...byKeeper.keys(), ...[...byKeeper.values()].flat(), ...room.details.map((d) => d.file)]) await load(file);
    const mergeSource = (f: string) => {
      const source = mergeSourceOf(inScope(where.scope, f), texts.get(checkMemoryPath(f))!);
      if (!source)
        throw new MemoryError(
          'invalid-input',
          `${inScope(where.scope, f)} has no valid type (user, feedback, project or reference); fix its frontmatter before merging.`,
        );
      return source;
    };
    for (const [keeper, others] of byKeeper) for (const f of [keeper, ...others]) mergeSource(f);

    for (const c of created) {
      await writeFileAtomic(
        where.memoryDir,
        inScope(where.scope, c.file),
        serializeTopicFile({ name: c.name.trim(), description: c.description.trim(), type: c.type }, `\n${c.body.trim()}\n`),
      );
      notes.push(`Created ${c.file} from ${plural(c.body.split('\n').length, 'line')} of the index.`);
    }
    for (const d of room.details) {
      const text = texts.get(checkMemoryPath(d.file))!;
      const next = `${text.replace(/\s+$/, '')}\n\n${d.detail}\n`;
      texts.set(checkMemoryPath(d.file), next);
      await writeFileAtomic(where.memoryDir, inScope(where.scope, d.file), next);
      notes.push(`Moved the long hook of ${d.file} into the memory itself.`);
    }
    for (const [keeper, others] of byKeeper) {
      const sources = [keeper, ...others].map(mergeSource);
      const merged = composeMerge(sources[0]!, sources.slice(1), { now: input.now ?? new Date(), by: 'user' });
      await writeFileAtomic(where.memoryDir, inScope(where.scope, keeper), merged.text);
      notes.push(`Merged ${others.join(', ')} into ${keeper}.`);
    }
    const { note } = await takeAwayMerged(where, byKeeper);
    await writeFileAtomic(where.memoryDir, indexRel, room.text);
    return { impact: indexImpact(current, { kind: 'replace', text: room.text }), notes, retired: note };
  });
  return { impact: result.impact, notes: result.notes, retired: result.retired, entry };
}
