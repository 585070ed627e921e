/**
 * R-DREAM-PHASES, Consolidate with a model: a bounded tool-using loop. The model sees the
 * manifest, the index and what Gather found; its tools can only
 *   - list and read memory files (the staged state, so it sees its own edits),
 *   - grep the project's transcripts (a regex over the stream, at most 50 lines back),
 *   - propose writing or deleting a memory file inside the memory dir,
 *   - finish.
 * Nothing touches the disk: proposals go into the plan after proposal-check.ts accepts them; a
 * refused one goes back to the model as an error it can correct, and into the report.
 *
 * Bounds (settings `dream`): model calls, tool calls, total tokens. Hitting one ends the loop and
 * keeps what was proposed so far, said in the report. A model failure (offline, timeout, bad
 * answers) is thrown as the LlmError for run-dream.ts to fall back to the offline rules.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { DreamFlag } from '../../../shared/contract/dream.js';
import { INDEX_FILE, TEAM_DIR } from '../../../shared/limits.js';
import { TYPE_DESCRIPTIONS } from '../../../shared/memory-types.js';
import { formTwin, parseTopicFile, takenNameRefusal, takenSentence } from '../../memdir/index.js';
import type { AnswerBlock, ModelProvider } from '../../llm/index.js';
import { grepTranscript, listTranscriptsIn } from '../../transcripts/index.js';
import type { DreamPlan } from '../plan/dream-plan.js';
import type { GatherResult } from '../plan/gather.js';
import { maskSecretsIn } from '../../secrets/index.js';
import { type KnownSecrets, checkMergedInto, checkProposedContent, checkProposedDelete, checkProposedPath, findNewSecrets } from './proposal-check.js';
import { isoDay } from '../../../shared/day-dates.js';

/** Bounds of the loop. */
export interface ModelLoopLimits {
  maxTurns: number;
  maxToolCalls: number;
  maxTokens: number;
  /** Output tokens per call. */
  callMaxTokens?: number;
  /** Wall-clock budget of one call. */
  callTimeoutMs?: number;
}

/** What the loop did. */
export interface ModelLoopResult {
  model: string;
  summary: string;
  turns: number;
  toolCalls: number;
  tokens: { input: number; output: number };
  costUsd: number | null;
  /** Proposals refused, and bounds hit. */
  flags: DreamFlag[];
  /** Merged-away → kept, from deletions that named `merged_into`. */
  retarget: Map<string, string>;
}

/** Options of {@link consolidateWithModel}. */
export interface ModelLoopOptions {
  provider: ModelProvider;
  plan: DreamPlan;
  gathered: GatherResult;
  projectDir: string;
  /** The project's transcript folders (R-LAYOUT); default `[projectDir]`. */
  transcriptDirs?: readonly string[];
  /** `lastConsolidatedAt` before this dream (ms), null: never. */
  sinceMs: number | null;
  limits: ModelLoopLimits;
  known: KnownSecrets;
  now: Date;
  signal?: AbortSignal;
  onStep?: (step: string, tokens: number) => void;
}

const TOOLS: Anthropic.Tool[] = [
  {
    name: 'list_memories',
    description: 'List the memory files as they stand now (including your proposed edits): file, scope, type, name, description.',
    input_schema: { type: 'object', properties: {} },
  },
  {
    name: 'read_memory',
    description: 'Read one memory file (frontmatter and body). Paths are relative to the memory directory; team memories are under team/.',
    input_schema: { type: 'object', properties: { file: { type: 'string' } }, required: ['file'] },
  },
  {
    name: 'grep_transcripts',
    description:
      "Search the project's session transcripts with a JavaScript regular expression (matched against each line's raw JSON). Returns up to `limit` lines (default 20, at most 50): time, session and message text. By default only transcripts written since the last dream.",
    input_schema: {
      type: 'object',
      properties: { pattern: { type: 'string' }, ignore_case: { type: 'boolean' }, limit: { type: 'integer' }, all_transcripts: { type: 'boolean' } },
      required: ['pattern'],
    },
  },
  {
    name: 'write_memory',
    description:
      'Propose creating or replacing a memory file with this full content (YAML frontmatter with name, one-line description, type; then the body). Nothing is written until the dream is applied; the proposal is checked (path, type, scope, secrets).',
    input_schema: {
      type: 'object',
      properties: { file: { type: 'string' }, content: { type: 'string' }, reason: { type: 'string' } },
      required: ['file', 'content', 'reason'],
    },
  },
  {
    name: 'delete_memory',
    description: 'Propose deleting a memory file, e.g. a duplicate merged into another (name it in merged_into). Team memories cannot be deleted.',
    input_schema: {
      type: 'object',
      properties: { file: { type: 'string' }, reason: { type: 'string' }, merged_into: { type: 'string' } },
      required: ['file', 'reason'],
    },
  },
  {
    name: 'finish',
    description: 'End the dream with a short summary of what you changed and what the user should look at.',
    input_schema: { type: 'object', properties: { summary: { type: 'string' } }, required: ['summary'] },
  },
];

