/**
 * Extraction in the running app (R-EXTRACT: "a background job the user never waits on"): each
 * finished turn — reported by a Claude Code hook, or by the transcript watcher — starts a job
 * that runs extractMemories on that transcript. Runs on one transcript never overlap: a turn
 * end arriving during a run is folded into one follow-up run (with the strongest "close the
 * trailing turn" request of those that arrived), so bursts of events cost one extra run at most.
 *
 * The carry (ExtractionStore's `carry.json`) is the one record of the turns owed: a turn end is
 * noted there before its hook event leaves the spool (`hold`), or — one only the transcript watcher
 * saw, which nothing else on disk owes — before its run starts (`watcherReported`); the note is cleared
 * when a run on its transcript succeeds. A run a crash, a quit or a full disk stopped leaves it
 * there; the next start takes it up (`resume`), so a turn is never forgotten by a restart. (The
 * cursor alone would not do: a transcript unchanged since is not reported again, and a session
 * never read counts only its last turns as new.) Taking a note up twice extracts nothing twice:
 * the cursor says what was read. A note the disk refused stands in this process until the disk
 * takes one (ExtractionStore.changeCarry's `keepIfRefused`).
 */
import type { ExtractionMode } from '../../shared/app-settings.js';
import type { JobRunner } from '../jobs/index.js';
import { type ModelProvider, resolveProvider } from '../llm/index.js';
import { locateProject, ProjectNotFoundError } from '../memdir/index.js';
import { type CredentialStore, loadAppSettings } from '../settings/index.js';
import { listTranscriptsIn, type TrailingTurnPolicy } from '../transcripts/index.js';
import path from 'node:path';
import { ExtractBusyError, extractTranscript, isInternalProject, projectOfTranscript } from './extract-memories.js';
import { type Carried, ExtractionStore } from './extraction-store.js';
import { ExtractPartlySavedError } from './extraction-run.js';
import { noSessionsToExtract } from './no-sessions.js';

/** What asked for a run, and how to treat a last turn without a final stop reason. */
export interface ExtractRequest {
  trigger: 'hook' | 'watcher' | 'app' | 'spool';
  closeTrailingTurn: TrailingTurnPolicy;
  /**
   * For a session extraction has never read: how many of its last turns are new (the number of
   * turn ends spooled while the app was closed). Default 1: the turn that just ended. 0 for a
   * transcript watcher's report, which counts nothing (see `watcherReported`).
   */
  newTurns?: number;
  /**
   * For a session extraction has never read: the bytes its transcript held when the watcher first
   * saw it. The turns that ended within them ended before Memdir watched; the rest are new —
   * however many reports came, mid-turn or twice, before a restart or after.
   */
  seenFrom?: number;
}

/** The smaller of two positions known, either. */
const earliest = (a: number | undefined, b: number | undefined): number | undefined => (a === undefined ? b : b === undefined ? a : Math.min(a, b));
/** Turn ends noted (older carry files have only newTurns). */
const notesOf = (c: Carried | undefined): number => c?.notes ?? c?.newTurns ?? 0;
/** A carry entry, `notes` kept only when it says more than newTurns. */
function carried(newTurns: number, notes: number, closeTrailingTurn: TrailingTurnPolicy, seenFrom: number | undefined): Carried {
  return {
    newTurns,
    ...(seenFrom !== undefined ? { seenFrom } : {}),
    ...(notes !== newTurns ? { notes: Math.max(1, notes) } : {}),
    closeTrailingTurn,
  };
}

export interface ExtractionServiceDeps {
  home: () => string;
  dataDir: string;
  env: NodeJS.ProcessEnv;
  jobs: JobRunner;
  credentials?: CredentialStore;
  /** Memory files were written in this project (refresh caches, tell the renderer). */
  onWrote?: (project: string, memoryDir: string) => void;
  /** Use this model instead of the one Memdir's settings give (tests). */
  provider?: () => Promise<ModelProvider>;
}

const STRENGTH: Record<TrailingTurnPolicy, number> = { never: 0, 'if-answered': 1, always: 2 };
const stronger = (a: TrailingTurnPolicy, b: TrailingTurnPolicy): TrailingTurnPolicy => (STRENGTH[a] >= STRENGTH[b] ? a : b);

interface Running {
  again: ExtractRequest | null;
  done: Promise<void>;
}

/** Extraction jobs of the running app (see the module comment). */
export class ExtractionService {
  private readonly running = new Map<string, Running>();
  /** The jobs of this service's runs, to stop at close. */
  private readonly jobIds = new Set<string>();
  private closed = false;
  /** Carry notes being written (close waits for them). */
  private readonly noting = new Set<Promise<void>>();
  private readonly store: ExtractionStore;

