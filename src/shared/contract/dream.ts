/**
 * Dreams (SPEC §5, issue 6): status of the gates, "Dream now", live progress (through the job
 * events), the history of dreams with their diffs, and revert. The record shapes here are also
 * what main stores in `<dataDir>/dreams/<id>.json` and what `memdir dream --json` prints.
 */
import * as z from 'zod';
import { mutation, query } from './define.js';
import { projectRef } from './common.js';
import { jobSchema } from './events.js';

export { DREAM_PHASES, type DreamPhase } from './dream-phases.js';

/** What started a dream. */
export const DREAM_TRIGGERS = ['manual', 'scheduled', 'cli'] as const;
export type DreamTrigger = (typeof DREAM_TRIGGERS)[number];

/** One gate's verdict (R-DREAM-GATE), as `checkDreamGates` reports it. */
export const dreamGateSchema = z.object({
  name: z.enum(['time', 'sessions', 'lock']),
  /** False: not evaluated (after the first that failed, skipped by Dream now, or dreams off). */
  checked: z.boolean(),
  passed: z.boolean(),
  /** time: hours since the last consolidation (null: never); sessions: the count; lock: its state. */
  value: z.union([z.number(), z.string(), z.null()]),
  threshold: z.number().nullable(),
  detail: z.string(),
  checkedAt: z.string().optional(),
});
export type DreamGateShape = z.infer<typeof dreamGateSchema>;

/** The gates of one project, for the Dream tab and `memdir dream status`. */
export const dreamGateReportSchema = z.object({
  eligible: z.boolean(),
  forced: z.boolean(),
  /** Why scheduled dreams are off for this project (auto memory or autoDreamEnabled off). */
  disabled: z.object({ reason: z.enum(['auto-memory-off', 'auto-dream-off']), detail: z.string() }).nullable(),
  gates: z.array(dreamGateSchema),
  lastConsolidatedAt: z.string().nullable(),
  /** When the time gate opens, when it is what stands in the way. */
  nextEligibleAt: z.string().optional(),
  checkedAt: z.string(),
});
export type DreamGateReportShape = z.infer<typeof dreamGateReportSchema>;

/** What kind of consolidation a change is. */
export const DREAM_CHANGE_KINDS = ['merge', 'dates', 'index', 'model'] as const;

/** One file a dream changes (or would change, or left alone). */
export const dreamChangeSchema = z.object({
  /** Relative to the memory dir; team files as `team/x.md`. */
  file: z.string(),
  action: z.enum(['create', 'update', 'delete']),
  kind: z.enum(DREAM_CHANGE_KINDS),
  /** Why, in one or a few sentences. */
  reason: z.string(),
  /** Changes that only make sense together (a merge: keeper written, duplicate removed). */
  group: z.string().nullable(),
  /** `planned` (dry run, awaiting confirmation), `applied`, or `skipped` (see skippedReason). */
  status: z.enum(['planned', 'applied', 'skipped']),
  skippedReason: z.string().nullable(),
});
export type DreamChange = z.infer<typeof dreamChangeSchema>;

/**
 * Something a dream found for the user to look at, without changing anything for it. `unreadable`:
 * a memory (or MEMORY.md) the dream could not read — left as it is, and the dream not done in full.
 */
export const dreamFlagSchema = z.object({
  kind: z.enum(['stale', 'contradiction', 'signal', 'refused', 'note', 'unreadable']),
  files: z.array(z.string()),
  message: z.string(),
});
export type DreamFlag = z.infer<typeof dreamFlagSchema>;

/** The memories (by name: `MEMORY.md`, `x.md`, `team/x.md`) a dream could not read: it did not do all it was asked. */
export function dreamCouldNotRead(record: { flags: readonly DreamFlag[] }): string[] {
  return record.flags.filter((f) => f.kind === 'unreadable').flatMap((f) => f.files);
}

/** How a dream ended. */
export const DREAM_STATUSES = ['running', 'completed', 'no-changes', 'needs-confirmation', 'dry-run', 'cancelled', 'failed', 'interrupted'] as const;
export type DreamStatus = (typeof DREAM_STATUSES)[number];

