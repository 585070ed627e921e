/**
 * extractMemories (R-EXTRACT, R-EXCLUSIVE, R-TYPES, R-NOTSAVE): read the turns of a transcript
 * completed since the extraction cursor, decide what is worth remembering, and write it (apply
 * mode) or queue it for review (review mode) — or, without a model, offer the user's explicit
 * "remember this" statements as suggestions (nothing is written automatically offline).
 *
 * Turns are processed in spans of consecutive turns (usually one: a Stop hook fires per turn):
 *   - a turn in which the main agent itself wrote into the memory directory (Write, Edit,
 *     MultiEdit or NotebookEdit whose path resolves inside it) is skipped on its own, with that
 *     reason (R-EXCLUSIVE: doing it again would only duplicate);
 *   - turns with no prompt from the user are skipped; the rest go to the model in one request.
 * Everything is skipped, and recorded so, when Claude Code's settings turn automatic memory off
 * (R-SETTINGS), when Memdir's own extraction is off, or for Memdir's own internal sessions.
 *
 * Durability — no turn is extracted twice, none is lost:
 *   1. read the new turns (the cursor is not moved);
 *   2. decide: model call, validation (nothing written yet);
 *   3. write the run's journal (decisions, operations, proposals, log entries, cursor to save);
 *   4. carry it out: apply operations (idempotently), save proposals, append the log;
 *   5. commit the cursor; 6. remove the journal.
 * A crash before 3 redoes the run (nothing was written); after 3, the next run first finishes
 * the journal — without a second model call — so its effects happen exactly once. A model
 * failure worth retrying (rate limit, overload, network) stops the run at that span: the cursor
 * is committed up to the span before it, and the span is tried again at the next turn end.
 *
 * Here: the entry, its lock and the read loop. A run's planning and carrying out is in
 * extraction-run.ts; what is decided for one span of turns, in decide-span.ts.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { TurnOutcome } from '../../shared/contract/extract.js';
import type { ExtractionMode } from '../../shared/app-settings.js';
import { sanitizeDirName } from '../../shared/sanitize.js';
import type { ModelProvider } from '../llm/index.js';
import { locateTranscriptProject, projectsRoot } from '../memdir/index.js';
import { asWrite } from '../core/locks-held.js';
import { withMemoryLock } from '../core/memory-lock.js';
import { MemoryLockError } from '../core/lock.js';
import { MemoryFileError } from '../core/confined-path.js';
import { withReason } from '../../shared/failure-words.js';
import {
  commitCursor,
  CursorStore,
  isSubagentTranscriptPath,
  type NewTurns,
  readNewTurns,
  readTurns,
  type TrailingTurnPolicy,
  type TranscriptCursor,
} from '../transcripts/index.js';
import { EXTRACT_CONSUMER, ExtractionRun } from './extraction-run.js';
import type { ExtractJournal, ExtractionStore } from './extraction-store.js';
import { MemdirError } from '../../shared/errors.js';

/**
 * The durable steps of a run, in order (see the module comment): the journal is written, its
 * operations are applied, its proposals and log entries are saved — then the cursor is committed.
 * A process that dies after any of them leaves a journal the next run finishes.
 */
export type ExtractStep = 'journal-written' | 'operations-applied' | 'log-appended';

/** Observers of a run's progress through its {@link ExtractStep}s (tests stop a run there, as a crash would). */
export interface ExtractHooks {
  /** Called once each step's effects are on disk; a throw ends the run there, its journal kept. */
  afterStep?: (step: ExtractStep) => void | Promise<void>;
}

/** Another run (this process or another: the app, the CLI) is extracting from the transcript. */
export class ExtractBusyError extends MemdirError<'busy'> {
  override readonly name = 'ExtractBusyError';
  constructor(message: string) {
    super('busy', message);
  }
}

