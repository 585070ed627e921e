/**
 * Undo that is whole (issue 14): one history entry undone brings back its files *and* its index
 * lines, as one new entry (itself undoable). A memory restored from history gets its pointer
 * back too, at its old place when it still reaches the agent there (R-INDEX). What changed
 * since the entry is never lost: an index keeps its later lines (it is reversed line by line,
 * revertIndexChange; a line both the entry and a later edit changed stops the undo, quoting it,
 * unless undone anyway), and a topic file a later change touched — edited, deleted, renamed,
 * written again — stops the undo with a sentence naming that change, unless the caller says to
 * overwrite (what is there now stays in history either way). A file that holds exactly the text the
 * undo would write back (a team sync pulled a memory a merge moved back into its old folder) lost
 * nothing: it does not stop the undo. Changes are undone newest first: a file a later change
 * deleted as it was before the entry is touched too (undoing a rename whose new name was deleted
 * since would otherwise bring the memory back twice). Overwriting
 * never makes a second copy of a memory, nor takes away another: undoing anyway a rename whose
 * memory a later change touched (edited, deleted, renamed on) follows the memory from its new
 * name, brings it back under its old name as it is now (undoing a rename changes the name, not the
 * text; a deleted one as it was just before its delete), takes away the name it has now, and notes those
 * later changes in its entry (Memdir-Brought-Back) — undoing a delete or rename among them then
 * leaves that memory as it is, and says so; undoing an edit among them takes the edit out of the
 * memory under the name it is back under (the person asked for that edit to go). Another memory written at the new name after it left stays, with its
 * pointer; another memory written at the old name since stops the undo, even anyway, naming it.
 * An entry already wholly undone
 * (every file as before it, or back under another name) writes nothing. The folders the change
 * created, and those the later changes it brings back created, are taken away again when the
 * undo leaves them empty.
 */
import path from 'node:path';
import { formatIndexEntry, indexEntries, type ParsedIndex, parseIndex, removeIndexEntries, retargetIndexEntries } from '../../shared/index-format.js';
import { addNewPointer, describePlacement, type IndexReversal, reinsertPointer, revertIndexChange } from '../../shared/index-restore.js';
import { INDEX_FILE } from '../../shared/limits.js';
import { listInWords, quotedLines } from '../../shared/size-text.js';
import {
  type BroughtBack,
  broughtBackSince,
  everyLaterChange,
  type HistoryEntry,
  type HistoryFileChange,
  type LaterChange,
  laterChanges,
  listHistory,
  readAtRevision,
  readEntry,
  readFilesAtRevision,
  removeFoldersCreatedBy,
  restoreFromHistory,
  transact,
} from '../history/index.js';
import { MemoryError } from './memory-error.js';
import { editPointers, memoryAt, pointerPlacesAt, readText, refuseTakenName, retireMemoryFile, writeIndex } from './memory-service.js';
import { parseTopicFile } from './topic-file.js';
import { removeFileConfined, writeFileAtomic } from '../core/safe-fs.js';

/**
 * One file an undo is about to write (`after`; null: remove it), with what is there now (`before`):
 * what `beforeWrite` is told, before the first write, so a turn of a merge can journal its step.
 */
export interface PlannedWrite {
  file: string;
  before: string | null;
  /** Bytes for a memory that is not UTF-8 text, brought back exactly. */
  after: string | Buffer | null;
}

/** What an undo or a restore did, with sentences about the pointers it put back. */
export interface UndoResult {
  entry: HistoryEntry | null;
  notes: string[];
  /** Check-only: its memory files are already as the undo would leave them, so it would write nothing — those files. */
  already?: string[];
  /**
   * Check-only: the files changed since the entry, which only an undo anyway overwrites — its memory
   * files, and an index whose pointer line the entry wrote was edited since (a line added since
   * never counts: it is kept); `editedLines` says whose lines.
   */
  touched?: string[];
  /** Check-only: each index among `touched`, with the memories whose line in it the entry wrote and a person edited since. */
  editedLines?: EditedLines[];
  /** What an undo anyway took away that was edited since, in sentences (among `notes` too): each pointer line. */
  dropped?: string[];
}

/** An index whose pointer lines for `files`, written by the entry, were edited since. */
export interface EditedLines {
  index: string;
  files: string[];
}

interface Options {
  memoryDir: string;
  dataDir?: string;
}

function isIndex(rel: string): boolean {
  return path.posix.basename(rel) === INDEX_FILE;
}

/** `files` (paths in the memory dir) as index `index` names them (pointerPlacesAt: `team/x.md` in MEMORY.md, `x.md` in team/MEMORY.md). */
function namedIn(index: string, files: Iterable<string>): Set<string> {
  return new Set([...files].flatMap((f) => pointerPlacesAt(f).flatMap((r) => (r.index === index ? [r.file] : []))));
}

