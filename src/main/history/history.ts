/**
 * Shadow git history of a memory dir (issue 2, "history"). Every change made through Memdir, and
 * every change found on disk since the last look, is a commit in a repository kept in Memdir's
 * data dir, with its source. Diff any two points, read a file at a point, restore a file or a
 * whole snapshot; a memory deleted in Memdir is always recoverable.
 *
 * `transact` is the single path every Memdir write goes through:
 *   lock → record outside changes (`external`) → write via safe-fs → record what another program
 *   wrote meanwhile (`external`) → record the files the change wrote (given source).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { processDataDir } from '../core/data-dir.js';
import { isDiskRefusal } from '../core/fs-errors.js';
import { cleanupTempFiles, type NotedWrites, noteWrites, removeFileConfined, writeFileAtomic } from '../core/safe-fs.js';
import { memoryDirKey, realpathDeepestExisting, withMemoryLock } from '../core/memory-lock.js';
import { splitRelativePath, UnsafePathError } from '../core/confined-path.js';
import { changedFiles, git, gitBlob, gitBlobs, HistoryError } from './git.js';
import type { ShadowRepo } from './git.js';
import { formatMessage, LOG_FORMAT, parseCreatedFolders, parseLog, toEntry } from './log-format.js';
import type { BroughtBack, HistoryEntry, LoggedEntry, TakenMode } from './log-format.js';
import { ensureShadowRepo, openShadowRepo } from './shadow-repo.js';
import { refuseUndoneImport } from './imports.js';
import { putBackChange, removeEmptyFolders } from './put-back.js';
import { modeWhenTakenAway, takenModes } from './modes.js';
import { INDEX_FILE, TEAM_DIR } from '../../shared/limits.js';
import { mergeLines } from '../../shared/line-merge.js';
import { parseIndex } from '../../shared/index-format.js';
import { strictUtf8 } from '../../shared/utf8.js';
import { minuteUtc } from '../../shared/iso-time.js';

export { HistoryError } from './git.js';
export type { BroughtBack, HistoryEntry, HistoryFileChange } from './log-format.js';

/** Who made a change, recorded as the `Memdir-Source:` trailer of its commit. */
export const CHANGE_SOURCES = ['manual', 'external', 'extract', 'dream', 'restore', 'fix', 'sync', 'import', 'relink', 'demo'] as const;
/** Who made a change: the user in the app/CLI, another program, or one of Memdir's jobs. */
export type ChangeSource = (typeof CHANGE_SOURCES)[number];

/** Options every history call takes: where Memdir's data dir is (tests point it at a tmp dir). */
export interface HistoryOptions {
  dataDir?: string;
}

/** What a recorded change is called. */
export interface ChangeDescription extends HistoryOptions {
  source: ChangeSource | string;
  /** One line shown in the history list. */
  summary: string;
  /** Optional detail kept in the commit message. */
  body?: string;
  /**
   * For `transact`: files merged from another version (team sync's three-way merges). Asked
   * after the change: when it names files, the entry is a merge commit whose second parent is
   * the state before the change with these files at that other version (both parents kept).
   */
  theirs?: () => { path: string; content: string; from: string }[];
  /**
   * For `transact`: versions of files this change replaces that are not on disk now (a sync
   * conflict's kept side, the pull having written the other): each recorded as its own entry just
   * before this change (unless History's newest entry holds it already), so this change's entry
   * goes from it to what is on disk after, and its undo puts it back byte for byte.
   */
  replaces?: { path: string; content: Buffer; summary: string }[];
  /** For `transact`: the memories an undo anyway brought back, asked after the change (kept as trailers of its entry). */
  broughtBack?: () => BroughtBack[];
  /**
   * The turn of a merge (relink, import, their undo) this change is a step of, kept as a trailer
   * no body can spoof: putting a killed turn back finds its own entries by it (turnEntries), and
   * only those.
   */
  turn?: string;
}

const EXTERNAL = { source: 'external', summary: 'Changes made outside Memdir' } as const;

function checkSource(source: string): string {
  if (!/^[a-z][a-z0-9-]{0,39}$/.test(source)) {
    throw new HistoryError('bad-argument', `"${source}" is not a valid change source (lower-case letters, digits and dashes)`);
  }
  return source;
}

/** A caller's file argument as a confined, normalised relative path, or a HistoryError. */
export function checkFile(file: string): string {
  try {
    return splitRelativePath(file, 'the memory directory', 'use').join('/');
  } catch (err) {
    if (err instanceof UnsafePathError) throw new HistoryError('bad-path', err.message, { cause: err });
    throw err;
  }
}

/** A history listing's limit: a positive whole number (or none), else a HistoryError. */
export function checkLimit(limit: number | undefined): void {
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1))
    throw new HistoryError('bad-argument', `The history limit must be a positive whole number, not ${limit}`);
}

async function isDirectory(p: string): Promise<boolean> {
  return fs.stat(p).then(
    (st) => st.isDirectory(),
    () => false,
  );
}

async function headRev(repo: ShadowRepo): Promise<string | null> {
  const out = await git(repo, ['rev-parse', '-q', '--verify', 'HEAD^{commit}'], { okCodes: [1, 128] });
  return out.code === 0 ? out.stdout.trim() : null;
}

/**
 * Accepts commit ids and simple names (`HEAD`, `HEAD~2`, `main`) and returns the full commit id.
 * Anything git could read as an option, a range or a path (`-x`, `a..b`, `rev:file`) is refused
 * before git sees it, and git's own complaint never reaches the user.
 */