/** A transcript extraction does not read (outside the home, a sub-agent's, not a transcript). */
export class ExtractInputError extends MemdirError<'invalid-input'> {
  override readonly name = 'ExtractInputError';
  constructor(message: string) {
    super('invalid-input', message);
  }
}

export interface ExtractTranscriptOptions {
  /** The Claude Code home whose `projects/` holds the transcript. */
  home: string;
  dataDir: string;
  env?: NodeJS.ProcessEnv;
  transcriptPath: string;
  /** The model; an offline provider takes the offline path (suggestions only). */
  provider: ModelProvider;
  mode: ExtractionMode;
  /** Who asked: `hook`, `watcher`, `cli`, `app` — recorded in the log. */
  trigger: string;
  /** What to do with a last turn that has no final stop reason (see turns.ts). Default `never`. */
  closeTrailingTurn?: TrailingTurnPolicy;
  /** Decide, report, write nothing, move no cursor. */
  dryRun?: boolean;
  /**
   * A transcript extraction has never read: `all` its turns (the CLI, on request), only the
   * `latest` one, or the last N — an automatic run must not mine a whole past session the first
   * time it sees it (the earlier turns are recorded as skipped, `before-watching`); N is how
   * many turn ends the hooks spooled while the app was closed (0: none counted). Default `all`.
   * With `seenFrom`, the turns that ended within its first bytes are the earlier ones; with
   * both, whichever leaves more turns new. With neither known, the latest turn is new.
   */
  firstSeen?: 'all' | 'latest' | number;
  /** For `firstSeen`: the bytes the transcript held when the transcript watcher first saw it. */
  seenFrom?: number;
  /** Memdir's own switch (automatic runs); off records the turns as skipped. Default on. */
  enabled?: boolean;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Turns per read (memory stays bounded on a long backlog). Default 50. */
  maxTurnsPerRead?: number;
  onProgress?: (message: string) => void;
  hooks?: ExtractHooks;
  store?: ExtractionStore;
  /** How long to wait for another run on the same transcript (default 3 s). */
  lockTimeoutMs?: number;
}

/** What a run did. */
export interface ExtractTranscriptResult {
  transcriptPath: string;
  /** The project's directory name under `projects/`, and its memory directory. */
  project: string;
  memoryDir: string;
  /** One per span of turns, in transcript order (a resumed run's first). */
  outcomes: TurnOutcome[];
  /** Memory files were written. */
  wrote: boolean;
  /** Proposals and suggestions added to the review queue. */
  queued: number;
  /** Some turns wait for a retry (a model failure worth retrying). */
  pending: boolean;
  /** The run first finished an interrupted one from its journal. */
  resumed: boolean;
  /** What happened to the transcript file when it was not a plain read (`missing`, `deleted`…). */
  readOutcome: NewTurns['outcome'];
  /** Why the cursor was reset, in words, when it was. */
  reset: string | null;
  message: string | null;
}

/** A cursor store whose saves stay in memory: `--dry-run` walks the backlog without moving anything. */
class ScratchCursorStore extends CursorStore {
  private readonly saved = new Map<string, TranscriptCursor>();
  override async load(transcriptPath: string, consumer: string) {
    const cursor = this.saved.get(`${consumer}\0${path.resolve(transcriptPath)}`);
    return cursor ? ({ status: 'found', cursor } as const) : super.load(transcriptPath, consumer);
  }
  override async save(cursor: TranscriptCursor): Promise<void> {
    this.saved.set(`${cursor.consumer}\0${cursor.transcriptPath}`, cursor);
  }
}

