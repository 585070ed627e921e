import path from 'node:path';
import { type CommandSpec, EXIT_OK, EXIT_PROBLEMS, homeOption, jsonOption, printJson } from '../command.js';
import { plural, table } from '../format.js';
import { homeFrom } from './scan.js';
import type { TurnOutcome } from '../../shared/contract/extract.js';
import { operationLabel } from '../../shared/operation-label.js';

/** One span of turns as `--json` prints it. */
function turnJson(outcome: TurnOutcome) {
  return {
    sessionId: outcome.sessionId,
    firstUuid: outcome.firstUuid,
    lastUuid: outcome.lastUuid,
    turns: outcome.turns,
    skipped: outcome.skipped,
    ...(outcome.reason ? { reason: outcome.reason } : {}),
    message: outcome.message,
    method: outcome.method,
    ...(outcome.skipped
      ? {}
      : {
          operations: outcome.operations.map((o) => ({
            action: o.operation.action,
            file: o.operation.file,
            scope: o.operation.scope,
            type: o.operation.type,
            name: o.operation.name,
            description: o.operation.description,
            disposition: o.disposition,
            reason: o.reason,
            warnings: o.warnings,
            proposalId: o.proposalId,
          })),
        }),
    ...(outcome.model ? { model: outcome.model } : {}),
  };
}

