/**
 * One extraction run over one transcript (see extract-memories.ts for the durability steps): it
 * plans a read's turns — what is skipped and why, what each span's decision is — into a journal,
 * and carries a journal out idempotently, committing the cursor last.
 */
import path from 'node:path';
import { MemdirError } from '../../shared/errors.js';
import type { ExtractOperation, ExtractionLogEntry, Proposal, TurnOutcome } from '../../shared/contract/extract.js';
import { inStoreMode, type ProjectLocation } from '../memdir/index.js';
import { realpathDeepestExistingSync } from '../core/memory-lock.js';
import { commitCursor, CursorStore, memoryWritesInTurn, type NewTurns, type Turn } from '../transcripts/index.js';
import { applyOperations, describeOperation, operationPath, sayApplied } from './apply-operations.js';
import { SpanDecider, evidenceOf, skipped } from './decide-span.js';
import type { ExtractTranscriptOptions } from './extract-memories.js';
import { type ExtractJournal, type JournalApply, ExtractionStore, newId, proposalIdOf } from './extraction-store.js';

/** The cursor consumer name of extraction. */
export const EXTRACT_CONSUMER = 'extract';

/**
 * A run wrote its memory but could not save its record (where extraction got to, the log): the
 * message says both. Its journal is kept, so the next run on the transcript completes the record
 * (without asking the model again) — the rest retries itself.
 */
export class ExtractPartlySavedError extends MemdirError<'io-failed'> {
  override readonly name = 'ExtractPartlySavedError';
  constructor(
    message: string,
    /** What the run did, as a run that succeeded reports it. */
    readonly outcomes: TurnOutcome[],
    readonly project: string,
    readonly memoryDir: string,
    cause: unknown,
  ) {
    super('io-failed', message, { cause });
  }
}
/** At most this many turns per model request. */
export const MAX_TURNS_PER_SPAN = 8;
/** …and about this much of their text. */
const MAX_SPAN_CHARS = 40_000;

