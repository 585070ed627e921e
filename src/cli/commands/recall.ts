import fs from 'node:fs';
import path from 'node:path';
import { type CommandSpec, CliFailure, UsageError, homeOption, jsonOption, printJson } from '../command.js';
import { table } from '../format.js';
import { resolveDataDir } from '../../main/data-dir.js';
import { projectsRoot } from '../../main/memdir/home.js';
import { ProjectNotFoundError } from '../../main/memdir/projects.js';
import { type ProjectRecallResult, RecallService } from '../../main/recall/recall-service.js';
import { homeFrom } from './scan.js';

/**
 * `--project` is a directory name under `projects/` when one exists by that name, else a path
 * relative to the caller's directory (the CLI's cwd may differ from the process's in tests).
 */
function projectTarget(target: string, home: string, cwd: string): string {
  if (!/[/\\]/.test(target) && !target.startsWith('.') && !target.startsWith('~') && fs.existsSync(path.join(projectsRoot(home), target))) return target;
  return target.startsWith('~') ? target : path.resolve(cwd, target);
}

function describeModelCall(result: ProjectRecallResult): string {
  const parts: string[] = [];
  if (result.model) parts.push(result.model);
  if (result.tokens) parts.push(`${result.tokens.inputTokens.toLocaleString('en')} in / ${result.tokens.outputTokens.toLocaleString('en')} out tokens`);
  if (typeof result.costUsd === 'number') parts.push(`~$${result.costUsd.toFixed(4)} (estimate)`);
  return parts.join(', ');
}

/** `memdir recall`: which memories a query would load, chosen by the model or the local ranker. */
export const recallCommand: CommandSpec = {
  name: ['recall'],
  summary: 'Show which memories (at most 5) a query would load: chosen by a model side query, or by the local ranker.',
  args: [],
  options: {
    project: { type: 'string', valueName: 'PATH|DIR', description: 'project directory, or its directory name under projects/ (required)' },
    query: { type: 'string', valueName: 'TEXT', description: 'what the agent is about to work on (required)' },
    home: homeOption,
    offline: { type: 'boolean', description: 'do not ask a model: use the local ranker' },
    json: jsonOption,
  },
  details: `JSON: {"method": "model"|"local", "selected": [{"file", "reason"?, "score"?}], "fallbackReason"?,
  "latencyMs", "tokens"?: {"inputTokens", "outputTokens", "cacheReadTokens", "cacheCreationTokens"},
  "costUsd"? (estimate), "model"?, "provider", "dropped": [{"file", "reason"}], "notes": [..],
  "alwaysLoaded": {"loaded": [file…], "cut": [file…], …} or null,
  "manifest": {"memories", "sent", "chars", "prefiltered"}, "query": {"chars", "usedChars", "truncated"},
  "project": {"key", "dir", "memoryDir"}}
The model is the Anthropic API when a key is set (ANTHROPIC_API_KEY or Memdir's settings;
ANTHROPIC_BASE_URL is honoured), else the Claude Code CLI when installed, else none. When the
model is unreachable or answers badly, the local ranker chooses and "fallbackReason" says why.
Exit codes: 0 done (whichever method chose), 2 usage or I/O error (unknown project, no --query).`,
  async run({ values, io }) {
    if (typeof values.project !== 'string' || values.project.trim() === '') throw new UsageError('--project is required: a project directory or its name under projects/');
    if (typeof values.query !== 'string') throw new UsageError('--query is required');
    if (values.query.trim() === '') throw new UsageError('--query is empty: give the words to look for');
    const home = homeFrom(values, io);
    const service = new RecallService({ home, env: io.env, dataDir: resolveDataDir(io.env) });
    let result: ProjectRecallResult;
    try {
      result = await service.recall({ project: projectTarget(values.project, home, io.cwd), query: values.query, offline: values.offline === true });
    } catch (error) {
      if (error instanceof ProjectNotFoundError) throw new CliFailure(error.message);
      throw error;
    }
    result = { ...result, latencyMs: Math.round(result.latencyMs) };
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
    if (index?.exists) io.out(`always loaded: MEMORY.md, ${index.loaded.length} pointer(s)${index.cut.length ? `, ${index.cut.length} cut past the limit (${index.cut.slice(0, 3).join(', ')}${index.cut.length > 3 ? ', …' : ''})` : ''}\n`);
    return 0;
  },
};
