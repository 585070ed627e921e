/**
 * One undo for a whole merge (issue 18: "one undo"): every directory the merge changed has its
 * merge entry undone (undoChange, the one undo of an entry), in one history entry of its own
 * (`restore`, "Undo <kind> <id>"): each memory file it wrote or removed as it was just before, its
 * own MEMORY.md lines reversed while lines added since stay (a memory Claude Code wrote after the
 * merge keeps its pointer), and the folders it created go again when that leaves them empty. A
 * memory file changed since the merge stops the undo before anything is written (it would silently
 * throw away that later work); the sentence names it. So does whatever undoing its entry there would
 * refuse (a memory it brings back beside another holding its name in another form, a file that is
 * not text), and a directory already as the undo would leave it — refuseTurn, the one place these
 * are decided, for the undo of a turn too. A team memory the sync server holds that the undo would
 * take away is retired instead (retireHeld), as every undo does — unless another folder of the merge
 * syncs it with the same team: the team had it before the merge, it is not the merge's to empty; a note says so.
 * Whole or nothing: every refusal is decided in every directory before any is written, and a write
 * only the disk refuses puts back the directories already turned (turnAsOne). Resolving a conflict the merge kept writes one history entry too, undone by
 * `memdir restore`.
 */
import type { MergeRecord } from '../../shared/contract/identity.js';
import { entriesSince, type HistoryEntry, HistoryError, readEntry, reinstateImportedHistory, retireImportedHistory, transact } from '../history/index.js';
import { linesFor, MemoryError, undoChange } from '../memdir/index.js';
import { MemdirError } from '../../shared/errors.js';
import { maskedName, refuseNewSecrets } from '../secrets/index.js';
import { readBytesOrNull } from '../core/confined-path.js';
import { processDataDir } from '../core/data-dir.js';
import { writeFileAtomic } from '../core/safe-fs.js';
import { unionMerge } from '../../shared/line-union.js';
import { mergedTextProblem } from '../../shared/conflict-markers.js';
import { listMergeRecords, readConflictBytes, readMergeRecord, saveMergeRecord } from './merge-records.js';
import { turnAsOne, type TurnStep, writesBackFirst } from './turn-as-one.js';
import { INDEX_FILE } from '../../shared/limits.js';
import path from 'node:path';

/** A file's text now (readBytesOrNull: confined; a memory folder that is a file says so, never "changed since"). */
async function readNow(root: string, rel: string): Promise<string | null> {
  return (await readBytesOrNull(root, rel))?.toString('utf8') ?? null;
}

async function requireRecord(dataDir: string, id: string): Promise<MergeRecord> {
  const record = await readMergeRecord(dataDir, id);
  if (!record) throw new MemoryError('not-found', `There is no merge ${id} in ${dataDir}; \`memdir merge list\` shows the merges done.`);
  return record;
}

/**
 * Undo merge `id` (see the module comment); returns the updated record, with `notes`: what an undo
 * anyway took away that was edited since (a pointer line), by directory. `overwriteChanged` (undo
 * anyway) overwrites the files changed since too: what was there is recorded in history first.
 * `anywayHow`: the command that undoes it anyway, for the refusal to name (the CLI's; the app
 * offers a button).
 */
