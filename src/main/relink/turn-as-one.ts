/**
 * Changing two (or more) memory folders as one — a merge being made (relink, clone merge,
 * import), its undo, the undo of that undo — and what makes that whole even when the process dies
 * between the folders or inside one (kill -9, a force quit, a power cut).
 *
 * Before the first folder is written, the intent is recorded in Memdir's data folder
 * (`<dataDir>/merges/turning.json`, written atomically and fsynced): the operation and its merge
 * record, the turn's own tag, and the record's state before (so a turn that finished is told from
 * one that did not). Then, inside each step's history transaction, just before its first write,
 * the step's plan goes into it too, durably: each file it writes there, as it is now and as the
 * step leaves it (MEMORY.md as whole texts, so its lines can be reversed one by one). Each step's
 * history entry carries the turn's tag (a `Memdir-Turn` trailer no body can spoof). The intent
 * goes after the last folder is written and the record saved. One turn at a time per data folder
 * (a lock, the same policy as every Memdir lock: a killed holder is taken over at once, a live one
 * is waited for), so an intent on disk that nobody holds is one a dead process left.
 *
 * The way back is one (putBack), folder by folder — the folders it writes back to before those it
 * only takes out of (putBackOrder), so a memory the turn moved is never in neither folder, even when
 * putting back stops half-way — and it owns exactly the turn's own writes, never anything inferred
 * from history:
 * - the step's own entry (found by its tag) is undone by the one undo (undoChange): its memory
 *   files as before, only its own MEMORY.md lines reversed, the lines added since kept; it
 *   refuses when one of its files changed since (a memory, a MEMORY.md line edited) — then, as when
 *   the step never recorded its entry (killed inside the folder; its writes perhaps recorded by
 *   someone else as outside changes meanwhile), or the entry holds a file the step did not plan (a
 *   change made outside while the step ran, which it must not take back),
 * - the step's plan: each file still as the step left it, and touched by no change recorded since
 *   but outside ones, goes back as it was; one changed since — or deleted or renamed in the app
 *   since, which leaves it as the step would have — is kept as it is, and named with that change
 *   (its history has both); MEMORY.md gets the step's own lines reversed. A file kept so where it
 *   should have gone back keeps the turn's copy of it in the other folder too: the only one.
 * What anyone else wrote meanwhile — the person in the app, a dream, Claude Code — stays; a
 * pointer line the step wrote that was edited since goes with its memory, said.
 *
 * A write the disk refuses takes it at once (journal.stopped: turnAsOne, a merge being made); an
 * intent a dead process left takes it the next time anything opens the merges
 * (finishUnfinishedTurn: the app's start, every relink and merge command). It is idempotent: killed while putting back, the intent is still there, and the
 * next time puts back what is still as the step left it. A put-back that fails keeps the intent,
 * says so at once, and no other turn starts until it is put back (journaled refuses).
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import * as z from 'zod';
import type { MergeRecord } from '../../shared/contract/identity.js';
import { MemdirError } from '../../shared/errors.js';
import { parseIndex, removeIndexEntries, serializeIndex } from '../../shared/index-format.js';
import { revertIndexChange } from '../../shared/index-restore.js';
import { INDEX_FILE } from '../../shared/limits.js';
import { listInWords, quotedLines } from '../../shared/size-text.js';
import { readBytesOrNull } from '../core/confined-path.js';
import { withLock } from '../core/lock.js';
import { removeFileConfined, writeDataFile, writeFileAtomic } from '../core/safe-fs.js';
import { entriesSince, headRevision, type HistoryEntry, readAtRevision, transact } from '../history/index.js';
import { editedLinesWent, MemoryError, type PlannedWrite, pointerPlacesAt, revertedIndexWrite, undoChange } from '../memdir/index.js';
import { mergesDir, readMergeRecord, saveMergeRecord } from './merge-records.js';

const JOURNAL = 'turning.json';

/** `<dataDir>/merges/turning.json`: the intent of the turn under way, or one a dead process left. */
export function journalFile(dataDir: string): string {
  return path.join(mergesDir(dataDir), JOURNAL);
}

