/**
 * The Anthropic Messages API through `@anthropic-ai/sdk` (SPEC §9). The key and base URL are
 * always passed explicitly, so the SDK never falls back to a profile or credential chain of its
 * own; every call has a wall-clock budget (retries included), honours the caller's
 * AbortSignal, retries rate limits and server errors a bounded number of times (the SDK's
 * `maxRetries`, which honours `retry-after`), and is appended to the usage log.
 */
import { createHash } from 'node:crypto';
import Anthropic, { APIConnectionTimeoutError, APIError, APIUserAbortError, AnthropicError } from '@anthropic-ai/sdk';
import { estimateCostUsd, PRICE_TABLE_NOTE } from './pricing.js';
import { redact } from './redact.js';
import { knownFailureWords } from '../../shared/failure-words.js';
import {
  type AnswerBlock,
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
import { way } from '../core/surface-words.js';

/** The public API, used when neither settings nor `ANTHROPIC_BASE_URL` name another. */
export const DEFAULT_ANTHROPIC_BASE_URL = 'https://api.anthropic.com';

/** What the Anthropic provider needs; resolveProvider() fills it from settings and env. */
export interface AnthropicProviderOptions {
  apiKey: string;
  /** Where the key came from, for the status line ("ANTHROPIC_API_KEY", "the credential store"). */
  keySource?: string;
  baseURL?: string | null;
  /** Model id per task. */
  models: Record<ModelTask, string>;
  /** Default wall-clock budget of one call, retries included. */
  timeoutMs: number;
  maxRetries: number;
  usageLog?: UsageLog;
}

/** The error `type` the API puts in its JSON body, when the body had one. */
function apiErrorType(error: APIError): string | undefined {
  const body = error.error as { error?: { type?: unknown } } | undefined;
  return typeof body?.error?.type === 'string' ? body.error.type : undefined;
}

function toBlocks(content: readonly ({ type: string } & Record<string, unknown>)[]): AnswerBlock[] {
  return content.map((block): AnswerBlock => {
    if (block.type === 'text') return { type: 'text', text: String(block.text ?? '') };
    if (block.type === 'tool_use') {
      return { type: 'tool_use', id: String(block.id), name: String(block.name), input: block.input };
    }
    return { type: 'unknown', originalType: block.type };
  });
}

function toUsage(
  usage:
    | { input_tokens?: number | null; output_tokens?: number | null; cache_read_input_tokens?: number | null; cache_creation_input_tokens?: number | null }
    | undefined,
): TokenUsage {
  return {
    inputTokens: usage?.input_tokens ?? 0,
    outputTokens: usage?.output_tokens ?? 0,
    cacheReadTokens: usage?.cache_read_input_tokens ?? 0,
    cacheCreationTokens: usage?.cache_creation_input_tokens ?? 0,
  };
}

/**
 * The last failure of each endpoint and key (by a hash of both), while no call has succeeded
 * since. A provider is made for each call (resolveProvider), so what status() says about a refused
 * key must outlive the provider that met it; another key starts clean.
 */
const LAST_FAILURES = new Map<string, LlmError>();

/** A 200 whose body is not a message (no `content` list): a gateway's page, another service's JSON. */
class NotAnAnswer extends Error {}

/** The wait an answer asks for before a retry (`retry-after-ms`, or `retry-after` in seconds or as a date), in ms; null when none. */
function retryAfterMs(headers: Headers): number | null {
  const ms = Number.parseFloat(headers.get('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const after = headers.get('retry-after');
  if (!after) return null;
  const seconds = Number.parseFloat(after);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(after);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

/** A model provider on the Anthropic Messages API (or a compatible gateway). */
export class AnthropicProvider implements ModelProvider {
  readonly kind = 'anthropic' as const;
  readonly baseURL: string;
  private readonly client: Anthropic;
  /** Where this endpoint and key's last failure is kept (see {@link LAST_FAILURES}). */
  private readonly failureKey: string;

  constructor(private readonly options: AnthropicProviderOptions) {
    this.baseURL = (options.baseURL ?? DEFAULT_ANTHROPIC_BASE_URL).replace(/\/+$/, '');
    this.failureKey = createHash('sha256').update(`${this.baseURL}\n${options.apiKey}`).digest('hex');
    this.client = new Anthropic({
      apiKey: options.apiKey,
      baseURL: this.baseURL,
      maxRetries: options.maxRetries,
      timeout: options.timeoutMs,
      // The SDK logs to the console by default; Memdir keeps its own usage log instead.
      logLevel: 'off',
    });
  }

  modelFor(task: ModelTask): string {
    return this.options.models[task];
  }

  redact(text: string): string {
    return redact(text, [this.options.apiKey]);
  }

  async status(): Promise<ProviderStatus> {
    const endpoint = this.baseURL;
    // Only failures that will not go away by themselves put the provider in error.
    const lastFailure = LAST_FAILURES.get(this.failureKey);
    if (lastFailure && ['auth', 'network', 'bad-request'].includes(lastFailure.kind)) {
      return { state: 'error', provider: this.kind, reason: lastFailure.message, endpoint };
    }
    return { state: 'online', provider: this.kind, reason: `Anthropic API at ${endpoint}, key from ${this.options.keySource ?? 'settings'}.`, endpoint };
  }

  async complete(request: CompleteRequest): Promise<CompleteResult> {
    const model = request.model ?? this.modelFor(request.task);
    const timeoutMs = request.timeoutMs ?? this.options.timeoutMs;
    const started = performance.now();
    // The SDK's timeout is per attempt; this deadline bounds the whole call, retries included.
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), timeoutMs);
    const signal = request.signal ? AbortSignal.any([request.signal, deadline.signal]) : deadline.signal;
    // An answer the SDK would retry after the wait it asks for, when that wait outlasts the call: stop now and say so.
    let waitTooLong: { status: number; waitMs: number } | null = null;
    let attempts = 0;
    const client = this.client.withOptions({
      fetch: async (input: string | URL | Request, init?: RequestInit) => {
        const response = await fetch(input, init);
        attempts++;
        const waitMs = retryAfterMs(response.headers);
        const retried = response.status === 408 || response.status === 409 || response.status === 429 || response.status >= 500;
        if (retried && attempts <= this.options.maxRetries && waitMs !== null && performance.now() - started + waitMs > timeoutMs) {
          waitTooLong = { status: response.status, waitMs };
          deadline.abort();
        }
        return response;
      },
    });
    const params = {
      model,
      max_tokens: request.maxTokens,
      messages: request.messages,
      ...(request.system !== undefined ? { system: request.system } : {}),
      ...(request.tools ? { tools: request.tools } : {}),
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      ...(request.outputConfig ? { output_config: request.outputConfig } : {}),
      ...(request.thinking ? { thinking: request.thinking } : {}),
    };
    try {
      if (request.signal?.aborted) throw new APIUserAbortError();
      const message = request.stream
        ? await client.messages.stream(params, { signal, timeout: timeoutMs }).finalMessage()
        : await client.messages.create(params, { signal, timeout: timeoutMs });
      // A gateway's web page or another service's JSON, with status 200: the SDK hands it on as is.
      if (!message || typeof message !== 'object' || !Array.isArray((message as { content?: unknown }).content)) throw new NotAnAnswer();
      const latencyMs = performance.now() - started;
      const usage = toUsage(message.usage);
      const content = toBlocks(message.content as unknown as ({ type: string } & Record<string, unknown>)[]);
      const costUsd = estimateCostUsd(message.model || model, usage);
      const result: CompleteResult = {
        text: content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join(''),
        content,
        stopReason: message.stop_reason ?? null,
        usage,
        costUsd,
        costNote: costUsd === null ? `no price known for ${message.model || model}` : PRICE_TABLE_NOTE,
        model: message.model || model,
        provider: this.kind,
        latencyMs,
      };
      LAST_FAILURES.delete(this.failureKey);
      await this.options.usageLog?.append({ task: request.task, provider: this.kind, model: result.model, usage, costUsd, latencyMs, outcome: 'ok' });
      return result;
    } catch (error) {
      const context = { timedOut: deadline.signal.aborted && !request.signal?.aborted, aborted: request.signal?.aborted ?? false, timeoutMs };
      const failure = waitTooLong && !context.aborted ? this.waitTooLong(waitTooLong, timeoutMs, error) : this.classify(error, context);
      LAST_FAILURES.set(this.failureKey, failure);
      await this.options.usageLog?.append({
        task: request.task,
        provider: this.kind,
        model,
        usage: ZERO_USAGE,
        costUsd: null,
        latencyMs: performance.now() - started,
        outcome: failure.kind,
        ...(failure.details.status !== undefined ? { status: failure.details.status } : {}),
      });
      throw failure;
    } finally {
      clearTimeout(timer);
    }
  }

  /** A rate limit, an overload or a server error whose asked-for wait outlasts the call. */
  private waitTooLong(answer: { status: number; waitMs: number }, timeoutMs: number, cause: unknown): LlmError {
    const { status } = answer;
    const asks = `asks to wait ${Math.ceil(answer.waitMs / 1000)} s, longer than this call may take (${(timeoutMs / 1000).toFixed(1)} s)`;
    if (status === 429)
      return new LlmError('rate-limited', `The API is rate-limiting requests (HTTP 429) and ${asks}.`, { status, cause, tryAgain: 'Try again in a minute.' });
    if (status === 529)
      return new LlmError('overloaded', `The API is overloaded (HTTP 529) and ${asks}.`, { status, cause, tryAgain: 'Try again in a few minutes.' });
    return new LlmError('server', `The API failed with HTTP ${status} and ${asks}.`, { status, cause, tryAgain: 'Try again later.' });
  }

  /** Turn whatever the SDK threw into an LlmError with a sentence a person understands, saying what to do. */
  private classify(error: unknown, context: { timedOut: boolean; aborted: boolean; timeoutMs: number }): LlmError {
    const retries = this.options.maxRetries;
    const after = retries > 0 ? ` after ${retries} ${retries === 1 ? 'retry' : 'retries'}` : '';
    const checkUrl = `${way('baseUrl')}.`;
    if (context.aborted) return new LlmError('aborted', 'The model request was cancelled.', { cause: error });
    if (context.timedOut || error instanceof APIConnectionTimeoutError) {
      return new LlmError('timeout', `The model did not answer within ${(context.timeoutMs / 1000).toFixed(1)} s.`, {
        cause: error,
        tryAgain: `Try again later, or ${way('moreModelTime')}.`,
      });
    }
    if (error instanceof APIUserAbortError) return new LlmError('aborted', 'The model request was cancelled.', { cause: error });
    if (error instanceof APIError && typeof error.status === 'number') {
      const status = error.status;
      const type = apiErrorType(error);
      const detail = this.redact(((error.error as { error?: { message?: unknown } } | undefined)?.error?.message as string | undefined) ?? '').slice(0, 200);
      const said = detail ? `: ${detail.replace(/\.+$/, '')}` : '';
      if (status === 401 || status === 403)
        return new LlmError('auth', `The API refused the key (HTTP ${status})${said}. ${way('checkKey')}.`, {
          status,
          cause: error,
        });
      if (status === 429)
        return new LlmError('rate-limited', `The API is rate-limiting requests (HTTP 429)${after}.`, {
          status,
          cause: error,
          tryAgain: 'Try again in a minute.',
        });
      if (status === 529 || type === 'overloaded_error')
        return new LlmError('overloaded', `The API is overloaded (HTTP ${status})${after}.`, { status, cause: error, tryAgain: 'Try again in a few minutes.' });
      if (status >= 500)
        return new LlmError('server', `The API failed with HTTP ${status}${after}${said}.`, { status, cause: error, tryAgain: 'Try again later.' });
      return new LlmError('bad-request', `The API rejected the request (HTTP ${status})${said}.`, { status, cause: error });
    }
    if (error instanceof NotAnAnswer) {
      return new LlmError(
        'bad-response',
        `What ${this.baseURL} sent back is not an answer of the Messages API (a web page, or another service). Check ${checkUrl}`,
        {
          cause: error,
        },
      );
    }
    if (error instanceof APIError) {
      const why = knownFailureWords(error);
      return new LlmError('network', `The API at ${this.baseURL} could not be reached${why ? ` (${why})` : ''}. Check the network connection and ${checkUrl}`, {
        cause: error,
      });
    }
    if (error instanceof SyntaxError) {
      return new LlmError('bad-response', `The API's answer was cut short or was not JSON. Try again; if it keeps happening, check ${checkUrl}`, {
        cause: error,
      });
    }
    // The connection went in the middle of the answer (undici's "terminated").
    if (error instanceof TypeError && knownFailureWords(error)) {
      return new LlmError('network', `The connection to the API at ${this.baseURL} was lost in the middle of its answer (${knownFailureWords(error)}).`, {
        cause: error,
        tryAgain: 'Try again.',
      });
    }
    if (error instanceof AnthropicError) {
      return new LlmError('bad-response', `The API sent an answer that could not be read. Try again; if it keeps happening, check ${checkUrl}`, {
        cause: error,
      });
    }
    // Not the API's doing: a bug of ours, said as one, without the program's words.
    return new LlmError('bad-response', `The model call failed in Memdir itself, not at the API. Try again; if it keeps happening, report it.`, {
      cause: error,
    });
  }
}
