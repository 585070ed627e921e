/**
 * `memdir dream …`: consolidate a project's memory from the command line (SPEC §5, issue 6).
 * Parse, call the dream service the app calls (src/main/dream/index.ts), format: the same gates,
 * shared lock, four phases, one history entry, record in Memdir's data dir, model and crash sweep
 * as the app's "Dream now" — without jobs: progress goes to stderr.
 */
import { type CliIo, type CommandSpec, EXIT_OK, EXIT_PROBLEMS, homeOption, jsonOption, printJson, wholeNumberOption } from '../command.js';
import { table } from '../format.js';
import { hearSignals } from '../interrupt.js';
import { homeFrom } from './scan.js';
import { resolveDataDir } from '../../main/core/index.js';
import { type DreamRunResult, DreamService } from '../../main/dream/index.js';
import type { ProjectLocation } from '../../main/memdir/index.js';
import { locateProjectOption, projectOption } from '../project-option.js';
import { type DreamRecord, dreamCouldNotRead } from '../../shared/contract/dream.js';

/** The dream service for one command: no jobs, no scheduler; its session count is fresh (a command line is one look). */
export function dreamsFor(io: CliIo, home: string): DreamService {
  return new DreamService({ home, dataDir: resolveDataDir(io.env), env: io.env });
}

/** The project `--project` names, and the home it is in. */
async function project(values: Record<string, unknown>, io: CliIo): Promise<{ home: string; loc: ProjectLocation }> {
  return { home: homeFrom(values, io), loc: await locateProjectOption(values, io) };
}

/** `memdir dream status`. */
export const dreamStatusCommand: CommandSpec = {
  name: ['dream', 'status'],
  summary: 'Show the dream gates of a project (time, sessions, lock) with their values, and whether it may dream now.',
  args: [],
  options: { project: projectOption, home: homeOption, json: jsonOption },
  details: `JSON: {"eligible": bool, "gates": [{"name": "time"|"sessions"|"lock", "checked", "passed", "value", "threshold", "detail"}],
  "lastConsolidatedAt" (ISO or null), "nextEligibleAt"?, "disabled": {"reason": "auto-memory-off"|"auto-dream-off", "detail"} or null,
  "lock": {"state": "absent"|"free"|"held"|"stale", "detail"}, "thresholds": {"minHours", "minSessions", "maxDeleteShare"},
  "recovered": {"id", "at", "detail"} or null,
  "claudeCode": {"wouldDream": bool, "reason", "version", "rule": "2.1.88"|"2.1.332",
                 "flag": {"enabled", "available", "minHours", "minSessions"} or null, "flagFile", "setting", "settingFrom",
                 "refusedBy": {"behavior": "deny"|"ask", "rule", "file"} or null,
                 "organizationMarks": [{"folder", "organization" (a UUID, or null for several)}]}}
"eligible" and "disabled" are about Memdir's own scheduler, which dreams only where autoDreamEnabled is
true (default off) and auto memory is on; \`memdir dream --force\` always works. Sessions are counted as
Claude Code counts them: UUID-named transcripts in the folder of the directory a session was launched in,
each launch folder on its own, and the one with the most is reported (a folder that cannot be read is
named and left out). "claudeCode" says separately whether Claude Code would dream the project by itself
(its cached server flag and the setting, by the rule of the version in the newest transcript; a deny or ask
rule that would refuse its memory writes, such as "Write" or "Edit(//path/to/memory/**)", stops it too;
"organizationMarks" names launch folders whose transcripts were written under an organization's own
sign-in, where it dreams only in a session signed in that way).
A dream killed before it finished is undone first (files it began to write put back, the lock rolled
back); while it is the project's last dream, "recovered" says so: "Recovered from an interrupted
dream at <when it started> …".
Gates are checked cheapest first and stop at the first that fails ("checked": false after it). The lock
is only looked at, never taken.
Exit codes: 0 eligible, 1 not eligible (a gate is closed or dreams are off), 2 usage or I/O error.`,
  async run({ values, io }) {
    const { home, loc } = await project(values, io);
    // A dream killed mid-apply is undone before anything is reported about it (issue 15): the service sweeps first.
    const status = await dreamsFor(io, home).gateStatus(loc);
    const report = status.gates;
    const out = {
      eligible: report.eligible,
      gates: report.gates.map((g) => ({ name: g.name, checked: g.checked, passed: g.passed, value: g.value, threshold: g.threshold, detail: g.detail })),
      lastConsolidatedAt: report.lastConsolidatedAt,
      ...(report.nextEligibleAt ? { nextEligibleAt: report.nextEligibleAt } : {}),
      disabled: report.disabled,
      lock: status.lock,
      thresholds: status.thresholds,
      recovered: status.recovered,
      claudeCode: status.claudeCode,
    };
    if (values.json) printJson(io, out);
    else {
      io.out(`Dream status of ${loc.key}\n`);
      if (out.recovered) io.out(`${out.recovered.detail}\n`);
      const rows = [['GATE', 'CHECKED', 'PASSED', 'VALUE', 'THRESHOLD']];
      // The time gate counts hours: say so, as the app's "24 h" does (a bare "24" read as 24 of anything).
      const unit = (g: { name: string }, n: string | number | null) => (n === null ? '—' : g.name === 'time' ? `${n} h` : String(n));
      for (const g of out.gates) rows.push([g.name, g.checked ? 'yes' : 'no', g.passed ? 'yes' : 'no', unit(g, g.value), unit(g, g.threshold)]);
      io.out(table(rows));
      for (const g of out.gates) io.out(`  ${g.name}: ${g.detail}\n`);
      if (out.disabled) io.out(`${out.disabled.detail}\n`);
      io.out(`last consolidated: ${out.lastConsolidatedAt ?? 'never'}\n`);
      if (out.nextEligibleAt) io.out(`next eligible: ${out.nextEligibleAt} (time gate)\n`);
      io.out(out.eligible ? 'Memdir may dream it now.\n' : out.disabled ? 'Memdir does not dream it on a schedule.\n' : 'Memdir may not dream it yet.\n');
      io.out(`Claude Code itself: ${out.claudeCode.wouldDream ? 'dreams it when its gates open' : 'does not dream it'}. ${out.claudeCode.reason}\n`);
    }
    return report.eligible ? 0 : 1;
  },
};