export async function undoMerge(
  dataDir: string,
  id: string,
  opts: { overwriteChanged?: boolean; anywayHow?: string } = {},
): Promise<MergeRecord & { notes: string[] }> {
  const record = await requireRecord(dataDir, id);
  if (record.undone) throw new MemoryError('conflict', `Merge ${id} was already undone on ${record.undone.at}.`);
  // A conflict resolved by writing brought part of the other side in since: undoing around it would leave a mix.
  const resolved = record.conflicts.filter((c) => c.status === 'resolved' && c.resolution !== 'here').map((c) => path.join(c.memoryDir, c.file));
  const anyway = opts.overwriteChanged === true;
  await refuseTurn(record, record.touched, { dataDir, anyway, changed: resolved, ...(opts.anywayHow ? { anywayHow: opts.anywayHow } : {}) });
  const notes: string[] = [];
  // Each directory's merge entry undone by the one undo (the folders the merge made there go when empty, too),
  // where it writes the memories back first.
  const steps = (await undoOrder(dataDir, record.touched)).map((t) => ({
    memoryDir: t.memoryDir,
    run: async (step: TurnStep) => {
      const retire = await retireHeld(t.memoryDir, dataDir, record);
      const done = await undoChange({
        memoryDir: t.memoryDir,
        dataDir,
        rev: t.rev,
        overwriteChanged: anyway,
        as: { summary: `Undo ${record.kind} ${id}`, body: `Put back ${t.files.join(', ')} as they were before merge ${id}.` },
        retire,
        ...step,
      });
      const retired = retire.said(done.notes);
      notes.push(...[...(done.dropped ?? []), ...retired].map((d) => `In ${t.memoryDir}: ${d}`));
      return done.entry;
    },
  }));
  const marked = await turnAsOne(steps, dataDir, record, `undoing ${record.kind} ${id}`, (revs) => markMerge(dataDir, record, 'undone', revs));
  return { ...marked, notes };
}

/**
 * What an undo in `memoryDir` retires instead of deleting (undoChange's `retire`): the team memories
 * the sync server holds (team/shared-keys.ts's retireInstead, R-SYNC: a deleted one comes back with
 * the next sync), with `said` picking its note out of the undo's notes. A turn of merge `record`
 * passes the merge's folders: a team memory another of them syncs with the same team is the team's,
 * not the merge's to retire (retireInstead's `others`). Loaded here, not with relink (as
 * relink-service.ts's team sync warning): team sync's code waits until after the app's first list.
 */
async function retireHeld(memoryDir: string, dataDir: string, record?: MergeRecord) {
  const retire = await retireBeside(memoryDir, dataDir, record ? [record] : []);
  const notes: string[] = [];
  return {
    instead: retire.instead,
    note: (rels: readonly string[]) => {
      const note = retire.note(rels);
      if (note) notes.push(note);
      return note;
    },
    said: (all: readonly string[]) => all.filter((n) => notes.includes(n)),
  };
}

/**
 * What a whole-snapshot restore of `memoryDir` to `rev` (History's "Restore this version",
 * `memdir restore`, and its plan) retires instead of deleting: as an undo of every merge it takes
 * back — the merges with an entry in `memoryDir` since `rev` — would (retireHeld). One call for the
 * CLI and the app.
 */
export async function retireForRestore(memoryDir: string, dataDir: string, rev: string) {
  const since = new Set((await entriesSince(memoryDir, rev, { dataDir })).map((e) => e.rev));
  const here = path.resolve(memoryDir);
  const merges = (await listMergeRecords(dataDir)).filter((r) => r.touched.some((t) => path.resolve(t.memoryDir) === here && since.has(t.rev)));
  return retireBeside(memoryDir, dataDir, merges);
}

/** retireInstead in `memoryDir`, the other folders of `merges` named as those whose team keeps its memories (its `others`). */
async function retireBeside(memoryDir: string, dataDir: string, merges: readonly MergeRecord[]) {
  const { retireInstead } = await import('../team/index.js');
  const here = path.resolve(memoryDir);
  const others = [...new Set(merges.flatMap((r) => r.touched.map((t) => path.resolve(t.memoryDir))))].filter((d) => d !== here);
  return retireInstead(memoryDir, dataDir, others);
}

/**
 * `dirs` (each a directory with its entry of a turn of a merge) in the order a turn undoes them
 * (writesBackFirst): first those whose undo writes a memory back — their entry took it out — then
 * those whose undo takes memories out. Killed between them, the memories are in both, never in neither.
 */
