/**
 * Pick the model provider from the settings and the environment (SPEC §9):
 *   - an explicit choice in settings wins (`anthropic`, `claude-cli`, `offline`);
 *   - `auto`: the Anthropic API when a key is known (`ANTHROPIC_API_KEY`, else the credential
 *     store), else the Claude Code CLI when it runs here, else offline.
 * Offline is a mode, not an error: its provider rejects every call with kind `offline`, and
 * callers take their labelled offline path. An explicit choice that cannot work (no key, no
 * CLI) gives the same offline behaviour but an `error` status saying what is missing.
 */
import { type AppSettings, CREDENTIAL_NAMES, type CredentialStore } from '../settings/index.js';
import { ClaudeCliProvider } from './claude-cli-provider.js';
import { redact } from './redact.js';
import { type CompleteResult, LlmError, type ModelProvider, type ModelTask, type ProviderStatus } from './types.js';
import { UsageLog } from './usage-log.js';
import { way } from '../core/surface-words.js';

/** The provider used when no model can be reached: every call rejects with kind `offline`. */
export class OfflineProvider implements ModelProvider {
  readonly kind = 'offline' as const;
  constructor(
    private readonly models: Record<ModelTask, string>,
    /** What the app shows: why there is no model. */
    readonly reason: string,
    /** `offline` when chosen or when nothing is set up; `error` when a chosen provider cannot work. */
    readonly state: 'offline' | 'error' = 'offline',
  ) {}
  modelFor(task: ModelTask): string {
    return this.models[task];
  }
  redact(text: string): string {
    return redact(text);
  }
  async status(): Promise<ProviderStatus> {
    return { state: this.state, provider: this.kind, reason: this.reason };
  }
  async complete(): Promise<CompleteResult> {
    throw new LlmError('offline', this.reason);
  }
}

/** Where resolveProvider() finds keys and writes logs. */
export interface ResolveProviderOptions {
  /** Memdir's data dir: usage log, CLI working dir. */
  dataDir: string;
  /** Where a stored API key is looked up (skipped when absent). */
  credentials?: CredentialStore;
  /** Usage log; default `<dataDir>/llm-usage.jsonl`. */
  usageLog?: UsageLog;
  /** Force offline (the CLI's `--offline`, a "work offline" toggle). */
  offline?: boolean;
}

async function findKey(env: NodeJS.ProcessEnv, credentials: CredentialStore | undefined): Promise<{ key: string; source: string } | null> {
  const fromEnv = env.ANTHROPIC_API_KEY?.trim();
  if (fromEnv) return { key: fromEnv, source: 'ANTHROPIC_API_KEY' };
  if (!credentials) return null;
  try {
    const stored = (await credentials.get(CREDENTIAL_NAMES.anthropicApiKey))?.trim();
    return stored ? { key: stored, source: credentials.encrypted ? 'the encrypted credential store' : 'the credential store (unencrypted)' } : null;
  } catch {
    // A damaged credential file reads as "no key"; the settings view reports the damage.
    return null;
  }
}

/** The provider to use now. Never throws; never makes a model call. */
export async function resolveProvider(settings: AppSettings, env: NodeJS.ProcessEnv, options: ResolveProviderOptions): Promise<ModelProvider> {
  const models = settings.model.models;
  const choice = settings.model.provider;
  if (options.offline) return new OfflineProvider(models, 'Offline mode: model features use their offline paths.');
  if (choice === 'offline') return new OfflineProvider(models, `Offline mode ${way('providerChosen')}: model features use their offline paths.`);
  const usageLog = options.usageLog ?? new UsageLog(options.dataDir);
  const common = { models, timeoutMs: settings.model.timeoutMs, usageLog };

  if (choice === 'anthropic' || choice === 'auto') {
    const key = await findKey(env, options.credentials);
    if (key) {
      // Settings name a gateway explicitly; otherwise ANTHROPIC_BASE_URL, as the SDK and Claude Code read it.
      const baseURL = settings.model.baseURL ?? (env.ANTHROPIC_BASE_URL?.trim() || null);
      // The SDK (a megabyte of code) loads when a provider on it is first made, not at the app's start.
      const { AnthropicProvider } = await import('./anthropic-provider.js');
      return new AnthropicProvider({ ...common, apiKey: key.key, keySource: key.source, baseURL, maxRetries: settings.model.maxRetries });
    }
    if (choice === 'anthropic') {
      return new OfflineProvider(models, `The Anthropic API ${way('providerChosen')} but no API key is set: ${way('addKey')}.`, 'error');
    }
  }

  const cli = new ClaudeCliProvider({ ...common, command: settings.model.claudePath ?? 'claude', env, dataDir: options.dataDir });
  const found = await cli.detect();
  if (found.available) return cli;
  if (choice === 'claude-cli')
    return new OfflineProvider(models, `The Claude Code CLI ${way('providerChosen')} but cannot run: ${found.reason ?? 'not found'}`, 'error');
  return new OfflineProvider(models, `No API key and no Claude Code CLI found: model features use their offline paths. ${way('addKeyToUse')}`);
}