/** Per data folder, what was finished and not told yet (a turn that finished one first, before its own). */
const untold = new Map<string, string[]>();

/** File contents in the journal: base64 (a memory file may be any bytes), null for no file. */
const content = z.string().nullable();
const stepSchema = z.object({
  memoryDir: z.string(),
  /** The folder's history head when the step planned (inside its transaction): its entry's parent. */
  head: z.string().nullable(),
  /** Each file the step writes there: as it was (`before`) and as the step leaves it (`after`). */
  writes: z.array(z.object({ file: z.string(), before: content, after: content })),
  /** The folders its writes make (not there when it planned; `.` the folder itself): a put-back takes them away again when empty. */
  made: z.array(z.string()).optional(),
});
const intentSchema = z.object({
  /** The merge record this turn makes (`apply`: none until the end) or turns (`turn`: an undo, or an undo of one). */
  op: z.enum(['apply', 'turn']),
  id: z.string(),
  kind: z.enum(['relink', 'merge', 'import']),
  /** What the turn is, in words: "undoing merge 20261206-…", "merging projects/a into projects/b". */
  what: z.string(),
  /** The tag of this turn's history entries (their `Memdir-Turn` trailer). */
  turn: z.string(),
  /** Every folder it writes, in order. */
  folders: z.array(z.string()),
  /** The steps begun, in order, each with its plan. */
  steps: z.array(stepSchema),
  /** The record's turn before (`made`, `undone <at>`, `redone <at>`), or null when it makes the record. */
  recordState: z.string().nullable(),
  startedAt: z.string(),
  pid: z.number(),
});
/** What a turn records before it writes (see the module comment). */
export type TurnIntent = z.infer<typeof intentSchema>;
type Step = TurnIntent['steps'][number];

/** A file's bytes as the journal keeps them. */
function encode(text: string | Buffer | null): string | null {
  return text === null ? null : (typeof text === 'string' ? Buffer.from(text, 'utf8') : text).toString('base64');
}

function decode(text: string | null): Buffer | null {
  return text === null ? null : Buffer.from(text, 'base64');
}

/** Where a turn of a merge stands in its record: a finished turn changes it. */
function turnState(record: MergeRecord): string {
  return record.undone ? `undone ${record.undone.at}` : record.redone ? `redone ${record.redone.at}` : 'made';
}

/** One turn at a time per data folder; `timeoutMs` long a live one is waited for. */
function withTurnLock<T>(dataDir: string, fn: () => Promise<T>, timeoutMs = 60_000): Promise<T> {
  const lock = path.join(dataDir, 'locks', 'merge-turn.lock');
  const busy = 'Another Memdir process is changing the folders of a merge; try again in a moment';
  return withLock(lock, fn, {
    timeoutMs,
    busy,
    lost: 'Lost the merge lock while changing the folders of a merge (another process took it over); check `memdir merge list` and try again',
  });
}

async function writeIntent(dataDir: string, intent: TurnIntent): Promise<void> {
  await writeDataFile(journalFile(dataDir), `${JSON.stringify(intent, null, 2)}\n`, { what: 'its note of the change under way' });
}

async function removeIntent(dataDir: string): Promise<void> {
  await removeFileConfined(mergesDir(dataDir), JOURNAL).catch(async (error: unknown) => {
    if (await hasIntent(dataDir)) throw error;
  });
}

async function hasIntent(dataDir: string): Promise<boolean> {
  return fs.access(journalFile(dataDir)).then(
    () => true,
    () => false,
  );
}

/** What a turn tells the journal before it starts; its steps it adds as it goes. */
export type TurnPlan = Omit<TurnIntent, 'turn' | 'steps' | 'recordState' | 'startedAt' | 'pid'> & { record: MergeRecord | null };