export async function undoOrder<T extends { memoryDir: string; rev: string }>(dataDir: string, dirs: readonly T[]): Promise<T[]> {
  const writesBack = new Set<T>();
  for (const d of dirs) {
    const entry = await readEntry(d.memoryDir, d.rev, { dataDir });
    if (entry.files.some((f) => f.status === 'deleted' && path.posix.basename(f.path) !== INDEX_FILE)) writesBack.add(d);
  }
  return writesBackFirst(dirs, (d) => writesBack.has(d));
}

/** What turning merge `record` once more does, in words: "take relink X away", "bring relink X back", "take relink X away again". */
function turnWords(record: MergeRecord): string {
  return record.undone ? `bring ${record.kind} ${record.id} back` : `take ${record.kind} ${record.id} away${record.redone ? ' again' : ''}`;
}

/**
 * The one place every refusal of turning merge `record` as one is decided — `memdir merge undo`
 * (undoMerge) and the undo of a turn's entry (undoHistoryEntry) alike — before anything is written
 * anywhere, one sentence for each reason, naming the directory and the files. `dirs`: each
 * directory to turn with its history entry there (`here`, the one
 * whose entry is being undone, was checked by its own undo already). In this order:
 * - what the undo there refuses by itself (undoChange's check-only pass, as if anyway: a memory
 *   folder that is a file, a file that is not UTF-8, another memory at a name it writes or holding
 *   it in another Unicode form);
 * - a directory already as the turn would leave it while another is not — its memories deleted or
 *   put back by hand since: turning only the others would leave the merge half turned, its record
 *   naming only them (a later undo of the turn would miss that directory), and undoing anyway
 *   cannot help, so it is not offered;
 * - a file changed since in any of them — as that undo decides it (the same check-only pass,
 *   asked again once all were checked): a memory file, or an index whose pointer line the entry
 *   wrote was edited since (named with the memory; a line added since never counts, it is kept) — or one
 *   of `changed` (a conflict resolved by writing):
 *   unless `anyway`, which overwrites them (what is there now stays in history); `anywayHow` is
 *   the command that does so (`memdir merge undo <id> --overwrite-changed`), when there is one to name.
 */
async function refuseTurn(
  record: MergeRecord,
  dirs: readonly { memoryDir: string; rev: string }[],
  opts: {
    dataDir: string;
    anyway: boolean;
    changed?: readonly string[];
    anywayHow?: string;
    here?: { memoryDir: string; already: string[] | undefined };
  },
): Promise<void> {
  const what = turnWords(record);
  const refused = (where: string, why: string) => `Nothing was undone: this would ${what} in every directory it changed, and in ${where}, ${why}`;
  const already: { memoryDir: string; files: string[] | undefined }[] = opts.here ? [{ memoryDir: opts.here.memoryDir, files: opts.here.already }] : [];
  for (const d of dirs) {
    try {
      const checked = await undoChange({ memoryDir: d.memoryDir, dataDir: opts.dataDir, rev: d.rev, overwriteChanged: true, checkOnly: true });
      already.push({ memoryDir: d.memoryDir, files: checked.already });
    } catch (error) {
      if (!(error instanceof MemdirError)) throw error;
      throw new MemdirError(error.code, refused(d.memoryDir, error.message.replace(/^Nothing was undone: /, '')), { cause: error });
    }
  }
  const still = already.find((a) => a.files);
  if (still && already.some((a) => !a.files)) {
    const files = still.files!;
    const one = files.length === 1;
    throw new MemoryError(
      'invalid-input',
      refused(
        still.memoryDir,
        `${files.join(', ')} ${one ? 'is' : 'are'} already as that would leave ${one ? 'it' : 'them'} (changed outside this ${record.kind} since), so only the other directories would turn. Put ${one ? 'it' : 'them'} back there first (\`memdir restore\`), then undo again.`,
      ),
    );
  }
  // Asked again of each once all were checked: a file changed while a later directory's check waited for its writer counts too.
  const changed = [...(opts.changed ?? [])];
  if (!opts.anyway)
    for (const d of dirs) {
      const checked = await undoChange({ memoryDir: d.memoryDir, dataDir: opts.dataDir, rev: d.rev, overwriteChanged: true, checkOnly: true });
      for (const f of checked.touched ?? []) {
        const lines = checked.editedLines?.find((e) => e.index === f)?.files;
        changed.push(`${path.join(d.memoryDir, f)}${lines ? ` (the ${linesFor(lines)})` : ''}`);
      }
    }
  if (changed.length > 0 && !opts.anyway) {
    const one = changed.length === 1;
    throw new MemoryError(
      'conflict',
      `Nothing was undone: this would ${what} in every directory it changed, and ${one ? 'this file was' : 'these files were'} changed there since — ${changed.join(', ')}. Put ${one ? 'it' : 'them'} back first (\`memdir restore\`), or undo anyway${opts.anywayHow ? ` (${opts.anywayHow})` : ''}: what is there now stays in history.`,
    );
  }
}