function systemPrompt(now: Date, maxDeletesNote: string): string {
  return [
    'You are consolidating a coding agent\'s long-term memory (a "dream"): a directory of markdown topic files with YAML frontmatter, indexed by MEMORY.md.',
    `Today is ${isoDay(now)}.`,
    'Do, in this order of importance:',
    '1. Merge new valuable signal from the transcripts into existing topic files (or a new one when nothing fits).',
    '2. Fix facts that went stale; resolve contradictions when the transcripts say which holds, else leave both and say so in your summary.',
    '3. Merge duplicate memories into one, keeping what each said and naming both sources in the body; then delete the duplicate with merged_into.',
    '4. Turn relative dates ("yesterday", "next Friday", "昨天", "下周五") into absolute dates (YYYY-MM-DD), anchored at when the text was written (grep the transcripts for the sentence to find its timestamp).',
    'Memory types: ' +
      Object.entries(TYPE_DESCRIPTIONS)
        .map(([t, d]) => `${t} — ${d}`)
        .join(' '),
    'Never save what can be derived from the project itself (code patterns, architecture, file paths, git history, debugging recipes, ephemeral task state).',
    `Rules: write only topic files at the top of the memory directory or in ${TEAM_DIR}/; never edit ${INDEX_FILE} (it is rebuilt after you finish); a "user" memory is never a team memory; never write credentials or secrets; ${maxDeletesNote}`,
    'Read a file before you replace it. Keep each memory short; write in the language the memory is written in. Call finish when done.',
  ].join('\n');
}

function manifest(plan: DreamPlan): string {
  const rows: string[] = [];
  for (const scope of ['private', 'team'] as const) {
    for (const rel of plan.topicRels(scope)) {
      const text = plan.text(rel);
      if (text === null) {
        rows.push(`- ${rel} (unreadable: left alone)`);
        continue;
      }
      const t = parseTopicFile(text, rel);
      rows.push(`- ${rel} [${scope}, ${t.meta.type ?? 'no type'}] ${t.meta.name}: ${t.meta.description}`);
    }
  }
  return rows.length > 0 ? rows.join('\n') : '(no memories yet)';
}

function firstMessage(opts: ModelLoopOptions): string {
  const index = opts.plan.text(INDEX_FILE);
  const signals = opts.gathered.signals
    .slice(0, 60)
    .map((s) => `- [${s.categories.join(', ')}] ${s.time ?? '?'} ${s.role} (session ${s.sessionId}): ${s.text}`);
  return [
    `Last dream: ${opts.sinceMs === null ? 'never' : new Date(opts.sinceMs).toISOString()}. Transcripts written since: ${opts.gathered.transcripts.length}.`,
    '',
    'Memory files:',
    manifest(opts.plan),
    '',
    `${INDEX_FILE}:`,
    index === null ? '(none)' : index.length > 8000 ? `${index.slice(0, 8000)}\n…(${index.length - 8000} more characters)` : index,
    '',
    'Signal found in the transcripts since the last dream (corrections, decisions, preferences, references, dates):',
    signals.length > 0 ? signals.join('\n') : '(none)',
  ].join('\n');
}

/** A model-written regex that could take exponential time is refused. */
function compilePattern(pattern: unknown, ignoreCase: unknown): RegExp | string {
  if (typeof pattern !== 'string' || pattern === '') return 'pattern must be a non-empty string';
  if (pattern.length > 200) return 'pattern is too long (at most 200 characters)';
  if (/\((?:[^()\\]|\\.)*[+*}](?:[^()\\]|\\.)*\)\s*[+*{]/.test(pattern)) return 'nested quantifiers are not allowed (they can take exponential time)';
  try {
    return new RegExp(pattern, ignoreCase === true ? 'i' : '');
  } catch (error) {
    return `not a valid regular expression: ${(error as Error).message}`;
  }
}

function messageText(line: string): { text: string; session: string | null } | null {
  try {
    const value = JSON.parse(line) as { type?: string; sessionId?: string; message?: { content?: unknown } };
    if (value.type !== 'user' && value.type !== 'assistant') return null;
    const content = value.message?.content;
    const text =
      typeof content === 'string'
        ? content
        : Array.isArray(content)
          ? content
              .map((b: { type?: string; text?: string; content?: unknown }) =>
                b.type === 'text' ? (b.text ?? '') : b.type === 'tool_result' && typeof b.content === 'string' ? b.content : '',
              )
              .join('\n')
          : '';
    return { text, session: value.sessionId ?? null };
  } catch {
    return null;
  }
}