/** The project directory name of a session transcript under `<home>/projects/`. */
export function projectOfTranscript(home: string, transcriptPath: string): string {
  const root = path.resolve(projectsRoot(home));
  const rel = path.relative(root, path.resolve(transcriptPath));
  const parts = rel.split(path.sep);
  if (rel.startsWith('..') || path.isAbsolute(rel) || parts.length < 2) throw new ExtractInputError(`${transcriptPath} is not a transcript of ${root}.`);
  if (isSubagentTranscriptPath(transcriptPath))
    throw new ExtractInputError(`${transcriptPath} is a sub-agent's transcript: extraction reads the main session's.`);
  if (parts.length !== 2 || !parts[1]!.endsWith('.jsonl'))
    throw new ExtractInputError(`${transcriptPath} is not a session transcript (<project>/<session>.jsonl).`);
  return parts[0]!;
}

/** Whether a project directory is the one Memdir's own Claude Code CLI calls run in. */
export function isInternalProject(dir: string, dataDir: string): boolean {
  return dir === sanitizeDirName(path.join(path.resolve(dataDir), 'claude-cli'));
}

/** The cursor just past `turns[count - 1]` of a read (for a run that stops part-way). */
function cursorAfter(read: NewTurns, count: number): TranscriptCursor | null {
  if (!read.cursor) return null;
  if (count >= read.turns.length) return read.cursor;
  if (count === 0) return null;
  const last = read.turns[count - 1]!;
  return {
    ...read.cursor,
    offset: last.endOffset,
    lastUuid: last.lastUuid ?? read.cursor.lastUuid,
    lastUuidOffset: last.lastUuid ? last.lastUuidOffset : read.cursor.lastUuidOffset,
    turnsConsumed: read.cursor.turnsConsumed - (read.turns.length - count),
  };
}

/**
 * How many of a first-seen transcript's complete turns (as a read with this trailing-turn policy
 * would see them) ended before Memdir watched it (see `firstSeen`).
 */
async function turnsBeforeWatching(
  file: string,
  closeTrailingTurn: TrailingTurnPolicy,
  firstSeen: 'latest' | number,
  seenFrom: number | undefined,
): Promise<number> {
  let complete = 0;
  let before = 0;
  for await (const turn of readTurns(file, { closeTrailingTurn, includeOpenTurn: false }))
    if (turn.complete) {
      complete++;
      if (seenFrom !== undefined && turn.endOffset <= seenFrom) before++;
    }
  const counted = firstSeen === 'latest' ? 1 : firstSeen;
  const byCount = counted > 0 ? complete - counted : null;
  const byBytes = seenFrom !== undefined ? before : null;
  const skip = byCount === null ? (byBytes ?? complete - 1) : byBytes === null ? byCount : Math.min(byCount, byBytes);
  return Math.max(0, skip);
}

/**
 * Extract from the turns of one session transcript completed since the last extraction (see
 * the module comment). Throws {@link ExtractInputError} for a path that is not a session
 * transcript of the home, {@link ExtractBusyError} while another run (any process) works on the
 * same transcript; a missing or vanishing file is a `readOutcome`, not an error.
 */
export async function extractTranscript(options: ExtractTranscriptOptions): Promise<ExtractTranscriptResult> {
  const transcriptPath = path.resolve(options.transcriptPath);
  const project = projectOfTranscript(options.home, transcriptPath);
  // One run per transcript across processes: two runs would read the same turns and both write.
  // The lock is Memdir's cross-process lock, keyed by a path that only names the transcript. It
  // guards the run, not a write: held while the model answers, it must not keep a Ctrl-C waiting
  // for the model (interrupt.ts); the journal and its writes are marked as the writes under way.
  const key = path.join(options.dataDir, 'extract', 'running', createHash('sha256').update(transcriptPath).digest('hex').slice(0, 32));
  let started = false;
  try {
    return await withMemoryLock(
      key,
      () => {
        started = true;
        return extractLocked(options, transcriptPath, project);
      },
      { dataDir: options.dataDir, timeoutMs: options.lockTimeoutMs ?? 3000, guard: true },
    );
  } catch (error) {
    if (error instanceof MemoryLockError && error.reason === 'busy')
      throw new ExtractBusyError(`Another extraction of ${path.basename(transcriptPath)} is running; it covers these turns.`);
    // The lock could not be taken (a full disk): said without the lock's own name, which is Memdir's.
    if (!started && error instanceof MemoryFileError)
      throw new MemoryFileError(error.reason, error.path, withReason('Memdir could not start the extraction (nothing was read or written)', key, error), {
        cause: error,
      });
    throw error;
  }
}

