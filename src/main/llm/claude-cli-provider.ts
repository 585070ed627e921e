/**
 * The Claude Code CLI as a model provider, for subscribers without an API key (SPEC §9):
 * `claude -p --output-format json`, prompt on stdin, spawned with execFile (no shell), its JSON
 * result parsed for text, usage and the cost it reports.
 *
 * Limits, by design of `claude -p`: one prompt in, one answer out — earlier turns of
 * `messages` are folded into the prompt, tools are not offered (a request with tools is refused
 * as `unsupported`), and cost is what Claude Code reports (notional on a subscription).
 * The CLI runs in `<dataDir>/claude-cli` so its session transcripts land under a project of
 * Memdir's own, never in the user's projects, and with `MEMDIR_INTERNAL=1` so Memdir's own
 * hooks can recognise (and skip) these sessions.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import type Anthropic from '@anthropic-ai/sdk';
import { estimateCostUsd, PRICE_TABLE_NOTE } from './pricing.js';
import { redact } from './redact.js';
import {
  type CompleteRequest,
  type CompleteResult,
  LlmError,
  type ModelProvider,
  type ModelTask,
  type ProviderStatus,
  type TokenUsage,
  ZERO_USAGE,
} from './types.js';
import type { UsageLog } from './usage-log.js';

/** What the Claude Code CLI provider needs; resolveProvider() fills it from settings and env. */
export interface ClaudeCliOptions {
  /** The executable: a path, or a name looked up on the PATH of `env`. Default `claude`. */
  command?: string;
  env: NodeJS.ProcessEnv;
  /** Memdir's data dir: the CLI's working directory lives under it. */
  dataDir: string;
  models: Record<ModelTask, string>;
  timeoutMs: number;
  usageLog?: UsageLog;
}

/** Whether the CLI runs here, from `claude --version`. */
export interface ClaudeCliAvailability {
  available: boolean;
  version?: string;
  /** Why it is not available, in words. */
  reason?: string;
}

const MAX_OUTPUT = 16 * 1024 * 1024;
const DETECT_TTL_MS = 60_000;
const DETECTED = new Map<string, { at: number; result: Promise<ClaudeCliAvailability> }>();

interface RunOutput {
  stdout: string;
  stderr: string;
  code: number | string | null;
  signal?: NodeJS.Signals | null;
  /** Killed by execFile's timeout. */
  killed: boolean;
  error?: NodeJS.ErrnoException;
}

function run(
  command: string,
  args: string[],
  options: { env: NodeJS.ProcessEnv; cwd?: string; input?: string; timeoutMs: number; signal?: AbortSignal },
): Promise<RunOutput> {
  return new Promise((resolve) => {
    const child = execFile(
      command,
      args,
      {
        env: options.env,
        cwd: options.cwd,
        timeout: options.timeoutMs,
        maxBuffer: MAX_OUTPUT,
        encoding: 'utf8',
        windowsHide: true,
        ...(options.signal ? { signal: options.signal } : {}),
      },
      (error, stdout, stderr) => {
        const err = error as (NodeJS.ErrnoException & { code?: number | string; signal?: NodeJS.Signals | null; killed?: boolean }) | null;
        resolve({
          stdout: String(stdout),
          stderr: String(stderr),
          code: err ? (err.code ?? 1) : 0,
          signal: err?.signal ?? null,
          killed: err?.killed ?? false,
          ...(err ? { error: err } : {}),
        });
      },
    );
    // A child that exits before reading stdin would raise EPIPE here: the exit result says more.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(options.input ?? '');
  });
}

/** Whether `claude` runs here (`claude --version`), without a model call. */
export async function detectClaudeCli(command: string, env: NodeJS.ProcessEnv, timeoutMs = 5_000): Promise<ClaudeCliAvailability> {
  const out = await run(command, ['--version'], { env, timeoutMs });
  if (out.error?.code === 'ENOENT') return { available: false, reason: `The Claude Code CLI (${command}) is not installed or not on PATH.` };
  if (out.code !== 0)
    return { available: false, reason: `\`${command} --version\` failed (${out.signal ? `killed by ${out.signal}` : `exit ${String(out.code)}`}).` };
  const version = out.stdout.trim().split('\n')[0] ?? '';
  return { available: true, version };
}