/**
 * Whether index `p` names now every file the entry took a pointer away from (but those kept out).
 * A pointer the entry gave that still stands does not count: its file gone by hand since leaves a
 * dangling line, and the undo's refusals (a folder of a turn already as it would leave it) go by
 * the memory files, as before.
 */
function pointersBack(p: Planned, keptOut: ReadonlySet<string>): boolean {
  const files = (text: string | null) => new Set(indexEntries(parseIndex(text ?? '')).map((e) => e.file));
  const [before, after, now] = [files(p.before), files(p.after), files(p.now)];
  return [...before].every((f) => after.has(f) || keptOut.has(f) || now.has(f));
}

/** Pointer lines of `files`, in words: "line for sql.md", "lines for a.md and b.md". */
export function linesFor(files: readonly string[]): string {
  return `line${files.length > 1 ? 's' : ''} for ${listInWords(files)}`;
}

/** `lines` in words: "MEMORY.md's line for sql.md". */
function linesInWords(lines: EditedLines): string {
  return `${lines.index}'s ${linesFor(lines.files)}`;
}

/**
 * The sentence for pointer lines a reversal took away although edited since `since` (revertIndexChange's
 * `dropped`): "MEMORY.md's line for sql.md was edited since "…": undone anyway, it went too (as edited,
 * it stays in history)." `how`: what took them ("undone anyway", "putting back").
 */
export function editedLinesWent(lines: EditedLines, since: string, how: string): string {
  const one = lines.files.length === 1;
  return `${linesInWords(lines)} ${one ? 'was' : 'were'} edited since ${since}: ${how}, ${one ? 'it' : 'they'} went too (as edited, ${one ? 'it stays' : 'they stay'} in history).`;
}

/**
 * What an index reversed to `text` (revertIndexChange) becomes, for a change that took it from
 * `before` to `after`, `now` as it is: the text to write, null to remove it, undefined to leave it
 * as it is. No index where there was none before the change, unless a line added since is in it;
 * nor one the reversal empties (a line of it went with another undo since), unless the change
 * found it just so: Claude Code loads nothing from it, and an empty MEMORY.md is never left.
 */
export function revertedIndexWrite(index: { before: string | null; after: string | null; now: string | null }, text: string): string | null | undefined {
  const blank = text.trim() === '';
  const gone = index.before === null ? index.now === index.after || blank : blank && text !== index.now && text !== index.before;
  if (index.now !== null && gone) return null;
  return text !== (index.now ?? '') ? text : undefined;
}

/** `was`: the name the entry wrote, when an undo anyway brought the memory back under another name since (undoEditsWhereBack moved the plan there). */
type Planned = { rel: string; before: string | null; after: string | null; now: string | null; was?: { rel: string; by: HistoryEntry } };
type History = { dataDir?: string };

/**
 * Undo the history entry `rev` (see the file comment). `checkOnly`: decide every refusal as the
 * undo would, and write nothing (outside changes are recorded first, as for any undo) — what an
 * undo that must turn several directories as one asks of each before it writes any. `as`: the
 * new entry's summary and body, when the undo is part of a larger one (`memdir merge undo`'s
 * "Undo relink <id>"); `turn`: the turn of a merge it is a step of (its entry's tag), and
 * `beforeWrite` is told every file it writes before the first write (that turn's journal). Not
 * told: the pointers an undo anyway following a renamed memory takes out of other indexes.
 */