  constructor(private readonly deps: ExtractionServiceDeps) {
    this.store = new ExtractionStore(deps.dataDir);
  }

  /** The session transcript of the current home this path is, resolved; null for any other file or Memdir's own. */
  private transcriptOf(transcriptPath: string): { file: string; project: string } | null {
    const file = path.resolve(transcriptPath);
    try {
      const project = projectOfTranscript(this.deps.home(), file);
      return isInternalProject(project, this.deps.dataDir) ? null : { file, project };
    } catch {
      return null;
    }
  }

  /**
   * Note on disk that turns ended in this transcript, before their hook event leaves the spool
   * (see the module comment). Throws a sentence when the disk refuses: the event is then kept
   * in the spool, and read again.
   */
  hold(transcriptPath: string, request: Pick<ExtractRequest, 'closeTrailingTurn' | 'newTurns'>): Promise<void> {
    return this.note(transcriptPath, request, false);
  }

  /**
   * The transcript watcher's report (the one rule for what it owes): `quiet` — the transcript
   * has been still a while, its complete turns can be read, but the last may still be running
   * (a tool call longer than the quiet time); `idle` — still much longer, so a last answer
   * without a stop reason ends its turn, if it answered every tool call. A report counts no turn
   * (it may come mid-turn, twice for one turn, or again after a restart): for a session never
   * read, `seenFrom` tells the turns from before Memdir watched. With hooks connected (`owed`
   * false) their Stop owes the turn and the spool keeps it, so a quiet report only asks for a run
   * sooner. Otherwise the report is all that owes it: noted on disk before its run (a crash or a
   * quit then leaves the note for the next start); when the disk refuses the note, this process
   * still owes the turn and the run starts all the same, and this rejects with the disk's sentence.
   */
  async watcherReported(transcriptPath: string, report: { stage: 'quiet' | 'idle'; seenFrom: number | undefined; owed: boolean }): Promise<void> {
    // Closed: the next start's watcher reports the transcript again (nothing written after close).
    if (this.closed) return;
    const request: ExtractRequest = {
      trigger: 'watcher',
      closeTrailingTurn: report.stage === 'quiet' ? 'never' : 'if-answered',
      newTurns: 0,
      ...(report.seenFrom !== undefined ? { seenFrom: report.seenFrom } : {}),
    };
    if (!report.owed) {
      if (report.stage === 'quiet') this.trigger(transcriptPath, request);
      return;
    }
    let refused: unknown = null;
    await this.note(transcriptPath, request, true).catch((error: unknown) => (refused = error));
    this.trigger(transcriptPath, request);
    if (refused) throw refused;
  }

  private async note(
    transcriptPath: string,
    request: Pick<ExtractRequest, 'closeTrailingTurn' | 'newTurns' | 'seenFrom'>,
    keepIfRefused: boolean,
  ): Promise<void> {
    const target = this.transcriptOf(transcriptPath);
    if (!target) return;
    const noting = this.store.changeCarry(
      (all) => {
        const before = all[target.file];
        all[target.file] = carried(
          (before?.newTurns ?? 0) + (request.newTurns ?? 1),
          notesOf(before) + 1,
          stronger(request.closeTrailingTurn, before?.closeTrailingTurn ?? 'never'),
          earliest(before?.seenFrom, request.seenFrom),
        );
      },
      { keepIfRefused },
    );
    // Close waits for a note under way: once closed, nothing of this service writes.
    const settled = noting.then(
      () => undefined,
      () => undefined,
    );
    this.noting.add(settled);
    await noting.finally(() => this.noting.delete(settled));
  }

  /** When the transcript watcher of this home last had every change reported (see turn-end-watcher.ts); undefined the first time. */
  lastWatched(home: string): Promise<number | undefined> {
    return this.store.loadWatched(home);
  }

  /**
   * The transcript watcher of this home had every change reported up to `time`: recorded (the
   * next start reports what sessions wrote after it). Nothing is written once closed; throws a
   * sentence when the disk refuses (the next start then catches up from an earlier time).
   */
  async watchedUntil(home: string, time: number): Promise<void> {
    if (this.closed) return;
    const writing = this.store.saveWatched(home, time);
    const settled = writing.then(
      () => undefined,
      () => undefined,
    );
    this.noting.add(settled);
    await writing.finally(() => this.noting.delete(settled));
  }

  /** At the app's start: extract the turns a run did not finish before the app last quit (see the module comment). */
  async resume(): Promise<number> {
    const carried = await this.store.loadCarry();
    let started = 0;
    for (const [file, turns] of Object.entries(carried))
      if (
        this.trigger(file, {
          trigger: 'spool',
          closeTrailingTurn: turns.closeTrailingTurn,
          newTurns: turns.newTurns,
          ...(turns.seenFrom !== undefined ? { seenFrom: turns.seenFrom } : {}),
        })
      )
        started++;
    return started;
  }

