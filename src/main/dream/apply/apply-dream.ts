/**
 * A dream is a transaction: its staged changes are applied in one step through `transact` —
 * one history entry `dream <id>` with the report as its body, each file written atomically.
 *
 *   - Before writing, every file a change touches is compared with what Orient read. A file
 *     edited by someone else mid-dream is left alone, with every change grouped with it (a merge
 *     never deletes a duplicate whose keeper could not be written), and reported. So is a file it
 *     would create under a name taken on disk in another Unicode form (or letter case, on macOS and
 *     Windows): written, it would sit beside that memory looking the same, or replace it.
 *   - The indexes are recomputed from the disk after the topic changes (so a skipped change never
 *     leaves a pointer wrong), and left alone when they were edited mid-dream.
 *   - Across files, all or nothing even against kill -9: before each write a journal with the
 *     pre-dream content of every file written so far goes to `<dataDir>/dream-journals/<key>.json` (fsynced). If
 *     the process dies before the history entry is recorded, {@link recoverInterruptedApply}
 *     (the scheduler's start and tick, the next dream of that dir, the CLI) puts the files back.
 */
import os from 'node:os';
import fs from 'node:fs/promises';
import path from 'node:path';
import { INDEX_FILE, TEAM_DIR } from '../../../shared/limits.js';
import { type ChangeDescription, type HistoryEntry, listHistory, recordSnapshot, transact } from '../../history/index.js';
import { memoryDirKey, realpathDeepestExisting } from '../../core/memory-lock.js';
import { removeFileConfined, writeDataFile, writeFileAtomic } from '../../core/safe-fs.js';
import { isProcessAlive } from '../../core/process.js';
import { type IndexContext, describePrune, indexRelOf, pruneScope } from '../plan/dream-index.js';
import type { StagedChange } from '../plan/dream-plan.js';
import { hashText, readCurrent, readMemorySnapshot } from '../plan/memory-snapshot.js';
import { seedIndex, takenNameRefusal } from '../../memdir/index.js';

/** What apply needs. */
export interface ApplyInput {
  memoryDir: string;
  dataDir: string;
  id: string;
  /** The history entry's body (the report), from what apply did. */
  describe: (result: ApplyResult) => string;
  /** Topic-file changes (index changes are recomputed here). */
  changes: StagedChange[];
  index: IndexContext;
  /** The index texts Orient read, by rel (`MEMORY.md`, `team/MEMORY.md`); absent: not read. */
  indexesBefore: ReadonlyMap<string, string | null>;
  /** Test hook: called after the first file is written (kill -9 tests pause here). */
  afterFirstWrite?: () => Promise<void>;
  /**
   * Called with what was applied once the writes are done, just before the history entry is
   * recorded: the caller keeps its record of the dream in step, so that a kill right after the
   * entry leaves a record that says what was applied (recover-dreams.ts).
   */
  beforeCommit?: (result: ApplyResult) => Promise<void>;
}

/** What apply did. */
export interface ApplyResult {
  entry: HistoryEntry | null;
  applied: StagedChange[];
  skipped: { change: StagedChange; reason: string }[];
  /** One sentence per index written or left alone. */
  indexNotes: string[];
}

interface Journal {
  version: 1;
  id: string;
  host: string;
  pid: number;
  memoryDir: string;
  writes: { rel: string; before: string | null; afterHash: string | null }[];
}

function journalsDir(dataDir: string): string {
  return path.join(dataDir, 'dream-journals');
}

async function journalFile(dataDir: string, memoryDir: string): Promise<string> {
  return path.join(journalsDir(dataDir), `${await memoryDirKey(memoryDir)}.json`);
}

/** Why a file cannot be changed as planned, or null when it is as Orient read it. */
function conflictOf(memoryDir: string, change: StagedChange): string | null {
  const now = readCurrent(memoryDir, change.file);
  if (now.problem) return `${change.file} changed while the dream ran (${now.problem}); left alone`;
  if (now.text === change.before) return null;
  if (change.before === null) return `${change.file} was created by someone else while the dream ran; left alone`;
  if (now.text === null) return `${change.file} was deleted by someone else while the dream ran; left alone`;
  return `${change.file} was edited by someone else while the dream ran; left alone`;
}