export async function undoChange(
  opts: Options & {
    rev: string;
    overwriteChanged?: boolean;
    checkOnly?: boolean;
    as?: { summary: string; body: string };
    turn?: string;
    beforeWrite?: (writes: PlannedWrite[]) => Promise<void>;
    /**
     * The memories (paths in the memory dir) this undo retires instead of deleting, where it would
     * take them away: team memories the sync server holds (team/shared-keys.ts, R-SYNC). Their text
     * is emptied, their pointers go as for a deletion, and `retiredNote` says so.
     */
    retire?: { instead: (rel: string) => boolean; note: (rels: readonly string[]) => string | null };
  },
): Promise<UndoResult> {
  const history: History = opts.dataDir ? { dataDir: opts.dataDir } : {};
  const target = await readEntry(opts.memoryDir, opts.rev, history);
  const paths = [...new Set(target.files.flatMap((f) => (f.from ? [f.from, f.path] : [f.path])))];
  const notes: string[] = [];
  let undone = false;
  const broughtBack: BroughtBack[] = [];
  const laterRevs: string[] = [];
  let already: string[] | undefined;
  let changed: string[] | undefined;
  let edited: EditedLines[] = [];
  const dropped: string[] = [];
  const { entry } = await transact(
    opts.memoryDir,
    {
      source: 'restore',
      summary: `Undo: ${target.summary}`,
      body: `Undoes ${target.rev}.`,
      ...opts.as,
      ...history,
      broughtBack: () => broughtBack,
      ...(opts.turn ? { turn: opts.turn } : {}),
    },
    async () => {
      // Every file's two versions read at once (readFilesAtRevision): a bulk change names thousands.
      const befores = target.parent ? await readFilesAtRevision(opts.memoryDir, target.parent, paths, history) : new Map<string, Buffer | null>();
      const afters = await readFilesAtRevision(opts.memoryDir, target.rev, paths, history);
      const plan: Planned[] = [];
      for (const rel of paths) {
        const before = befores.get(rel)?.toString('utf8') ?? null;
        const after = afters.get(rel)?.toString('utf8') ?? null;
        plan.push({ rel, before, after, now: await readText(opts.memoryDir, rel, NOT_TEXT) });
      }
      const back = await backAlready(opts.memoryDir, target, plan, history);
      notes.push(...(await undoEditsWhereBack(opts.memoryDir, target, plan, back, history)));
      for (const [rel, b] of back) {
        if (rel === b.path) notes.push(`${rel} is back already, as ${b.as}, since "${b.entry.summary}" (undone anyway): it is not brought back twice.`);
      }
      const own = plan.filter((p) => !isIndex(p.rel));
      const files = own.filter((p) => !back.has(p.rel));
      // Already undone: its memories as they were, and its indexes' pointer lines too — a file
      // that came back alone (a sync, a hand copy) leaves the lines the entry took away to put back.
      if (own.length > 0 && files.every((p) => p.now === p.before) && plan.every((p) => !isIndex(p.rel) || pointersBack(p, namedIn(p.rel, back.keys())))) {
        already = files.map((p) => p.rel);
        return;
      }
      // Before the plain refusal too: it would offer an undo anyway that cannot be done.
      await refuseAnotherAtOldName(opts.memoryDir, target, plan, back, history);
      // Changed since: not as the entry left it — unless it holds the very bytes the undo writes back (a team sync
      // pulled a moved memory back into its old folder): nothing of it is lost. One put back as deleted still counts.
      const touched = files.filter((p) => p.now !== p.after && !(p.before !== null && p.now === p.before));
      const followed = opts.overwriteChanged ? await followRenamed(opts.memoryDir, target, plan, touched, history) : NOT_FOLLOWED;
      // Each index reversed line by line (revertIndexChange), once, decided before anything is written: a
      // line both the entry and a later edit changed stops the undo, naming it, unless undone anyway.
      const removing = plan.filter(
        (p) => !isIndex(p.rel) && !back.has(p.rel) && !followed.another.has(p.rel) && p.now !== null && (followed.text.get(p.rel) ?? p.before) === null,
      );
      const anyway = opts.overwriteChanged ? { anyway: true } : {};
      const reversals = new Map(
        plan
          .filter((p) => isIndex(p.rel))
          .map((p) => {
            const rel = removing.map((q) => q.rel);
            return [p.rel, revertIndexChange(p.now ?? '', p.before ?? '', p.after ?? '', namedIn(p.rel, rel), namedIn(p.rel, back.keys()), anyway)] as const;
          }),
      );
      // A pointer line the entry wrote, edited since, that the undo takes away (its memory goes): changed since too —
      // unless its memory was changed since as well (that change is named, and its line went with it).
      edited = [...reversals].flatMap(([index, reversal]) => {
        const named = namedIn(
          index,
          touched.map((t) => t.rel),
        );
        const lines = reversal.dropped.filter((f) => !named.has(f));
        return lines.length > 0 ? [{ index, files: lines }] : [];
      });
      changed = [...touched.map((p) => p.rel), ...edited.map((e) => e.index)];
      if (changed.length > 0 && !opts.overwriteChanged)
        throw new MemoryError('conflict', await touchedSince(opts.memoryDir, target, touched, plan, edited, history));
      await refuseTwinOfWritten(opts.memoryDir, target, plan, back, followed);
      const clashing = [...reversals].filter(([, r]) => r.clashes.length > 0);
      if (clashing.length > 0 && !opts.overwriteChanged) throw new MemoryError('conflict', indexClash(target, clashing));
      if (opts.checkOnly) return;
      undone = true;
      broughtBack.push(...followed.broughtBack);
      laterRevs.push(...new Set(followed.broughtBack.map((b) => b.rev)));
      const writes: PlannedWrite[] = [];
      for (const p of plan) {
        const want = followed.text.get(p.rel) ?? p.before;
        if (isIndex(p.rel) || back.has(p.rel) || followed.another.has(p.rel) || p.now === want) continue;
        // As it was, byte for byte: a memory that is not UTF-8 text comes back exactly, not decoded.
        const exact = want === p.before && target.parent ? (befores.get(p.was?.rel ?? p.rel) ?? null) : null;
        writes.push({ file: p.rel, before: p.now, after: want === null ? null : (exact ?? want) });
      }
      for (const p of plan) {
        const reversal = reversals.get(p.rel);
        if (!reversal) continue;
        const { text, placements, clashes, dropped: lines } = reversal;
        // A team index the sync server holds is not removed but left without the entry's lines, as a held memory is
        // retired, not deleted: removed, the next sync would pull it back with those lines.
        const removed = revertedIndexWrite(p, text);
        const write = removed === null && opts.retire?.instead(p.rel) ? (text !== p.now ? text : undefined) : removed;
        if (write !== undefined) writes.push({ file: p.rel, before: p.now, after: write });
        notes.push(...placements.map((pl) => describePlacement(pl, p.rel)));
        if (lines.length > 0) dropped.push(editedLinesWent({ index: p.rel, files: lines }, `"${target.summary}"`, 'undone anyway'));
        if (clashes.length > 0)
          notes.push(`Undone anyway: ${quotedLines(clashes)} of ${p.rel}, changed since, went (put back as before "${target.summary}"); history keeps them.`);
      }
      notes.push(...dropped, ...followed.notes);
      const laterName = await Promise.all(followed.laterName.map(async (rel) => ({ file: rel, before: await readText(opts.memoryDir, rel), after: null })));
      // A shared team memory the undo takes away is retired, not deleted: it would come back with the next sync.
      const retired = writes.filter((w) => !isIndex(w.file) && w.after === null && opts.retire?.instead(w.file)).map((w) => w.file);
      // The plan says what is written: a retired memory is left empty, not removed (a killed turn is put back by its plan).
      await opts.beforeWrite?.([...laterName, ...writes.map((w) => (retired.includes(w.file) ? { ...w, after: '' } : w))]);
      // Removals first: undoing a rename that changed only letter case or Unicode form (A.md → a.md)
      // names one file twice on a case-insensitive file system (macOS, Windows), where writing the
      // old name and then removing the new one would remove the memory just written.
      for (const w of writes) {
        if (isIndex(w.file) || w.after !== null) continue;
        if (retired.includes(w.file)) await retireMemoryFile(opts.memoryDir, w.file);
        else await removeFileConfined(opts.memoryDir, w.file);
      }
      const retiredSaid = opts.retire?.note(retired);
      if (retiredSaid) notes.push(retiredSaid);
      for (const rel of followed.laterName) await removeFileConfined(opts.memoryDir, rel);
      for (const w of writes) if (!isIndex(w.file) && w.after !== null) await writeFileAtomic(opts.memoryDir, w.file, w.after);
      for (const w of writes) {
        if (!isIndex(w.file)) continue;
        if (w.after === null) await removeFileConfined(opts.memoryDir, w.file);
        else await writeFileAtomic(opts.memoryDir, w.file, w.after);
      }
      // The memory's later name went (above), its pointers go, in every index that has one (MEMORY.md's
      // `team/x.md` too, which the agent is shown): it is back under the name it had before the entry.
      for (const rel of followed.laterName) {
        const later = memoryAt(opts.memoryDir, rel);
        await editPointers(later.where, later.file, (index, named) => removeIndexEntries(index, named));
      }
    },
  );
  // The tree as it was: the folders the change made (team/, a rename's new folder) go when empty,
  // and those the later changes brought back with it made (the later name's folder).
  if (undone) for (const rev of [target.rev, ...laterRevs]) await removeFoldersCreatedBy(opts.memoryDir, rev, history);
  return {
    entry,
    notes,
    ...(dropped.length > 0 ? { dropped } : {}),
    ...(opts.checkOnly
      ? { ...(already ? { already } : {}), ...(changed ? { touched: changed } : {}), ...(edited.length > 0 ? { editedLines: edited } : {}) }
      : {}),
  };
}