/** `memdir extract`: extractMemories over a project's transcripts, since the last extraction. */
export const extractCommand: CommandSpec = {
  name: ['extract'],
  summary: "Extract memories from a project's transcripts: the turns since the last extraction, written or queued for review.",
  args: [],
  interrupted: 'The turns done before it are kept (written or queued); the turns the model was deciding stay new: the next `memdir extract` takes them up.',
  options: {
    project: { type: 'string', valueName: 'PATH|DIR', description: 'project directory, or its directory name under projects/', required: true },
    home: homeOption,
    'dry-run': { type: 'boolean', description: 'decide and report, write nothing, remember nothing (the turns stay new)' },
    offline: { type: 'boolean', description: 'no model: only "remember this" statements, as suggestions' },
    json: jsonOption,
  },
  details: `JSON: {"project", "memoryDir", "mode": "apply"|"review", "dryRun",
  "turns": [{"sessionId", "firstUuid", "lastUuid", "turns" (how many the entry covers), "skipped": bool,
             "reason"? ("memory-written-by-agent"|"auto-memory-off"|"no-prompt"|"model-failed"|…), "message",
             "method": "model"|"offline"|null,
             "operations"?: [{"action", "file", "scope", "type", "name", "description",
                              "disposition": "applied"|"queued"|"refused"|"dry-run", "reason", "warnings", "proposalId"}],
             "model"?: {"provider", "model", "tokens", "costUsd", "latencyMs"}}],
  "transcripts": [{"path", "readOutcome", "reset", "pending", "resumed", "busy",
                   "unsaved" (null, or what was written and what could not be saved: the next run completes it)}]}
Each entry covers the turns from firstUuid to lastUuid of one session (usually one turn; a
backlog is sent to the model a few turns at a time). The mode is Memdir's setting extraction.mode (in
<data dir>/settings.json; the app's Settings → Extraction): "review" queues proposals for the app's review queue, "apply" writes them (history
source "extract"); an update that overlaps an edit made while the model answered is not written but
queued, with the reason. The first run on a project reads its whole history: try --dry-run first.
A turn in which the agent itself wrote into the memory directory is skipped (R-EXCLUSIVE);
nothing is written when Claude Code's autoMemoryEnabled is false (R-SETTINGS).
Exit codes: 0 done, also when there is no session to read yet (no transcripts: "turns" and "transcripts" empty), when
some turns were done and the model failed on others (those stay new: the next run takes them up; "reason":
"model-failed" names them), and when the memory was written but where extraction got to could not be saved
("unsaved" says so: the next run completes it without asking the model again); 1 nothing extracted: the model failed on every turn it was
asked about (they stay new); 2 usage or I/O error (unknown project); 130 Ctrl-C. A model that cannot be used at all
(a refused key, an answer that is no answer) does the turn by the offline path instead: done, "message" says why.`,
  async run({ values, io }) {
    // Loaded here, not at the top: `memdir hook` shares this process image and must start fast.
    const { resolveDataDir } = await import('../../main/core/index.js');
    const { locateProjectOption } = await import('../project-option.js');
    const { loadAppSettings } = await import('../../main/settings/index.js');
    const { resolveProvider } = await import('../../main/llm/index.js');
    const { listTranscriptsIn } = await import('../../main/transcripts/index.js');
    const { ExtractBusyError, ExtractPartlySavedError, extractTranscript, noSessionsToExtract } = await import('../../main/extract/index.js');

    const home = homeFrom(values, io);
    const dataDir = resolveDataDir(io.env);
    const location = await locateProjectOption(values, io);
    const { settings } = await loadAppSettings(dataDir);
    const dryRun = values['dry-run'] === true;
    // No session yet is nothing to extract, not bad input: done (0), and said so; no model is asked.
    if (location.transcriptDirs.length === 0) {
      if (values.json)
        printJson(io, { project: location.dir, memoryDir: location.memoryDir, mode: settings.extraction.mode, dryRun, turns: [], transcripts: [] });
      else io.out(`${noSessionsToExtract(location)}\n`);
      return EXIT_OK;
    }
    const provider = await resolveProvider(settings, io.env, { dataDir, offline: values.offline === true });
    const transcripts = (await listTranscriptsIn(location.transcriptDirs)).filter((t) => t.kind === 'session').sort((a, b) => a.mtimeMs - b.mtimeMs);
    const turns: ReturnType<typeof turnJson>[] = [];
    const files: { path: string; readOutcome: string; reset: string | null; pending: boolean; resumed: boolean; busy: boolean; unsaved: string | null }[] = [];
    for (const transcript of transcripts) {
      try {
        const result = await extractTranscript({
          home,
          dataDir,
          env: io.env,
          transcriptPath: transcript.path,
          provider,
          mode: settings.extraction.mode,
          trigger: 'cli',
          firstSeen: 'all',
          dryRun,
          timeoutMs: settings.model.timeoutMs,
        });
        turns.push(...result.outcomes.map(turnJson));
        files.push({
          path: transcript.path,
          readOutcome: result.readOutcome,
          reset: result.reset,
          pending: result.pending,
          resumed: result.resumed,
          busy: false,
          unsaved: null,
        });
      } catch (error) {
        // The memory was written, where extraction got to was not: done (the next run completes the record by itself), and said.
        if (error instanceof ExtractPartlySavedError) {
          turns.push(...error.outcomes.map(turnJson));
          files.push({ path: transcript.path, readOutcome: 'ok', reset: null, pending: false, resumed: false, busy: false, unsaved: error.message });
          continue;
        }
        if (!(error instanceof ExtractBusyError)) throw error;
        files.push({ path: transcript.path, readOutcome: 'ok', reset: null, pending: true, resumed: false, busy: true, unsaved: null });
      }
    }
    // Exit 1 when nothing could be extracted: the model failed on every turn it was asked about (they stay new).
    // Some turns done and others failed is done (0): the failed ones are taken up by the next run by themselves.
    const failed = turns.filter((t) => t.reason === 'model-failed').length;
    const nothingDone = failed > 0 && turns.every((t) => t.skipped);
    const code = nothingDone ? EXIT_PROBLEMS : EXIT_OK;
    if (values.json) {
      printJson(io, { project: location.dir, memoryDir: location.memoryDir, mode: settings.extraction.mode, dryRun, turns, transcripts: files });
      return code;
    }
    io.out(
      `Extraction in ${location.key} (${dryRun ? 'dry run, ' : ''}mode ${settings.extraction.mode}, ${provider.kind === 'offline' ? 'offline' : `model ${provider.modelFor('extract')}`})\n`,
    );
    if (turns.length === 0) io.out('\nNo new turns since the last extraction.\n');
    else {
      const rows = [['SESSION', 'TURNS', 'OUTCOME', 'DETAIL']];
      for (const t of turns) {
        const ops = t.operations ?? [];
        const outcome = t.skipped ? `skipped: ${t.reason}` : ops.length === 0 ? 'nothing' : ops.map((o) => o.disposition).join(', ');
        const detail = t.skipped
          ? (t.message ?? '')
          : ops.length
            ? ops.map((o) => `${operationLabel(o)}${o.reason ? ` (${o.reason})` : ''}`).join('; ')
            : (t.message ?? '');
        rows.push([(t.sessionId ?? '?').slice(0, 8), String(t.turns), outcome, detail.length > 120 ? `${detail.slice(0, 119)}…` : detail]);
      }
      io.out(`\n${table(rows)}`);
    }
    // Why the model was not used where it should have been (a refused key, an unusable answer): the table shows the suggestions made instead.
    if (provider.kind !== 'offline') {
      const fellBack = turns.filter((t) => !t.skipped && t.method === 'offline' && t.message);
      if (fellBack.length > 0) io.out(`\n${fellBack.map((t) => `${t.sessionId ?? '?'}: ${t.message}\n`).join('')}`);
    }
    // Why each operation was not written, whole (the table cuts a long detail): refused, or queued for a look in apply mode.
    const notWritten = turns.flatMap((t) => t.operations ?? []).filter((o) => (o.disposition === 'refused' || o.disposition === 'queued') && o.reason);
    if (notWritten.length > 0) io.out(`\n${notWritten.map((o) => `${operationLabel(o)}: ${o.reason}\n`).join('')}`);
    const queued = turns.flatMap((t) => t.operations ?? []).filter((o) => o.disposition === 'queued').length;
    if (queued > 0) io.out(`\n${plural(queued, 'proposal')} queued: review ${queued === 1 ? 'it' : 'them'} in the app (Review queue).\n`);
    for (const f of files) {
      if (f.busy) io.out(`note: ${path.basename(f.path)} is being extracted by another Memdir process; its turns are left to it.\n`);
      if (f.pending) io.out(`note: ${path.basename(f.path)} has turns left for a retry (the model failed in a way worth retrying).\n`);
      if (f.reset) io.out(`note: ${f.reset}\n`);
      if (f.unsaved) io.out(`note: ${f.unsaved}\n`);
    }
    if (nothingDone)
      io.out(
        `Nothing extracted: the model failed on every turn it was asked about (${plural(failed, 'entry', 'entries')} above). They stay new: run \`memdir extract\` again later.\n`,
      );
    return code;
  },
};