async function writeOne(memoryDir: string, rel: string, text: string | null): Promise<void> {
  if (text === null) await removeFileConfined(memoryDir, rel);
  else await writeFileAtomic(memoryDir, rel, text);
}

/** Applies a dream (see the file comment). Returns what was applied and what was left alone. */
export async function applyDream(input: ApplyInput): Promise<ApplyResult> {
  const { memoryDir, dataDir } = input;
  const result: ApplyResult = { entry: null, applied: [], skipped: [], indexNotes: [] };
  const journalPath = await journalFile(dataDir, memoryDir);
  const journal: Journal = { version: 1, id: input.id, host: os.hostname(), pid: process.pid, memoryDir: await realpathDeepestExisting(memoryDir), writes: [] };
  const saveJournal = () => writeDataFile(journalPath, JSON.stringify(journal), { mode: 0o600, what: 'the dream under way' });

  // The body is filled in once the writes are done: `transact` records after `fn`, reading
  // these options then, so the entry says what was applied and what was left alone.
  const description: ChangeDescription = { source: 'dream', summary: `dream ${input.id}`, dataDir };
  const { entry } = await transact(memoryDir, description, async () => {
    // Groups: a merge's changes go together or not at all.
    const groups = new Map<string, StagedChange[]>();
    for (const change of input.changes) {
      if (change.file.endsWith(INDEX_FILE) && (change.file === INDEX_FILE || change.file === `${TEAM_DIR}/${INDEX_FILE}`)) continue;
      const key = change.group ?? `file:${change.file}`;
      groups.set(key, [...(groups.get(key) ?? []), change]);
    }
    // Each group is checked against the disk as the groups before it left it, then written: a file
    // this dream creates is checked against the names it has already written too.
    let first = true;
    for (const members of groups.values()) {
      const conflicts: string[] = [];
      for (const change of members) {
        const conflict = conflictOf(memoryDir, change) ?? (change.before === null ? await takenNameRefusal(memoryDir, change.file, 'left alone') : null);
        if (conflict !== null) conflicts.push(conflict);
      }
      if (conflicts.length > 0) {
        for (const change of members)
          result.skipped.push({ change, reason: members.length > 1 ? `${conflicts.join('; ')} — and so was the rest of its merge` : conflicts[0]! });
        continue;
      }
      journal.writes.push(...members.map((c) => ({ rel: c.file, before: c.before, afterHash: c.after === null ? null : hashText(c.after) })));
      await saveJournal();
      for (const change of members) {
        await writeOne(memoryDir, change.file, change.after);
        result.applied.push(change);
        if (first) {
          first = false;
          await input.afterFirstWrite?.();
        }
      }
    }
    // The indexes, from the disk as it now is.
    const after = await readMemorySnapshot(memoryDir);
    for (const scope of ['private', 'team'] as const) {
      const rel = indexRelOf(scope);
      if (!input.indexesBefore.has(rel)) continue;
      const before = input.indexesBefore.get(rel) ?? null;
      const now = readCurrent(memoryDir, rel);
      if (now.problem || now.text !== before) {
        result.indexNotes.push(
          now.problem
            ? `${rel} could not be read (${now.problem}); Prune left it alone.`
            : `${rel} was changed by someone else while the dream ran; Prune left it alone.`,
        );
        continue;
      }
      const rels = [...after.files.values()].filter((f) => f.kind === 'topic' && f.scope === scope).map((f) => f.rel);
      // A MEMORY.md this dream creates starts from what Claude Code would have built from the
      // memories the dream did not write (seedIndex): Prune then tidies it as any index.
      const seed = await seedIndex(
        { memoryDir, scope },
        before,
        result.applied.map((c) => c.file),
      );
      const pruned = pruneScope(
        scope,
        seed || before,
        { rels, textOf: (r) => after.files.get(r)?.text ?? null, exists: (r) => readCurrent(memoryDir, r).text !== null || after.files.has(r) },
        input.index,
      );
      if (pruned.text === null || pruned.text === before) continue;
      journal.writes.push({ rel, before, afterHash: hashText(pruned.text) });
      await saveJournal();
      await writeOne(memoryDir, rel, pruned.text);
      result.indexNotes.push(describePrune(rel, pruned));
      const change: StagedChange = {
        file: rel,
        action: before === null ? 'create' : 'update',
        kind: 'index',
        reason: describePrune(rel, pruned),
        group: null,
        before,
        after: pruned.text,
      };
      result.applied.push(change);
      if (first) {
        first = false;
        await input.afterFirstWrite?.();
      }
    }
    description.body = input.describe(result);
    await input.beforeCommit?.(result);
  });
  result.entry = entry;
  await fs.rm(journalPath, { force: true });
  return result;
}