/** The refusal of an undo whose index lines were changed both by the entry and since. */
function indexClash(target: HistoryEntry, clashing: readonly (readonly [string, IndexReversal])[]): string {
  const what = clashing.map(([rel, r]) => `${quotedLines(r.clashes)} in ${rel}`);
  const one = clashing.length === 1 && clashing[0]![1].clashes.length === 1;
  return `Nothing was undone: "${target.summary}" changed ${listInWords(what)}, and ${one ? 'it was' : 'they were'} changed again since. Edit ${clashing.length === 1 ? 'it' : 'them'} by hand, or undo anyway to put ${one ? 'it' : 'them'} back as before the change (what is there now stays in history).`;
}

/** The refusal for a file of the entry that is not text now (not UTF-8, binary): the undo cannot tell what to put back, and says what to do. */
const NOT_TEXT = (rel: string, reason: string) =>
  `Nothing was undone: ${rel} ${reason.replace(/^it /, '')}, so the undo would not know what to put back; fix or delete it, then undo again.`;

/**
 * The files of `target` whose memory is back already under another name: `target` took it away
 * (deleted it, renamed it away), and an undo anyway since brought it back under its earlier name,
 * where it still is. Undoing `target` leaves them (and a rename's other name) as they are — that
 * memory is not brought back twice. By file, with the entry that brought it back.
 */