function changedOf(record: DreamRecord): { file: string; action: string; status: string; kind: string; reason: string }[] {
  return record.changes.map((c) => ({
    file: c.file,
    action: c.action,
    status: c.status,
    kind: c.kind,
    reason: c.status === 'skipped' ? (c.skippedReason ?? c.reason) : c.reason,
  }));
}

/** What `memdir dream --json` prints of a dream, and `memdir dream confirm --json` of the one it applied. */
function dreamJson(record: DreamRecord): Record<string, unknown> {
  return {
    id: record.status === 'dry-run' ? null : record.id,
    status: record.status,
    changed: changedOf(record),
    report: record.report,
    method: record.method,
    fallbackReason: record.fallbackReason,
    rev: record.rev,
    flags: record.flags,
    tokens: record.tokens,
    durationMs: record.durationMs,
    ...(record.error ? { error: record.error } : {}),
  };
}

/** `memdir dream`. */
export const dreamCommand: CommandSpec = {
  name: ['dream'],
  // Ctrl-C cancels the dream (its own rollback) / stops the server gracefully.
  ownInterrupt: true,
  summary: "Consolidate a project's memory now: Orient, Gather, Consolidate, Prune, applied as one history entry.",
  args: [],
  options: {
    project: projectOption,
    home: homeOption,
    force: { type: 'boolean', description: 'skip the time and session gates (never the lock), like "Dream now"' },
    offline: { type: 'boolean', description: 'do not ask a model: use the deterministic offline rules' },
    'dry-run': {
      type: 'boolean',
      description: 'show what the same command would change (closed gates stop it as they stop the dream); write nothing, take no lock',
    },
    'allow-deletes': { type: 'boolean', description: 'confirm removing more memories than the limit (settings dream.maxDeleteShare, default 25%)' },
    json: jsonOption,
  },
  details: `JSON: {"id", "status": "completed"|"no-changes"|"needs-confirmation"|"dry-run"|"cancelled"|"failed",
  "changed": [{"file", "action": "create"|"update"|"delete", "status": "applied"|"planned"|"skipped", "kind", "reason"}],
  "report" (text), "method": "model"|"rules", "fallbackReason", "rev" (history entry), "flags": [{"kind", "files", "message"}],
  "tokens": {"input", "output"}, "durationMs", "error"? (only when it failed)}
or, when the dream did not start: {"id": null, "status": "not-started", "reason", "gates": [...], "lastConsolidatedAt"}
(the gates as \`memdir dream status --json\` prints them: see \`memdir dream status --help\`).
With a model (ANTHROPIC_API_KEY, the key saved in Memdir's settings, or the Claude Code CLI, as the
app's "Dream now") Consolidate is a bounded tool-using loop; without one, or if it fails, deterministic
rules: duplicates merged, relative dates made absolute, stale facts and contradictions flagged. Undo with \`memdir dream revert <id>\`.
Ctrl-C before apply cancels the dream: nothing changed, the lock rolled back (it prints "cancelled" and exits 130,
as every command Ctrl-C stops); once apply has begun it is finished whole first, reported, then exit 130.
Exit codes: 0 done (completed, nothing to change, dry run), 1 not done: not started (gates closed, lock held),
held back for confirmation, the dream failed ("error" says why), or a memory (or MEMORY.md) could not be read
(a flag of kind "unreadable" names it; the dream left it as it is), 2 usage or I/O error, 130 Ctrl-C (143 SIGTERM).`,
  async run({ values, io }) {
    const { home, loc } = await project(values, io);
    let lastPhase = '';
    // Ctrl-C cancels the dream (the lock is rolled back): keep the process up to report it, then exit as every command stopped so.
    const signals = hearSignals('dream', io, {
      stopping: 'cancelling the dream where it safely can (changes already being applied are finished whole)',
      cutShort: 'A dream cut short while it applied is put back by the next `memdir dream` or `memdir dream status` (History keeps what it wrote).',
    });
    let result: DreamRunResult;
    try {
      result = await dreamsFor(io, home).run(loc, {
        trigger: 'cli',
        force: values.force === true,
        allowDeletes: values['allow-deletes'] === true,
        dryRun: values['dry-run'] === true,
        offline: values.offline === true,
        signal: signals.signal,
        onProgress: (p) => {
          if (values.json || p.phase === lastPhase) return;
          lastPhase = p.phase;
          io.err(`${p.phase}…\n`);
        },
      });
    } finally {
      signals.dispose();
    }
    const { record } = result;
    if (!record) {
      // Ctrl-C before the dream began (its gates, its lock): nothing was changed, and it exits as every command stopped so.
      const stoppedEarly = signals.stopped('The dream had not begun: nothing was changed.');
      if (stoppedEarly !== null) return stoppedEarly;
      if (values.json)
        printJson(io, {
          id: null,
          status: 'not-started',
          reason: result.reason,
          gates: result.gates.gates,
          lastConsolidatedAt: result.gates.lastConsolidatedAt,
        });
      else {
        io.out(`Not started: ${result.reason ?? 'the gates are closed'}\n`);
        // The gates a person can overrule here (the app's Dream now); a dream already running is not one.
        const lockHeld = result.gates.gates.some((g) => g.name === 'lock' && g.checked && !g.passed);
        if (!values.force && !lockHeld) io.out('Run it again with --force to dream now anyway.\n');
      }
      return 1;
    }
    if (values.json) printJson(io, dreamJson(record));
    else {
      io.out(`${record.report}\n`);
      if (record.rev) io.out(`\nUndo with: memdir dream revert ${record.id}\n`);
      if (record.status === 'needs-confirmation') io.out(`\nApply it anyway with: memdir dream confirm ${record.id}\n`);
    }
    const stopped = signals.stopped(
      record.status === 'cancelled'
        ? 'The dream was cancelled before it changed anything: its lock is rolled back.'
        : `The dream had begun to apply its changes: it finished them whole first (${record.status}).`,
    );
    if (stopped !== null) return stopped;
    // A memory it could not read is not all done (1): the report names it ("unreadable" in flags).
    const ran = record.status === 'completed' || record.status === 'no-changes' || record.status === 'dry-run';
    return ran && dreamCouldNotRead(record).length === 0 ? EXIT_OK : EXIT_PROBLEMS;
  },
};