  private async settings(): Promise<{ mode: ExtractionMode; enabled: boolean; provider: ModelProvider; timeoutMs: number }> {
    const { settings } = await loadAppSettings(this.deps.dataDir);
    const provider = this.deps.provider
      ? await this.deps.provider()
      : await resolveProvider(settings, this.deps.env, {
          dataDir: this.deps.dataDir,
          ...(this.deps.credentials ? { credentials: this.deps.credentials } : {}),
        });
    return { mode: settings.extraction.mode, enabled: settings.extraction.enabled, provider, timeoutMs: settings.model.timeoutMs };
  }

  /**
   * A turn ended in this transcript: extract from it in the background — what the carry owes for
   * it, or `newTurns` if more. A caller that owes a turn notes it first (`hold`, `watcherReported`); one
   * that does not (the watcher's report of a turn a hook owes) only asks for a run. False (and
   * nothing started) for a file that is not a session transcript of the current home, or Memdir's own.
   */
  trigger(transcriptPath: string, request: ExtractRequest): boolean {
    if (this.closed) return false;
    const target = this.transcriptOf(transcriptPath);
    if (!target) return false;
    const { file, project } = target;
    const running = this.running.get(file);
    if (running) {
      const again = running.again;
      const strongest = !again || STRENGTH[request.closeTrailingTurn] > STRENGTH[again.closeTrailingTurn] ? request : again;
      const seenFrom = earliest(request.seenFrom, again?.seenFrom);
      running.again = {
        ...strongest,
        newTurns: Math.max(request.newTurns ?? 1, again ? (again.newTurns ?? 1) : 0),
        ...(seenFrom !== undefined ? { seenFrom } : {}),
      };
      return true;
    }
    const entry: Running = { again: null, done: Promise.resolve() };
    this.running.set(file, entry);
    entry.done = (async () => {
      let next: ExtractRequest | null = request;
      while (next && !this.closed) {
        entry.again = null;
        // What the carry holds already counts this turn end when it was held.
        const held = (await this.store.loadCarry())[file];
        // Closed while the carry was read: no run starts (close would wait for its model call); what is owed stays noted.
        if (this.closed) break;
        const newTurns = Math.max(held?.newTurns ?? 0, next.newTurns ?? 1);
        const seenFrom = earliest(held?.seenFrom, next.seenFrom);
        const closeTrailingTurn = stronger(next.closeTrailingTurn, held?.closeTrailingTurn ?? 'never');
        const ran = await this.runJob(file, project, { ...next, closeTrailingTurn }, { newTurns, seenFrom }).catch(() => false);
        // The carry follows: cleared by a run that succeeded, kept by one that failed or close stopped — but for the
        // turn ends held meanwhile (what it holds beyond what this run found at its start), which a
        // later run reads. A change the disk refuses stands in this process (the next run of this
        // transcript counts those turns) and is written with the next one it takes; a note left
        // over on disk only costs a run that finds nothing new.
        await this.store
          .changeCarry(
            (all) => {
              const now = all[file];
              const countedSince = Math.max(0, (now?.newTurns ?? 0) - (held?.newTurns ?? 0));
              const notedSince = Math.max(0, notesOf(now) - notesOf(held));
              if (ran) {
                if (now && notedSince > 0) all[file] = carried(countedSince, notedSince, now.closeTrailingTurn, now.seenFrom);
                else delete all[file];
              } else
                all[file] = carried(
                  Math.max(now?.newTurns ?? 0, newTurns + countedSince),
                  Math.max(notesOf(now), notesOf(held) + notedSince, 1),
                  stronger(closeTrailingTurn, now?.closeTrailingTurn ?? 'never'),
                  earliest(now?.seenFrom, seenFrom),
                );
            },
            { keepIfRefused: true },
          )
          .catch(() => undefined);
        next = entry.again;
      }
      this.running.delete(file);
    })();
    return true;
  }