async function backAlready(memoryDir: string, target: HistoryEntry, plan: Planned[], history: History): Promise<Map<string, BackAlready>> {
  const back = new Map<string, BackAlready>();
  for (const b of await broughtBackSince(memoryDir, target.rev, history)) {
    const p = plan.find((q) => q.rel === b.path);
    // Whatever is at that name now is another memory (or nothing): this one is back under the other name.
    if (back.has(b.path) || !p || p.before === null) continue;
    if (!(await stillThere(memoryDir, b.entry.rev, b.as, history))) continue;
    back.set(b.path, b);
    const renamedTo = target.files.find((f) => f.status === 'renamed' && f.from === b.path)?.path;
    if (renamedTo !== undefined && !back.has(renamedTo)) back.set(renamedTo, b);
  }
  return back;
}

/**
 * An edit of a memory an undo anyway has brought back under another name since took nothing away:
 * it is undone where the memory is now (its plan moves there, and `back` lets go of it), as the
 * person asked. Returns the notes saying so.
 */
async function undoEditsWhereBack(
  memoryDir: string,
  target: HistoryEntry,
  plan: Planned[],
  back: Map<string, BackAlready>,
  history: History,
): Promise<string[]> {
  const notes: string[] = [];
  for (const [rel, b] of back) {
    const p = plan.find((q) => q.rel === rel);
    if (!p || target.files.find((f) => f.path === rel)?.status !== 'modified') continue;
    const now = (await followMemory(memoryDir, b.entry.rev, b.as, history)).now;
    if (now === null || plan.some((q) => q.rel === now)) continue;
    back.delete(rel);
    Object.assign(p, { rel: now, now: await readText(memoryDir, now), was: { rel, by: b.entry } });
    notes.push(`${rel} is back as ${now} since "${b.entry.summary}" (undone anyway): the edit is undone there.`);
  }
  return notes;
}

interface BackAlready {
  entry: HistoryEntry;
  path: string;
  as: string;
}

/** Whether the memory `file` was as of `rev` is still in the memory dir now, under that name or one it was renamed to since. */
async function stillThere(memoryDir: string, rev: string, file: string, history: History): Promise<boolean> {
  return (await followMemory(memoryDir, rev, file, history)).now !== null;
}

/**
 * What happened to the memory `file` was as of `rev`: the later changes to it, oldest first, each
 * with the name it had then — through its renames, however many, up to a delete — and its name
 * now (null when one of them deleted it, or it is gone). Each rename followed is a later entry on
 * the line to now than the last, so the walk ends.
 */
async function followMemory(memoryDir: string, rev: string, file: string, history: History): Promise<{ changes: Followed[]; now: string | null }> {
  const changes: Followed[] = [];
  let at = { rev, file };
  for (;;) {
    let renamedTo: { rev: string; file: string } | null = null;
    for (const c of (await everyLaterChange(memoryDir, at.rev, at.file, history)).reverse()) {
      changes.push({ rev: c.entry.rev, path: at.file, later: c });
      if (c.change.status === 'deleted') return { changes, now: null };
      if (c.change.status === 'renamed' && c.change.from === at.file) {
        renamedTo = { rev: c.entry.rev, file: c.change.path };
        break;
      }
    }
    if (!renamedTo) return { changes, now: (await readText(memoryDir, at.file)) === null ? null : at.file };
    at = renamedTo;
  }
}

/** One later change to a memory followed through its renames, with the name it had then. */
type Followed = { rev: string; path: string; later: LaterChange };

/** What a later change did at `path`: took the memory away (deleted it, renamed it on), put one there (written, renamed in), or edited it. */
function didAt(change: HistoryFileChange, path: string): 'deleted' | 'renamed' | 'added' | 'edited' {
  if (change.status === 'deleted') return 'deleted';
  if (change.status === 'renamed') return change.from === path ? 'renamed' : 'added';
  return change.status === 'added' ? 'added' : 'edited';
}

/** Whether a later change took the memory away from `path`: deleted it, or renamed it to another name. */
function tookAway(c: LaterChange, path: string): boolean {
  return ['deleted', 'renamed'].includes(didAt(c.change, path));
}

/** How a later change treated the memory at `path`, in words: "was renamed to d.md", "was edited" (the one place of these words). */
function how(change: HistoryFileChange, path: string): string {
  const did = didAt(change, path);
  return did === 'renamed' ? `was renamed to ${change.path}` : did === 'added' ? 'was written again' : `was ${did}`;
}

/** The later changes that edited the memory, as the summaries a person reads. */
function editsIn(changes: Followed[]): string[] {
  return [...new Set(changes.filter((c) => didAt(c.later.change, c.path) === 'edited').map((c) => `"${c.later.entry.summary}"`))];
}

