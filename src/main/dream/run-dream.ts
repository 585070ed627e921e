/**
 * One dream, end to end (SPEC §5, issue 6): the gates, the shared consolidation lock, the four
 * phases — Orient, Gather, Consolidate, Prune — and apply, each reporting progress; a record of
 * what happened in `<dataDir>/dreams/`.
 *
 * Transaction semantics:
 *   - Every phase works on the staged plan; the memory dir is written only by apply, in one
 *     `transact` (one history entry `dream <id>`, each file atomic, a journal against kill -9).
 *   - Cancel (the AbortSignal, SIGINT/SIGTERM/SIGHUP) at any phase before apply: nothing was
 *     written, the lock is rolled back to the previous `lastConsolidatedAt`. Apply, once
 *     started, finishes: it is short, and stopping half-way is what the journal is for.
 *   - A dream that would remove more than `maxDeleteShare` of the memories is held back: nothing
 *     written, the lock rolled back, its plan kept for the user to confirm ({@link confirmDream}).
 *   - With a model: the tool loop of model-consolidate.ts; if the model cannot be used (offline,
 *     fails, times out), the offline rules run instead and the record says why.
 */
import type { DreamFlag, DreamPhase, DreamRecord, DreamTrigger } from '../../shared/contract/dream.js';
import { INDEX_FILE, TEAM_DIR } from '../../shared/limits.js';
import { LlmError, type ModelProvider } from '../llm/index.js';
import { seedIndex } from '../memdir/index.js';
import type { AppSettings } from '../settings/index.js';
import { recoverInterruptedApply } from './apply/apply-dream.js';
import { type DreamApplyHooks, applyPlanUnderLock } from './apply/apply-plan.js';
import { formatReport, toChange } from './records/dream-report.js';
import { anchorQueriesOf, consolidateWithRules, flagsOnly } from './plan/consolidate-rules.js';
import type { DreamLock } from './consolidation-lock.js';
import { type IndexContext, describePrune, indexRelOf, pruneScope } from './plan/dream-index.js';
import { type DreamGateReport, type DreamTarget, checkDreamGates, passDreamGates } from './gates/dream-gates.js';
import { DreamPlan, type StagedChange } from './plan/dream-plan.js';
import { listDreamRecords, newDreamId, removePendingPlan, saveDreamRecord, savePendingPlan } from './records/dream-records.js';
import { gatherSignals } from './plan/gather.js';
import { type MemorySnapshot, readMemorySnapshot, readableTopics, unreadableFiles } from './plan/memory-snapshot.js';
import { consolidateWithModel } from './model/model-consolidate.js';
import { KnownSecrets, findNewSecrets } from './model/proposal-check.js';
import type { SessionScanCache } from './gates/session-scan.js';
import { DreamCancelledError, runWithDreamLock } from './with-dream-lock.js';

/** The `dream` section of Memdir's settings. */
export type DreamSettings = AppSettings['dream'];

/** Progress of a running dream, for its job and the Dream tab. */
export interface DreamProgress {
  phase: DreamPhase;
  step: string;
  /** 0..1 over the whole dream. */
  progress: number;
  /** Memory files read (Orient) and transcripts searched (Gather) so far. */
  files: number;
  /** Model tokens spent so far. */
  tokens: number;
}

/** Hooks for tests: a pause at the start of each phase (kill -9 tests), and after apply's first write. */
export interface DreamTestHooks extends DreamApplyHooks {
  atPhase?: (phase: DreamPhase) => Promise<void>;
}

/** What {@link runDream} needs. */
export interface DreamRunOptions {
  memoryDir: string;
  /** `<home>/projects/<dir>`: the memory folder's parent. */
  projectDir: string;
  /** The transcript folders of the project's launch directories (R-LAYOUT): what Gather searches; default `[projectDir]`. */
  transcriptDirs?: readonly string[];
  /** The project's directory name, for the record. */
  dir?: string | null;
  dataDir: string;
  trigger: DreamTrigger;
  settings: DreamSettings;
  /** The model; null or an offline provider → the offline rules. */
  provider: ModelProvider | null;
  /** Claude Code's switches for the project (off: no scheduled dream; a forced one still runs). */
  targetSettings?: DreamTarget['settings'];
  /** "Dream now": skip the time and session gates, never the lock. */
  force?: boolean;
  /** The user confirmed removals beyond `maxDeleteShare`. */
  allowDeletes?: boolean;
  /** Compute and report, write nothing, take no lock, keep no record. */
  dryRun?: boolean;
  signal?: AbortSignal;
  onProgress?: (progress: DreamProgress) => void;
  /** Called once the dream has its id and holds the lock (before Orient). */
  onStart?: (id: string) => void;
  now?: () => number;
  sessionCache?: SessionScanCache;
  hooks?: DreamTestHooks;
}