/** A dream whose apply was interrupted, and what recovery did. */
export interface ApplyRecovery {
  id: string;
  memoryDir: string;
  /** Files put back to their pre-dream content. */
  restored: string[];
  /** Files changed again since the crash: left as they are. */
  leftAlone: string[];
  /** The dream had in fact finished (its history entry exists): nothing to undo. */
  completed: boolean;
}

async function recoverJournal(file: string, dataDir: string): Promise<ApplyRecovery | null> {
  let journal: Journal;
  try {
    journal = JSON.parse(await fs.readFile(file, 'utf8')) as Journal;
  } catch {
    // Torn before it was complete: no write had started (the journal is written first).
    await fs.rm(file, { force: true });
    return null;
  }
  if (journal.version !== 1 || !Array.isArray(journal.writes)) return null;
  if (journal.host !== os.hostname()) return null;
  if (journal.pid === process.pid || isProcessAlive(journal.pid)) return null;
  const { memoryDir, id } = journal;
  const recovery: ApplyRecovery = { id, memoryDir, restored: [], leftAlone: [], completed: false };
  const exists = await fs.stat(memoryDir).then(
    () => true,
    () => false,
  );
  if (!exists) {
    await fs.rm(file, { force: true });
    return null;
  }
  const recent = await listHistory(memoryDir, { dataDir, limit: 50 }).catch(() => []);
  if (recent.some((e) => e.source === 'dream' && e.summary === `dream ${id}`)) {
    recovery.completed = true;
    await fs.rm(file, { force: true });
    return recovery;
  }
  // What the killed dream left on disk is recorded first, labelled, so history tells it apart from edits.
  await recordSnapshot(memoryDir, { source: 'dream', summary: `dream ${id} (interrupted while applying)`, dataDir });
  await transact(memoryDir, { source: 'dream', summary: `dream ${id} rolled back (interrupted)`, dataDir }, async () => {
    for (const w of journal.writes) {
      const now = readCurrent(memoryDir, w.rel);
      const nowHash = now.text === null ? null : hashText(now.text);
      if (now.problem === null && now.text === w.before) continue;
      if (now.problem !== null || nowHash !== w.afterHash) {
        recovery.leftAlone.push(w.rel);
        continue;
      }
      await writeOne(memoryDir, w.rel, w.before);
      recovery.restored.push(w.rel);
    }
  });
  await fs.rm(file, { force: true });
  return recovery;
}

/**
 * Puts back the files of every dream whose apply was cut short by a crash (its process is gone
 * and its history entry was never recorded). Journals of live dreams are left alone. With
 * `memoryDir`, only that dir's journal is looked at.
 */
export async function recoverInterruptedApply(opts: { dataDir: string; memoryDir?: string }): Promise<ApplyRecovery[]> {
  const dir = journalsDir(opts.dataDir);
  let names: string[];
  if (opts.memoryDir) names = [path.basename(await journalFile(opts.dataDir, opts.memoryDir))];
  else {
    try {
      names = (await fs.readdir(dir)).filter((n) => n.endsWith('.json'));
    } catch {
      return [];
    }
  }
  const out: ApplyRecovery[] = [];
  for (const name of names) {
    const file = path.join(dir, name);
    const exists = await fs.access(file).then(
      () => true,
      () => false,
    );
    if (!exists) continue;
    const one = await recoverJournal(file, opts.dataDir);
    if (one) out.push(one);
  }
  return out;
}