interface FollowedRenames {
  /** The text each old name comes back with, when not its text before the entry. */
  text: Map<string, string>;
  /** The entry's new names that hold another memory now: they stay, with their pointers. */
  another: Set<string>;
  /** The names the memories have now, other than the entry's: they go, with their pointers. */
  laterName: string[];
  broughtBack: BroughtBack[];
  notes: string[];
}

const NOT_FOLLOWED: FollowedRenames = { text: new Map(), another: new Set(), laterName: [], broughtBack: [], notes: [] };

/**
 * Undo anyway of an entry that renamed a memory changed since (edited, deleted, renamed on): the
 * memory comes back under its old name once, followed from its new name through every later
 * change up to a delete. Each of those changes is noted as brought back (undoing one of them
 * must not bring the memory back twice). A memory still there comes back as it is now, its later
 * edits kept (undoing a rename changes the name, not the text), and the name it has now goes; a
 * deleted one comes back as it was just before its delete, its edits kept too. What is at the new name now, once the
 * memory left it, is another memory and stays.
 */
async function followRenamed(memoryDir: string, target: HistoryEntry, plan: Planned[], touched: Planned[], history: History): Promise<FollowedRenames> {
  const out: FollowedRenames = { text: new Map(), another: new Set(), laterName: [], broughtBack: [], notes: [] };
  const paths = new Set(plan.map((p) => p.rel));
  for (const p of touched) {
    const as = target.files.find((f) => f.status === 'renamed' && f.path === p.rel)?.from;
    if (as === undefined) continue;
    const { changes, now } = await followMemory(memoryDir, target.rev, p.rel, history);
    out.broughtBack.push(...changes.map((c) => ({ rev: c.rev, path: c.path, as })));
    if (now !== p.rel && p.now !== null) {
      out.another.add(p.rel);
      const left = changes.find((c) => c.path === p.rel && tookAway(c.later, p.rel));
      out.notes.push(
        `The ${p.rel} there now is another memory, written after ${left ? `"${left.later.entry.summary}"` : 'this one left'} took this one away: it stays.`,
      );
    }
    if (now === null) {
      // Deleted since: it comes back as it was just before its delete, its edits kept.
      const gone = changes.at(-1);
      const parent = gone ? (await readEntry(memoryDir, gone.rev, history)).parent : null;
      const text = gone && parent ? await readAtRevision(memoryDir, parent, gone.path, history) : null;
      if (text === null || text === p.after) continue;
      out.text.set(as, text);
      const edits = editsIn(changes);
      out.notes.push(
        `${as} comes back as ${gone!.path} was just before "${gone!.later.entry.summary}"${edits.length > 0 ? `, with the edits made since (${edits.join(', ')})` : ''} — undoing a rename changes the name, not the text.`,
      );
      continue;
    }
    const text = (await readText(memoryDir, now)) ?? '';
    const edited = text !== p.after;
    // Unchanged since the entry: the entry is undone whole (its own edit too, for a rename that changed the text).
    if (edited) out.text.set(as, text);
    if (!paths.has(now)) out.laterName.push(now);
    if (now === as) continue;
    const edits = editsIn(changes);
    out.notes.push(
      edited && edits.length > 0
        ? `${now} goes: it is the memory brought back as ${as}, with the edits made since (${edits.join(', ')}) — undoing a rename changes the name, not the text.`
        : `${now} goes: it is the memory brought back as ${as}.`,
    );
  }
  return out;
}

/**
 * Undo anyway of a rename never takes away another memory: when the old name holds a memory
 * written there since (the renamed one did not come back there), the undo stops, naming it —
 * even when the caller says to overwrite (so a plain undo says so rather than offer undo anyway). Bringing the renamed memory back would overwrite it.
 */
async function refuseAnotherAtOldName(
  memoryDir: string,
  target: HistoryEntry,
  plan: Planned[],
  back: Map<string, BackAlready>,
  history: History,
): Promise<void> {
  for (const f of target.files) {
    if (f.status !== 'renamed' || !f.from || back.has(f.from)) continue;
    const old = plan.find((p) => p.rel === f.from);
    if (!old || old.now === null) continue;
    if ((await followMemory(memoryDir, target.rev, f.path, history)).now === f.from) continue;
    const by = (await laterChanges(memoryDir, target.rev, [f.from], history)).get(f.from);
    const name = parseTopicFile(old.now, f.from).meta.name;
    const what = [name ? `"${name}"` : '', by ? `written by "${by.entry.summary}"` : ''].filter(Boolean).join(', ');
    throw new MemoryError(
      'conflict',
      `Nothing was undone: ${f.from} holds another memory now${what ? ` (${what})` : ''}, and undoing "${target.summary}" would overwrite it. Rename or delete that memory first.`,
    );
  }
}

