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
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { ExtractOperation, ExtractionLogEntry, OperationOutcome, Proposal, TurnOutcome } from '../../shared/contract/extract.js';
import type { ExtractionMode } from '../../shared/app-settings.js';
import { INDEX_FILE, TEAM_DIR } from '../../shared/limits.js';
import { sanitizeDirName } from '../../shared/sanitize.js';
import { LlmError, type ModelProvider } from '../llm/types.js';
import { projectsRoot } from '../memdir/home.js';
import { locateTranscriptProject, type ProjectLocation } from '../memdir/projects.js';
import { MemoryLockError } from '../core/lock.js';
import { realpathDeepestExistingSync, withMemoryLock } from '../memdir/memory-lock.js';
import { scanMemoryDir, teamDirOf } from '../memdir/scan-dir.js';
import { CursorStore, type TranscriptCursor } from '../transcripts/cursor-store.js';
import { memoryWritesInTurn } from '../transcripts/memory-writes.js';
import { type NewTurns, commitCursor, readNewTurns } from '../transcripts/read-new-turns.js';
import { type TrailingTurnPolicy, type Turn, isSubagentTranscriptPath, readTurns } from '../transcripts/turns.js';
import { applyOperations } from './apply-operations.js';
import { EXTRACT_SYSTEM_PROMPT, ExtractAnswerError, MAX_ANSWER_TOKENS, buildExtractPrompt, parseExtractAnswer } from './extract-prompt.js';
import { type ExtractJournal, type JournalApply, ExtractionStore, newId } from './extraction-store.js';
import { findRememberStatements, suggestionOperation } from './remember-statements.js';
import { type ValidationTarget, validateOperation } from './validate-operation.js';
import { MemdirError } from '../core/errors.js';

/** The cursor consumer name of extraction. */
export const EXTRACT_CONSUMER = 'extract';
/** At most this many turns per model request. */
export const MAX_TURNS_PER_SPAN = 8;
/** …and about this much of their text. */
const MAX_SPAN_CHARS = 40_000;
/** Model failures worth trying again at the next turn end. */
const TRANSIENT: ReadonlySet<string> = new Set(['rate-limited', 'overloaded', 'server', 'timeout', 'network']);

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
   * many turn ends the hooks spooled while the app was closed. Default `all`.
   */
  firstSeen?: 'all' | 'latest' | number;
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

/** How R-EXCLUSIVE compares paths: resolved through links; a path it cannot resolve is compared as written. */
function realpathForCompare(p: string): string {
  try {
    return realpathDeepestExistingSync(p);
  } catch {
    return p;
  }
}