/** How a call to {@link runDream} ended. */
export interface DreamRunResult {
  gates: DreamGateReport;
  /** Null when the dream did not start (gates closed, lock held): see `reason`. */
  record: DreamRecord | null;
  reason: string | null;
}

/** The phases' result, before apply. */
interface Consolidated {
  plan: DreamPlan;
  changes: StagedChange[];
  flags: DreamFlag[];
  index: IndexContext;
  method: 'model' | 'rules';
  model: string | null;
  fallbackReason: string | null;
  tokens: { input: number; output: number };
  costUsd: number | null;
  notes: string[];
  indexesBefore: Map<string, string | null>;
}

/** The plan removes more memories than allowed; thrown so the lock is rolled back. */
class NeedsConfirmation extends Error {
  constructor(readonly consolidated: Consolidated) {
    super('The dream removes more memories than allowed without confirmation.');
  }
}

const PHASE_SPAN: Record<DreamPhase, [number, number]> = {
  orient: [0, 0.2],
  gather: [0.2, 0.45],
  consolidate: [0.45, 0.8],
  prune: [0.8, 0.9],
  apply: [0.9, 1],
};

function emptyRecord(id: string, opts: DreamRunOptions, since: number | null, startedAt: number): DreamRecord {
  return {
    id,
    memoryDir: opts.memoryDir,
    dir: opts.dir ?? null,
    trigger: opts.trigger,
    status: 'running',
    method: null,
    model: null,
    fallbackReason: null,
    startedAt: new Date(startedAt).toISOString(),
    endedAt: null,
    durationMs: null,
    since: since === null ? null : new Date(since).toISOString(),
    tokens: { input: 0, output: 0 },
    costUsd: null,
    changes: [],
    flags: [],
    deletions: { count: 0, total: 0, limit: 0 },
    rev: null,
    report: '',
    error: null,
    revert: null,
    pid: process.pid,
  };
}

/** Topic files removed by the changes, out of those Orient saw, and how many may go. */
export function deletionsOf(changes: readonly StagedChange[], snapshot: MemorySnapshot, share: number): { count: number; total: number; limit: number } {
  const total = [...snapshot.files.values()].filter((f) => f.kind === 'topic').length;
  const count = changes.filter((c) => c.action === 'delete' && !c.file.endsWith(INDEX_FILE)).length;
  return { count, total, limit: Math.floor(share * total + 1e-9) };
}

