/**
 * Extraction (SPEC §4, R-EXTRACT, R-EXCLUSIVE): what the model proposed for a turn, the review
 * queue where proposals and offline suggestions wait for the user, and the extraction log that
 * keeps every outcome — applied, queued, skipped with its reason, accepted, edited, rejected.
 * The CLI's `memdir extract --json` prints these shapes too.
 */
import * as z from 'zod';
import { tokenUsageSchema } from '../recall-types.js';
import { MEMORY_TYPES, SCOPES } from '../memory-types.js';
import { mutation, query } from './define.js';
import { memoryBody, projectRef } from './common.js';

/** One change a model (or a "remember this" statement) proposes to the memory directory. */
export const extractOperationSchema = z.object({
  /** `create` a new topic file, or `update` (rewrite) an existing one. */
  action: z.enum(['create', 'update']),
  /** A plain file name in the scope's directory (`feedback_no_orm.md`). */
  file: z.string(),
  scope: z.enum(SCOPES),
  type: z.enum(MEMORY_TYPES),
  name: z.string(),
  /** One line; also the index pointer's hook unless `hook` says otherwise. */
  description: z.string(),
  body: z.string(),
  hook: z.string().nullable(),
  /** Why it is worth remembering, in the proposer's words. */
  reason: z.string().nullable(),
});
export type ExtractOperation = z.infer<typeof extractOperationSchema>;

/** What happened to one proposed operation. */
export const operationDispositionSchema = z.enum([
  /** Written to the memory directory (history source `extract`). */
  'applied',
  /** Waiting in the review queue. */
  'queued',
  /** Failed validation (path, scope, type, secret, …): never written. */
  'refused',
  /** `--dry-run`: what would have happened. */
  'dry-run',
]);
export type OperationDisposition = z.infer<typeof operationDispositionSchema>;

/** An operation with its fate and, when refused or queued for a reason, why. */
export const operationOutcomeSchema = z.object({
  operation: extractOperationSchema,
  disposition: operationDispositionSchema,
  /** For `refused`: why; for `queued` in apply mode: what needs a person's look. */
  reason: z.string().nullable(),
  /** R-NOTSAVE hints and index-limit warnings, shown with a proposal. */
  warnings: z.array(z.string()),
  /** Proposal id when queued. */
  proposalId: z.string().nullable(),
});
export type OperationOutcome = z.infer<typeof operationOutcomeSchema>;

/** Why a span of turns produced no extraction. */
export const SKIP_REASONS = [
  /** R-EXCLUSIVE: the main agent wrote into the memory directory during these turns. */
  'memory-written-by-agent',
  /** R-SETTINGS: `autoMemoryEnabled: false` or CLAUDE_CODE_DISABLE_AUTO_MEMORY. */
  'auto-memory-off',
  /** Turned off in Memdir's settings. */
  'extraction-disabled',
  /** A session Memdir itself started (its Claude Code CLI model calls). */
  'internal-session',
  /** Turns the user typed nothing in (continuations, local commands only). */
  'no-prompt',
  /** Turns that ended before Memdir first watched this session. */
  'before-watching',
  /** The transcript was rewritten or replaced: turns extracted before are not extracted again. */
  'already-extracted',
  /** The model call failed in a way worth retrying (rate limit, overload, network): not committed. */
  'model-failed',
] as const;
export const skipReasonSchema = z.enum(SKIP_REASONS);
export type SkipReason = z.infer<typeof skipReasonSchema>;

/** The model call behind an outcome (never its prompt). */
export const extractModelCallSchema = z.object({
  provider: z.string(),
  model: z.string(),
  tokens: tokenUsageSchema.nullable(),
  costUsd: z.number().nullable(),
  latencyMs: z.number(),
});

/** The outcome of one span of turns (usually one turn) of one transcript. */
export const turnOutcomeSchema = z.object({
  sessionId: z.string().nullable(),
  /** The span: its first and last user/assistant line, and how many turns. */
  firstUuid: z.string().nullable(),
  lastUuid: z.string().nullable(),
  turns: z.number(),
  skipped: z.boolean(),
  reason: skipReasonSchema.nullable(),
  /** The reason in words (always set when skipped, or when the model's answer was not used). */
  message: z.string().nullable(),
  /** `model`: a model decided; `offline`: "remember this" statements only. */
  method: z.enum(['model', 'offline']).nullable(),
  operations: z.array(operationOutcomeSchema),
  model: extractModelCallSchema.nullable(),
});
export type TurnOutcome = z.infer<typeof turnOutcomeSchema>;

