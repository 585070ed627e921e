import path from 'node:path';
import { type CliIo, type CommandSpec, UsageError, homeOption, jsonOption, printJson } from '../command.js';
import { checkContractLimits } from '../contract-limits.js';
import { table } from '../format.js';
import { resolveDataDir } from '../../main/core/index.js';
import { projectTarget } from '../project-option.js';
import { type ClaudeCodeRecallResult, type ProjectRecallResult, RecallService } from '../../main/recall/index.js';
import { homeFrom } from './scan.js';
import { cutFactsText } from '../../shared/index-cut.js';

function describeModelCall(result: Pick<ProjectRecallResult, 'model' | 'tokens' | 'costUsd'>): string {
  const parts: string[] = [];
  if (result.model) parts.push(result.model);
  if (result.tokens) parts.push(`${result.tokens.inputTokens.toLocaleString('en')} in / ${result.tokens.outputTokens.toLocaleString('en')} out tokens`);
  if (typeof result.costUsd === 'number') parts.push(`~$${result.costUsd.toFixed(4)} (estimate)`);
  return parts.join(', ');
}

/** `memdir recall`: which memories a query would load, chosen by the model or the local ranker. */
export const recallCommand: CommandSpec = {
  name: ['recall'],
  summary:
    "Show which memories (at most 5) a query would load: exactly as Claude Code would (--claude-code), or Memdir's explained way (a model side query, or the local ranker).",
  args: [],
  interrupted: 'The recall was not made (a recall writes nothing).',
  options: {
    project: { type: 'string', valueName: 'PATH|DIR', description: 'project directory, or its directory name under projects/', required: true },
    query: { type: 'string', valueName: 'TEXT', description: 'what the agent is about to work on', required: true },
    home: homeOption,
    'claude-code': {
      type: 'boolean',
      description: 'recall exactly as Claude Code would: its scan, 200-newest cap, request and answer rules (no local ranker)',
    },
    session: {
      type: 'string',
      valueName: 'ID|FILE',
      description: 'with --claude-code: continue this Claude Code session (its id, or its transcript .jsonl): what it already loaded is not loaded again',
    },
    offline: { type: 'boolean', description: 'do not ask a model: the local ranker chooses (with --claude-code: show the request, send nothing)' },
    json: jsonOption,
  },
  details: `JSON: {"method": "model"|"local", "selected": [{"file", "reason"?, "score"?}], "fallbackReason"?,
  "latencyMs", "tokens"?: {"inputTokens", "outputTokens", "cacheReadTokens", "cacheCreationTokens"},
  "costUsd"? (estimate), "model"?, "provider", "dropped": [{"file", "reason"}], "notes": [..],
  "alwaysLoaded": {"loaded": [file…], "cut": [file…], "cutMemories": [file…], "cutMissing": [file…], …} or null,
  "manifest": {"memories", "sent", "chars", "prefiltered"}, "query": {"chars", "usedChars", "truncated"},
  "project": {"key", "dir", "memoryDir"}, "modelError"? (the failed call behind a fallback):
  {"kind": "timeout"|"auth"|"rate-limited"|"server"|"network"|"bad-response"|"bad-answer"|…, "message", "latencyMs"},
  "explanation"? (why each memory was or was not chosen, as the app shows it)}
The model is the Anthropic API when a key is set (ANTHROPIC_API_KEY or Memdir's settings;
ANTHROPIC_BASE_URL is honoured), else the Claude Code CLI when installed, else none. When the
model is unreachable or answers badly, the local ranker chooses and "fallbackReason" says why.
With --claude-code, JSON: {"mode": "claude-code", "claudeCodeVersion", "outcome": "selected"|"nothing"|"failed"|"skipped"|"not-sent",
  "reason"?, "selected": [{"file"}], "dropped": [{"file", "reason"}], "request": {model, max_tokens, system, messages,
  output_config, thinking?} or null, "answer", "manifest": {"candidates", "offered", "chars", "builtAt"},
  "neverRecalled": {"count", "files": [{"file", "mtime"}], "cutoff", "remedies": [..]},
  "session": {"id", "turns", "surfaced": [file…], "surfacedChars", "transcript"},
  "claudeCodeSwitch": {"state": "on"|"off"|"unknown", "reason"}, "notes", "latencyMs", "tokens"?, "costUsd"?,
  "model", "provider", "project"}
In Claude Code's memory-store mode (CLAUDE_MEMORY_STORES, from the environment or a settings env block) the
list offered is the client's for that mode: every MEMORY.md but the root one, team store folders at any depth,
a line of text for a file without a description.
It needs the Anthropic API (a key): the Claude Code CLI provider cannot send Claude Code's exact request.
Exit codes: 0 done (whichever method chose, or whatever Claude Code would load), 2 usage or I/O error
(unknown project or session, no --query).`,
  async run({ values, io }) {
    if (typeof values.project !== 'string' || values.project.trim() === '')
      throw new UsageError('--project is required: a project directory or its name under projects/');
    if (typeof values.query !== 'string') throw new UsageError('--query is required');
    if (values.query.trim() === '') throw new UsageError('--query is empty: give the words to look for');
    if (values.session !== undefined && values['claude-code'] !== true) throw new UsageError('--session goes with --claude-code');
    if (typeof values.session === 'string' && values.session.trim() === '') throw new UsageError('--session is empty: give a session id or a transcript file');
    checkContractLimits('recall.run', { query: values.query });
    const home = homeFrom(values, io);
    const service = new RecallService({ home, env: io.env, dataDir: resolveDataDir(io.env) });
    const project = projectTarget(values.project, home, io.cwd);
    if (values['claude-code'] === true) {
      // A transcript file is relative to the caller's directory; a bare session id is looked up in the home.
      const given = typeof values.session === 'string' ? values.session : undefined;
      const transcript = given && /[\\/]|\.jsonl$/.test(given) ? path.resolve(io.cwd, given) : given;
      let cc: ClaudeCodeRecallResult = await service.claudeCode({
        project,
        query: values.query,
        offline: values.offline === true,
        ...(transcript ? { transcript } : {}),
      });
      cc = { ...cc, latencyMs: Math.round(cc.latencyMs) };
      if (values.json) printJson(io, cc);
      else printClaudeCode(io, cc);
      return 0;
    }
    let result: ProjectRecallResult = await service.recall({ project, query: values.query, offline: values.offline === true });
    result = {
      ...result,
      latencyMs: Math.round(result.latencyMs),
      ...(result.modelError ? { modelError: { ...result.modelError, latencyMs: Math.round(result.modelError.latencyMs) } } : {}),
    };
    if (values.json) {
      printJson(io, result);
      return 0;
    }
    io.out(`Recall in ${result.project.key}\n`);
    const seconds = `${(result.latencyMs / 1000).toFixed(2)} s`;
    const call = describeModelCall(result);
    io.out(`method: ${result.method === 'model' ? `model (${[call, seconds].filter(Boolean).join(', ')})` : `local ranker (${seconds})`}\n`);
    if (result.fallbackReason) io.out(`fallback: ${result.fallbackReason}${result.method === 'local' && call ? ` [model call: ${call}]` : ''}\n`);
    if (result.selected.length === 0) io.out('\nNo memory selected.\n');
    else {
      const rows = [['#', 'FILE', result.method === 'model' ? 'REASON' : 'SCORE']];
      result.selected.forEach((s, i) => rows.push([String(i + 1), s.file, s.reason ?? (s.score !== undefined ? s.score.toFixed(2) : '')]));
      io.out(`\n${table(rows)}`);
    }
    for (const note of result.notes) io.out(`note: ${note}\n`);
    const index = result.alwaysLoaded;
    if (index?.exists)
      io.out(
        `always loaded: MEMORY.md, ${index.loaded.length} pointer(s)${index.cut.length ? `; ${cutFactsText(index, { names: 3 }) || `${index.cut.length} pointer(s) below the cut`}` : ''}\n`,
      );
    return 0;
  },
};