/** A file a step writes (an undo's PlannedWrite, or a merge's bytes). */
export type StepWrite = { file: string; before: string | Buffer | null; after: string | Buffer | null };

/** What the body of a journalled turn is given. */
export interface TurnJournal {
  /** The tag each step's history entry carries (ChangeDescription.turn). */
  turn: string;
  /** Called inside a step's transaction, just before its first write: its plan goes into the journal, durably. */
  plan(memoryDir: string, writes: readonly StepWrite[]): Promise<void>;
  /** Put back every step begun (see putBack); when that fails the intent stays, for the next time. */
  putBack(record: MergeRecord | null): Promise<PutBack>;
  /**
   * A write the disk refused (`error`) stopped the turn in `memoryDir`: every step begun is put
   * back (putBack), and the error to throw says where it stopped, why, and what was put back — a
   * merge that had not begun writing throws its own error as it is.
   */
  stopped(error: unknown, memoryDir: string): Promise<unknown>;
}

/**
 * Run `body` as one turn of `plan`, journalled (see the module comment). Refused, in a sentence,
 * while a turn a dead process left cannot be put back. The intent goes once the body has returned
 * — after the record is saved — or thrown (its error already said what was put back), unless a
 * put-back failed: then it stays for the next time.
 */
export async function journaled<T>(dataDir: string, plan: TurnPlan, body: (journal: TurnJournal) => Promise<T>): Promise<T> {
  return withTurnLock(dataDir, async () => {
    const left = await finishLocked(dataDir);
    if (left && !left.done)
      throw new MemdirError(
        'conflict',
        `Nothing was started: ${left.sentence} Until it is put back, no merge, relink or import starts; once the folder can be written again, \`memdir merge list\` (or the app's start) puts it back.`,
      );
    // A turn a dead process left, finished first: its sentence is told at the next front door.
    if (left) untold.set(dataDir, [...(untold.get(dataDir) ?? []), left.sentence]);
    const { record, ...rest } = plan;
    const intent: TurnIntent = {
      ...rest,
      turn: randomUUID(),
      steps: [],
      recordState: record ? turnState(record) : null,
      startedAt: new Date().toISOString(),
      pid: process.pid,
    };
    await writeIntent(dataDir, intent);
    let keep = false;
    const journal: TurnJournal = {
      turn: intent.turn,
      plan: async (memoryDir, writes) => {
        const own = writes.filter((w) => !sameBytes(w.before, w.after)).map((w) => ({ file: w.file, before: encode(w.before), after: encode(w.after) }));
        intent.steps.push({ memoryDir, head: await headRevision(memoryDir, { dataDir }), writes: own, made: await foldersMadeBy(memoryDir, own) });
        await writeIntent(dataDir, intent);
      },
      putBack: async (now) => {
        const back = await putBack(intent, dataDir, now);
        keep = back.failed.length > 0;
        return back;
      },
      stopped: async (error, memoryDir) =>
        intent.op === 'apply' && intent.steps.length === 0 ? error : stoppedError(error, memoryDir, intent, await journal.putBack(record)),
    };
    try {
      return await body(journal);
    } finally {
      if (!keep) await removeIntent(dataDir);
    }
  });
}

/** The folders writing `writes` into `memoryDir` makes: those on the way to a file it writes that are not there now (`.`: the folder itself). */
async function foldersMadeBy(memoryDir: string, writes: readonly { file: string; after: string | null }[]): Promise<string[]> {
  const there = (rel: string) =>
    fs.lstat(path.join(memoryDir, rel)).then(
      () => true,
      () => false,
    );
  const made = new Set<string>();
  for (const w of writes) {
    if (w.after === null) continue;
    const parts = w.file.split('/').slice(0, -1);
    for (const rel of ['.', ...parts.map((_, i) => parts.slice(0, i + 1).join('/'))]) if (!made.has(rel) && !(await there(rel))) made.add(rel);
  }
  return [...made];
}