/** Fold a conversation into the one prompt `claude -p` takes. */
export function promptFromMessages(messages: Anthropic.MessageParam[]): string {
  const textOf = (content: Anthropic.MessageParam['content']): string =>
    typeof content === 'string' ? content : content.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('\n');
  if (messages.length === 1 && messages[0]!.role === 'user') return textOf(messages[0]!.content);
  return messages.map((m) => `${m.role === 'user' ? 'User' : 'Assistant'}: ${textOf(m.content)}`).join('\n\n');
}

/** The fields of `claude -p --output-format json` that Memdir reads. */
interface CliResult {
  type?: string;
  subtype?: string;
  is_error?: boolean;
  result?: string;
  total_cost_usd?: number;
  usage?: { input_tokens?: number; output_tokens?: number; cache_read_input_tokens?: number; cache_creation_input_tokens?: number };
  modelUsage?: Record<string, unknown>;
}

function parseCliJson(stdout: string): CliResult | null {
  // The result is one JSON object; some versions print an array of events — take the result one.
  const text = stdout.trim();
  if (!text) return null;
  const candidates = [text, ...text.split('\n').reverse()];
  for (const candidate of candidates) {
    try {
      const value: unknown = JSON.parse(candidate);
      if (Array.isArray(value)) {
        const found = value.find((v) => v && typeof v === 'object' && (v as CliResult).type === 'result');
        if (found) return found as CliResult;
      } else if (value && typeof value === 'object') return value as CliResult;
    } catch {
      // Not this line.
    }
  }
  return null;
}

/** A model provider that runs the Claude Code CLI. */
export class ClaudeCliProvider implements ModelProvider {
  readonly kind = 'claude-cli' as const;
  readonly command: string;
  private availability: Promise<ClaudeCliAvailability> | null = null;
  private lastFailure: LlmError | null = null;

  constructor(private readonly options: ClaudeCliOptions) {
    this.command = options.command ?? 'claude';
  }

  modelFor(task: ModelTask): string {
    return this.options.models[task];
  }

  redact(text: string): string {
    return redact(text, [this.options.env.ANTHROPIC_API_KEY]);
  }

  /**
   * Checked once per provider, and shared for a minute between providers with the same command
   * and PATH: `claude --version` starts Node (~0.3 s), and the app resolves a provider per query.
   */
  detect(): Promise<ClaudeCliAvailability> {
    if (!this.availability) {
      const key = `${this.command}\u0000${this.options.env.PATH ?? ''}`;
      const known = DETECTED.get(key);
      if (known && Date.now() - known.at < DETECT_TTL_MS) this.availability = known.result;
      else {
        this.availability = detectClaudeCli(this.command, this.options.env);
        DETECTED.set(key, { at: Date.now(), result: this.availability });
      }
    }
    return this.availability;
  }