/** Orient → Gather → Consolidate → Prune, on a staged plan. Writes nothing. */
async function runPhases(opts: DreamRunOptions, sinceMs: number | null, signal: AbortSignal): Promise<Consolidated> {
  const now = new Date((opts.now ?? Date.now)());
  let files = 0;
  let tokens = 0;
  const report = (phase: DreamPhase, step: string, within: number) => {
    const [from, to] = PHASE_SPAN[phase];
    opts.onProgress?.({ phase, step, progress: from + (to - from) * Math.min(1, Math.max(0, within)), files, tokens });
  };
  const enter = async (phase: DreamPhase, step: string) => {
    signal.throwIfAborted();
    report(phase, step, 0);
    await opts.hooks?.atPhase?.(phase);
    signal.throwIfAborted();
  };

  await enter('orient', 'reading memory files');
  const snapshot = await readMemorySnapshot(opts.memoryDir, {
    signal,
    onFile: (done, total) => {
      files = done;
      report('orient', `read ${done} of ${total} files`, done / Math.max(1, total));
    },
  });
  const indexesBefore = new Map<string, string | null>();
  indexesBefore.set(INDEX_FILE, snapshot.files.get(INDEX_FILE)?.text ?? null);
  const teamExists = [...snapshot.files.values()].some((f) => f.scope === 'team');
  if (teamExists) indexesBefore.set(`${TEAM_DIR}/${INDEX_FILE}`, snapshot.files.get(`${TEAM_DIR}/${INDEX_FILE}`)?.text ?? null);
  const orientFiles = files;
  // What Orient could not read is said, by the memory's name, and left as it is (DreamPlan never stages a write over it).
  // A link is the user's choice, not a failure: a note, not "could not read" (no "done in part", no exit 1, every dream).
  const unread: DreamFlag[] = unreadableFiles(snapshot).map(({ rel, reason, link }) =>
    link
      ? { kind: 'note', files: [rel], message: `${rel} is a symbolic link: a dream never follows or changes links, so it was left as it is.` }
      : { kind: 'unreadable', files: [rel], message: `${rel} could not be read (${reason}): the dream left it as it is and did not consolidate it.` },
  );

  await enter('gather', 'searching transcripts');
  const gathered = await gatherSignals(opts.transcriptDirs ?? [opts.projectDir], {
    sinceMs,
    anchors: anchorQueriesOf(readableTopics(snapshot)),
    signal,
    onTranscript: (done, total) => {
      files = orientFiles + done;
      report('gather', `searched ${done} of ${total} transcripts`, done / Math.max(1, total));
    },
  });
  const notes = gathered.problems.map((p) => p);

  await enter('consolidate', 'consolidating');
  const known = new KnownSecrets(snapshot);
  let plan = new DreamPlan(snapshot);
  let flags: DreamFlag[] = [];
  let index: IndexContext = { retarget: new Map(), stale: new Set(), descriptions: new Map() };
  let method: Consolidated['method'] = 'rules';
  let model: string | null = null;
  let fallbackReason: string | null = null;
  const usage = { input: 0, output: 0 };
  let costUsd: number | null = null;
  const provider = opts.provider && opts.provider.kind !== 'offline' ? opts.provider : null;
  if (provider) {
    try {
      const loop = await consolidateWithModel({
        provider,
        plan,
        gathered,
        projectDir: opts.projectDir,
        ...(opts.transcriptDirs ? { transcriptDirs: opts.transcriptDirs } : {}),
        sinceMs,
        limits: { maxTurns: opts.settings.maxTurns, maxToolCalls: opts.settings.maxToolCalls, maxTokens: opts.settings.maxTokens },
        known,
        now,
        signal,
        onStep: (step, spent) => {
          tokens = spent;
          report('consolidate', step, Math.min(0.95, spent / Math.max(1, opts.settings.maxTokens) + 0.05));
        },
      });
      method = 'model';
      model = loop.model;
      usage.input = loop.tokens.input;
      usage.output = loop.tokens.output;
      tokens = usage.input + usage.output;
      costUsd = loop.costUsd;
      const after = flagsOnly(plan, now);
      flags = [...loop.flags, ...after.flags];
      if (loop.summary) flags.unshift({ kind: 'note', files: [], message: `The model's summary: ${loop.summary}` });
      index = { retarget: loop.retarget, stale: after.stale, descriptions: new Map() };
    } catch (error) {
      if (signal.aborted) throw error;
      if (!(error instanceof LlmError)) throw error;
      fallbackReason = `${error.message}${plan.changes().length > 0 ? ' What the model had proposed was dropped.' : ''}`;
      plan = new DreamPlan(snapshot);
    }
  }
  if (method === 'rules') {
    report('consolidate', 'applying the offline rules', 0.5);
    const rules = consolidateWithRules(plan, { anchors: gathered.anchors, signals: gathered.signals, now });
    flags = rules.flags;
    index = { retarget: rules.retarget, stale: rules.stale, descriptions: rules.descriptions };
  }
  // Last check of every write, whoever proposed it: no new secret goes into memory.
  for (const change of plan.changes()) {
    if (change.after === null) continue;
    const secrets = await findNewSecrets(change.file, change.after, known);
    if (secrets.length === 0) continue;
    const group = plan.discard(change.file);
    const dropped = group ? plan.groupMembers(group) : [];
    for (const rel of dropped) plan.discard(rel);
    flags.push({
      kind: 'refused',
      files: [change.file, ...dropped],
      message: `Not written: ${change.file} would hold a secret that was not in memory before (${secrets.join('; ')}).`,
    });
  }
  signal.throwIfAborted();

  await enter('prune', 'tidying MEMORY.md');
  for (const rel of indexesBefore.keys()) {
    const scope = rel === INDEX_FILE ? 'private' : 'team';
    // Where the dream creates MEMORY.md, Prune starts from what Claude Code would have built (as apply does).
    const seed = await seedIndex(
      { memoryDir: opts.memoryDir, scope },
      plan.text(rel),
      plan.changes().map((c) => c.file),
    );
    const pruned = pruneScope(
      scope,
      seed || plan.text(rel),
      { rels: plan.topicRels(scope), textOf: (r) => plan.text(r), exists: (r) => plan.pointerTargetExists(r) },
      index,
    );
    if (pruned.text !== null && pruned.text !== plan.text(indexRelOf(scope)))
      plan.write(rel, pruned.text, { kind: 'index', reason: describePrune(rel, pruned) });
  }
  report('prune', 'index ready', 1);
  return {
    plan,
    changes: plan.changes(),
    flags: [...unread, ...flags, ...notes.map((message) => ({ kind: 'note' as const, files: [], message }))],
    index,
    method,
    model,
    fallbackReason,
    tokens: usage,
    costUsd,
    notes,
    indexesBefore,
  };
}