async function grepTool(input: Record<string, unknown>, opts: ModelLoopOptions): Promise<string> {
  const re = compilePattern(input.pattern, input.ignore_case);
  if (typeof re === 'string') throw new ToolError(re);
  const limit = Math.max(1, Math.min(50, typeof input.limit === 'number' ? Math.floor(input.limit) : 20));
  const files =
    input.all_transcripts === true
      ? (await listTranscriptsIn(opts.transcriptDirs ?? [opts.projectDir])).filter((t) => t.kind === 'session').map((t) => t.path)
      : opts.gathered.transcripts.map((t) => t.path);
  const out: string[] = [];
  for (const file of files) {
    for await (const match of grepTranscript(file, [re], { signal: opts.signal, final: true })) {
      const decoded = messageText(match.line);
      const text = (decoded?.text ?? match.excerpt).replace(/\s+/g, ' ');
      const at = text.search(re);
      const start = Math.max(0, at - 200);
      out.push(`${match.timestamp ?? '?'} session ${decoded?.session ?? '?'}: ${start > 0 ? '…' : ''}${text.slice(start, start + 400)}`);
      if (out.length >= limit) break;
    }
    if (out.length >= limit) break;
  }
  return out.length > 0 ? out.join('\n') : `No line matches ${String(input.pattern)} in ${files.length} transcript(s).`;
}

/** A tool call the loop answers with an error result. */
class ToolError extends Error {}

function toParam(blocks: AnswerBlock[]): Anthropic.ContentBlockParam[] {
  const out: Anthropic.ContentBlockParam[] = [];
  for (const b of blocks) {
    if (b.type === 'text' && b.text) out.push({ type: 'text', text: b.text });
    else if (b.type === 'tool_use') out.push({ type: 'tool_use', id: b.id, name: b.name, input: b.input ?? {} });
  }
  return out;
}