/** Takes away the folders step `step` made (foldersMadeBy), each only when empty now, deepest first: the folder is as before the step. */
async function removeFoldersMade(step: Step): Promise<void> {
  const made = (step.made ?? []).filter((rel) => rel === '.' || rel.split('/').every((part) => part !== '' && part !== '.' && part !== '..'));
  // rmdir removes only an empty folder, and never follows a link.
  for (const rel of made.sort((a, b) => b.length - a.length)) await fs.rmdir(path.resolve(step.memoryDir, rel)).catch(() => undefined);
}

function sameBytes(a: string | Buffer | null, b: string | Buffer | null): boolean {
  if (a === null || b === null) return a === b;
  return Buffer.from(a).equals(Buffer.from(b));
}

/** What a step of turnAsOne gives the undo it runs (undoChange's options of the same names). */
export interface TurnStep {
  turn: string;
  beforeWrite: (writes: PlannedWrite[]) => Promise<void>;
}

/**
 * Turn a merge in each of its directories, one after the other (`steps`: each writes one directory
 * in one history entry, tagged with the turn and journalled first — `undoChange`'s `turn` and
 * `beforeWrite` — and returns it), then `finish` with the entries made (it saves the record). Every
 * refusal was decided before the first step; what only a write finds out (no permission, the disk
 * full) stops a step — then what the turn had written, in the stopped directory too, is put back
 * (putBack), so the merge stands as it was, whole, and the sentence says where it stopped, why,
 * and what was put back. `what` names the turn ("undoing relink …"). When putting back fails too,
 * the sentence says the merge is half turned and where, and the intent stays for the next time;
 * every step stays in history either way, and the record of merge `record` keeps those entries
 * among its earlier ones: undoing one of them alone would turn the merge in one directory (refused,
 * as for an older turn's entry).
 */
export async function turnAsOne<R>(
  steps: { memoryDir: string; run: (step: TurnStep) => Promise<HistoryEntry | null> }[],
  dataDir: string,
  record: MergeRecord,
  what: string,
  finish: (revs: string[]) => Promise<R>,
): Promise<R> {
  const plan = { op: 'turn' as const, id: record.id, kind: record.kind, what, folders: steps.map((s) => s.memoryDir), record };
  return journaled(dataDir, plan, async (journal) => {
    const revs: string[] = [];
    for (const step of steps) {
      try {
        const entry = await step.run({ turn: journal.turn, beforeWrite: (writes) => journal.plan(step.memoryDir, writes) });
        if (entry) revs.push(entry.rev);
      } catch (error) {
        throw await journal.stopped(error, step.memoryDir);
      }
    }
    return finish(revs);
  });
}

/**
 * What putting back did: the folders put back, those where it failed (with why), the files kept
 * because someone changed them since the turn planned them (each named, with the change when
 * history has it), and what it took away although edited since, in sentences.
 */
interface PutBack {
  back: string[];
  failed: string[];
  kept: string[];
  dropped: string[];
  /** A copy the turn wrote that stays, in sentences: the one it was moved from was kept (written since), so it is the only one. */
  stays: string[];
  /** The folders where a file the turn wrote was kept as it is (`kept`, `stays`): something of the turn was there, and was left. */
  keptIn: string[];
}

/**
 * The order steps are put back in: those whose put-back writes a file back (the step removed or
 * changed one) before those whose put-back only removes what the step added, newest first within
 * each, a folder's steps together. A memory moved from one folder to the other is so written back
 * where it was taken from before it is taken from where it was written: a put-back that fails half
 * way (a folder that cannot be written) leaves it in two places, never in none.
 */
function putBackOrder(steps: readonly Step[]): Step[] {
  const restores = new Set(steps.filter((s) => s.writes.some((w) => !isIndex(w.file) && w.before !== null)).map((s) => path.resolve(s.memoryDir)));
  return writesBackFirst([...steps].reverse(), (s) => restores.has(path.resolve(s.memoryDir)));
}