/**
 * Record merge `record` as taken back (`undone`) or standing again (`redone`) by the history
 * entries `revs` (one per directory): undoing one of them turns it the other way
 * (undoHistoryEntry). The one place an import's history loses its standing (nothing restores from
 * it while the import is undone) and gets it back.
 */
async function markMerge(dataDir: string, record: MergeRecord, now: 'undone' | 'redone', revs: string[]): Promise<MergeRecord> {
  const turn = { at: new Date().toISOString(), revs };
  if (record.kind === 'import') {
    const move = now === 'undone' ? retireImportedHistory : reinstateImportedHistory;
    await move(record.plan.target.memoryDir, record.id, { dataDir });
  }
  const updated: MergeRecord = {
    ...record,
    undone: now === 'undone' ? turn : null,
    redone: now === 'redone' ? turn : null,
    earlier: [...record.earlier, ...((record.undone ?? record.redone)?.revs ?? [])],
  };
  await saveMergeRecord(dataDir, updated);
  return updated;
}

/**
 * Undo history entry `rev` of `memoryDir` — memdir's undoChange, the one undo of an entry, for the
 * CLI's `memdir undo` and the app's History page alike. When that entry turned a merge (the undo
 * `memdir merge undo` wrote there, or an undo of one of those, at any depth), the merge turns
 * again, as one, in every directory it changed — undone in one of them alone, a relink's memories
 * would be in both places, or in neither — and its record follows: `memdir merge list`, and an
 * import's history (restored from only while the import stands), say where it is now. This
 * directory's undo is first run check-only (undoChange's checkOnly: its own refusals, in its words),
 * then every other's refusals are decided as for `memdir merge undo` (refuseTurn: another directory
 * changed since its entry stops the undo, naming the files, unless the person undoes anyway, which
 * overwrites there too — what was there stays in history); then each is written, and a write the
 * disk refuses puts back the others (turnAsOne).
 * The merge's own entry (a relink's, an import's), undone while the merge stands, undoes it whole,
 * as `memdir merge undo` does — anyway too, overwriting the files changed since. When the entry holds a move to the team anyway, what that move
 * allowed team sync to share is withdrawn (team/move-scope.ts's moveAllowsOf), and a note says so.
 * A team memory the sync server holds that the undo would take away is retired instead
 * (team/shared-keys.ts's retiredInsteadOfDeleted: a deleted one comes back with the next sync).
 */
