/**
 * Changing two (or more) memory folders as one — a merge being made (relink, clone merge,
 * import), its undo, the undo of that undo — and what makes that whole even when the process dies
 * between the folders (kill -9, a force quit, a power cut).
 *
 * Before the first folder is written, the intent is recorded in Memdir's data folder
 * (`<dataDir>/merges/turning.json`, written atomically and fsynced): the operation and its merge
 * record, the folders it writes, each folder's history head just before it is written, and the
 * record's state before (so a turn that finished is told from one that did not). It goes after the
 * last folder is written and the record saved. One turn at a time per data folder (a lock, the
 * same policy as every Memdir lock: a killed holder is taken over at once, a live one is waited
 * for), so an intent on disk that nobody holds is one a dead process left.
 *
 * The way back is one (putBack): undo, newest first, the entries made since the recorded heads;
 * outside changes recorded meanwhile stay. A write the disk refuses takes it at once (turnAsOne);
 * an intent a dead process left takes it the next time anything opens the merges
 * (finishUnfinishedTurn: the app's start, every relink and merge command) — a dead step's writes
 * it never recorded are recorded first, as its own, so they are put back too. Killed while putting
 * back, the intent is still there: the next time puts back again (undoing the first put-back's
 * entries too, newest first, so the folders still end as before the turn).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import * as z from 'zod';
import type { MergeRecord } from '../../shared/contract/identity.js';
import { MemdirError } from '../../shared/errors.js';
import { withLock } from '../core/lock.js';
import { removeFileConfined, writeDataFile } from '../core/safe-fs.js';
import { headRevision, type HistoryEntry, listHistory, recordSnapshot } from '../history/index.js';
import { undoChange } from '../memdir/index.js';
import { mergesDir, readMergeRecord, saveMergeRecord } from './merge-records.js';

const JOURNAL = 'turning.json';

/** `<dataDir>/merges/turning.json`: the intent of the turn under way, or one a dead process left. */
export function journalFile(dataDir: string): string {
  return path.join(mergesDir(dataDir), JOURNAL);
}

/** Per data folder, what was finished and not told yet (a turn that finished one first, before its own). */
const untold = new Map<string, string[]>();

const intentSchema = z.object({
  /** The merge record this turn makes (`apply`: none until the end) or turns (`turn`: an undo, or an undo of one). */
  op: z.enum(['apply', 'turn']),
  id: z.string(),
  kind: z.enum(['relink', 'merge', 'import']),
  /** What the turn is, in words: "undoing merge 20261206-…", "merging projects/a into projects/b". */
  what: z.string(),
  /** The history source of the turn's entries (what its dead step's unrecorded writes are recorded as). */
  source: z.string(),
  /** Every folder it writes, in order. */
  folders: z.array(z.string()),
  /**
   * The folders begun, each with its history head just before (what putting back undoes down to)
   * and the files the turn writes there: what a step killed before it recorded wrote can only be
   * those — a change to another file there is someone else's (Claude Code's), and stays.
   */
  heads: z.array(z.object({ memoryDir: z.string(), head: z.string().nullable(), files: z.array(z.string()) })),
  /** The record's turn before (`made`, `undone <at>`, `redone <at>`), or null when it makes the record. */
  recordState: z.string().nullable(),
  startedAt: z.string(),
  pid: z.number(),
});
/** What a turn records before it writes (see the module comment). */
export type TurnIntent = z.infer<typeof intentSchema>;
type Head = TurnIntent['heads'][number];

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
  await writeDataFile(journalFile(dataDir), `${JSON.stringify(intent, null, 2)}\n`);
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

/** What a turn tells the journal before it starts; the heads it adds as it goes. */
export type TurnPlan = Omit<TurnIntent, 'heads' | 'recordState' | 'startedAt' | 'pid'> & { record: MergeRecord | null };

/**
 * Run `body` as one turn of `plan`, journalled (see the module comment): `begin(memoryDir)` is
 * called by the body just before it writes a folder (it records that folder's head, durably, and
 * returns it). The intent goes once the body has returned — after the record is saved — or thrown
 * (its error already said what was put back, or that it is half done).
 */