export async function resolveRev(repo: ShadowRepo, rev: string, memoryDir: string): Promise<string> {
  const shown = typeof rev === 'string' ? JSON.stringify(rev.slice(0, 80)) : String(rev);
  if (typeof rev !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9_./~^-]{0,199}$/.test(rev) || rev.includes('..')) {
    throw new HistoryError('bad-revision', `${shown} is not a point in history; expected a commit id such as 3f2a9c1`);
  }
  const out = await git(repo, ['rev-parse', '-q', '--verify', `${rev}^{commit}`], { okCodes: [1, 128] });
  if (out.code !== 0) {
    throw new HistoryError('bad-revision', `${shown} is not a point in the history of ${memoryDir}`);
  }
  return out.stdout.trim();
}

/** `git log` parsed; the repo must have at least one commit (check with `headRev`). For this folder's files only (bundle.ts). */
export async function readLog(repo: ShadowRepo, args: string[], files: readonly string[] = []): Promise<LoggedEntry[]> {
  const out = await git(repo, ['log', '--topo-order', '-z', '--name-status', '-M', '--no-color', LOG_FORMAT, ...args, '--', ...files]);
  return parseLog(out.stdout);
}

/**
 * Commits the memory dir as it is now, if anything changed since the last entry (else returns
 * null); with `paths` (relative to the memory dir), only those of its files. Takes the memory lock
 * (reentrant). Cheap when nothing changed: one `git status`, which compares file stats against the
 * index and reads only files whose stat changed.
 */
export async function recordSnapshot(
  memoryDir: string,
  opts: Omit<ChangeDescription, 'broughtBack'> & {
    secondParent?: string | null;
    createdFolders?: readonly string[];
    broughtBack?: readonly BroughtBack[];
    paths?: readonly string[];
    /** The files the change took away, with their modes then (modes.ts). */
    modes?: readonly TakenMode[];
  },
): Promise<HistoryEntry | null> {
  const source = checkSource(opts.source);
  const dataDir = opts.dataDir ?? processDataDir();
  return withMemoryLock(
    memoryDir,
    async () => {
      if (!(await isDirectory(await realpathDeepestExisting(memoryDir)))) return null;
      const repo = await ensureShadowRepo(memoryDir, dataDir);
      const locked = { workTree: true, clearStaleLocks: true };
      const wanted = opts.paths === undefined ? null : new Set(opts.paths);
      const changed = (await changedFiles(repo)).filter((rel) => wanted === null || wanted.has(rel));
      if (changed.length === 0) return null;
      // --ignore-errors: an unreadable file (EACCES) is skipped rather than blocking the record;
      // the health scan reports it as `unreadable`. Then whether anything is left to commit
      // must be asked again. Only the files asked for, when some are (each literally, by name).
      const added = await git(repo, ['add', '-A', '--ignore-errors', ...(wanted ? ['--pathspec-from-file=-', '--pathspec-file-nul'] : [])], {
        ...locked,
        okCodes: [1],
        ...(wanted ? { input: changed.join('\0'), env: { GIT_LITERAL_PATHSPECS: '1' } } : {}),
      });
      if (added.code !== 0) {
        const staged = await git(repo, ['diff', '--cached', '--quiet', '--no-ext-diff'], { okCodes: [1] });
        if (staged.code === 0) return null;
      }
      if (opts.secondParent) {
        // A merge: the staged tree with both parents (git commit cannot take a second parent without a merge in progress).
        const tree = (await git(repo, ['write-tree'], locked)).stdout.trim();
        const made = await git(repo, ['commit-tree', tree, '-p', 'HEAD', '-p', opts.secondParent, '-F', '-'], {
          input: formatMessage(opts.summary, source, opts.body, opts.createdFolders, opts.broughtBack, opts.turn, opts.modes),
          env: await monotonicDate(repo),
        });
        await git(repo, ['update-ref', 'HEAD', made.stdout.trim()], locked);
      } else {
        const commit = await git(repo, ['commit', '-q', '--no-verify', '--cleanup=whitespace', '-F', '-'], {
          ...locked,
          okCodes: [1],
          input: formatMessage(opts.summary, source, opts.body, opts.createdFolders, opts.broughtBack, opts.turn, opts.modes),
          env: await monotonicDate(repo),
        });
        // Exit 1 is git's "nothing to commit" (status saw a change that staging cancelled out).
        if (commit.code === 1) return null;
      }
      const [entry] = await readLog(repo, ['-1', 'HEAD']);
      if (!entry) return null;
      lastCommitTime.set(repo.gitDir, Math.floor(Date.parse(entry.time) / 1000));
      return toEntry(entry);
    },
    { dataDir },
  );
}

/**
 * After a change ran: records what another program (Claude Code) wrote in the memory dir while it
 * ran — every changed file the change did not write itself (`own`, absolute paths, safe-fs
 * noteWrites) — as its own `external` entry, and returns the changed files that are the change's
 * (relative to the memory dir): what its entry holds, so that its undo and its put-back touch only those.
 */
async function recordOthersMeanwhile(memoryDir: string, dataDir: string, own: ReadonlySet<string>): Promise<string[]> {
  if (!(await isDirectory(await realpathDeepestExisting(memoryDir)))) return [];
  const repo = await ensureShadowRepo(memoryDir, dataDir);
  const changed = await changedFiles(repo);
  const isOwn = (rel: string) => own.has(path.join(repo.workTree, rel));
  const others = changed.filter((rel) => !isOwn(rel));
  if (others.length > 0) await recordSnapshot(memoryDir, { ...EXTERNAL, dataDir, paths: others });
  return changed.filter(isOwn);
}

/** Per shadow repo, the newest commit time seen by this process (seconds). */
const lastCommitTime = new Map<string, number>();

/**
 * Entries are ordered by commit order, never by clock; still, a clock that went backwards
 * (NTP, a laptop's dead battery) should not make a newer entry look older, so a commit is not
 * dated before the last one. Only the first commit in a process asks git; the rest use the
 * time this process last committed ("monotonic-ish" across processes, exact within one).
 */