/** Runs the loop (see the file comment); stages accepted proposals in `opts.plan`. */
export async function consolidateWithModel(opts: ModelLoopOptions): Promise<ModelLoopResult> {
  const { plan, limits } = opts;
  const result: ModelLoopResult = {
    model: opts.provider.modelFor('dream'),
    summary: '',
    turns: 0,
    toolCalls: 0,
    tokens: { input: 0, output: 0 },
    costUsd: null,
    flags: [],
    retarget: new Map(),
  };
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: firstMessage(opts) }];
  const system = systemPrompt(opts.now, 'deleting more than a few memories needs the user’s confirmation, so delete only true duplicates.');
  let finished = false;
  const refuse = (reason: string) => {
    result.flags.push({ kind: 'refused', files: [], message: `The model proposed something that was refused: ${reason}` });
    throw new ToolError(reason);
  };

  const run = async (name: string, input: Record<string, unknown>): Promise<string> => {
    switch (name) {
      case 'list_memories':
        return manifest(plan);
      case 'read_memory': {
        const path = checkProposedPath(input.file, plan.snapshot, 'read');
        if (!path.ok) throw new ToolError(path.reason);
        const text = plan.text(path.rel);
        if (text === null) throw new ToolError(`There is no memory ${path.rel}.`);
        return text;
      }
      case 'grep_transcripts':
        return grepTool(input, opts);
      case 'write_memory': {
        const path = checkProposedPath(input.file, plan.snapshot);
        if (!path.ok) return refuse(path.reason);
        const content = checkProposedContent(path.rel, path.scope, input.content);
        if (!content.ok) return refuse(content.reason);
        const secrets = await findNewSecrets(path.rel, input.content as string, opts.known);
        if (secrets.length > 0)
          return refuse(
            `Refused ${path.rel}: it would write a secret into memory (${secrets.join('; ')}). Leave credentials out; point to where they are kept instead.`,
          );
        const existed = plan.exists(path.rel);
        // A new name that is an existing memory's in another Unicode form (or letter case, on macOS and
        // Windows) would sit beside it looking the same, or overwrite it: refused, so the model can write to that memory instead.
        // Its own earlier writes count: two names staged in one dream would be written side by side.
        const advice = 'to change that memory, write to it by its exact name.';
        const stagedTwin = existed ? null : formTwin(plan.topicRels(path.scope), path.rel);
        const taken = existed
          ? null
          : stagedTwin !== null
            ? await takenSentence(path.rel, stagedTwin, advice)
            : await takenNameRefusal(plan.snapshot.memoryDir, path.rel, advice);
        if (taken) return refuse(`Refused ${path.rel}: ${taken}`);
        plan.write(path.rel, input.content as string, {
          kind: 'model',
          reason: await modelWords(input.reason, 'Rewritten by the model.'),
        });
        return `Staged: ${existed ? 'update' : 'create'} ${path.rel}.`;
      }
      case 'delete_memory': {
        const path = checkProposedDelete(input.file, plan);
        if (!path.ok) return refuse(path.reason);
        const into = checkMergedInto(path.rel, input.merged_into, plan);
        if (into && !into.ok) return refuse(into.reason);
        const group = into?.ok ? `merge:${into.rel}` : null;
        plan.remove(path.rel, {
          kind: 'model',
          group,
          reason: await modelWords(input.reason, 'Deleted by the model.'),
        });
        if (into?.ok) {
          plan.setGroup(into.rel, group!);
          result.retarget.set(path.rel, into.rel);
        }
        return `Staged: delete ${path.rel}.`;
      }
      case 'finish':
        finished = true;
        result.summary = typeof input.summary === 'string' ? input.summary.trim().slice(0, 4000) : '';
        return 'Done.';
      default:
        throw new ToolError(`There is no tool named ${name}.`);
    }
  };

  while (!finished) {
    opts.signal?.throwIfAborted();
    if (result.turns >= limits.maxTurns) {
      result.flags.push({
        kind: 'note',
        files: [],
        message: `The model loop stopped after ${limits.maxTurns} model calls (the limit); what it proposed until then is kept.`,
      });
      break;
    }
    if (result.tokens.input + result.tokens.output >= limits.maxTokens) {
      result.flags.push({
        kind: 'note',
        files: [],
        message: `The model loop stopped at its token budget (${limits.maxTokens.toLocaleString('en')}); what it proposed until then is kept.`,
      });
      break;
    }
    result.turns++;
    opts.onStep?.(`model call ${result.turns}, ${result.toolCalls} tool calls`, result.tokens.input + result.tokens.output);
    const answer = await opts.provider.complete({
      task: 'dream',
      system,
      messages,
      tools: TOOLS,
      maxTokens: limits.callMaxTokens ?? 4096,
      ...(opts.signal ? { signal: opts.signal } : {}),
      ...(limits.callTimeoutMs ? { timeoutMs: limits.callTimeoutMs } : {}),
    });
    result.model = answer.model;
    result.tokens.input += answer.usage.inputTokens + answer.usage.cacheReadTokens + answer.usage.cacheCreationTokens;
    result.tokens.output += answer.usage.outputTokens;
    if (answer.costUsd !== null) result.costUsd = (result.costUsd ?? 0) + answer.costUsd;
    const calls = answer.content.filter((b): b is Extract<AnswerBlock, { type: 'tool_use' }> => b.type === 'tool_use');
    messages.push({ role: 'assistant', content: toParam(answer.content) });
    if (calls.length === 0) {
      // A plain answer ends the loop: its text is the summary.
      result.summary ||= answer.text.trim().slice(0, 4000);
      break;
    }
    const results: Anthropic.ToolResultBlockParam[] = [];
    for (const call of calls) {
      opts.signal?.throwIfAborted();
      result.toolCalls++;
      if (result.toolCalls > limits.maxToolCalls) {
        results.push({
          type: 'tool_result',
          tool_use_id: call.id,
          is_error: true,
          content: `The tool budget (${limits.maxToolCalls} calls) is used up; call finish.`,
        });
        continue;
      }
      const input = call.input && typeof call.input === 'object' && !Array.isArray(call.input) ? (call.input as Record<string, unknown>) : {};
      try {
        results.push({ type: 'tool_result', tool_use_id: call.id, content: await run(call.name, input) });
      } catch (error) {
        if (!(error instanceof ToolError)) throw error;
        results.push({ type: 'tool_result', tool_use_id: call.id, is_error: true, content: error.message });
      }
    }
    messages.push({ role: 'user', content: results });
    if (result.toolCalls > limits.maxToolCalls) {
      result.flags.push({
        kind: 'note',
        files: [],
        message: `The model loop stopped at its tool-call limit (${limits.maxToolCalls}); what it proposed until then is kept.`,
      });
      break;
    }
  }
  // The report keeps the model's words (its summary, the names it gave that were refused): never a secret it read.
  result.summary = await maskSecretsIn(result.summary);
  result.flags = await Promise.all(result.flags.map(async (f) => ({ ...f, message: await maskSecretsIn(f.message) })));
  return result;
}

/** A reason the model gave, trimmed, with any secret it read in a memory masked; `otherwise` when it gave none. */
async function modelWords(value: unknown, otherwise: string): Promise<string> {
  return typeof value === 'string' && value.trim() ? maskSecretsIn(value.trim()) : otherwise;
}