/**
 * The one rule of the order in which the folders of a merge are turned back — an undo's steps
 * (undo-merge.ts) and a put-back's (putBackOrder) alike: those that write a memory back (`writesBack`)
 * before those that only take memories out, each group in the order given. A memory moving from one
 * folder to the other is so in one of them, or both, at every moment — a kill between them, or a
 * folder that cannot be written, never leaves it in neither.
 */
export function writesBackFirst<T>(steps: readonly T[], writesBack: (step: T) => boolean): T[] {
  return [...steps.filter(writesBack), ...steps.filter((s) => !writesBack(s))];
}

function isIndex(file: string): boolean {
  return path.posix.basename(file) === INDEX_FILE;
}

/**
 * The one way back of a turn (see the module comment), in putBackOrder; it stops at the first step
 * it cannot put back (the rest waits for the next time, with the intent). Its entries carry the
 * turn's tag too (they are its own, for a later put-back), and they and the turn's own go among the
 * earlier ones of merge `record` (when there is one yet).
 */
async function putBack(intent: TurnIntent, dataDir: string, record: MergeRecord | null): Promise<PutBack> {
  const result: PutBack = { back: [], failed: [], kept: [], dropped: [], stays: [], keptIn: [] };
  const revs: string[] = [];
  const twice = new Set(intent.steps.map((s) => path.resolve(s.memoryDir)).filter((d, i, all) => all.indexOf(d) !== i));
  // Each file a folder's put-back kept instead of writing it back (written there since), with that folder:
  // the copy the turn wrote of it in another folder stays, the only one (its put-back comes later, putBackOrder).
  const notBack = new Map<string, string>();
  for (const step of putBackOrder(intent.steps)) {
    try {
      const since = await entriesSince(step.memoryDir, step.head, { dataDir });
      const own = since.filter((e) => e.turn === intent.turn);
      revs.push(...own.map((e) => e.rev));
      let made: HistoryEntry | null = null;
      let undone = false;
      const onlyCopy = step.writes.some((w) => w.before === null && notBack.has(w.file));
      // Its own entry, holding only what it planned: the one undo (refusing a file changed since, a MEMORY.md line edited since too).
      if (own.length === 1 && !onlyCopy && !twice.has(path.resolve(step.memoryDir)) && (await holdsOnlyPlan(step, own[0]!, dataDir))) {
        try {
          made = (
            await undoChange({
              memoryDir: step.memoryDir,
              dataDir,
              rev: own[0]!.rev,
              as: {
                summary: `Put back: ${own[0]!.summary}`,
                body: `${cap(intent.what)} was stopped; this puts back what it had changed here. Undoes ${own[0]!.rev}.`,
              },
              turn: intent.turn,
            })
          ).entry;
          undone = true;
        } catch (error) {
          if (!(error instanceof MemoryError)) throw error;
        }
      }
      // No entry of its own, or a file changed since — or the undo found its memory files back already
      // (a put-back killed half-way): by the plan, which finishes what is not back yet (MEMORY.md's lines too).
      if (!undone || !made) {
        const byPlan = await putBackByPlan(step, dataDir, intent, notBack);
        made = byPlan.entry ?? made;
        result.kept.push(...byPlan.kept);
        result.dropped.push(...byPlan.dropped);
        result.stays.push(...byPlan.stays);
        if (byPlan.left) result.keptIn.push(step.memoryDir);
        for (const file of byPlan.notBack) notBack.set(file, step.memoryDir);
      }
      if (made) {
        revs.push(made.rev);
        if (!result.back.includes(step.memoryDir)) result.back.push(step.memoryDir);
      }
    } catch (again) {
      result.failed.push(`${step.memoryDir} (${again instanceof Error ? again.message : String(again)})`);
      break;
    }
  }
  if (revs.length > 0 && record) {
    const now = (await readMergeRecord(dataDir, record.id)) ?? record;
    await saveMergeRecord(dataDir, { ...now, earlier: [...new Set([...now.earlier, ...revs])] });
  }
  return result;
}