const shown = (files: readonly string[], max = 5): string => `${files.slice(0, max).join(', ')}${files.length > max ? `, … (${files.length - max} more)` : ''}`;

/** The human form of a Claude Code recall: what it would load, why, and what it can never reach. */
function printClaudeCode(io: CliIo, result: ClaudeCodeRecallResult): void {
  io.out(`Recall in ${result.project.key}, as Claude Code ${result.claudeCodeVersion} would\n`);
  io.out(`Claude Code's recall: ${result.claudeCodeSwitch.state} (${result.claudeCodeSwitch.reason})\n`);
  const call = describeModelCall(result);
  io.out(
    `outcome: ${result.outcome}${result.request && result.outcome !== 'not-sent' ? ` (${[call, `${(result.latencyMs / 1000).toFixed(2)} s`].filter(Boolean).join(', ')})` : ''}\n`,
  );
  if (result.reason) io.out(`${result.reason}\n`);
  if (result.selected.length > 0) {
    const rows = [['#', 'FILE']];
    result.selected.forEach((s, i) => rows.push([String(i + 1), s.file]));
    io.out(`\n${table(rows)}`);
  } else io.out('\nNo memory loaded.\n');
  for (const d of result.dropped) io.out(`not loaded: ${d.file} (${d.reason})\n`);
  if (result.session.surfaced.length > 0) io.out(`already loaded in this session: ${shown(result.session.surfaced)}\n`);
  io.out(`manifest: ${result.manifest.offered} of ${result.manifest.candidates} topic file(s) offered, newest first\n`);
  const never = result.neverRecalled;
  if (never.count > 0) {
    io.out(
      `never recalled today: ${never.count} memor${never.count === 1 ? 'y' : 'ies'} older than ${never.cutoff} (past the ${result.manifest.offered} newest): ${shown(never.files.map((f) => f.file))}\n`,
    );
    for (const remedy of never.remedies) io.out(`  - ${remedy}\n`);
  }
  for (const note of result.notes) io.out(`note: ${note}\n`);
}