export async function journaled<T>(
  dataDir: string,
  plan: TurnPlan,
  body: (begin: (memoryDir: string, files: readonly string[]) => Promise<Head>) => Promise<T>,
): Promise<T> {
  return withTurnLock(dataDir, async () => {
    // A turn a dead process left is finished before another starts; its sentence is told at the next front door.
    const left = await finishLocked(dataDir);
    if (left) untold.set(dataDir, [...(untold.get(dataDir) ?? []), left]);
    const { record, ...rest } = plan;
    const intent: TurnIntent = {
      ...rest,
      heads: [],
      recordState: record ? turnState(record) : null,
      startedAt: new Date().toISOString(),
      pid: process.pid,
    };
    await writeIntent(dataDir, intent);
    const begin = async (memoryDir: string, files: readonly string[]): Promise<Head> => {
      const head = { memoryDir, head: await headRevision(memoryDir, { dataDir }), files: [...new Set(files)] };
      intent.heads.push(head);
      await writeIntent(dataDir, intent);
      return head;
    };
    try {
      return await body(begin);
    } finally {
      await removeIntent(dataDir);
    }
  });
}

/**
 * Turn a merge in each of its directories, one after the other (`steps`: each writes one directory
 * in one history entry, and returns it), journalled, then `finish` with the entries made (it saves
 * the record). Every refusal was decided before the first step; what only a write finds out (no
 * permission, the disk full) stops a step — then the directories already turned, and whatever the
 * stopped one had written, are put back by undoing the entries this turn made there (putBack), so
 * the merge stands as it was, whole, and the sentence says where it stopped, why, and what was put
 * back. `what` names the turn ("undoing relink …"). When putting back fails too, the sentence says
 * the merge is half turned and where; every step stays in history either way, and the record of
 * merge `record` keeps those entries among its earlier ones: undoing one of them alone would turn
 * the merge in one directory (refused, as for an older turn's entry).
 */
export async function turnAsOne<R>(
  steps: { memoryDir: string; files: readonly string[]; run: () => Promise<HistoryEntry | null> }[],
  dataDir: string,
  record: MergeRecord,
  what: string,
  finish: (revs: string[]) => Promise<R>,
): Promise<R> {
  const plan = {
    op: 'turn' as const,
    id: record.id,
    kind: record.kind,
    what,
    source: 'restore',
    folders: steps.map((s) => s.memoryDir),
    record,
  };
  return journaled(dataDir, plan, async (begin) => {
    const revs: string[] = [];
    const heads: Head[] = [];
    for (const step of steps) {
      heads.push(await begin(step.memoryDir, step.files));
      try {
        const entry = await step.run();
        if (entry) revs.push(entry.rev);
      } catch (error) {
        const back = await putBack(heads, dataDir, record);
        throw stoppedError(error, step.memoryDir, what, back);
      }
    }
    return finish(revs);
  });
}

/** What putting back did: the folders put back, those where it failed (with why), those where a change made meanwhile was overwritten. */
interface PutBack {
  back: string[];
  failed: string[];
  overwritten: string[];
}

/**
 * The one way back of a turn: undo, newest first, the entries made since `heads` (outside changes
 * recorded meanwhile stay), and keep the entries it made among the earlier ones of merge `record`
 * (when there is one yet).
 */
async function putBack(heads: readonly Head[], dataDir: string, record: MergeRecord | null): Promise<PutBack> {
  const back: string[] = [];
  const failed: string[] = [];
  const overwritten: string[] = [];
  const steps: string[] = [];
  for (const { memoryDir, head } of [...heads].reverse()) {
    try {
      const made: HistoryEntry[] = [];
      for (const entry of await listHistory(memoryDir, { dataDir })) {
        if (entry.rev === head) break;
        if (entry.source !== 'external') made.push(entry);
      }
      for (const entry of made) {
        steps.push(entry.rev);
        const undone = await undoChange({ memoryDir, dataDir, rev: entry.rev, overwriteChanged: true });
        if (undone.entry) steps.push(undone.entry.rev);
      }
      if (made.length > 0) back.unshift(memoryDir);
      // A change made there meanwhile — after this turn wrote there, recorded by the put-back as outside
      // changes are — was overwritten: said, never silent. (One recorded before the turn's own entry,
      // an undo anyway's, is what the put-back restores.)
      const outside = new Set<string>();
      const since = await listHistory(memoryDir, { dataDir });
      const first = made.length > 0 ? since.findIndex((e) => e.rev === made[made.length - 1]!.rev) : -1;
      for (const entry of since.slice(0, Math.max(first, 0))) if (entry.source === 'external') for (const f of entry.files) outside.add(f.path);
      if (outside.size > 0) overwritten.unshift(`${memoryDir} (${[...outside].join(', ')})`);
    } catch (again) {
      failed.unshift(`${memoryDir} (${again instanceof Error ? again.message : String(again)})`);
    }
  }
  if (steps.length > 0 && record) {
    const now = (await readMergeRecord(dataDir, record.id)) ?? record;
    await saveMergeRecord(dataDir, { ...now, earlier: [...now.earlier, ...steps] });
  }
  return { back, failed, overwritten };
}