/** `memdir dream revert <id>`. */
export const dreamRevertCommand: CommandSpec = {
  name: ['dream', 'revert'],
  summary:
    'Undo a dream through the one undo (as `memdir undo` of its entry): its files go back, MEMORY.md keeps the lines added since (as a new history entry).',
  args: ['<id>'],
  options: {
    'overwrite-changed': { type: 'boolean', description: 'also put back files changed since the dream (their later content stays in history)' },
    json: jsonOption,
  },
  details: `<id> is the id \`memdir dream\` printed (also in \`memdir dream list\`); ids are unique in Memdir's data
directory and each names its memory directory, so no --project is needed.
The revert is the dream's history entry undone, as \`memdir undo\` would: the memories it merged away or deleted
come back with their MEMORY.md pointers (at their old place when they still reach the agent there), and the
index lines added since the dream (Claude Code's pointers too) stay.
JSON: {"id", "restored": [file…], "notes": [sentence: where a pointer is back], "warnings": [{"file", "message"}], "rev" (the revert's history entry) }
A memory file changed since the dream stops the revert, nothing written, and is listed in "warnings" with the
change that touched it; --overwrite-changed reverts anyway (the later version stays in history).
A dream already reverted (by this command, \`memdir undo\` or History's Undo of its entry) is refused (exit 2), naming
the entry to undo to bring its changes back.
Exit codes: 0 reverted (or nothing left to revert), 1 not reverted (files changed since; nothing written), 2 usage or I/O error (unknown id, already reverted).`,
  async run({ positionals, values, io }) {
    const id = positionals[0]!;
    const { revert } = await dreamsFor(io, homeFrom(values, io)).revert(id, values['overwrite-changed'] === true);
    const notes = revert.notes ?? [];
    if (values.json) printJson(io, { id, restored: revert.restored, notes, warnings: revert.warnings, rev: revert.rev });
    else {
      io.out(revert.restored.length > 0 ? `Reverted dream ${id}: ${revert.restored.join(', ')} put back.\n` : `Nothing reverted for dream ${id}.\n`);
      for (const note of notes) io.out(`${note}\n`);
      for (const w of revert.warnings) io.out(`warning: ${w.message}\n`);
      if (revert.warnings.length > 0 && !values['overwrite-changed'])
        io.out('Run it again with --overwrite-changed to revert those files anyway (what is there now stays in history).\n');
    }
    return revert.warnings.length > 0 && !values['overwrite-changed'] ? 1 : 0;
  },
};