  async status(): Promise<ProviderStatus> {
    const found = await this.detect();
    if (!found.available)
      return { state: 'error', provider: this.kind, reason: found.reason ?? 'The Claude Code CLI is not available.', endpoint: this.command };
    if (this.lastFailure && this.lastFailure.kind === 'auth')
      return { state: 'error', provider: this.kind, reason: this.lastFailure.message, endpoint: this.command };
    return {
      state: 'online',
      provider: this.kind,
      reason: `Claude Code CLI ${found.version ?? ''} (your Claude Code login).`.replace(/\s+\(/, ' ('),
      endpoint: this.command,
    };
  }

  async complete(request: CompleteRequest): Promise<CompleteResult> {
    const model = request.model ?? this.modelFor(request.task);
    const timeoutMs = request.timeoutMs ?? this.options.timeoutMs;
    const started = performance.now();
    try {
      if (request.tools && request.tools.length > 0)
        throw new LlmError('unsupported', 'The Claude Code CLI provider cannot offer tools to the model; use an API key for this feature.');
      if (typeof request.system === 'object' || request.outputConfig || request.thinking) {
        throw new LlmError(
          'unsupported',
          'The Claude Code CLI provider cannot send a request exactly as given (cached system blocks, an output schema, thinking settings); use an API key for this feature.',
        );
      }
      if (request.signal?.aborted) throw new LlmError('aborted', 'The model request was cancelled.');
      const found = await this.detect();
      if (!found.available) throw new LlmError('unavailable', found.reason ?? 'The Claude Code CLI is not available.');
      const cwd = path.join(this.options.dataDir, 'claude-cli');
      await fs.mkdir(cwd, { recursive: true });
      const args = ['-p', '--output-format', 'json', '--model', model, '--max-turns', '1'];
      if (request.system) args.push('--system-prompt', request.system);
      const out = await run(this.command, args, {
        env: { ...this.options.env, MEMDIR_INTERNAL: '1' },
        cwd,
        input: promptFromMessages(request.messages),
        timeoutMs,
        ...(request.signal ? { signal: request.signal } : {}),
      });
      const latencyMs = performance.now() - started;
      if (request.signal?.aborted || out.error?.name === 'AbortError') throw new LlmError('aborted', 'The model request was cancelled.');
      if (out.killed) {
        throw new LlmError('timeout', `The Claude Code CLI did not answer within ${(timeoutMs / 1000).toFixed(1)} s.`);
      }
      if (out.error?.code === 'ENOENT') throw new LlmError('unavailable', `The Claude Code CLI (${this.command}) is not installed or not on PATH.`);
      const parsed = parseCliJson(out.stdout);
      if (!parsed) {
        const said = this.redact((out.stderr || out.stdout).trim().split('\n')[0] ?? '').slice(0, 200);
        throw new LlmError(
          out.code === 0 ? 'bad-response' : 'server',
          `The Claude Code CLI ${out.code === 0 ? 'printed no JSON result' : `failed (exit ${String(out.code)})`}${said ? `: ${said}` : ''}.`,
        );
      }
      const resultText = typeof parsed.result === 'string' ? parsed.result : '';
      if (parsed.is_error || (parsed.subtype && parsed.subtype !== 'success')) {
        const said = this.redact(resultText).slice(0, 200);
        const auth = /log ?in|api key|auth|credential/i.test(resultText);
        throw new LlmError(
          auth ? 'auth' : 'server',
          auth
            ? `The Claude Code CLI is not logged in: ${said || 'run `claude` once and log in'}.`
            : `The Claude Code CLI reported an error (${parsed.subtype ?? 'error'})${said ? `: ${said}` : ''}.`,
        );
      }
      const usage: TokenUsage = {
        inputTokens: parsed.usage?.input_tokens ?? 0,
        outputTokens: parsed.usage?.output_tokens ?? 0,
        cacheReadTokens: parsed.usage?.cache_read_input_tokens ?? 0,
        cacheCreationTokens: parsed.usage?.cache_creation_input_tokens ?? 0,
      };
      const usedModel = Object.keys(parsed.modelUsage ?? {})[0] ?? model;
      const reported = typeof parsed.total_cost_usd === 'number' ? parsed.total_cost_usd : null;
      const costUsd = reported ?? estimateCostUsd(usedModel, usage);
      const result: CompleteResult = {
        text: resultText,
        content: [{ type: 'text', text: resultText }],
        stopReason: parsed.subtype === 'success' ? 'end_turn' : (parsed.subtype ?? null),
        usage,
        costUsd,
        costNote:
          reported !== null
            ? 'as reported by Claude Code (an estimate; on a subscription nothing is billed per call)'
            : costUsd === null
              ? `no price known for ${usedModel}`
              : PRICE_TABLE_NOTE,
        model: usedModel,
        provider: this.kind,
        latencyMs,
      };
      this.lastFailure = null;
      await this.options.usageLog?.append({ task: request.task, provider: this.kind, model: usedModel, usage, costUsd, latencyMs, outcome: 'ok' });
      return result;
    } catch (error) {
      const failure =
        error instanceof LlmError
          ? error
          : new LlmError('bad-response', `The Claude Code CLI call failed: ${this.redact(String(error)).slice(0, 200)}.`, { cause: error });
      this.lastFailure = failure;
      await this.options.usageLog?.append({
        task: request.task,
        provider: this.kind,
        model,
        usage: ZERO_USAGE,
        costUsd: null,
        latencyMs: performance.now() - started,
        outcome: failure.kind,
      });
      throw failure;
    }
  }
}