function overwrittenSentence(overwritten: readonly string[]): string {
  return overwritten.length > 0
    ? ` A change made meanwhile in ${overwritten.join(', ')} was overwritten by putting back; it stays in history ("Changes made outside Memdir"), to restore from.`
    : '';
}

/** The error a turn stopped by a write throws, once putting back is done. */
function stoppedError(error: unknown, stopped: string, what: string, { back, failed, overwritten }: PutBack): MemdirError {
  const reason = error instanceof Error ? error.message : String(error);
  const code = error instanceof MemdirError ? (error.code as MemdirError['code']) : 'io-failed';
  const sentence =
    failed.length === 0
      ? `Nothing was undone: ${what} stopped in ${stopped} (${reason}).${back.length > 0 ? ` What it had already changed in ${back.join(', ')} was put back; both steps stay in history.` : ''}${overwrittenSentence(overwritten)}`
      : `${what[0]!.toUpperCase()}${what.slice(1)} stopped in ${stopped} (${reason}), and putting back what it had changed failed in ${failed.join(', ')}: it is half done there. Every step is in each directory's history, to restore from.`;
  return new MemdirError(code, sentence, { cause: error });
}

/**
 * Finish a turn a process left when it died between (or in) the folders of a merge, its undo or
 * the undo of that: what it had changed is put back, so every folder is as before that turn and its
 * merge record says so. Returns the one sentence to tell the person, or null when there was
 * nothing to finish. Cheap when there is none (one stat). Called at the front door of everything
 * that opens merges: the app's start, every relink and merge command. A live turn in another
 * process is left to it.
 */
export async function finishUnfinishedTurn(dataDir: string): Promise<string | null> {
  let now: string | null = null;
  if (await hasIntent(dataDir)) {
    try {
      now = await withTurnLock(dataDir, () => finishLocked(dataDir), 10_000);
    } catch (error) {
      // Held by a live process: its turn is not unfinished, only under way.
      if (!(error instanceof MemdirError && error.code === 'busy')) throw error;
    }
  }
  const told = [...(untold.get(dataDir) ?? []), ...(now ? [now] : [])];
  untold.delete(dataDir);
  return told.length > 0 ? told.join(' ') : null;
}

async function finishLocked(dataDir: string): Promise<string | null> {
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
    return `Memdir found a note of an unfinished merge it cannot read (${aside}); it was left as it is. Check \`memdir merge list\` and the history of the projects you last merged.`;
  }
  const record = await readMergeRecord(dataDir, intent.id);
  const finished = intent.recordState === null ? record !== null : record !== null && turnState(record) !== intent.recordState;
  if (finished) {
    await removeIntent(dataDir);
    return null;
  }
  // The step under way when the process died may have written some of its files without
  // recording them: those writes are the turn's, recorded as its own and put back with it. Its
  // files only — another file changed there is someone else's, and stays.
  const last = intent.heads.at(-1);
  const when = intent.startedAt.replace('T', ' ').slice(0, 16);
  if (last && last.files.length > 0) {
    try {
      await recordSnapshot(last.memoryDir, { source: intent.source, summary: `${cap(intent.what)} (stopped)`, dataDir, only: last.files });
    } catch (error) {
      // Putting back without it would leave those writes standing: nothing is put back, and the next time tries again.
      return `Memdir was stopped while ${intent.what} (at ${when} UTC), and recording what it had begun to write in ${last.memoryDir} failed (${error instanceof Error ? error.message : String(error)}): nothing was put back yet. Memdir tries again the next time.`;
    }
  }
  const result = await putBack(intent.heads, dataDir, record);
  if (result.failed.length > 0)
    return `Memdir was stopped while ${intent.what} (at ${when} UTC), and putting back what it had changed failed in ${result.failed.join(', ')}: it is half done there. Memdir tries again the next time; every step is in each directory's history, to restore from.`;
  await removeIntent(dataDir);
  const stands =
    intent.op === 'apply'
      ? `nothing of ${intent.kind} ${intent.id} stands — do it again to have it`
      : `${intent.kind} ${intent.id} stands as it was before (\`memdir merge list\`)`;
  const putBackWhere =
    result.back.length > 0 ? `what it had changed in ${result.back.join(', ')} was put back (both steps stay in history)` : 'it had changed nothing yet';
  return `Memdir was stopped while ${intent.what} (at ${when} UTC): ${putBackWhere}, so ${stands}.${overwrittenSentence(result.overwritten)}`;
}

function cap(text: string): string {
  return `${text[0]!.toUpperCase()}${text.slice(1)}`;
}