/** A dream's revert, once reverted. */
export const dreamRevertSchema = z.object({
  at: z.string(),
  /** The history entry of the revert (itself restorable). */
  rev: z.string().nullable(),
  restored: z.array(z.string()),
  /** Where the pointers the dream removed are back (the one undo's sentences); absent in records from before it. */
  notes: z.array(z.string()).optional(),
  /** Memory files changed since the dream: with any, nothing is reverted unless the revert was told to overwrite them. */
  warnings: z.array(z.object({ file: z.string(), message: z.string() })),
});
export type DreamRevert = z.infer<typeof dreamRevertSchema>;

/** One dream, as recorded in Memdir's data dir. */
export const dreamRecordSchema = z.object({
  /** Unique per data dir (`20261202-131210-a3f9`): `memdir dream revert <id>` finds it. */
  id: z.string(),
  memoryDir: z.string(),
  /** The project's directory name under `projects/`, when known. */
  dir: z.string().nullable(),
  trigger: z.enum(DREAM_TRIGGERS),
  status: z.enum(DREAM_STATUSES),
  /** `model`: the tool-using loop; `rules`: the deterministic offline rules. */
  method: z.enum(['model', 'rules']).nullable(),
  model: z.string().nullable(),
  /** Why the rules ran although a model was configured. */
  fallbackReason: z.string().nullable(),
  startedAt: z.string(),
  endedAt: z.string().nullable(),
  durationMs: z.number().nullable(),
  /** `lastConsolidatedAt` before this dream (what Gather searched after). */
  since: z.string().nullable(),
  tokens: z.object({ input: z.number(), output: z.number() }),
  costUsd: z.number().nullable(),
  changes: z.array(dreamChangeSchema),
  flags: z.array(dreamFlagSchema),
  /** Topic files removed vs. the limit (R: a dream never removes more than the share set). */
  deletions: z.object({ count: z.number(), total: z.number(), limit: z.number() }),
  /** The history entry `dream <id>`, when changes were applied. */
  rev: z.string().nullable(),
  /** The report, as text (also the body of the history entry). */
  report: z.string(),
  error: z.string().nullable(),
  revert: dreamRevertSchema.nullable(),
  /**
   * The history entry that undid the dream's revert (its changes are back: Revert offers again), when
   * its revert was undone (History's Undo, \`memdir undo\`); absent in records from before it.
   */
  redone: z.object({ at: z.string(), rev: z.string() }).nullable().optional(),
  /** Process that ran it (to tell a crashed dream from a running one). */
  pid: z.number(),
});
export type DreamRecord = z.infer<typeof dreamRecordSchema>;

/** Thresholds in force (Memdir's settings, `dream` section). */
export const dreamThresholdsSchema = z.object({ minHours: z.number(), minSessions: z.number(), maxDeleteShare: z.number() });

/** R-DREAM-GATE: whether Claude Code itself would consolidate the project (its cached flag, per version). */
export const claudeCodeDreamSchema = z.object({
  wouldDream: z.boolean(),
  reason: z.string(),
  /** The version the rule was chosen for (the newest transcript's), or null. */
  version: z.string().nullable(),
  rule: z.enum(['2.1.88', '2.1.332']),
  flag: z.object({ enabled: z.boolean(), available: z.boolean(), minHours: z.number().nullable(), minSessions: z.number().nullable() }).nullable(),
  flagFile: z.string().nullable(),
  /** `autoDreamEnabled` as Claude Code sees it (null: not set) and the file that set it. */
  setting: z.boolean().nullable(),
  settingFrom: z.string().nullable(),
  /**
   * A permission rule that would refuse Claude Code's memory writes, so it skips its dream once
   * the time and session gates pass (2.1.332): the rule as written and the settings file it is in.
   */
  refusedBy: z.object({ behavior: z.enum(['deny', 'ask']), rule: z.string(), file: z.string() }).nullable(),
  /**
   * Launch folders whose transcripts were run under an organization's own sign-in (2.1.332): a
   * session launched there skips its dream unless signed in to that organization (null: several,
   * and then it always skips). Looked for only where it would otherwise dream.
   */
  organizationMarks: z.array(z.object({ folder: z.string(), organization: z.string().nullable() })),
});
export type ClaudeCodeDreamStatus = z.infer<typeof claudeCodeDreamSchema>;