export async function undoHistoryEntry(opts: Parameters<typeof undoChange>[0]): Promise<Awaited<ReturnType<typeof undoChange>> & { elsewhere?: Elsewhere[] }> {
  const turned = opts.dataDir ? await mergeTurnedBy(opts.dataDir, opts.memoryDir, opts.rev) : null;
  if (!turned) {
    // Loaded here, not with relink (as relink-service.ts's team sync warning): team sync's code waits until after the app's first list.
    const { moveAllowsOf } = await import('../team/index.js');
    const allows = await moveAllowsOf(opts.memoryDir, opts.dataDir ?? processDataDir(), opts.rev);
    const done = await undoChange({ ...opts, retire: await retireHeld(opts.memoryDir, opts.dataDir ?? processDataDir()) });
    return { ...done, notes: [...done.notes, ...(await allows.withdraw())] };
  }
  const dataDir = opts.dataDir!;
  if ('merge' in turned) {
    // The merge's own entry, while it stands: undone whole, as `memdir merge undo` does (its checks, its entries).
    const undone = await undoMerge(dataDir, turned.merge.id, opts.overwriteChanged ? { overwriteChanged: true } : {});
    const here = await entryIn([opts.memoryDir], undone.undone!.revs, dataDir);
    const elsewhere = undone.touched.filter((t) => path.resolve(t.memoryDir) !== path.resolve(opts.memoryDir)).map((t) => t.memoryDir);
    const note = `This entry is ${undone.kind} ${undone.id}: it was undone whole, as \`memdir merge undo ${undone.id}\` does${elsewhere.length > 0 ? ` — ${elsewhere.join(', ')} too` : ''}.`;
    const others = (await turnEntries(dataDir, undone)).filter((t) => path.resolve(t.memoryDir) !== path.resolve(opts.memoryDir));
    return { entry: here?.entry ?? null, notes: [note, ...undone.notes], elsewhere: others.map((o) => ({ ...o, undone: null })) };
  }
  const { record, others } = turned;
  const anyway = opts.overwriteChanged ? { overwriteChanged: true } : {};
  // This directory's undo decides its own refusals first, in its own words (the later changes here, by name).
  const checked = await undoChange({ ...opts, checkOnly: true });
  await refuseTurn(
    record,
    others.map((o) => ({ memoryDir: o.memoryDir, rev: o.entry.rev })),
    { dataDir, anyway: opts.overwriteChanged === true, here: { memoryDir: opts.memoryDir, already: checked.already } },
  );
  let here: HistoryEntry | null = null;
  const notes: string[] = [];
  const elsewhere: Elsewhere[] = [];
  const turn = (memoryDir: string, rev: string, first: boolean) => ({
    memoryDir,
    run: async (step: TurnStep) => {
      const retire = await retireHeld(memoryDir, dataDir, record);
      const done = await undoChange({ ...(first ? opts : { memoryDir, dataDir, rev }), ...anyway, retire, ...step });
      if (first) here = done.entry;
      else elsewhere.push({ memoryDir, undone: rev, entry: done.entry });
      notes.push(...done.notes);
      return done.entry;
    },
  });
  const dirs = [{ memoryDir: opts.memoryDir, rev: opts.rev, first: true }, ...others.map((o) => ({ memoryDir: o.memoryDir, rev: o.entry.rev, first: false }))];
  const steps = (await undoOrder(dataDir, dirs)).map((d) => turn(d.memoryDir, d.rev, d.first));
  await turnAsOne(
    steps,
    dataDir,
    record,
    `${record.undone ? 'bringing' : 'taking'} ${record.kind} ${record.id} ${record.undone ? 'back' : 'away again'}`,
    async (revs) => (revs.length > 0 ? markMerge(dataDir, record, record.undone ? 'redone' : 'undone', revs) : record),
  );
  if (others.length > 0)
    notes.push(`${others.map((o) => o.memoryDir).join(', ')} ${others.length === 1 ? 'was' : 'were'} undone too, to ${turnWords(record)} whole.`);
  return { entry: here, notes, elsewhere };
}

/**
 * Another directory a merge's turn changed when one entry was undone (undoHistoryEntry): the entry
 * undone there (null when the merge was undone whole) and the one the turn wrote — for the records
 * that follow an undo there too (a dream's: revert-dream.ts's followUndo).
 */