function readText(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
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

interface Span {
  turns: Turn[];
  /** R-EXCLUSIVE: paths the main agent wrote into the memory dir. */
  memoryWrites: string[];
}

/** Consecutive turns in spans: a memory-writing turn alone, the rest up to the size limits. */
function spansOf(turns: readonly Turn[], memoryDir: string): Span[] {
  const spans: Span[] = [];
  let current: Span | null = null;
  let chars = 0;
  for (const turn of turns) {
    const writes = memoryWritesInTurn(turn, memoryDir, { realpath: realpathForCompare });
    if (writes.length > 0) {
      spans.push({ turns: [turn], memoryWrites: [...new Set(writes.map((w) => w.resolvedPath))] });
      current = null;
      continue;
    }
    const size = turn.userText.length + turn.finalAssistantText.length;
    if (!current || current.turns.length >= MAX_TURNS_PER_SPAN || chars + size > MAX_SPAN_CHARS) {
      current = { turns: [], memoryWrites: [] };
      spans.push(current);
      chars = 0;
    }
    current.turns.push(turn);
    chars += size;
  }
  return spans;
}

function outcomeBase(turns: readonly Turn[]): Pick<TurnOutcome, 'sessionId' | 'firstUuid' | 'lastUuid' | 'turns'> {
  return {
    sessionId: turns.find((t) => t.sessionId)?.sessionId ?? null,
    firstUuid: turns[0]?.firstUuid ?? null,
    lastUuid: turns.at(-1)?.lastUuid ?? null,
    turns: turns.length,
  };
}

function skipped(turns: readonly Turn[], reason: NonNullable<TurnOutcome['reason']>, message: string): TurnOutcome {
  return { ...outcomeBase(turns), skipped: true, reason, message, method: null, operations: [], model: null };
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

function shortSession(id: string | null): string {
  return id ? id.slice(0, 8) : 'an unknown session';
}

/** Complete turns of a transcript (as a read with this trailing-turn policy would see them). */
async function countCompleteTurns(file: string, closeTrailingTurn: TrailingTurnPolicy): Promise<number> {
  let count = 0;
  for await (const turn of readTurns(file, { closeTrailingTurn, includeOpenTurn: false })) if (turn.complete) count++;
  return count;
}

/** One run over one transcript: the state shared by its reads. */
class ExtractionRun {
  readonly store: ExtractionStore;
  readonly outcomes: TurnOutcome[] = [];
  wrote = false;
  queued = 0;
  private target: ValidationTarget | null = null;
  private pendingSuggestions: Set<string> | null = null;
  /** First-seen transcripts: how many of the turns still to read ended before Memdir watched. */
  skipFirst = 0;

  constructor(
    readonly options: ExtractTranscriptOptions,
    readonly project: string,
    readonly location: ProjectLocation,
  ) {
    this.store = options.store ?? new ExtractionStore(options.dataDir);
  }

  /** The memory dir as it is now, and as it will be once this run's creates are written. */
  private validationTarget(): ValidationTarget {
    if (this.target) return this.target;
    const memoryDir = this.location.memoryDir;
    const own = scanMemoryDir(memoryDir, { scope: 'private' });
    const team = scanMemoryDir(teamDirOf(memoryDir), { scope: 'team' });
    this.target = {
      privateFiles: new Set(own.memories.map((m) => m.file)),
      teamFiles: team.exists ? new Set(team.memories.map((m) => m.file)) : null,
      indexText: readText(path.join(memoryDir, INDEX_FILE)) ?? '',
      teamIndexText: team.exists ? (readText(path.join(memoryDir, TEAM_DIR, INDEX_FILE)) ?? '') : null,
    };
    return this.target;
  }

  private planned(op: ExtractOperation): void {
    if (op.action !== 'create') return;
    const target = this.validationTarget();
    (op.scope === 'team' ? (target.teamFiles as Set<string> | null) : (target.privateFiles as Set<string>))?.add(op.file);
  }

  private proposal(kind: Proposal['kind'], op: ExtractOperation, turns: readonly Turn[], evidence: string, warnings: string[]): Proposal {
    return {
      id: newId('prop'),
      kind,
      status: 'pending',
      createdAt: new Date().toISOString(),
      decidedAt: null,
      project: this.project,
      memoryDir: this.location.memoryDir,
      sessionId: outcomeBase(turns).sessionId,
      transcriptPath: path.resolve(this.options.transcriptPath),
      turnUuid: outcomeBase(turns).lastUuid,
      operation: op,
      evidence: evidence.length > 1000 ? `${evidence.slice(0, 999)}…` : evidence,
      warnings,
      edited: false,
      result: null,
      rejectReason: null,
    };
  }

  /** Offline: the user's "remember this" statements become suggestions. */
  private async offline(turns: readonly Turn[], why: string, proposals: Proposal[]): Promise<TurnOutcome> {
    if (this.pendingSuggestions === null) {
      const pending = await this.store.listProposals({ project: this.project, status: 'pending' });
      this.pendingSuggestions = new Set(pending.filter((p) => p.kind === 'suggestion').map((p) => p.evidence.toLowerCase()));
    }
    const target = this.validationTarget();
    const operations: OperationOutcome[] = [];
    for (const turn of turns) {
      if (turn.start !== 'prompt') continue;
      for (const statement of findRememberStatements(turn.userText)) {
        if (this.pendingSuggestions.has(statement.text.toLowerCase())) continue;
        const raw = suggestionOperation(statement, {
          sessionId: turn.sessionId,
          date: (turn.endedAt ?? new Date().toISOString()).slice(0, 10),
          existingFiles: target.privateFiles,
        });
        const checked = await validateOperation(raw, target);
        if (!checked.ok) {
          operations.push({ operation: checked.operation, disposition: 'refused', reason: checked.reason, warnings: [], proposalId: null });
          continue;
        }
        this.pendingSuggestions.add(statement.text.toLowerCase());
        this.planned(checked.operation);
        if (this.options.dryRun) {
          operations.push({ operation: checked.operation, disposition: 'dry-run', reason: null, warnings: checked.warnings, proposalId: null });
          continue;
        }
        const proposal = this.proposal('suggestion', checked.operation, [turn], statement.text, checked.warnings);
        proposals.push(proposal);
        operations.push({
          operation: checked.operation,
          disposition: 'queued',
          reason: 'Offline: a suggestion to make into a memory in one click.',
          warnings: checked.warnings,
          proposalId: proposal.id,
        });
      }
    }
    const found = operations.filter((o) => o.disposition !== 'refused').length;
    const message = `${why} ${found === 0 ? 'No "remember this" statement in these turns.' : `${found} "remember this" statement${found === 1 ? '' : 's'} offered as suggestion${found === 1 ? '' : 's'}.`}`;
    return { ...outcomeBase(turns), skipped: false, reason: null, message, method: 'offline', operations, model: null };
  }

  /** Ask the model about one span; `transient` when the call should simply be tried again later. */
  private async decide(turns: readonly Turn[], proposals: Proposal[], apply: ExtractOperation[]): Promise<TurnOutcome | { transient: string }> {
    const { provider, mode, dryRun } = this.options;
    if (provider.kind === 'offline') return this.offline(turns, 'Offline: nothing is written automatically.', proposals);
    const memoryDir = this.location.memoryDir;
    const own = scanMemoryDir(memoryDir, { scope: 'private' });
    const team = scanMemoryDir(teamDirOf(memoryDir), { scope: 'team' });
    const target = this.validationTarget();
    let answer;
    try {
      answer = await provider.complete({
        task: 'extract',
        system: EXTRACT_SYSTEM_PROMPT,
        messages: [
          {
            role: 'user',
            content: buildExtractPrompt(turns, {
              indexText: target.indexText,
              teamIndexText: target.teamIndexText,
              memories: own.memories,
              teamMemories: team.exists ? team.memories : null,
            }),
          },
        ],
        maxTokens: MAX_ANSWER_TOKENS,
        temperature: 0,
        ...(this.options.signal ? { signal: this.options.signal } : {}),
        ...(this.options.timeoutMs ? { timeoutMs: this.options.timeoutMs } : {}),
      });
    } catch (error) {
      if (error instanceof LlmError && error.kind === 'aborted') throw error;
      const message =
        error instanceof LlmError ? error.message : `The model call failed: ${provider.redact(error instanceof Error ? error.message : String(error))}`;
      if (error instanceof LlmError && TRANSIENT.has(error.kind)) return { transient: message };
      return this.offline(turns, `The model could not be used (${message}); offline path:`, proposals);
    }
    const model = { provider: provider.kind, model: answer.model, tokens: answer.usage, costUsd: answer.costUsd, latencyMs: Math.round(answer.latencyMs) };
    let raws: unknown[];
    try {
      raws = parseExtractAnswer(answer.text, answer.stopReason);
    } catch (error) {
      if (!(error instanceof ExtractAnswerError)) throw error;
      return { ...(await this.offline(turns, `The model's answer was not used (${error.message}); offline path:`, proposals)), model };
    }
    const operations: OperationOutcome[] = [];
    const evidence = turns
      .filter((t) => t.userText)
      .map((t) => t.userText)
      .join('\n')
      .slice(-1000);
    for (const raw of raws) {
      const checked = await validateOperation(raw, target);
      if (!checked.ok) {
        operations.push({ operation: checked.operation, disposition: 'refused', reason: checked.reason, warnings: [], proposalId: null });
        continue;
      }
      this.planned(checked.operation);
      const { operation, warnings } = checked;
      if (dryRun) operations.push({ operation, disposition: 'dry-run', reason: null, warnings, proposalId: null });
      else if (mode === 'apply' && warnings.length === 0) {
        apply.push(operation);
        operations.push({ operation, disposition: 'applied', reason: null, warnings, proposalId: null });
      } else {
        const proposal = this.proposal('proposal', operation, turns, evidence, warnings);
        proposals.push(proposal);
        const reason = mode === 'apply' ? `Needs a look before it is written: ${warnings[0]}` : null;
        operations.push({ operation, disposition: 'queued', reason, warnings, proposalId: proposal.id });
      }
    }
    const kept = operations.filter((o) => o.disposition !== 'refused').length;
    const refused = operations.length - kept;
    const message = raws.length === 0 ? 'Nothing worth remembering.' : `${kept} operation${kept === 1 ? '' : 's'}${refused ? `, ${refused} refused` : ''}.`;
    return { ...outcomeBase(turns), skipped: false, reason: null, message, method: 'model', operations, model };
  }

  /** The last line of every span of this transcript the log has an outcome for. */
  private async extractedUuids(): Promise<Set<string>> {
    const file = path.resolve(this.options.transcriptPath);
    const entries = await this.store.readLog({ project: this.project, limit: Number.MAX_SAFE_INTEGER });
    return new Set(
      entries.flatMap((e) =>
        e.kind === 'turns' && e.transcriptPath === file && e.outcome.lastUuid && e.outcome.reason !== 'model-failed' ? [e.outcome.lastUuid] : [],
      ),
    );
  }

  /** Decide what to do with one read's turns. `stopAt`: turns from there on wait for a retry. */
  async plan(read: NewTurns): Promise<{ entries: ExtractionLogEntry[]; proposals: Proposal[]; apply: JournalApply[]; stopAt: number | null }> {
    const { options, location } = this;
    const entries: ExtractionLogEntry[] = [];
    const proposals: Proposal[] = [];
    const apply: JournalApply[] = [];
    const record = (outcome: TurnOutcome): string => {
      const id = newId('ext');
      entries.push({
        kind: 'turns',
        id,
        time: new Date().toISOString(),
        project: this.project,
        transcriptPath: path.resolve(options.transcriptPath),
        trigger: options.trigger,
        mode: options.mode,
        outcome,
      });
      return id;
    };
    let turns = read.turns;
    if (isInternalProject(this.project, options.dataDir)) {
      record(skipped(turns, 'internal-session', 'A session Memdir started itself for a model call: never extracted.'));
      return { entries, proposals, apply, stopAt: null };
    }
    if (options.enabled === false) {
      record(skipped(turns, 'extraction-disabled', "Automatic extraction is off in Memdir's settings."));
      return { entries, proposals, apply, stopAt: null };
    }
    if (!location.settings.autoMemoryEnabled) {
      const { autoMemoryEnabledSource: source, autoMemoryEnabledFrom: from } = location.settings;
      const why = source === 'env' ? `${from ?? 'an environment variable'} turns it off` : `autoMemoryEnabled is false in ${from ?? `the ${source} settings`}`;
      record(skipped(turns, 'auto-memory-off', `Automatic memory is off where this session was launched (${why}).`));
      return { entries, proposals, apply, stopAt: null };
    }
    if (read.reset && read.reset.reason !== 'cursor-unreadable') {
      // Re-reading from the start must not extract again what was extracted before the rewrite.
      const extracted = await this.extractedUuids();
      const last = turns.findLastIndex((t) => t.lastUuid !== null && extracted.has(t.lastUuid));
      if (last >= 0) {
        record(
          skipped(
            turns.slice(0, last + 1),
            'already-extracted',
            `${read.reset.message} ${last + 1} turn${last === 0 ? ' was' : 's were'} extracted before: not again.`,
          ),
        );
        turns = turns.slice(last + 1);
      }
    }
    if (this.skipFirst > 0 && turns.length > 0) {
      const count = Math.min(this.skipFirst, turns.length);
      this.skipFirst -= count;
      record(skipped(turns.slice(0, count), 'before-watching', `${count} earlier turn${count === 1 ? '' : 's'} ended before Memdir watched this session.`));
      turns = turns.slice(count);
    }
    let done = read.turns.length - turns.length;
    for (const span of spansOf(turns, location.memoryDir)) {
      options.onProgress?.(`Turns ${done + 1}–${done + span.turns.length} of ${read.turns.length}`);
      if (span.memoryWrites.length > 0) {
        record(
          skipped(
            span.turns,
            'memory-written-by-agent',
            `The agent already wrote to the memory directory in this turn (${span.memoryWrites.map((p) => path.relative(location.memoryDir, p) || '.').join(', ')}): extracting again would only duplicate.`,
          ),
        );
      } else if (span.turns.every((t) => t.userText.trim() === '')) {
        record(skipped(span.turns, 'no-prompt', 'No prompt from the user in these turns.'));
      } else {
        const toApply: ExtractOperation[] = [];
        const decided = await this.decide(span.turns, proposals, toApply);
        if ('transient' in decided) {
          record(skipped(span.turns, 'model-failed', `${decided.transient} Tried again at the next turn end.`));
          return { entries, proposals, apply, stopAt: done };
        }
        const id = record(decided);
        if (toApply.length > 0) apply.push({ entryId: id, sessionId: decided.sessionId, operations: toApply });
      }
      done += span.turns.length;
    }
    return { entries, proposals, apply, stopAt: null };
  }

  /** Carry a journal out (idempotently) and commit its cursor; returns the final outcomes. */
  async execute(journal: ExtractJournal): Promise<TurnOutcome[]> {
    const { dataDir } = this.options;
    const entries = structuredClone(journal.entries);
    for (const group of journal.apply) {
      const entry = entries.find((e) => e.id === group.entryId);
      const summary = `Extract from session ${shortSession(group.sessionId)}: ${group.operations.map((o) => `${o.action} ${o.scope === 'team' ? 'team/' : ''}${o.file}`).join(', ')}`;
      const { results } = await applyOperations(journal.memoryDir, group.operations, { dataDir, sessionId: group.sessionId, summary });
      if (results.some((r) => r.ok)) this.wrote = true;
      if (entry?.kind !== 'turns') continue;
      for (const result of results) {
        const outcome = entry.outcome.operations.find(
          (o) => o.disposition === 'applied' && o.operation.file === result.operation.file && o.operation.scope === result.operation.scope,
        );
        if (outcome && !result.ok) {
          outcome.disposition = 'refused';
          outcome.reason = result.reason;
        }
      }
    }
    await this.options.hooks?.afterStep?.('operations-applied');
    for (const proposal of journal.proposals) {
      if (!(await this.store.getProposal(proposal.id))) await this.store.saveProposal(proposal);
    }
    this.queued += journal.proposals.length;
    const logged = await this.store.loggedIds();
    await this.store.appendLog(entries.filter((e) => !logged.has(e.id)));
    await this.options.hooks?.afterStep?.('log-appended');
    await commitCursor(new CursorStore(dataDir), {
      transcriptPath: journal.transcriptPath,
      consumer: EXTRACT_CONSUMER,
      previous: journal.previous,
      cursor: journal.cursor,
    });
    await this.store.removeJournal(journal.transcriptPath);
    return entries.flatMap((e) => (e.kind === 'turns' ? [e.outcome] : []));
  }
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
  // The lock is Memdir's cross-process lock, keyed by a path that only names the transcript.
  const key = path.join(options.dataDir, 'extract', 'running', createHash('sha256').update(transcriptPath).digest('hex').slice(0, 32));
  try {
    return await withMemoryLock(key, () => extractLocked(options, transcriptPath, project), {
      dataDir: options.dataDir,
      timeoutMs: options.lockTimeoutMs ?? 3000,
    });
  } catch (error) {
    if (error instanceof MemoryLockError && error.reason === 'busy')
      throw new ExtractBusyError(`Another extraction of ${path.basename(transcriptPath)} is running; it covers these turns.`);
    throw error;
  }
}

async function extractLocked(options: ExtractTranscriptOptions, transcriptPath: string, project: string): Promise<ExtractTranscriptResult> {
  // R-LAYOUT: the memory the session reads (its canonical key's), with its launch directory's settings.
  const location = await locateTranscriptProject(options.home, project, options.env ?? process.env);
  const run = new ExtractionRun({ ...options, transcriptPath }, project, location);
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
      run.outcomes.push(...(await run.execute(journal)));
      result.resumed = true;
    }
  }

  const cursorStore = options.dryRun ? new ScratchCursorStore(options.dataDir) : new CursorStore(options.dataDir);
  const firstSeen = options.firstSeen ?? 'all';
  if (firstSeen !== 'all' && (await cursorStore.load(transcriptPath, EXTRACT_CONSUMER)).status === 'absent') {
    // Only the last turns are new to Memdir, counted from the end: one pass that keeps nothing.
    const keep = firstSeen === 'latest' ? 1 : Math.max(1, firstSeen);
    run.skipFirst = Math.max(0, (await countCompleteTurns(transcriptPath, options.closeTrailingTurn ?? 'never')) - keep);
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
      if (read.reset && read.cursor && !options.dryRun) await commitCursor(cursorStore, read);
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
      await run.store.saveJournal(journal);
      await options.hooks?.afterStep?.('journal-written');
      run.outcomes.push(...(await run.execute(journal)));
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