/**
 * Whether entry `entry` holds exactly what step `step` planned: only its files, each as the step
 * left it. A change someone made there while the step ran (between its plan and its record) is in
 * its entry too — a Claude Code line in MEMORY.md — and undoing the entry would take it back.
 */
async function holdsOnlyPlan(step: Step, entry: HistoryEntry, dataDir: string): Promise<boolean> {
  const planned = new Map(step.writes.map((w) => [w.file, decode(w.after)?.toString('utf8') ?? null]));
  if (!entry.files.every((f) => planned.has(f.path) && (!f.from || planned.has(f.from)))) return false;
  for (const [file, after] of planned) if ((await readAtRevision(step.memoryDir, entry.rev, file, { dataDir })) !== after) return false;
  return true;
}

/**
 * Put back step `step` of turn `intent` by its plan, in one history entry (outside changes recorded
 * first, as by any write; tagged with the turn): each memory file the step wrote goes back as it was
 * before. A file is not the step's when it is not as the step left it, or when a change recorded
 * since — the person's in Memdir (a delete, a rename), a dream's, a restore; not an outside change,
 * not the turn's own — touched it: that change is what it is now. It is kept as it is and named
 * (returned, with that change). Each index gets the step's own line changes reversed: the lines
 * anyone added since stay, and so do the pointers of the files kept; a pointer line the step wrote
 * whose memory goes goes too even when edited since, said (`dropped`: the edit stays in history,
 * recorded first); an index left with no line goes (revertedIndexWrite).
 */
async function putBackByPlan(
  step: Step,
  dataDir: string,
  intent: TurnIntent,
  notBack: ReadonlyMap<string, string>,
): Promise<{ entry: HistoryEntry | null; kept: string[]; dropped: string[]; stays: string[]; notBack: string[]; left: boolean }> {
  const kept: string[] = [];
  // A file the step wrote that is left as the step (or someone since) made it: something of the step stays here.
  let left = false;
  const dropped: string[] = [];
  const stays: string[] = [];
  const keptBack: string[] = [];
  const { entry } = await transact(
    step.memoryDir,
    { source: 'restore', summary: `Put back what ${intent.what} had written here (it was stopped)`, dataDir, turn: intent.turn },
    async () => {
      // Inside the transaction: outside changes are recorded by now, and no one else writes here.
      const since = await entriesSince(step.memoryDir, step.head, { dataDir });
      const changedBy = (file: string) =>
        since.find((e) => e.source !== 'external' && e.turn !== intent.turn && e.files.some((f) => f.path === file || f.from === file));
      const removed = new Set<string>();
      const keptFiles: string[] = [];
      // Kept files not there now (deleted, renamed away since): their pointers the step took away do not come back.
      const keptAbsent: string[] = [];
      for (const w of step.writes.filter((x) => !isIndex(x.file))) {
        const [now, before, after] = [await readBytesOrNull(step.memoryDir, w.file), decode(w.before), decode(w.after)];
        if (sameBytes(now, before)) {
          // As before the step, by a change recorded since (the person renamed or deleted it): named, as it is now.
          const by = changedBy(w.file);
          if (by) kept.push(`${path.join(step.memoryDir, w.file)} (by "${by.summary}")`);
          continue;
        }
        const elsewhere = before === null && now !== null ? notBack.get(w.file) : undefined;
        if (elsewhere) {
          // Its copy in the folder it was moved from was not written back (written there since): this one is the only one.
          keptFiles.push(w.file);
          left = true;
          stays.push(`${path.join(step.memoryDir, w.file)} stays, its only copy: ${path.join(elsewhere, w.file)} holds what was written there since.`);
          continue;
        }
        const by = changedBy(w.file);
        if (!sameBytes(now, after) || by) {
          keptFiles.push(w.file);
          left = true;
          if (now === null) keptAbsent.push(w.file);
          if (before !== null && after === null) keptBack.push(w.file);
          kept.push(`${path.join(step.memoryDir, w.file)}${by ? ` (by "${by.summary}")` : ''}`);
          continue;
        }
        if (before === null) {
          await removeFileConfined(step.memoryDir, w.file);
          removed.add(w.file);
        } else await writeFileAtomic(step.memoryDir, w.file, before);
      }
      for (const w of step.writes.filter((x) => isIndex(x.file))) {
        const now = (await readBytesOrNull(step.memoryDir, w.file))?.toString('utf8') ?? null;
        const [before, after] = [decode(w.before)?.toString('utf8') ?? null, decode(w.after)?.toString('utf8') ?? null];
        if (now === before) continue;
        // As this index names them (`team/x.md` in MEMORY.md, `x.md` in team/MEMORY.md).
        const named = (files: Iterable<string>) => [...files].flatMap((f) => pointerPlacesAt(f).flatMap((r) => (r.index === w.file ? [r.file] : [])));
        // A kept file's pointer the step added is not the step's to take away: as if the step had not written it.
        const keeping = named(keptFiles);
        const own = keeping.length > 0 ? serializeIndex(keeping.reduce((index, file) => removeIndexEntries(index, file), parseIndex(after ?? ''))) : after;
        const reversal = revertIndexChange(now ?? '', before ?? '', own ?? '', new Set(named(removed)), new Set(named(keptAbsent)));
        const write = revertedIndexWrite({ before, after: own, now }, reversal.text);
        if (write === null) await removeFileConfined(step.memoryDir, w.file);
        else if (write !== undefined) await writeFileAtomic(step.memoryDir, w.file, write);
        const index = path.join(step.memoryDir, w.file);
        if (reversal.dropped.length > 0) dropped.push(editedLinesWent({ index, files: reversal.dropped }, intent.what, 'put back anyway'));
        if (reversal.clashes.length > 0) kept.push(`${quotedLines(reversal.clashes)} in ${index}`);
      }
      // The folders the step made go again when that left them empty (a sub-folder memory's db/).
      await removeFoldersMade(step);
    },
  );
  return { entry, kept, dropped, stays, notBack: keptBack, left };
}