/**
 * An undo never writes a memory back beside another that holds its name in another Unicode form
 * (NFD `cafe\u0301.md` written since for the NFC `caf\u00e9.md` the entry deleted), or in another
 * letter case on macOS and Windows, where the write would replace it: the two would look the same
 * everywhere a person reads them. It stops, naming it, even anyway — as for another memory at
 * the name itself (refuseAnotherAtOldName). The names the undo itself writes or takes away are not
 * in its way: undoing a rename that changed only the form puts the memory back under its old one.
 */
async function refuseTwinOfWritten(memoryDir: string, target: HistoryEntry, plan: Planned[], back: Map<string, BackAlready>, followed: FollowedRenames) {
  const own = plan.filter((p) => !isIndex(p.rel) && !back.has(p.rel) && !followed.another.has(p.rel));
  const ours = [...own.map((p) => p.rel), ...followed.laterName];
  for (const p of own) {
    if (p.now !== null || (followed.text.get(p.rel) ?? p.before) === null) continue;
    try {
      await refuseTakenName(memoryDir, p.rel, `undoing "${target.summary}" would write it beside that memory. Rename or delete that memory first.`, ours);
    } catch (error) {
      if (error instanceof MemoryError) throw new MemoryError(error.code, `Nothing was undone: ${error.message}`);
      throw error;
    }
  }
}

/**
 * Why an undo stops: which later change touched which of the entry's files, and how, so the
 * person can undo those first (newest first) or undo anyway. A memory the entry renamed is
 * followed through its later changes (renamed on, edited, deleted), each named; a memory written
 * at its new name after it left is named too. So is an edit's memory an undo anyway brought back
 * under another name since: its later changes from the name the edit wrote, but that undo.
 */
async function touchedSince(
  memoryDir: string,
  target: HistoryEntry,
  touched: Planned[],
  plan: Planned[],
  edited: EditedLines[],
  history: History,
): Promise<string> {
  const later = await laterChanges(
    memoryDir,
    target.rev,
    touched.map((p) => p.rel),
    history,
  );
  // A memory back under another name: the later change to that name is the undo anyway that brought it back, not what is in the way.
  const revs = new Set(touched.flatMap((p) => (p.was ? [] : [later.get(p.rel)?.entry.rev ?? []].flat())));
  const what: string[] = [];
  for (const p of touched) {
    const by = later.get(p.rel);
    if (p.was) {
      // The memory followed from the name the entry wrote: its later changes, but for the one that brought it back here.
      const since = (await followMemory(memoryDir, target.rev, p.was.rel, history)).changes.filter((c) => c.rev !== p.was!.by.rev);
      if (since.length > 0) {
        for (const c of since) revs.add(c.rev);
        const clauses = since.map((c) => `${c.path} ${how(c.later.change, c.path)} by "${c.later.entry.summary}"`).join(', then ');
        what.push(`${clauses} (the memory is back as ${p.rel} since "${p.was.by.summary}", undone anyway)`);
        continue;
      }
    }
    const renamedHere = target.files.some((f) => f.status === 'renamed' && f.path === p.rel);
    if (renamedHere) {
      const { changes, now } = await followMemory(memoryDir, target.rev, p.rel, history);
      if (changes.length > 0) {
        const clauses = changes.map((c) => `${c.path} ${how(c.later.change, c.path)} by "${c.later.entry.summary}"`);
        if (now !== p.rel && p.now !== null && by) clauses.push(`${p.rel} was written again by "${by.entry.summary}"`);
        for (const c of changes) revs.add(c.rev);
        what.push(clauses.join(', then '));
        continue;
      }
    }
    // Without a recorded change (none on the line to now), what the disk shows.
    const seen = { path: p.rel, status: p.now === null ? 'deleted' : p.after === null ? 'added' : 'modified' } as const;
    what.push(`${p.rel} ${how(by?.change ?? seen, p.rel)}${by ? ` by "${by.entry.summary}"` : ''}`);
  }
  for (const lines of edited) {
    const by = await lineEditedBy(memoryDir, target, plan.find((p) => p.rel === lines.index)!, lines.files, history);
    if (by) revs.add(by.rev);
    what.push(`${linesInWords(lines)} ${lines.files.length > 1 ? 'were' : 'was'} edited${by ? ` by "${by.summary}"` : ''}`);
  }
  const list = listInWords(what);
  return `Nothing was undone: since "${target.summary}", ${list}. Undo ${revs.size > 1 ? 'those' : 'that'} first, or undo anyway (what is there now stays in history).`;
}

/**
 * The first change after `target` that left a pointer line of `files` in `index` other than
 * `target` wrote it (the person's edit, as recorded); null when none is recorded.
 */