/** `memdir dream confirm <id>`. */
export const dreamConfirmCommand: CommandSpec = {
  name: ['dream', 'confirm'],
  summary: 'Apply a dream that was held back because it removes more memories than the limit allows.',
  args: ['<id>'],
  options: { json: jsonOption },
  details: `Applies exactly the changes the held-back dream showed; files changed since are left alone.
JSON: the same as \`memdir dream --json\`. Exit codes: 0 applied, 1 not applied (it failed, or a newer dream ran first),
2 usage or I/O error (unknown id, not held back, lock held).`,
  async run({ positionals, io, values }) {
    const record = await dreamsFor(io, homeFrom(values, io)).confirmNow(positionals[0]!);
    if (values.json) printJson(io, dreamJson(record));
    else io.out(`${record.report}\n`);
    return record.status === 'completed' || record.status === 'no-changes' ? EXIT_OK : EXIT_PROBLEMS;
  },
};

/** `memdir dream list`. */
export const dreamListCommand: CommandSpec = {
  name: ['dream', 'list'],
  summary: 'List the dreams of a project, newest first: when, trigger, outcome, files changed.',
  args: [],
  options: {
    project: projectOption,
    home: homeOption,
    limit: { type: 'string', valueName: 'N', description: 'at most N dreams (default 20)' },
    json: jsonOption,
  },
  details: `JSON: {"memoryDir", "dreams": [<record>: {"id", "memoryDir", "dir", "trigger": "manual"|"scheduled"|"cli", "status",
  "method", "model", "fallbackReason", "startedAt", "endedAt", "durationMs", "since", "tokens": {"input", "output"}, "costUsd",
  "changes": [{"file", "action", "kind", "reason", "group", "status", "skippedReason"}], "flags": [{"kind", "files", "message"}],
  "deletions": {"count", "total", "limit"}, "rev", "report", "error",
  "revert": {"at", "rev", "restored", "notes", "warnings": [{"file", "message"}]} or null, "redone"?, "pid"}]}. "revert" is set however the dream's
entry was undone (\`memdir dream revert\`, \`memdir undo\`, History's Undo); undoing the revert's entry sets it null again
and "redone" to {"at", "rev"} (that entry). Exit codes: 0, or 2 on a usage or I/O error.`,
  async run({ values, io }) {
    const { home, loc } = await project(values, io);
    const limit = wholeNumberOption(values, 'limit', { min: 1, max: 100_000 }, 20)!;
    const dreams = await dreamsFor(io, home).list(loc, limit);
    if (values.json) {
      printJson(io, { memoryDir: loc.memoryDir, dreams });
      return 0;
    }
    if (dreams.length === 0) {
      io.out('No dreams yet.\n');
      return 0;
    }
    const rows = [['ID', 'WHEN', 'TRIGGER', 'STATUS', 'METHOD', 'FILES', 'TOKENS']];
    for (const d of dreams) {
      rows.push([
        d.id,
        d.startedAt.replace('T', ' ').slice(0, 16),
        d.trigger,
        d.revert ? `${d.status}, reverted` : d.status,
        d.method ?? '—',
        String(d.changes.filter((c) => c.status === 'applied').length),
        String(d.tokens.input + d.tokens.output),
      ]);
    }
    io.out(table(rows));
    return 0;
  },
};