async function extractLocked(options: ExtractTranscriptOptions, transcriptPath: string, project: string): Promise<ExtractTranscriptResult> {
  // R-LAYOUT: the memory the session reads (its canonical key's), with its launch directory's settings.
  const location = await locateTranscriptProject(options.home, project, options.env ?? process.env);
  const run = new ExtractionRun({ ...options, transcriptPath }, project, location, isInternalProject(project, options.dataDir));
  const result: ExtractTranscriptResult = {
    transcriptPath,
    project,
    memoryDir: location.memoryDir,
    outcomes: run.outcomes,
    wrote: false,
    queued: 0,
    pending: false,
    resumed: false,
    readOutcome: 'ok',
    reset: null,
    message: null,
  };

  if (!options.dryRun) {
    const journal = await run.store.loadJournal(transcriptPath);
    if (journal === 'unreadable') {
      // Its decisions cannot be trusted: the turns are decided again (nothing of it was committed).
      await run.store.removeJournal(transcriptPath);
    } else if (journal) {
      options.onProgress?.('Finishing an interrupted extraction');
      run.outcomes.push(...(await asWrite(() => run.execute(journal))));
      result.resumed = true;
    }
  }

  const cursorStore = options.dryRun ? new ScratchCursorStore(options.dataDir) : new CursorStore(options.dataDir);
  const firstSeen = options.firstSeen ?? 'all';
  if (firstSeen !== 'all' && (await cursorStore.load(transcriptPath, EXTRACT_CONSUMER)).status === 'absent') {
    // Only the last turns are new to Memdir: one pass that keeps nothing.
    run.skipFirst = await turnsBeforeWatching(transcriptPath, options.closeTrailingTurn ?? 'never', firstSeen, options.seenFrom);
  }
  for (let round = 0; round < 1000; round++) {
    const read = await readNewTurns(transcriptPath, {
      cursorStore,
      consumer: EXTRACT_CONSUMER,
      maxTurns: options.maxTurnsPerRead ?? 50,
      closeTrailingTurn: options.closeTrailingTurn ?? 'never',
      ...(options.signal ? { signal: options.signal } : {}),
    });
    result.readOutcome = read.outcome;
    result.message = read.message;
    if (read.reset) result.reset = read.reset.message;
    if (read.turns.length === 0) {
      // A reset (truncated, replaced file) with nothing new still moves the cursor to the file as it is.
      if (read.reset && read.cursor && !options.dryRun) await asWrite(() => commitCursor(cursorStore, read));
      break;
    }
    const { entries, proposals, apply, stopAt } = await run.plan(read);
    const journal: ExtractJournal = {
      version: 1,
      transcriptPath,
      project,
      memoryDir: location.memoryDir,
      createdAt: new Date().toISOString(),
      previous: read.previous,
      cursor: stopAt === null ? read.cursor : cursorAfter(read, stopAt),
      entries,
      proposals,
      apply,
    };
    if (options.dryRun) {
      run.outcomes.push(...entries.flatMap((e) => (e.kind === 'turns' ? [e.outcome] : [])));
      if (journal.cursor) await cursorStore.save(journal.cursor);
    } else {
      const executed = await asWrite(async () => {
        await run.store.saveJournal(journal);
        await options.hooks?.afterStep?.('journal-written');
        return run.execute(journal);
      });
      run.outcomes.push(...executed);
    }
    if (stopAt !== null) {
      result.pending = true;
      break;
    }
    if (!read.more || options.signal?.aborted) break;
  }
  result.wrote = run.wrote;
  result.queued = run.queued;
  return result;
}