/** A review-queue item: a model proposal, or an offline "remember this" suggestion. */
export const proposalSchema = z.object({
  id: z.string(),
  kind: z.enum(['proposal', 'suggestion']),
  status: z.enum(['pending', 'accepted', 'rejected']),
  createdAt: z.string(),
  decidedAt: z.string().nullable(),
  /** The project's directory name under `projects/`, and its memory directory. */
  project: z.string(),
  memoryDir: z.string(),
  sessionId: z.string().nullable(),
  transcriptPath: z.string(),
  /** The line the proposal came from (the turn's last line). */
  turnUuid: z.string().nullable(),
  operation: extractOperationSchema,
  /**
   * For an `update`: the memory file's whole text when the update was proposed. Accepting merges
   * the proposal onto the file as it is then (a three-way line merge from this text), so a line
   * added since is kept; when the change since overlaps, nothing is written and both are shown.
   * Absent in a queue written before Memdir kept it: treated as changed since.
   */
  baseText: z.string().nullable().optional(),
  /** What the user said (a suggestion's statement, a proposal's prompt excerpt). */
  evidence: z.string(),
  warnings: z.array(z.string()),
  /** Accepted after the user changed it. */
  edited: z.boolean(),
  /** After acceptance: the file written and its history revision. */
  result: z.object({ file: z.string(), rev: z.string().nullable() }).nullable(),
  /** Why it was rejected, when the user said. */
  rejectReason: z.string().nullable(),
});
export type Proposal = z.infer<typeof proposalSchema>;

/** One line of the extraction log (`<dataDir>/extract/log.jsonl`). */
export const extractionLogEntrySchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('turns'),
    id: z.string(),
    time: z.string(),
    project: z.string(),
    transcriptPath: z.string(),
    /** `hook`, `watcher`, `cli`, `app` (Extract now), `resume` (finishing after a restart). */
    trigger: z.string(),
    mode: z.enum(['apply', 'review']),
    outcome: turnOutcomeSchema,
  }),
  z.object({
    kind: z.literal('decision'),
    id: z.string(),
    time: z.string(),
    project: z.string(),
    proposalId: z.string(),
    decision: z.enum(['accepted', 'edited', 'rejected']),
    file: z.string(),
    rev: z.string().nullable(),
    reason: z.string().nullable(),
  }),
]);
export type ExtractionLogEntry = z.infer<typeof extractionLogEntrySchema>;

/** The user's version of a proposal when accepting it edited. */
export const proposalEditSchema = z.object({
  file: z.string().min(1).max(255),
  scope: z.enum(SCOPES),
  type: z.enum(MEMORY_TYPES),
  name: z.string().trim().min(1, 'A memory needs a name.').max(200),
  description: z.string().max(1000),
  body: memoryBody,
});
export type ProposalEdit = z.infer<typeof proposalEditSchema>;

const queueFilter = z.object({ dir: z.string().max(400).optional(), status: z.enum(['pending', 'all']).default('pending') });

export const extractContract = {
  'extract.queue': query(
    'The review queue: proposals and offline suggestions, newest first (one project or all), with pending counts per project.',
    queueFilter,
    z.object({ proposals: z.array(proposalSchema), pending: z.record(z.string(), z.number()) }),
  ),
  'extract.accept': mutation(
    'Accept a proposal (optionally edited): written through the single safe path, recorded in history as `extract`. Validated again: a user memory never goes to the team, no secret is written. An update is merged onto what the memory gained since it was proposed; when that change overlaps it, `conflict` (with `current`) and nothing is written.',
    z.object({
      id: z.string().min(1).max(100),
      edit: proposalEditSchema.optional(),
      /**
       * The memory file as the user saw it when choosing to accept over a change (after a `conflict`,
       * whose `current` it is): the proposal is merged onto the file from this text instead of the
       * one it was proposed from, so it is written as shown unless the file changed again.
       */
      baseText: memoryBody.optional(),
    }),
    z.object({ proposal: proposalSchema }),
  ),
  'extract.reject': mutation(
    'Reject a proposal; the log keeps it.',
    z.object({ id: z.string().min(1).max(100), reason: z.string().max(500).optional() }),
    z.object({ proposal: proposalSchema }),
  ),
  'extract.log': query(
    'The extraction log, newest first: every span of turns (applied, queued, skipped and why) and every decision on a proposal.',
    z.object({ dir: z.string().max(400).optional(), limit: z.number().int().min(1).max(1000).default(200) }),
    z.object({ entries: z.array(extractionLogEntrySchema) }),
  ),
  'extract.run': mutation(
    "Extract now from a project's transcripts (the turns since the last extraction), as a background job.",
    projectRef,
    z.object({ started: z.boolean(), jobId: z.string().nullable(), reason: z.string().nullable() }),
  ),
};