async function monotonicDate(repo: ShadowRepo): Promise<Record<string, string>> {
  let last = lastCommitTime.get(repo.gitDir);
  if (last === undefined) {
    const out = await git(repo, ['log', '-1', '--format=%ct', '--all']);
    last = Number.parseInt(out.stdout.trim(), 10) || 0;
  }
  if (last <= Math.floor(Date.now() / 1000)) return {};
  const date = `@${last} +0000`;
  return { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date };
}

/** Records what changed on disk since the last entry as `external` ("Changes made outside Memdir"). */
export async function recordExternalChanges(memoryDir: string, opts: HistoryOptions = {}): Promise<HistoryEntry | null> {
  return recordSnapshot(memoryDir, { ...EXTERNAL, ...opts });
}

/** A change being made (transact), by `dataDir\0memory dir key`: whether it runs yet, its notes, and what it wrote so far. */
interface ChangeState {
  active: boolean;
  notes: string[];
  dataDir: string;
  noted: NotedWrites;
  /** Each index as it stood just before the change's opening snapshot (indexStamps). */
  opening: ReadonlyMap<string, IndexStamp | null>;
}
const transactions = new AsyncLocalStorage<ReadonlyMap<string, ChangeState>>();

/**
 * Adds a note to the summary of the change now being made in `memoryDir` (its active
 * {@link transact}; a change in another folder at the same moment, the other side of a move, is not
 * told): for what a writer did on top of what it was asked, which the person should read in the
 * history list (a MEMORY.md written with the pointers Claude Code would have built).
 */
export async function noteInChange(memoryDir: string, note: string): Promise<void> {
  const store = transactions.getStore();
  if (!store) return;
  const dirKey = `\0${await memoryDirKey(memoryDir)}`;
  for (const [key, state] of store) if (key.endsWith(dirKey) && state.active && !state.notes.includes(note)) state.notes.push(note);
}

/** The indexes of a memory dir, relative to it: what Claude Code appends its pointers to. */
const INDEXES = new Set([INDEX_FILE, `${TEAM_DIR}/${INDEX_FILE}`]);

/**
 * A change's safe-fs `beforeWrite` (transact): every writer of MEMORY.md (a memory created, edited,
 * deleted or renamed, the MEMORY.md editor's save, a bulk change, a dream, a merge, a pull, a
 * restore) reads it, edits it and writes it back inside the change. When the disk index is no
 * longer what the change last knew (the newest entry's, recorded as the change began, or what the
 * change itself last wrote there) another program (Claude Code) changed it in between — a pointer
 * appended. Then what Claude Code wrote so far is recorded first as its own `external` entry, and
 * the change's text is merged onto the disk's line by line (the one three-way merge, as the
 * editor's save): the pointer stays, the change's entry holds only its own lines, and its undo
 * takes only those away. Where both changed the same lines both are kept (a pointer to a memory the
 * change took away is then left, which Health names) — never a line lost. A line both added (the
 * writer read the index after Claude Code's append) is there once.
 * Not covered: a change that writes one index twice and Claude Code appends between the two writes
 * (the second merge keeps the pointer, but in the change's own entry).
 * Cost: an index that has not moved since just before the change's opening snapshot (its stamp,
 * {@link indexStamps}) is what that snapshot recorded, so it is known without asking git; only an
 * index that moved costs a `rev-parse` and a `cat-file` (a single memory's save is status, add,
 * commit).
 */
function keepingOthersIndexLines(memoryDir: string, state: ChangeState): (abs: string, data: string | Uint8Array) => Promise<string | Uint8Array> {
  const lastWritten = new Map<string, string>();
  // The entry the change began from: once Claude Code's writes are recorded (below, at the first
  // index that needs it) the newest entry holds its version of *every* index — the other index's
  // "before" is still this one's, or its pointer would look known and be written over.
  let began: Promise<string | null> | null = null;
  return async (abs, data) => {
    if (!state.active || path.basename(abs) !== INDEX_FILE) return data;
    // An index handed over as bytes (a restore, a relink) is merged too when it is text.
    const ours = typeof data === 'string' ? data : strictUtf8(data);
    if (ours === null) return data;
    const repo = await openShadowRepo(memoryDir, state.dataDir);
    const rel = repo ? path.relative(repo.workTree, abs).split(path.sep).join('/') : '';
    if (!repo || !INDEXES.has(rel)) return data;
    let now = await fs.readFile(abs, 'utf8').catch(() => null);
    if (now === null || now === ours) {
      lastWritten.set(abs, ours);
      return data;
    }
    let known = lastWritten.get(abs) ?? null;
    if (!lastWritten.has(abs) && !state.noted.files.has(abs)) {
      // Stamped after the read: unmoved, what was read is what the opening snapshot recorded.
      if (await unmovedSince(state.opening.get(rel) ?? null, abs, now)) known = now;
      else known = await textAt(repo, await (began ??= headCommit(repo)), rel);
    }
    let text = ours;
    if (known !== null && now !== known) {
      // Before Claude Code's writes are recorded, what the change began from is fixed: an index
      // written later (one this change has not merged yet) is merged against it, not against them.
      await (began ??= headCommit(repo));
      await recordOthersMeanwhile(memoryDir, state.dataDir, state.noted.files);
      now = (await fs.readFile(abs, 'utf8').catch(() => null)) ?? now;
      text = mergeOntoOthers(known, ours, now);
    }
    lastWritten.set(abs, text);
    return text === ours ? data : text;
  };
}

/** An index's file as it stood: its stat, and its bytes when the stat alone could miss a write. */
interface IndexStamp {
  stat: fsSync.BigIntStats;
  /** Read when the index was written too lately for its mtime to tell (RACY_NS): compared instead. */
  bytes: Buffer | null;
}

/**
 * How recent an mtime may be and still not tell a later write apart: a file system stamps times at
 * its own granularity (a clock tick of a few ms on Linux, 2 s on FAT), so a write in the same
 * tick as the one stamped keeps the mtime — and a same-size write, the whole stat but ctime.
 * Judged by this machine's clock: a network file system whose server clock lags it by more than
 * this, with coarse times, could let a same-size rewrite in place look unmoved (Claude Code appends,
 * which changes the size).
 */