function keptSentence(kept: readonly string[]): string {
  if (kept.length === 0) return '';
  const one = kept.length === 1;
  return ` ${listInWords(kept)} ${one ? 'was' : 'were'} changed since, so ${one ? 'it was' : 'they were'} left as ${one ? 'it is' : 'they are'} now (history has both versions).`;
}

/** The error a turn stopped by a write throws, once putting back is done. */
function stoppedError(error: unknown, stopped: string, intent: TurnIntent, { back, failed, kept, dropped, stays }: PutBack): MemdirError {
  const what = intent.what;
  const reason = error instanceof Error ? error.message : String(error);
  const code = error instanceof MemdirError ? (error.code as MemdirError['code']) : 'io-failed';
  const sentence =
    failed.length === 0
      ? `Nothing was ${intent.op === 'apply' ? 'done' : 'undone'}: ${what} stopped in ${stopped} (${reason}).${back.length > 0 ? ` What it had already changed in ${back.join(', ')} was put back; both steps stay in history.` : ''}${keptSentence(kept)}${[...dropped, ...stays].map((d) => ` ${d}`).join('')}`
      : `${cap(what)} stopped in ${stopped} (${reason}), and putting back what it had changed failed in ${failed.join(', ')}: it is half done there. Memdir tries again at the next merge command or app start (\`memdir merge list\`); until then no merge, relink or import starts. Every step is in each directory's history.`;
  return new MemdirError(code, sentence, { cause: error });
}

/**
 * Finish a turn a process left when it died between (or in) the folders of a merge, its undo or
 * the undo of that: what it had changed is put back (see the module comment), so every folder is as
 * before that turn — but for what anyone wrote there since, which stays — and its merge record says
 * so. Returns the one sentence to tell the person (also when putting back failed: then the intent
 * stays, and no other turn starts until it is put back), or null when there was nothing to finish.
 * Cheap when there is none (one stat). Called at the front door of everything that opens merges:
 * the app's start, every relink and merge command. A live turn in another process is left to it.
 */