function finishRecord(record: DreamRecord, startedAt: number, now: () => number): DreamRecord {
  const ended = now();
  const done = { ...record, endedAt: new Date(ended).toISOString(), durationMs: Math.max(0, Math.round(ended - startedAt)) };
  return { ...done, report: formatReport(done) };
}

function withConsolidation(record: DreamRecord, c: Consolidated, share: number): DreamRecord {
  return {
    ...record,
    method: c.method,
    model: c.model,
    fallbackReason: c.fallbackReason,
    tokens: c.tokens,
    costUsd: c.costUsd,
    flags: c.flags,
    deletions: deletionsOf(c.changes, c.plan.snapshot, share),
  };
}

function describeGates(gates: DreamGateReport): string {
  if (gates.disabled) return gates.disabled.detail;
  const failed = gates.gates.find((g) => g.checked && !g.passed);
  return failed?.detail ?? 'The dream gates are closed.';
}

/**
 * Runs one dream (see the file comment). Never throws for a closed gate, a held lock, a cancel
 * or a failed phase: those come back in the record (`cancelled`, `failed`) or as `reason`.
 */
export async function runDream(opts: DreamRunOptions): Promise<DreamRunResult> {
  const now = opts.now ?? Date.now;
  const gateOpts = {
    force: opts.force === true,
    minHours: opts.settings.minHours,
    minSessions: opts.settings.minSessions,
    dataDir: opts.dataDir,
    ...(opts.sessionCache ? { sessionCache: opts.sessionCache } : {}),
    ...(opts.now ? { now: opts.now } : {}),
  };
  const target: DreamTarget = {
    memoryDir: opts.memoryDir,
    projectDir: opts.projectDir,
    ...(opts.transcriptDirs ? { transcriptDirs: opts.transcriptDirs } : {}),
    ...(opts.targetSettings ? { settings: opts.targetSettings } : {}),
  };

  if (opts.dryRun) {
    // What the same dream would do: closed gates (or dreams turned off, or a held lock) stop it here too.
    const gates = await checkDreamGates(target, gateOpts);
    if (!gates.eligible) return { gates, record: null, reason: describeGates(gates) };
    const startedAt = now();
    const since = gates.lastConsolidatedAt === null ? null : Date.parse(gates.lastConsolidatedAt);
    const record = emptyRecord(await newDreamId(opts.dataDir, startedAt), opts, since, startedAt);
    const c = await runPhases(opts, since, opts.signal ?? new AbortController().signal);
    const done = withConsolidation({ ...record, status: 'dry-run', changes: c.changes.map((x) => toChange(x, 'planned')) }, c, opts.settings.maxDeleteShare);
    return { gates, record: finishRecord(done, startedAt, now), reason: null };
  }

  const { report: gates, lock } = await passDreamGates(target, gateOpts);
  if (!gates.eligible || !lock) return { gates, record: null, reason: describeGates(gates) };
  const startedAt = now();
  const id = await newDreamId(opts.dataDir, startedAt);
  let record = emptyRecord(id, opts, lock.priorMtimeMs, startedAt);
  await saveDreamRecord(opts.dataDir, record);
  opts.onStart?.(id);

  let pending: Consolidated | null = null;
  try {
    const run = await runWithDreamLock(
      lock,
      async ({ signal, applying }) => {
        // A dream of this dir killed while applying is undone first (we hold the lock now).
        await recoverInterruptedApply({ dataDir: opts.dataDir, memoryDir: opts.memoryDir });
        const c = await runPhases(opts, lock.priorMtimeMs, signal);
        record = withConsolidation(record, c, opts.settings.maxDeleteShare);
        if (record.deletions.count > record.deletions.limit && !opts.allowDeletes) throw new NeedsConfirmation(c);
        return applyConsolidated(c, record, lock, opts, signal, applying);
      },
      { signal: opts.signal, dataDir: opts.dataDir },
    );
    if (run.outcome === 'completed') record = run.value;
    else if (run.outcome === 'cancelled') record = { ...record, status: 'cancelled', error: reasonText(run.reason) };
    else if (run.outcome === 'lost')
      record = { ...record, status: 'failed', error: 'Another process took the consolidation lock over (it had gone stale); nothing was changed.' };
    else record = { ...record, status: 'failed', error: run.problem.message };
  } catch (error) {
    if (error instanceof NeedsConfirmation) {
      pending = error.consolidated;
      record = { ...record, status: 'needs-confirmation', changes: pending.changes.map((c) => toChange(c, 'planned')) };
    } else {
      record = { ...record, status: 'failed', error: error instanceof Error ? error.message : String(error) };
    }
  }
  record = finishRecord(record, startedAt, now);
  if (pending) {
    await savePendingPlan(opts.dataDir, {
      version: 1,
      id,
      memoryDir: opts.memoryDir,
      changes: pending.changes,
      retarget: [...pending.index.retarget],
      stale: [...pending.index.stale],
      descriptions: [...pending.index.descriptions],
      indexes: [...pending.indexesBefore],
    });
  }
  await saveDreamRecord(opts.dataDir, record);
  return { gates, record, reason: null };
}