async function lineEditedBy(memoryDir: string, target: HistoryEntry, index: Planned, files: string[], history: History): Promise<HistoryEntry | null> {
  const wrote = new Map(indexEntries(parseIndex(index.after ?? '')).map((e) => [e.file, e.raw]));
  for (const { entry } of (await everyLaterChange(memoryDir, target.rev, index.rel, history)).reverse()) {
    const then = indexEntries(parseIndex((await readAtRevision(memoryDir, entry.rev, index.rel, history)) ?? ''));
    if (then.some((e) => files.includes(e.file) && e.raw !== wrote.get(e.file))) return entry;
  }
  return null;
}

/**
 * Restore one file as it was at `rev`; a memory file gets its index pointers back too, in each
 * index that has none for it now — restoring a deleted memory without its pointer would leave it
 * where the agent never looks. Each pointer as the index last listed it, at `rev` or before it
 * (lastListing: a memory deleted outside Memdir may have lost its line in an earlier recorded
 * change than its file), at its old place when it reaches the agent there; a memory no index ever
 * listed gets a new pointer, from its name and description, where new pointers go. `as`: under that
 * name instead (a free one), its pointers naming it. `first`: the caller's check before anything is
 * written (restore-revision.ts: another memory written at the name since). One history entry: the
 * file and its pointers, undone together.
 */
export async function restoreMemoryFile(opts: Options & { rev: string; file: string; as?: string; first?: () => Promise<void> }): Promise<UndoResult> {
  const history = opts.dataDir ? { dataDir: opts.dataDir } : {};
  const notes: string[] = [];
  const rel = opts.file.replace(/\\/g, '/');
  const to = opts.as?.replace(/\\/g, '/') ?? rel;
  const entry = await restoreFromHistory(opts.memoryDir, opts.rev, {
    ...history,
    file: rel,
    ...(to !== rel ? { as: to } : {}),
    // Brought back where nothing is now: not beside another memory holding its name in another Unicode form (or letter case, on macOS and Windows).
    first: async () => {
      await opts.first?.();
      if (to !== rel) await refuseTakenName(opts.memoryDir, to, 'pick another name.');
      else if ((await readText(opts.memoryDir, rel)) === null)
        await refuseTakenName(opts.memoryDir, rel, 'restoring it would write it beside that memory. Rename or delete that memory first.');
    },
    then: async () => {
      if (isIndex(rel) || !/\.md$/i.test(rel)) return;
      // Every index that had a pointer to it (pointerPlacesAt): a team memory's `team/x.md` in MEMORY.md, which loads it, too.
      for (const { index, file } of pointerPlacesAt(rel)) {
        const named = pointerPlacesAt(to).find((p) => p.index === index)?.file;
        if (named === undefined) continue;
        const text = await readText(opts.memoryDir, index);
        const current = parseIndex(text ?? '');
        if (indexEntries(current).some((e) => e.file === named)) continue;
        const old = await lastListing(opts.memoryDir, opts.rev, index, file, history);
        const put = old
          ? reinsertPointer(current, named === file ? old : retargetIndexEntries(old, file, named), named)
          : addNewPointer(current, await newPointerLine(opts.memoryDir, to, named), named);
        if (!put) continue;
        // Through the one index writer: a MEMORY.md this restore creates is seeded (seedIndex).
        await writeIndex({ memoryDir: opts.memoryDir, scope: index === INDEX_FILE ? 'private' : 'team' }, put.index, text);
        notes.push(describePlacement(put.placement, index));
      }
    },
  });
  return { entry, notes };
}

/** How far back a restore looks for the index's last line to a memory (index changes, newest first). */
const LISTING_LOOKBACK = 100;

/**
 * Index `index` as it last listed `file` (named as that index names it), at `rev` or in an earlier
 * change to it; null when none of the last {@link LISTING_LOOKBACK} did.
 */
async function lastListing(memoryDir: string, rev: string, index: string, file: string, history: History): Promise<ParsedIndex | null> {
  const lists = (text: string | null) => {
    const parsed = parseIndex(text ?? '');
    return indexEntries(parsed).some((e) => e.file === file) ? parsed : null;
  };
  const at = lists(await readAtRevision(memoryDir, rev, index, history));
  if (at) return at;
  for (const e of await listHistory(memoryDir, { ...history, file: index, from: rev, limit: LISTING_LOOKBACK })) {
    const then = lists(await readAtRevision(memoryDir, e.rev, index, history));
    if (then) return then;
  }
  return null;
}

/** The pointer line Memdir writes for the memory restored at `rel` (index-format's formatIndexEntry): its name and description; its file name without a name. */
async function newPointerLine(memoryDir: string, rel: string, named: string): Promise<string> {
  const { meta } = parseTopicFile((await readText(memoryDir, rel).catch(() => null)) ?? '', rel);
  const title = typeof meta.name === 'string' && meta.name.trim() ? meta.name : path.posix.basename(rel).replace(/\.md$/i, '');
  return formatIndexEntry({ title, file: named, ...(typeof meta.description === 'string' ? { hook: meta.description } : {}) });
}