const RACY_NS = 3_000_000_000n;

/**
 * Each index of `memoryDir` (MEMORY.md, team/MEMORY.md) as it stands now, taken just before a
 * change's opening snapshot: null when it is not there (none while the folder is not there yet).
 * Opened, not read through `fs.readFile`.
 */
async function indexStamps(memoryDir: string): Promise<Map<string, IndexStamp | null>> {
  const stamps = new Map<string, IndexStamp | null>();
  const realDir = await fs.realpath(memoryDir).catch(() => null);
  if (realDir === null) return stamps;
  for (const rel of INDEXES) {
    const abs = path.join(realDir, ...rel.split('/'));
    const racyFrom = BigInt(Date.now()) * 1_000_000n - RACY_NS;
    const stat = await fs.stat(abs, { bigint: true }).catch(() => null);
    const bytes = stat && stat.mtimeNs >= racyFrom ? await readOpened(abs) : null;
    stamps.set(rel, stat && (bytes !== null || stat.mtimeNs < racyFrom) ? { stat, bytes } : null);
  }
  return stamps;
}

async function readOpened(abs: string): Promise<Buffer | null> {
  const handle = await fs.open(abs, 'r').catch(() => null);
  if (!handle) return null;
  try {
    return await handle.readFile();
  } catch {
    return null;
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** Whether the index at `abs`, read as `text`, is the file `stamp` saw (null stamp: never known unmoved). */
async function unmovedSince(stamp: IndexStamp | null, abs: string, text: string): Promise<boolean> {
  if (!stamp) return false;
  if (stamp.bytes) return stamp.bytes.equals(Buffer.from(text, 'utf8'));
  const now = await fs.stat(abs, { bigint: true }).catch(() => null);
  const was = stamp.stat;
  return now !== null && now.dev === was.dev && now.ino === was.ino && now.size === was.size && now.mtimeNs === was.mtimeNs && now.ctimeNs === was.ctimeNs;
}

/** The newest entry's commit (null: History holds none yet). */
async function headCommit(repo: ShadowRepo): Promise<string | null> {
  const head = await git(repo, ['rev-parse', '--verify', '--quiet', 'HEAD'], { okCodes: [1, 128] });
  return head.code === 0 ? head.stdout.trim() : null;
}

/** `rel` as `commit` holds it ('' when it holds none). */
async function textAt(repo: ShadowRepo, commit: string | null, rel: string): Promise<string> {
  if (commit === null) return '';
  const shown = await git(repo, ['cat-file', 'blob', `${commit}:${rel}`], { okCodes: [128] });
  return shown.code === 0 ? shown.stdout : '';
}

/** `mine` (edited from `base`) merged onto `theirs` line by line, in `theirs`'s line endings; a line both added, once. */
function mergeOntoOthers(base: string, mine: string, theirs: string): string {
  const lf = (t: string) => t.replace(/\r\n/g, '\n');
  const merge = mergeLines(lf(base), lf(mine), lf(theirs), {}, { besideInsertions: true });
  const lines = (merge.clean ? merge.text : merge.both).split('\n');
  // Each line as often as the more of the two has it: the writer read the index after Claude Code's append.
  const count = (t: string) =>
    lf(t)
      .split('\n')
      .reduce((m, l) => m.set(l, (m.get(l) ?? 0) + 1), new Map<string, number>());
  const [inMine, inTheirs, seen] = [count(mine), count(theirs), new Map<string, number>()];
  const kept = lines.filter((line) => {
    if (line.trim() === '') return true;
    const n = (seen.get(line) ?? 0) + 1;
    seen.set(line, n);
    return n <= Math.max(inMine.get(line) ?? 0, inTheirs.get(line) ?? 0);
  });
  // In the line ending the index's one reader gives the disk's text (index-format.ts).
  return kept.join('\n').replace(/\n/g, parseIndex(theirs).eol);
}

function withNotes(summary: string, notes: readonly string[]): string {
  return notes.length === 0 ? summary : `${summary}; ${notes.join('; ')}`;
}

/**
 * The single path every Memdir write goes through: takes the memory lock, removes temp files
 * left by a killed writer, records outside changes as `external`, runs `fn` (which writes with
 * safe-fs), then records the result with the given source. The change's entry holds only the files
 * it wrote (safe-fs noteWrites): a file another program (Claude Code) wrote while it ran is recorded
 * first, as its own `external` entry, so the change's undo never takes it away. A file both wrote
 * (MEMORY.md, which a change merges onto Claude Code's new lines) is the change's, whole.
 *
 * If `fn` throws, whatever it had already written (each write is atomic) is recorded with the
 * given source and the summary suffixed " (incomplete)" — attributing it to `external` would be
 * a lie — and the error is rethrown. When the disk refused a write instead (full, read-only), the
 * change's own files are taken back whole (put-back.ts), as they are when History itself cannot keep the result:
 * no half-made change, none History does not hold. A `transact` nested in `fn` for the same dir just runs its
 * function: its writes belong to the outer entry, and it returns `entry: null`.
 */
export async function transact<T>(memoryDir: string, opts: ChangeDescription, fn: () => Promise<T>): Promise<{ result: T; entry: HistoryEntry | null }> {
  checkSource(opts.source);
  const dataDir = opts.dataDir ?? processDataDir();
  const outer = transactions.getStore();
  // A change inside the change already running in this folder (each memory of a bulk change) joins it:
  // found by the folder as given before its real path is resolved again (once per memory of a bulk change).
  const given = `${dataDir}\0as given\0${path.resolve(memoryDir)}`;
  if (outer?.get(given)?.active) return { result: await fn(), entry: null };
  const key = `${dataDir}\0${await memoryDirKey(memoryDir)}`;
  if (outer?.get(key)?.active) return { result: await fn(), entry: null };

  return withMemoryLock(
    memoryDir,
    async () => {
      await cleanupTempFiles(await realpathDeepestExisting(memoryDir));
      const opening = await indexStamps(memoryDir);
      await recordSnapshot(memoryDir, { ...EXTERNAL, dataDir });
      // What this change writes: its files (only these are its entry's, its undo's and its put-back's;
      // another program writing meanwhile is not the change) and the folders it creates (kept in
      // its entry so that undoing it takes them away again).
      const noted: NotedWrites = { created: [], files: new Set(), modes: new Map() };
      const state: ChangeState = { active: true, notes: [], dataDir, noted, opening };
      noted.beforeWrite = keepingOthersIndexLines(memoryDir, state);
      // An undo or a restore brings a memory back with the mode it had when it was taken away (modes.ts).
      const repo = await openShadowRepo(memoryDir, dataDir);
      if (repo && opts.source === 'restore') noted.createMode = modeWhenTakenAway(repo);
      const modes = async () => (repo ? await takenModes(repo.workTree, noted).catch(() => []) : []);
      const createdFolders = noted.created;
      // What put-back restores to should the change be taken back: the files as they were before
      // the replaced versions went in as entries of their own (never a replaced version: not on disk).
      const putBackTo = repo && opts.replaces?.length ? await headRev(repo) : null;
      if (repo && opts.replaces) {
        for (const replaced of opts.replaces) {
          await keepReplaced(repo, replaced, checkSource(opts.source));
          noted.files.add(path.join(repo.workTree, checkFile(replaced.path)));
        }
      }
      let result: T;
      try {
        result = await noteWrites(memoryDir, noted, () => transactions.run(new Map([...(outer ?? []), [key, state], [given, state]]), fn));
      } catch (err) {
        state.active = false;
        // The disk refused a write half-way (full, read-only): take the change back whole.
        if (await takeBack(err, memoryDir, dataDir, noted, putBackTo)) throw err;
        // The original error matters more than a failure to record; the next transact picks
        // anything left unrecorded up as `external`.
        const broughtBack = opts.broughtBack?.() ?? [];
        await recordOthersMeanwhile(memoryDir, dataDir, noted.files)
          .then(async (paths) =>
            recordSnapshot(memoryDir, {
              ...opts,
              dataDir,
              summary: `${withNotes(opts.summary, state.notes)} (incomplete)`,
              createdFolders,
              broughtBack,
              paths,
              modes: await modes(),
            }),
          )
          .catch(() => undefined);
        throw err;
      }
      state.active = false;
      const entry = await (async () => {
        const paths = await recordOthersMeanwhile(memoryDir, dataDir, noted.files);
        const side = opts.theirs?.() ?? [];
        const secondParent = side.length > 0 ? await commitSide(memoryDir, dataDir, side) : null;
        return recordSnapshot(memoryDir, {
          ...opts,
          summary: withNotes(opts.summary, state.notes),
          dataDir,
          secondParent,
          createdFolders,
          broughtBack: opts.broughtBack?.() ?? [],
          paths,
          modes: await modes(),
        });
      })().catch(async (err: unknown) => {
        // History could not keep it (its disk is full): a change History does not hold would
        // have no undo, and the person was told it failed — so it is taken back.
        await takeBack(err, memoryDir, dataDir, noted, putBackTo);
        throw err;
      });
      return { result, entry };
    },
    { dataDir },
  );
}

/** The errors of changes `transact` took back (put-back.ts): nothing of them is on disk. */
const takenBack = new WeakSet<object>();

/** When `err` is the disk refusing a write, puts the change's own writes back (put-back.ts); whether it was. */
async function takeBack(err: unknown, memoryDir: string, dataDir: string, noted: NotedWrites, to: string | null = null): Promise<boolean> {
  if (!isDiskRefusal(err) || typeof err !== 'object' || err === null) return false;
  const done = await putBackChange(memoryDir, dataDir, noted, to).then(
    () => true,
    () => false,
  );
  if (done) takenBack.add(err);
  return done;
}

/**
 * Whether the change that failed with `err` was taken back whole by {@link transact} (the disk
 * refused it): a caller that noted what it wrote while the change ran (a sync's agreed versions)
 * must forget that too, since none of it is on disk.
 */
export function changeWasTakenBack(err: unknown): boolean {
  return typeof err === 'object' && err !== null && takenBack.has(err);
}

/**
 * `replaced` (a version not on disk) as HEAD's newest entry, HEAD's tree with that file at those
 * bytes (nothing when HEAD holds them already); the real index follows, so the next record
 * compares what is on disk with it. Nothing on disk is touched.
 */
async function keepReplaced(repo: ShadowRepo, replaced: { path: string; content: Buffer; summary: string }, source: string): Promise<void> {
  const rel = checkFile(replaced.path);
  const locked = { workTree: true, clearStaleLocks: true };
  const temp = `${repo.gitDir}/memdir-replaced-${process.pid}-${Date.now()}`;
  try {
    await fs.writeFile(temp, replaced.content);
    const oid = (await git(repo, ['hash-object', '-w', '--no-filters', temp])).stdout.trim();
    await git(repo, ['update-index', '--add', '--cacheinfo', `100644,${oid},${rel}`], locked);
    await git(repo, ['commit', '-q', '--no-verify', '--cleanup=whitespace', '-F', '-'], {
      ...locked,
      okCodes: [1],
      input: formatMessage(replaced.summary, source),
      env: await monotonicDate(repo),
    });
  } finally {
    await fs.rm(temp, { force: true });
  }
}

/**
 * A commit beside HEAD: HEAD's tree with `files` at another version (the server's, for a team
 * merge), never checked out. It becomes the second parent of the merge entry, so history shows
 * what was merged from where. Built in a throwaway index; HEAD and the real index are untouched.
 */
async function commitSide(memoryDir: string, dataDir: string, files: { path: string; content: string; from: string }[]): Promise<string | null> {
  const repo = await openShadowRepo(memoryDir, dataDir);
  if (!repo || !(await headRev(repo))) return null;
  const env = { GIT_INDEX_FILE: `${repo.gitDir}/index.memdir-side-${process.pid}-${Date.now()}` };
  try {
    await git(repo, ['read-tree', 'HEAD'], { env });
    for (const file of files) {
      const oid = (await git(repo, ['hash-object', '-w', '--stdin'], { input: file.content })).stdout.trim();
      await git(repo, ['update-index', '--add', '--cacheinfo', `100644,${oid},${checkFile(file.path)}`], { env });
    }
    const tree = (await git(repo, ['write-tree'], { env })).stdout.trim();
    const summary = `${files[0]!.from}: ${files.map((f) => f.path).join(', ')}`;
    const made = await git(repo, ['commit-tree', tree, '-p', 'HEAD', '-F', '-'], {
      input: formatMessage(summary, 'sync'),
      env: { ...env, ...(await monotonicDate(repo)) },
    });
    return made.stdout.trim();
  } finally {
    await fs.rm(env.GIT_INDEX_FILE, { force: true });
  }
}

/**
 * History of a memory dir (or of one file in it, following renames), newest first. Empty before
 * the first entry. From `from` (a commit of the shadow repository) instead of the newest entry:
 * an imported history (bundle.ts).
 */
export async function listHistory(memoryDir: string, opts: HistoryOptions & { file?: string; limit?: number; from?: string } = {}): Promise<HistoryEntry[]> {
  const file = opts.file === undefined ? undefined : checkFile(opts.file);
  checkLimit(opts.limit);
  const repo = await openShadowRepo(memoryDir, opts.dataDir);
  if (!repo || !(await headRev(repo))) return [];
  const from = opts.from === undefined ? [] : [await resolveRev(repo, opts.from, memoryDir)];
  const args = [...(opts.limit ? [`-n${opts.limit}`] : []), ...(file ? ['--follow'] : []), ...from];
  return (await readLog(repo, args, file ? [file] : [])).map(toEntry);
}

/** An entry with the turn of a merge it is a step of (ChangeDescription.turn), null for any other. */
export type TurnTaggedEntry = HistoryEntry & { turn: string | null };

/**
 * The entries of `memoryDir` since `since` (a commit; null: all), newest first, each with the turn
 * of a merge it is a step of: what putting a killed turn back asks (its own entries, and who else
 * wrote there since).
 */
export async function entriesSince(memoryDir: string, since: string | null, opts: HistoryOptions = {}): Promise<TurnTaggedEntry[]> {
  const repo = await openShadowRepo(memoryDir, opts.dataDir);
  if (!repo || !(await headRev(repo))) return [];
  const range = since === null ? [] : [`${await resolveRev(repo, since, memoryDir)}..HEAD`];
  return (await readLog(repo, range)).map((e) => ({ ...toEntry(e), turn: e.turn }));
}

/**
 * The newest entry of `memoryDir`'s history (its commit id), or null before the first. Inside a
 * `transact` it is the entry the change will be recorded on: that entry's parent.
 */
export async function headRevision(memoryDir: string, opts: HistoryOptions = {}): Promise<string | null> {
  const repo = await openShadowRepo(memoryDir, opts.dataDir);
  return repo ? headRev(repo) : null;
}

/** The shadow repository of `memoryDir`, or a HistoryError saying there is no history yet. For this folder's files only. */
export async function requireRepo(memoryDir: string, dataDir: string | undefined): Promise<ShadowRepo> {
  const repo = await openShadowRepo(memoryDir, dataDir);
  if (!repo) throw new HistoryError('not-found', `There is no history for ${memoryDir} yet`);
  return repo;
}

/**
 * Unified diff (git's text) from `from` to `to`, optionally for one file. `from` null means the
 * parent of `to` (or nothing, for the first entry).
 */
export async function diffRevisions(memoryDir: string, from: string | null, to: string, opts: HistoryOptions & { file?: string } = {}): Promise<string> {
  const file = opts.file === undefined ? undefined : checkFile(opts.file);
  const repo = await requireRepo(memoryDir, opts.dataDir);
  const toRev = await resolveRev(repo, to, memoryDir);
  const fromRev = from === null ? null : await resolveRev(repo, from, memoryDir);
  const common = ['-M', '--no-color', '--no-ext-diff', '--no-textconv'];
  const args = fromRev === null ? ['diff-tree', '-p', '-r', '--root', '--no-commit-id', ...common, toRev] : ['diff', ...common, fromRev, toRev];
  const out = await git(repo, [...args, '--', ...(file ? [file] : [])]);
  return out.stdout;
}

interface TreeEntry {
  mode: string;
  type: string;
  oid: string;
  path: string;
}

async function listTree(repo: ShadowRepo, rev: string, file?: string): Promise<TreeEntry[]> {
  const out = await git(repo, ['ls-tree', '-z', ...(file ? [] : ['-r']), rev, '--', ...(file ? [file] : [])]);
  return out.stdout
    .split('\0')
    .filter(Boolean)
    .map((line) => {
      const tab = line.indexOf('\t');
      const [mode = '', type = '', oid = ''] = line.slice(0, tab).split(' ');
      return { mode, type, oid, path: line.slice(tab + 1) };
    });
}

/** A regular file's blob; links (120000) and sub-repositories are never content. */
function isRegularBlob(entry: TreeEntry | undefined): entry is TreeEntry {
  return entry !== undefined && entry.type === 'blob' && entry.mode !== '120000';
}

async function readBlob(repo: ShadowRepo, oid: string): Promise<Buffer> {
  return gitBlob(repo, oid);
}

/** The content of `file` at `rev`, or null if it did not exist there (or was not a regular file). */
export async function readAtRevision(memoryDir: string, rev: string, file: string, opts: HistoryOptions = {}): Promise<string | null> {
  return (await readBytesAtRevision(memoryDir, rev, file, opts))?.toString('utf8') ?? null;
}

/** A file's bytes as they were at a revision, exactly (a file that is not UTF-8 text too); null when it did not exist. */
export async function readBytesAtRevision(memoryDir: string, rev: string, file: string, opts: HistoryOptions = {}): Promise<Buffer | null> {
  const rel = checkFile(file);
  const repo = await requireRepo(memoryDir, opts.dataDir);
  const hash = await resolveRev(repo, rev, memoryDir);
  const entry = (await listTree(repo, hash, rel)).find((e) => e.path === rel);
  return isRegularBlob(entry) ? await readBlob(repo, entry.oid) : null;
}

/**
 * Several files' bytes as they were at a revision, by path (null: not there), read with one
 * `ls-tree` and one `git cat-file --batch`: the undo of a bulk change of thousands of memories
 * read each file with three gits, one after another — minutes, while the person saw nothing.
 */
export async function readFilesAtRevision(
  memoryDir: string,
  rev: string,
  files: readonly string[],
  opts: HistoryOptions = {},
): Promise<Map<string, Buffer | null>> {
  const rels = new Set(files.map(checkFile));
  const read = new Map<string, Buffer>();
  if (rels.size > 0) {
    const repo = await requireRepo(memoryDir, opts.dataDir);
    const hash = await resolveRev(repo, rev, memoryDir);
    const entries = (await listTree(repo, hash)).filter((e) => rels.has(e.path) && isRegularBlob(e));
    const blobs = await gitBlobs(
      repo,
      entries.map((e) => e.oid),
    );
    for (const e of entries) read.set(e.path, blobs.get(e.oid)!);
  }
  // By the caller's names (checkFile normalises them).
  return new Map(files.map((file) => [file, read.get(checkFile(file)) ?? null]));
}

/**
 * Restores one file, or the whole memory dir, to how it was at `rev`, as a new `restore` entry
 * (so the restore itself can be undone). A whole-snapshot restore removes files that did not
 * exist at `rev` and writes those that did. Writes go through safe-fs: atomic, confined, never
 * through a link; links recorded in history are never re-created. Returns null if nothing changed.
 */
export async function restoreFromHistory(
  memoryDir: string,
  rev: string,
  opts: HistoryOptions & {
    file?: string;
    /** With `file`: write it under this name instead (a restore beside the memory that holds its name now). */
    as?: string;
    /** A check run inside the transaction before anything is written: when it throws, nothing is (a name taken since). */
    first?: () => Promise<void>;
    /** More work belonging to the same entry, run inside its transaction after the restore (a memory's index pointer). */
    then?: () => Promise<void>;
    /**
     * A whole-snapshot restore: the files (paths in the memory dir) it empties instead of removing
     * them — team memories the sync server holds (R-SYNC, a removed one comes back with the next
     * sync). Asked only of a file it would remove that is not empty already.
     */
    retire?: (rel: string) => boolean;
    /** Told each file `retire` emptied. */
    retired?: (rel: string) => void;
  } = {},
): Promise<HistoryEntry | null> {
  const file = opts.file === undefined ? undefined : checkFile(opts.file);
  const repo = await requireRepo(memoryDir, opts.dataDir);
  const hash = await resolveRev(repo, rev, memoryDir);
  await refuseUndoneImport(repo, hash);
  // The point in words a person reads (History, an undo's refusal naming this entry): the change it
  // goes back to and when — not a commit id and an ISO time.
  const [when = '', subject = ''] = (await git(repo, ['show', '-s', '--format=%cI%n%s', hash])).stdout.split('\n');
  const point = `after “${subject.trim()}” (${minuteUtc(when.trim())})`;
  const as = file !== undefined && opts.as !== undefined && opts.as !== file ? checkFile(opts.as) : undefined;
  const summary = file ? `Restored ${file}${as ? ` as ${as}` : ''} as it was ${point}` : `Restored all memories as they were ${point}`;
  const { entry } = await transact(memoryDir, { source: 'restore', summary, dataDir: opts.dataDir }, async () => {
    await opts.first?.();
    if (file) await restoreFile(repo, hash, file, memoryDir, point, as);
    else await restoreSnapshot(repo, hash, memoryDir, opts.retire, opts.retired);
    await opts.then?.();
  });
  return entry;
}

/**
 * Takes away the folders the change `rev` created (the undo of that change has run: it put the
 * files back), each only when it is empty now — never one holding anything, and never one that
 * was there before the change, since only folders the change itself made are in its entry.
 * Deepest first, so a folder emptied by removing its created sub-folder goes too. Returns how
 * many were removed.
 */
export async function removeFoldersCreatedBy(memoryDir: string, rev: string, opts: HistoryOptions = {}): Promise<number> {
  const repo = await requireRepo(memoryDir, opts.dataDir);
  const hash = await resolveRev(repo, rev, memoryDir);
  const message = (await git(repo, ['show', '-s', '--format=%B', hash])).stdout;
  return withMemoryLock(memoryDir, () => removeEmptyFolders(memoryDir, parseCreatedFolders(message)), { dataDir: opts.dataDir ?? processDataDir() });
}

/** One entry of the history, with its parent (null for the first entry). */
export async function readEntry(memoryDir: string, rev: string, opts: HistoryOptions = {}): Promise<HistoryEntry & { parent: string | null }> {
  const repo = await requireRepo(memoryDir, opts.dataDir);
  const hash = await resolveRev(repo, rev, memoryDir);
  const [entry] = await readLog(repo, ['-1', hash]);
  if (!entry) throw new HistoryError('bad-revision', `${rev} is not a point in the history of ${memoryDir}`);
  return { ...toEntry(entry), parent: entry.parents[0] ?? null };
}

/** A file a restore would change, and how. */
export interface PlannedChange {
  path: string;
  /** What the restore does to it: brings it back, rewrites it, removes it, or empties it (a held team memory: restoreFromHistory's `retire`). */
  status: 'added' | 'modified' | 'deleted' | 'retired';
}

/**
 * What `restoreFromHistory` would change now, without changing anything: the files whose
 * content differs between the disk (outside changes recorded first) and `rev`. The app shows
 * this list before a whole-snapshot restore is confirmed.
 */
export async function planRestore(
  memoryDir: string,
  rev: string,
  opts: HistoryOptions & { file?: string; retire?: (rel: string) => boolean } = {},
): Promise<PlannedChange[]> {
  const file = opts.file === undefined ? undefined : checkFile(opts.file);
  await recordExternalChanges(memoryDir, opts);
  const repo = await requireRepo(memoryDir, opts.dataDir);
  const hash = await resolveRev(repo, rev, memoryDir);
  await refuseUndoneImport(repo, hash);
  const target = new Map((await listTree(repo, hash, file)).filter(isRegularBlob).map((e) => [e.path, e.oid]));
  const current = new Map((await listTree(repo, 'HEAD', file)).filter(isRegularBlob).map((e) => [e.path, e.oid]));
  const changes: PlannedChange[] = [];
  for (const [p, oid] of target) {
    const now = current.get(p);
    if (now === undefined) changes.push({ path: p, status: 'added' });
    else if (now !== oid) changes.push({ path: p, status: 'modified' });
  }
  // A single-file restore never removes anything.
  if (!file)
    for (const [p, oid] of current) {
      if (target.has(p)) continue;
      if (!opts.retire?.(p)) changes.push({ path: p, status: 'deleted' });
      else if (!(await isEmptyBlob(repo, oid))) changes.push({ path: p, status: 'retired' });
    }
  return changes.sort((a, b) => a.path.localeCompare(b.path));
}

async function restoreFile(repo: ShadowRepo, hash: string, file: string, memoryDir: string, point: string, as = file): Promise<void> {
  const entry = (await listTree(repo, hash, file)).find((e) => e.path === file);
  if (!entry) throw new HistoryError('not-found', `${file} did not exist ${point}; there is nothing to restore`);
  if (!isRegularBlob(entry)) throw new HistoryError('bad-path', `${file} was not a regular file ${point}; Memdir only restores files`);
  await writeFileAtomic(memoryDir, as, await readBlob(repo, entry.oid));
}

async function isEmptyBlob(repo: ShadowRepo, oid: string): Promise<boolean> {
  return (await readBlob(repo, oid)).length === 0;
}

async function restoreSnapshot(
  repo: ShadowRepo,
  hash: string,
  memoryDir: string,
  retire?: (rel: string) => boolean,
  retired?: (rel: string) => void,
): Promise<void> {
  const target = new Map((await listTree(repo, hash)).map((e) => [e.path, e]));
  // transact has just recorded the disk, so HEAD is what is there now.
  const current = new Map((await listTree(repo, 'HEAD')).map((e) => [e.path, e]));
  for (const [p, entry] of current) {
    if (target.has(p) || !isRegularBlob(entry)) continue;
    // A held team memory is emptied, not removed (one empty already stays as it is).
    if (!retire?.(p)) await removeFileConfined(memoryDir, p);
    else if (!(await isEmptyBlob(repo, entry.oid))) {
      await writeFileAtomic(memoryDir, p, '');
      retired?.(p);
    }
  }
  for (const [p, entry] of target) {
    if (!isRegularBlob(entry) || current.get(p)?.oid === entry.oid) continue;
    await writeFileAtomic(memoryDir, p, await readBlob(repo, entry.oid));
  }
}

/**
 * Every regular file of the memory dir as history last recorded it (at `rev`, default the
 * newest entry), by path. Works when the memory dir itself is gone: how the memory of a
 * repository deleted or moved away is still found (issue 18). Empty when nothing was recorded.
 */
export async function readSnapshot(memoryDir: string, opts: HistoryOptions & { rev?: string } = {}): Promise<Map<string, Buffer>> {
  const repo = await openShadowRepo(memoryDir, opts.dataDir);
  const files = new Map<string, Buffer>();
  if (!repo || !(await headRev(repo))) return files;
  const hash = await resolveRev(repo, opts.rev ?? 'HEAD', memoryDir);
  const entries = (await listTree(repo, hash)).filter(isRegularBlob);
  const blobs = await gitBlobs(
    repo,
    entries.map((e) => e.oid),
  );
  for (const entry of entries) files.set(entry.path, blobs.get(entry.oid)!);
  return files;
}

/** A file deleted from the memory dir that history can bring back. */
export interface DeletedFile {
  path: string;
  /** The last entry where the file existed: restore it from here. */
  rev: string;
  /** The entry that deleted it. */
  deletedIn: string;
  /** When it was deleted. */
  time: string;
}

/** Files deleted (most recent deletion first) that do not exist again now, with where to restore them from. */
export async function deletedFiles(memoryDir: string, opts: HistoryOptions = {}): Promise<DeletedFile[]> {
  const repo = await openShadowRepo(memoryDir, opts.dataDir);
  if (!repo || !(await headRev(repo))) return [];
  const present = new Set((await listTree(repo, 'HEAD')).map((e) => e.path));
  const seen = new Set<string>();
  const deleted: DeletedFile[] = [];
  for (const entry of await readLog(repo, ['--diff-filter=D'])) {
    for (const change of entry.files) {
      if (change.status !== 'deleted' || seen.has(change.path) || present.has(change.path)) continue;
      seen.add(change.path);
      const parent = entry.parents[0];
      if (parent) deleted.push({ path: change.path, rev: parent, deletedIn: entry.rev, time: entry.time });
    }
  }
  return deleted;
}