function reasonText(reason: unknown): string {
  if (reason instanceof DreamCancelledError) return reason.message;
  if (reason instanceof Error) return reason.message === 'This operation was aborted' ? 'Cancelled.' : reason.message;
  return 'Cancelled.';
}

/** Apply of a fresh dream: under the held lock, then the record. */
async function applyConsolidated(
  c: Consolidated,
  record: DreamRecord,
  lock: DreamLock,
  opts: DreamRunOptions,
  signal: AbortSignal,
  applying: () => void,
): Promise<DreamRecord> {
  signal.throwIfAborted();
  opts.onProgress?.({ phase: 'apply', step: 'applying', progress: 0.9, files: 0, tokens: record.tokens.input + record.tokens.output });
  await opts.hooks?.atPhase?.('apply');
  signal.throwIfAborted();
  const topicChanges = c.changes.filter((x) => x.kind !== 'index');
  const indexChanged = c.changes.some((x) => x.kind === 'index');
  if (topicChanges.length === 0 && !indexChanged) {
    await supersedePending(opts.dataDir, opts.memoryDir, record.id);
    return { ...record, status: 'no-changes' };
  }
  // From here a Ctrl-C waits: apply finishes whole and the record says so.
  applying();
  const applied = await applyPlanUnderLock({
    lock,
    record,
    changes: topicChanges,
    index: c.index,
    indexesBefore: c.indexesBefore,
    dataDir: opts.dataDir,
    memoryDir: opts.memoryDir,
    hooks: opts.hooks,
  });
  await supersedePending(opts.dataDir, opts.memoryDir, record.id);
  return applied;
}

/** Plans of this memory dir held back for confirmation are obsolete once another dream applied. */
async function supersedePending(dataDir: string, memoryDir: string, by: string): Promise<void> {
  for (const old of await listDreamRecords(dataDir, { memoryDir, limit: 50 })) {
    if (old.status !== 'needs-confirmation' || old.id === by) continue;
    await removePendingPlan(dataDir, old.id);
    const updated = { ...old, status: 'cancelled' as const, error: `Superseded by dream ${by}, which ran before it was confirmed.` };
    await saveDreamRecord(dataDir, { ...updated, report: formatReport(updated) });
  }
}
