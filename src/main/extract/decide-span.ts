/**
 * What to do with one span of turns (R-EXTRACT, R-TYPES, R-NOTSAVE): ask the model and validate
 * its operations against the memory directory as it will be, or — offline, or when the model's
 * answer cannot be used — offer the user's "remember this" statements as suggestions. Nothing is
 * written here: the decisions go into the run's journal (see extract-memories.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ExtractOperation, OperationOutcome, Proposal, TurnOutcome } from '../../shared/contract/extract.js';
import { INDEX_FILE } from '../../shared/limits.js';
import { LlmError } from '../llm/index.js';
import { inStoreMode, type ProjectLocation, scanMemoryDir, teamDirOf } from '../memdir/index.js';
import type { Turn } from '../transcripts/index.js';
import { maskSecretsIn } from '../secrets/index.js';
import type { ExtractTranscriptOptions } from './extract-memories.js';
import { operationPath } from './apply-operations.js';
import { ExtractAnswerError, extractSystemPrompt, MAX_ANSWER_TOKENS, buildExtractPrompt, parseExtractAnswer } from './extract-prompt.js';
import { type ExtractionStore, newId } from './extraction-store.js';
import { findRememberStatements, suggestionOperation } from './remember-statements.js';
import { type ValidationTarget, validateOperation } from './validate-operation.js';

/** Model failures worth trying again at the next turn end. */
const TRANSIENT: ReadonlySet<string> = new Set(['rate-limited', 'overloaded', 'server', 'timeout', 'network']);

function readText(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** What the user said in a span, as a proposal shows it: the last 1,000 characters of their prompts. */
export function evidenceOf(turns: readonly Turn[]): string {
  return turns
    .filter((t) => t.userText)
    .map((t) => t.userText)
    .join('\n')
    .slice(-1000);
}

/** The session and line range of a span of turns, as its outcome records them. */
export function outcomeBase(turns: readonly Turn[]): Pick<TurnOutcome, 'sessionId' | 'firstUuid' | 'lastUuid' | 'turns'> {
  return {
    sessionId: turns.find((t) => t.sessionId)?.sessionId ?? null,
    firstUuid: turns[0]?.firstUuid ?? null,
    lastUuid: turns.at(-1)?.lastUuid ?? null,
    turns: turns.length,
  };
}

/** The outcome of turns that were not sent to the model, and why. */
export function skipped(turns: readonly Turn[], reason: NonNullable<TurnOutcome['reason']>, message: string): TurnOutcome {
  return { ...outcomeBase(turns), skipped: true, reason, message, method: null, operations: [], model: null };
}

/** Decides the spans of one run: the memory directory it validates against and the suggestions already pending are read once. */
export class SpanDecider {
  private target: ValidationTarget | null = null;
  private pendingSuggestions: Set<string> | null = null;

  constructor(
    readonly options: Pick<ExtractTranscriptOptions, 'transcriptPath' | 'provider' | 'mode' | 'dryRun' | 'signal' | 'timeoutMs'>,
    readonly project: string,
    readonly location: ProjectLocation,
    readonly store: ExtractionStore,
  ) {}

  /** The memory dir as it is now, and as it will be once this run's creates are written. */
  private validationTarget(): ValidationTarget {
    if (this.target) return this.target;
    const memoryDir = this.location.memoryDir;
    const own = scanMemoryDir(memoryDir, { scope: 'private' });
    const team = scanMemoryDir(teamDirOf(memoryDir), { scope: 'team' });
    this.target = {
      privateFiles: new Set(own.memories.map((m) => m.file)),
      teamFiles: team.exists ? new Set(team.memories.map((m) => m.file)) : null,
      // In memory-store mode no index loads: none to show or to measure against.
      indexText: inStoreMode(this.location.settings.memoryStores) ? null : (readText(path.join(memoryDir, INDEX_FILE)) ?? ''),
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
      // What an update is proposed from: accepting it later merges onto what the file gained since.
      baseText: op.action === 'update' ? this.baseOf(op) : null,
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
          // Saved in the log and shown by the app and the CLI alike: true on both.
          reason: "Offline: a suggestion to make into a memory, waiting in the app's review queue.",
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
  /**
   * What an update is proposed from: the file as the model read it (the texts taken when its
   * request was made), so an edit made while it answered is merged with, never taken as its base.
   */
  private baseOf(op: ExtractOperation): string | null {
    const rel = operationPath(op);
    return this.readForModel?.has(rel) ? this.readForModel.get(rel)! : readText(path.join(this.location.memoryDir, rel));
  }

  /** The memory files' texts when the model's request was made, by path in the memory dir. */
  private readForModel: Map<string, string | null> | null = null;

  /**
   * Decide a span: proposals are queued into `proposals`; operations to write at once go into
   * `apply`, with, for an update, the file's text the model read in `bases` (by path in the memory
   * dir), which the write merges onto what the file gained since.
   */
  async decide(
    turns: readonly Turn[],
    proposals: Proposal[],
    apply: ExtractOperation[],
    bases: Map<string, string | null> = new Map(),
  ): Promise<TurnOutcome | { transient: string }> {
    const { provider, mode, dryRun } = this.options;
    if (provider.kind === 'offline') return this.offline(turns, 'Offline: nothing is written automatically.', proposals);
    const memoryDir = this.location.memoryDir;
    const own = scanMemoryDir(memoryDir, { scope: 'private' });
    const team = scanMemoryDir(teamDirOf(memoryDir), { scope: 'team' });
    const target = this.validationTarget();
    this.readForModel = new Map(
      [
        ...own.memories.map((m) => operationPath({ scope: 'private', file: m.file })),
        ...team.memories.map((m) => operationPath({ scope: 'team', file: m.file })),
      ].map((rel) => [rel, readText(path.join(memoryDir, rel))] as const),
    );
    let answer;
    try {
      answer = await provider.complete({
        task: 'extract',
        system: extractSystemPrompt({ storeMode: target.indexText === null }),
        messages: [
          {
            role: 'user',
            content: buildExtractPrompt(turns, {
              indexText: target.indexText,
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
      // Extraction tries again by itself at the next turn end: what happened, without telling the person to.
      if (error instanceof LlmError && TRANSIENT.has(error.kind)) return { transient: error.fact };
      return this.offline(turns, `The model could not be used: ${message} Offline path instead:`, proposals);
    }
    const model = { provider: provider.kind, model: answer.model, tokens: answer.usage, costUsd: answer.costUsd, latencyMs: Math.round(answer.latencyMs) };
    let raws: unknown[];
    try {
      raws = parseExtractAnswer(answer.text, answer.stopReason);
    } catch (error) {
      if (!(error instanceof ExtractAnswerError)) throw error;
      // The reason quotes the model's words: a secret it read in a memory is masked there too.
      const why = await maskSecretsIn(error.message);
      return { ...(await this.offline(turns, `The model's answer was not used: ${why} Offline path instead:`, proposals)), model };
    }
    const operations: OperationOutcome[] = [];
    const evidence = evidenceOf(turns);
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
        if (operation.action === 'update') bases.set(operationPath(operation), this.baseOf(operation));
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
}