export interface Elsewhere {
  memoryDir: string;
  undone: string | null;
  entry: HistoryEntry | null;
}

/**
 * What history entry `rev` of `memoryDir` is to a merge: the merge's own entry while it stands
 * (`merge`), or the entry that last turned it here — with that turn's entries in the other
 * directories it changed (`record`, `others`); null when neither. An entry of an older turn of a
 * merge is refused (olderTurn). Reads the entry only when a merge changed this directory.
 */
async function mergeTurnedBy(
  dataDir: string,
  memoryDir: string,
  rev: string,
): Promise<{ record: MergeRecord; others: { memoryDir: string; entry: HistoryEntry }[] } | { merge: MergeRecord } | null> {
  const here = path.resolve(memoryDir);
  const merges = (await listMergeRecords(dataDir)).filter((r) => r.touched.some((t) => path.resolve(t.memoryDir) === here));
  if (merges.length === 0) return null;
  const full = (await readEntry(memoryDir, rev, { dataDir })).rev;
  const merge = merges.find((r) => !r.undone && r.touched.some((t) => t.rev === full));
  if (merge) return { merge };
  const record = merges.find((r) => (r.undone ?? r.redone)?.revs.includes(full));
  if (!record) {
    const passed = merges.find((r) => r.earlier.includes(full));
    if (passed) throw await olderTurn(passed, memoryDir, dataDir);
    return null;
  }
  const others: { memoryDir: string; entry: HistoryEntry }[] = [];
  const dirs = [...new Set(record.touched.map((t) => t.memoryDir))].filter((d) => path.resolve(d) !== here);
  for (const other of (record.undone ?? record.redone)!.revs.filter((r) => r !== full)) {
    const found = await entryIn(dirs, [other], dataDir);
    if (!found)
      throw new MemoryError(
        'not-found',
        `Nothing was undone: this entry turned ${record.kind} ${record.id} in every directory it changed, and its entry ${other.slice(0, 10)} is no longer in the history of any of them.`,
      );
    others.push(found);
  }
  return { record, others };
}

/**
 * The refusal for an entry of a turn of merge `record` older than its latest: undoing it would turn
 * the merge in this directory alone (its memories in both places, or in neither) — the sentence
 * names the latest turn's entry, here when it has one, which turns it as one.
 */
async function olderTurn(record: MergeRecord, memoryDir: string, dataDir: string): Promise<MemoryError> {
  const latest = record.undone ?? record.redone;
  const dirs = [memoryDir, ...new Set(record.touched.map((t) => t.memoryDir))];
  const found = latest ? await entryIn(dirs, latest.revs, dataDir) : null;
  const where = found && path.resolve(found.memoryDir) !== path.resolve(memoryDir) ? ` in ${found.memoryDir}` : '';
  const instead = found
    ? `undo its latest turn's entry${where} instead — ${found.entry.rev.slice(0, 10)} ("${found.entry.summary}") — which turns it in every directory it changed`
    : latest
      ? `its latest turn's entries are no longer in the history of any directory it changed`
      : `it stands as it was made: \`memdir merge undo ${record.id}\` undoes it in every directory it changed`;
  return new MemoryError(
    'invalid-input',
    `Nothing was undone: this entry turned ${record.kind} ${record.id} before its latest turn, and undoing it would turn it in this directory alone; ${instead}.`,
  );
}

/** The first directory among `dirs` whose history holds one of the entries `revs`, with that entry; null when none does. */
/**
 * The entries the latest turn of merge `record` (its undo, or its redo) wrote, each with its
 * directory: what a door that turned it tells the dreams of those directories (a dream whose changes
 * the undo took back is reverted).
 */
export async function turnEntries(dataDir: string, record: MergeRecord): Promise<{ memoryDir: string; entry: HistoryEntry }[]> {
  const revs = (record.undone ?? record.redone)?.revs ?? [];
  const dirs = [...new Set(record.touched.map((t) => t.memoryDir))];
  return (await Promise.all(dirs.map((d) => entryIn([d], revs, dataDir)))).filter((e) => e !== null);
}