export async function finishUnfinishedTurn(dataDir: string): Promise<string | null> {
  let now: string | null = null;
  if (await hasIntent(dataDir)) {
    try {
      now = (await withTurnLock(dataDir, () => finishLocked(dataDir), 10_000))?.sentence ?? null;
    } catch (error) {
      // Held by a live process: its turn is not unfinished, only under way.
      if (!(error instanceof MemdirError && error.code === 'busy')) throw error;
    }
  }
  const told = [...(untold.get(dataDir) ?? []), ...(now ? [now] : [])];
  untold.delete(dataDir);
  return told.length > 0 ? told.join(' ') : null;
}

/** Finish the turn a dead process left, if any: its sentence, and whether it is done (false: put back it failed, the intent stays). */
async function finishLocked(dataDir: string): Promise<{ sentence: string; done: boolean } | null> {
  const file = journalFile(dataDir);
  const text = await fs.readFile(file, 'utf8').catch(() => null);
  if (text === null) return null;
  let intent: TurnIntent;
  try {
    intent = intentSchema.parse(JSON.parse(text));
  } catch {
    // Written atomically, so never torn by Memdir: kept aside for a person to read, and said.
    const aside = `${file}.unreadable-${Date.now()}`;
    await fs.rename(file, aside);
    return {
      sentence: `Memdir found a note of an unfinished merge it cannot read (${aside}); it was left as it is. Check \`memdir merge list\` and the history of the projects you last merged.`,
      done: true,
    };
  }
  const record = await readMergeRecord(dataDir, intent.id);
  const finished = intent.recordState === null ? record !== null : record !== null && turnState(record) !== intent.recordState;
  if (finished) {
    await removeIntent(dataDir);
    return null;
  }
  const when = intent.startedAt.replace('T', ' ').slice(0, 16);
  const result = await putBack(intent, dataDir, record);
  if (result.failed.length > 0)
    return {
      sentence: `Memdir was stopped while ${intent.what} (at ${when} UTC), and it could not be put back yet — putting back failed in ${result.failed.join(', ')}: it is half done there. Memdir tries again at the next merge command or app start (\`memdir merge list\`); every step is in each directory's history.`,
      done: false,
    };
  await removeIntent(dataDir);
  const stands =
    intent.op === 'apply'
      ? `nothing of ${intent.kind} ${intent.id} stands — do it again to have it`
      : `${intent.kind} ${intent.id} stands as it was before (\`memdir merge list\`)`;
  // Where a step began and nothing was put back: what it wrote there was kept as it is (said below, with why), or
  // nothing of it was left to put back (as before it already: never written, or put back by hand since).
  const untouched = [...new Set(intent.steps.map((st) => st.memoryDir))].filter((d) => !result.back.includes(d));
  const keptOnly = untouched.filter((d) => result.keptIn.includes(d));
  const already = untouched.filter((d) => !result.keptIn.includes(d));
  const putBackWhere =
    [
      ...(result.back.length > 0 ? [`what it had changed in ${result.back.join(', ')} was put back (both steps stay in history)`] : []),
      ...(keptOnly.length > 0 ? [`what it had written in ${keptOnly.join(', ')} was left there, as said below`] : []),
      ...(already.length > 0 ? [`nothing of it was left to put back in ${already.join(', ')}`] : []),
    ].join(', and ') || 'it had changed nothing yet';
  const since = result.dropped.length > 0 ? `what else was written there since stays. ${result.dropped.join(' ')}` : 'what was written there since stays.';
  return {
    sentence: `Memdir was stopped while ${intent.what} (at ${when} UTC): ${putBackWhere}, so ${stands}; ${since}${keptSentence(result.kept)}${result.stays.map((s) => ` ${s}`).join('')}`,
    done: true,
  };
}

function cap(text: string): string {
  return `${text[0]!.toUpperCase()}${text.slice(1)}`;
}