  /**
   * One run as a job. True when it did what it was asked (or someone else's run covers it); false
   * when it was stopped (the app's close, or a person's Cancel in Jobs, as a cancel during the model
   * call always did), which extractTranscript reports by returning what it had read before the
   * signal (often nothing) rather than by throwing: the turns are still owed. Throws when it failed.
   */
  private async runJob(
    file: string,
    project: string,
    request: ExtractRequest,
    firstSeen: { newTurns: number; seenFrom: number | undefined },
  ): Promise<boolean> {
    let stopped = false;
    const { job, result } = this.deps.jobs.start(
      { kind: 'extract', title: `Extract memories (${path.basename(file, '.jsonl').slice(0, 8)})`, dir: project },
      async (ctx) => {
        const { mode, enabled, provider, timeoutMs } = await this.settings();
        try {
          const outcome = await extractTranscript({
            home: this.deps.home(),
            dataDir: this.deps.dataDir,
            env: this.deps.env,
            transcriptPath: file,
            provider,
            mode,
            enabled,
            trigger: request.trigger,
            closeTrailingTurn: request.closeTrailingTurn,
            firstSeen: firstSeen.newTurns,
            ...(firstSeen.seenFrom !== undefined ? { seenFrom: firstSeen.seenFrom } : {}),
            signal: ctx.signal,
            timeoutMs,
            onProgress: (message) => ctx.progress({ step: message }),
          });
          stopped = ctx.signal.aborted;
          return outcome;
        } catch (error) {
          // Someone else (the CLI, another run) is on it: their run covers these turns.
          if (error instanceof ExtractBusyError) {
            ctx.progress({ message: error.message });
            return null;
          }
          // The memory was written, its record not: the app shows the memory now; the job says both, and the carry has the next run complete it.
          if (error instanceof ExtractPartlySavedError) this.deps.onWrote?.(error.project, error.memoryDir);
          throw error;
        }
      },
    );
    this.jobIds.add(job.id);
    // Started as close began: stopped like the others.
    if (this.closed) this.deps.jobs.cancel(job.id);
    const outcome = await result.finally(() => this.jobIds.delete(job.id));
    if (outcome?.wrote) this.deps.onWrote?.(outcome.project, outcome.memoryDir);
    return !stopped;
  }

  /** "Extract now": every session transcript of a project, one after another, as one job. */
  async runProject(dir: string): Promise<{ started: boolean; jobId: string | null; reason: string | null }> {
    const home = this.deps.home();
    if (isInternalProject(dir, this.deps.dataDir)) return { started: false, jobId: null, reason: 'This is the folder Memdir uses for its own model calls.' };
    if (!dir || /[/\\\0]/.test(dir) || dir === '.' || dir === '..') return { started: false, jobId: null, reason: `There is no project "${dir}".` };
    let location;
    try {
      location = await locateProject(home, dir, this.deps.env);
    } catch (error) {
      if (error instanceof ProjectNotFoundError) return { started: false, jobId: null, reason: `There is no project "${dir}".` };
      throw error;
    }
    if (location.keySource === 'path') return { started: false, jobId: null, reason: `There is no project "${dir}".` };
    // R-LAYOUT: the sessions of every launch directory whose memory this is.
    const transcripts = (await listTranscriptsIn(location.transcriptDirs)).filter(
      (t) => t.kind === 'session' && !isInternalProject(path.basename(path.dirname(t.path)), this.deps.dataDir),
    );
    if (transcripts.length === 0) return { started: false, jobId: null, reason: noSessionsToExtract(location) };
    const { job } = this.deps.jobs.start({ kind: 'extract', title: `Extract now: ${dir}`, dir, key: `extract-project:${dir}` }, async (ctx) => {
      const { mode, enabled, provider, timeoutMs } = await this.settings();
      let wrote = false;
      let memoryDir: string | null = null;
      for (const [i, transcript] of transcripts.entries()) {
        if (ctx.signal.aborted) break;
        ctx.progress({ progress: i / transcripts.length, step: `Session ${i + 1} of ${transcripts.length}` });
        // Wait for a run the hooks started on the same transcript, then take what is left.
        await this.running.get(path.resolve(transcript.path))?.done;
        try {
          const result = await extractTranscript({
            home,
            dataDir: this.deps.dataDir,
            env: this.deps.env,
            transcriptPath: transcript.path,
            provider,
            mode,
            enabled,
            trigger: 'app',
            firstSeen: 'all',
            signal: ctx.signal,
            timeoutMs,
          });
          wrote ||= result.wrote;
          memoryDir = result.memoryDir;
        } catch (error) {
          if (!(error instanceof ExtractBusyError)) throw error;
        }
      }
      if (wrote && memoryDir) this.deps.onWrote?.(dir, memoryDir);
    });
    return { started: true, jobId: job.id, reason: null };
  }

  /** Wait until no run is in progress (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running.values()].map((r) => r.done));
  }

  /**
   * Stop starting runs, cancel the running ones and wait until each has written what the carry
   * owes (a cancelled run keeps its turns owed for the next start): once closed, nothing of it
   * writes any more.
   */
  async close(): Promise<void> {
    this.closed = true;
    for (const id of this.jobIds) this.deps.jobs.cancel(id);
    await Promise.all([this.idle(), ...this.noting]);
  }
}
