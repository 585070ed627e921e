/**
 * The one model interface every model feature uses (recall, extraction, dream, session notes;
 * SPEC §9). Providers: the Anthropic API (anthropic-provider.ts), the Claude Code CLI
 * (claude-cli-provider.ts) and offline (resolve-provider.ts). A failed call rejects with an
 * {@link LlmError} whose message is a sentence a person can read; callers turn it into their
 * labelled offline path.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { ModelTask } from '../settings/index.js';

export type { ModelTask };

/** Which implementation answers. */

/** One model call. */
export interface CompleteRequest {
  /** The feature asking: picks the model from settings and labels the usage log. */
  task: ModelTask;
  /** A string, or text blocks (with `cache_control`) when a request must be sent exactly so. */
  system?: string | Anthropic.TextBlockParam[];
  messages: Anthropic.MessageParam[];
  maxTokens: number;
  tools?: Anthropic.Tool[];
  /** Override the model the settings give the task. */
  model?: string;
  /** Cancels the call (the user closed the view, a newer query superseded this one). */
  signal?: AbortSignal;
  /** Wall-clock budget for the call, retries included; defaults to the provider's. */
  timeoutMs?: number;
  /** Stream the answer over SSE (Anthropic only); the result is the same, assembled. */
  stream?: boolean;
  temperature?: number;
  /** Structured output (`output_config.format`), as Claude Code's recall selector sends it. */
  outputConfig?: Anthropic.OutputConfig;
  thinking?: Anthropic.ThinkingConfigParam;
}

import type { ProviderKind, ProviderStatus, TokenUsage } from '../../shared/recall-types.js';
import { MemdirError } from '../../shared/errors.js';

export type { TokenUsage, ProviderStatus, ProviderKind };

/** A content block of the answer (text and tool calls; others are named, not interpreted). */
export type AnswerBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'unknown'; originalType: string };

/** A successful model call. */
export interface CompleteResult {
  /** All text blocks joined. */
  text: string;
  content: AnswerBlock[];
  stopReason: string | null;
  usage: TokenUsage;
  /**
   * Estimated cost in US dollars, from a price table (pricing.ts) or as reported by the Claude
   * Code CLI; null when the model's price is unknown. Always an estimate: see `costNote`.
   */
  costUsd: number | null;
  costNote: string;
  model: string;
  provider: ProviderKind;
  latencyMs: number;
}

/** A model provider. */
export interface ModelProvider {
  readonly kind: ProviderKind;
  /** Rejects with {@link LlmError}. */
  complete(request: CompleteRequest): Promise<CompleteResult>;
  status(): Promise<ProviderStatus>;
  /** The model id a task would use. */
  modelFor(task: ModelTask): string;
  /** Remove any secret this provider knows from a line before it is logged or shown. */
  redact(text: string): string;
}

/** Why a model call failed, in categories a caller can act on. */
export type LlmErrorKind =
  | 'offline'
  | 'unavailable'
  | 'auth'
  | 'rate-limited'
  | 'overloaded'
  | 'server'
  | 'timeout'
  | 'aborted'
  | 'network'
  | 'bad-request'
  | 'bad-response'
  | 'unsupported';

/**
 * A failed model call; `message` is written for people (it ends up as a fallback reason): what
 * happened, then — when the person would have to ask again — `details.tryAgain` ("Try again in a
 * minute."). `fact` is what happened alone, for callers that try again by themselves.
 */
export class LlmError extends MemdirError<'model-failed'> {
  override readonly name = 'LlmError';
  readonly fact: string;
  constructor(
    readonly kind: LlmErrorKind,
    fact: string,
    readonly details: { status?: number; attempts?: number; cause?: unknown; tryAgain?: string } = {},
  ) {
    super('model-failed', details.tryAgain ? `${fact} ${details.tryAgain}` : fact, details.cause !== undefined ? { cause: details.cause } : {});
    this.fact = fact;
  }
}

/** Usage of a call that failed before any token was counted. */
export const ZERO_USAGE: TokenUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 };