/** The Dream tab of a project. */
export const dreamStatusSchema = z.object({
  dir: z.string(),
  memoryDir: z.string(),
  gates: dreamGateReportSchema,
  thresholds: dreamThresholdsSchema,
  /** The lock as found, in words (held by whom, stale, free). */
  lock: z.object({ state: z.enum(['absent', 'free', 'held', 'stale']), detail: z.string() }).nullable(),
  /** A dream of this project running in this app. */
  running: jobSchema.nullable(),
  /** How the next dream would consolidate: with a model, or with the offline rules. */
  method: z.object({ kind: z.enum(['model', 'rules']), detail: z.string() }),
  /** Whether the scheduler dreams this project by itself (the app runs it; the CLI never does). */
  scheduled: z.boolean(),
  /** Whether Claude Code would dream it by itself, apart from Memdir. */
  claudeCode: claudeCodeDreamSchema,
  lastDream: dreamRecordSchema.nullable(),
  /** When the last dream was interrupted (killed, crashed) and undone: when it started and what recovery did. */
  recovered: z.object({ id: z.string(), at: z.string(), detail: z.string() }).nullable(),
});
export type DreamStatusView = z.infer<typeof dreamStatusSchema>;

/** One dashboard cell. */
export const dreamOverviewRowSchema = z.object({
  dir: z.string(),
  eligible: z.boolean(),
  running: z.boolean(),
  disabled: z.string().nullable(),
  lastConsolidatedAt: z.string().nullable(),
  lastDreamAt: z.string().nullable(),
  lastDreamStatus: z.enum(DREAM_STATUSES).nullable(),
  nextEligibleAt: z.string().nullable(),
  /** The gate that holds it back, in a few words. */
  waitingFor: z.string().nullable(),
});
export type DreamOverviewRow = z.infer<typeof dreamOverviewRowSchema>;

const startResult = z.object({ started: z.boolean(), jobId: z.string().nullable(), reason: z.string().nullable() });

export const dreamContract = {
  'dream.status': query("A project's dream gates (each with its value), the lock, a running dream and the last one.", projectRef, dreamStatusSchema),
  'dream.overview': query(
    'For the dashboard: every project’s last dream and when it is next eligible.',
    z.object({}),
    z.object({ projects: z.array(dreamOverviewRowSchema) }),
  ),
  'dream.now': mutation(
    "Dream now: consolidate this project's memory at once (skips the time and session gates, never the lock). Runs as a job; progress comes as job events.",
    projectRef.extend({ allowDeletes: z.boolean().optional() }),
    startResult,
  ),
  'dream.confirm': mutation(
    'Apply a dream that was held back because it removes more memories than the limit allows (the user confirmed). Files changed since are left alone.',
    z.object({ id: z.string().min(1).max(100) }),
    startResult,
  ),
  'dream.list': query(
    'Dreams of a project, newest first (when, trigger, duration, tokens, files changed).',
    projectRef.extend({ limit: z.number().int().min(1).max(500).optional() }),
    z.object({ dreams: z.array(dreamRecordSchema) }),
  ),
  'dream.diff': query(
    "A dream's changes as a unified diff (one file, or all).",
    z.object({ id: z.string().min(1).max(100), file: z.string().max(400).optional() }),
    z.object({ diff: z.string() }),
  ),
  'dream.revert': mutation(
    'Revert a dream: the files it touched go back to their pre-dream content, as a new history entry. Files changed since the dream are left alone and reported, unless overwriteChanged.',
    z.object({ id: z.string().min(1).max(100), overwriteChanged: z.boolean().optional() }),
    z.object({ record: dreamRecordSchema, revert: dreamRevertSchema }),
  ),
};