async function entryIn(dirs: readonly string[], revs: readonly string[], dataDir: string): Promise<{ memoryDir: string; entry: HistoryEntry } | null> {
  for (const memoryDir of dirs) {
    for (const rev of revs) {
      try {
        return { memoryDir, entry: await readEntry(memoryDir, rev, { dataDir }) };
      } catch (error) {
        if (!(error instanceof HistoryError)) throw error;
      }
    }
  }
  return null;
}

/** Both versions of conflict `n`: the one in place and the one the merge kept. */
export async function conflictSides(dataDir: string, id: string, n: number): Promise<{ record: MergeRecord; here: string; moved: string; both: string }> {
  const record = await requireRecord(dataDir, id);
  const conflict = record.conflicts.find((c) => c.n === n);
  if (!conflict) throw new MemoryError('not-found', `Merge ${id} kept no conflict number ${n}.`);
  const kept = await readConflictBytes(dataDir, id, n);
  if (!kept) throw new MemoryError('not-found', `The kept version of ${(await maskedName(conflict.file)).masked} is missing from Memdir's data folder.`);
  const here = (await readNow(conflict.memoryDir, conflict.file)) ?? '';
  const moved = kept.toString('utf8');
  // What keeping both writes, and the text the app's merge editor starts from: every line of
  // both, common lines once, the version here first where they differ — one order for the CLI's
  // `--keep both` and the app alike.
  return { record, here, moved, both: unionMerge(here, moved) };
}

/**
 * Resolve conflict `n` of merge `id`: `here` keeps the file as it is (nothing written), `moved`
 * writes the version the merge kept, `both` every line of both (the one here first where they
 * differ), `merged` the given text — refused when it holds a secret neither version held, unless
 * its fingerprint is in `allowSecrets` (secrets/save-guard.ts). One history entry in that directory.
 */
export async function resolveMergeConflict(
  dataDir: string,
  id: string,
  n: number,
  keep: 'here' | 'moved' | 'both' | 'merged',
  text?: string,
  allowSecrets?: readonly string[],
): Promise<MergeRecord> {
  const { record, here, moved, both } = await conflictSides(dataDir, id, n);
  const conflict = record.conflicts.find((c) => c.n === n)!;
  // How every sentence and the history entry name the file: a secret in its name masked.
  const named = (await maskedName(conflict.file)).masked;
  if (conflict.status === 'resolved') throw new MemoryError('conflict', `${named} of merge ${id} was already resolved (${conflict.resolution}).`);
  if (keep === 'merged' && text === undefined) throw new MemoryError('invalid-input', 'Keeping a merged version needs the merged text (--file F).');
  const content = keep === 'moved' ? moved : keep === 'both' ? both : keep === 'merged' ? text! : null;
  const problem = keep === 'merged' ? mergedTextProblem(named, text!) : null;
  if (problem) throw new MemoryError('invalid-input', problem);
  if (keep === 'merged') await refuseNewSecrets({ label: named, text: text!, before: [here, moved], allow: allowSecrets });
  if (content !== null && content !== here) {
    const what = keep === 'moved' ? 'took the moved version' : keep === 'both' ? 'kept both versions' : 'saved a merge of both';
    await transact(conflict.memoryDir, { source: 'manual', summary: `Resolve ${named} of merge ${id}: ${what}`, dataDir }, () =>
      writeFileAtomic(conflict.memoryDir, conflict.file, content),
    );
  }
  const updated: MergeRecord = {
    ...record,
    conflicts: record.conflicts.map((c) => (c.n === n ? { ...c, status: 'resolved' as const, resolution: keep, resolvedAt: new Date().toISOString() } : c)),
  };
  await saveMergeRecord(dataDir, updated);
  return updated;
}