/** How R-EXCLUSIVE compares paths: resolved through links; a path it cannot resolve is compared as written. */
function realpathForCompare(p: string): string {
  try {
    return realpathDeepestExistingSync(p);
  } catch {
    return p;
  }
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

function shortSession(id: string | null): string {
  return id ? id.slice(0, 8) : 'an unknown session';
}

/**
 * An update refused at apply time because it overlaps an edit made meanwhile, as a pending
 * proposal from the text the model read: its id is the same each time the journal is carried out.
 */
function overlapProposal(journal: ExtractJournal, group: JournalApply, turnUuid: string | null, operation: ExtractOperation, reason: string): Proposal {
  const rel = operationPath(operation);
  return {
    id: proposalIdOf(group.entryId, rel),
    kind: 'proposal',
    status: 'pending',
    createdAt: journal.createdAt,
    decidedAt: null,
    project: journal.project,
    memoryDir: journal.memoryDir,
    sessionId: group.sessionId,
    transcriptPath: journal.transcriptPath,
    turnUuid,
    operation,
    baseText: group.bases?.[rel] ?? null,
    evidence: group.evidence ?? operation.reason ?? '',
    warnings: [reason],
    edited: false,
    result: null,
    rejectReason: null,
  };
}

/** One run over one transcript: the state shared by its reads. */
export class ExtractionRun {
  readonly store: ExtractionStore;
  readonly outcomes: TurnOutcome[] = [];
  wrote = false;
  queued = 0;
  /** First-seen transcripts: how many of the turns still to read ended before Memdir watched. */
  skipFirst = 0;
  private readonly decider: SpanDecider;

  constructor(
    readonly options: ExtractTranscriptOptions,
    readonly project: string,
    readonly location: ProjectLocation,
    /** A session Memdir started itself for a model call: never extracted. */
    private readonly internal: boolean,
  ) {
    this.store = options.store ?? new ExtractionStore(options.dataDir);
    this.decider = new SpanDecider(options, project, location, this.store);
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
    if (this.internal) {
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
        const bases = new Map<string, string | null>();
        const decided = await this.decider.decide(span.turns, proposals, toApply, bases);
        if ('transient' in decided) {
          record(skipped(span.turns, 'model-failed', `${decided.transient} Tried again at the next turn end.`));
          return { entries, proposals, apply, stopAt: done };
        }
        const id = record(decided);
        if (toApply.length > 0)
          apply.push({ entryId: id, sessionId: decided.sessionId, operations: toApply, bases: Object.fromEntries(bases), evidence: evidenceOf(span.turns) });
      }
      done += span.turns.length;
    }
    return { entries, proposals, apply, stopAt: null };
  }

  /** Carry a journal out (idempotently) and commit its cursor; returns the final outcomes. */
  async execute(journal: ExtractJournal): Promise<TurnOutcome[]> {
    const { dataDir } = this.options;
    const entries = structuredClone(journal.entries);
    const queue: Proposal[] = [...journal.proposals];
    for (const group of journal.apply) {
      const entry = entries.find((e) => e.id === group.entryId);
      const summary = (written: readonly ExtractOperation[]) =>
        `Extract from session ${shortSession(group.sessionId)}${written.length > 0 ? `: ${written.map(describeOperation).join(', ')}` : ''}`;
      const { results } = await applyOperations(journal.memoryDir, group.operations, {
        dataDir,
        sessionId: group.sessionId,
        summary,
        storeMode: inStoreMode(this.location.settings.memoryStores),
        // An update merges onto what the file gained since the model read it (a journal of an older Memdir has no bases: written as it stands).
        ...(group.bases ? { baseOf: (op: ExtractOperation) => group.bases?.[operationPath(op)] ?? null } : {}),
      });
      if (results.some((r) => r.ok)) this.wrote = true;
      if (entry?.kind !== 'turns') continue;
      for (const result of results) {
        const outcome = entry.outcome.operations.find(
          (o) => o.disposition === 'applied' && o.operation.file === result.operation.file && o.operation.scope === result.operation.scope,
        );
        if (!outcome || result.ok) continue;
        if (result.current === undefined) {
          outcome.disposition = 'refused';
          outcome.reason = result.reason;
          continue;
        }
        // The person edited the memory while the model answered, where the update changes it: not
        // written, and not lost either — it waits in the review queue, where accepting it shows both.
        const rel = operationPath(result.operation);
        const reason = `Not written: ${rel} was changed since the model read it, and the change overlaps its update. It waits in the review queue: compare both and choose which to keep.`;
        const proposal = overlapProposal(journal, group, entry.outcome.lastUuid, result.operation, reason);
        outcome.disposition = 'queued';
        outcome.reason = reason;
        outcome.proposalId = proposal.id;
        queue.push(proposal);
      }
    }
    await this.options.hooks?.afterStep?.('operations-applied');
    const outcomes = entries.flatMap((e) => (e.kind === 'turns' ? [e.outcome] : []));
    try {
      for (const proposal of queue) {
        if (!(await this.store.getProposal(proposal.id))) await this.store.saveProposal(proposal);
      }
      this.queued += queue.length;
      const logged = await this.store.loggedIds();
      await this.store.appendLog(entries.filter((e) => !logged.has(e.id)));
      await this.options.hooks?.afterStep?.('log-appended');
      await commitCursor(new CursorStore(dataDir), {
        transcriptPath: journal.transcriptPath,
        consumer: EXTRACT_CONSUMER,
        previous: journal.previous,
        cursor: journal.cursor,
      });
    } catch (error) {
      // The memory is written; what the run could not save is its record: both are said.
      const saved = outcomes.flatMap((o) => o.operations.filter((x) => x.disposition === 'applied').map((x) => x.operation));
      if (saved.length === 0 || !(error instanceof MemdirError)) throw error;
      throw new ExtractPartlySavedError(
        `${sayApplied(saved)}, but ${error.message.replace(/[.;]$/, '')}. Nothing is lost: the next extraction completes it.`,
        outcomes,
        journal.project,
        journal.memoryDir,
        error,
      );
    }
    await this.store.removeJournal(journal.transcriptPath);
    return outcomes;
  }
}
