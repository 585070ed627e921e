/**
 * Every model call, one JSON line in `<dataDir>/llm-usage.jsonl` (SPEC §9: "logged with its
 * token use"): when, which task and model, tokens, estimated cost, latency and outcome. Never a
 * prompt, an answer or a key — the log is safe to attach to a bug report.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { LlmErrorKind, ModelTask, ProviderKind, TokenUsage } from './types.js';

/** The usage log file name inside the data dir. */
export const USAGE_LOG_FILE = 'llm-usage.jsonl';

/** One line of the usage log. */
export interface UsageEntry {
  /** ISO time the call ended. */
  time: string;
  task: ModelTask;
  provider: ProviderKind;
  model: string;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheCreationTokens: number;
  /** Estimated (see pricing.ts); null when unknown. */
  costUsd: number | null;
  latencyMs: number;
  outcome: 'ok' | LlmErrorKind;
  /** HTTP status of a failed call, when there was one. */
  status?: number;
}

/** Appends usage entries; a write failure is swallowed (logging must never fail a call). */
export class UsageLog {
  readonly file: string;
  private queue: Promise<void> = Promise.resolve();

  constructor(dataDir: string) {
    this.file = path.join(dataDir, USAGE_LOG_FILE);
  }

  /** Append one entry (serialised, so lines never interleave within a process). */
  append(entry: {
    task: ModelTask;
    provider: ProviderKind;
    model: string;
    usage: TokenUsage;
    costUsd: number | null;
    latencyMs: number;
    outcome: UsageEntry['outcome'];
    status?: number;
  }): Promise<void> {
    const line: UsageEntry = {
      time: new Date().toISOString(),
      task: entry.task,
      provider: entry.provider,
      model: entry.model,
      ...entry.usage,
      costUsd: entry.costUsd,
      latencyMs: Math.round(entry.latencyMs),
      outcome: entry.outcome,
      ...(entry.status !== undefined ? { status: entry.status } : {}),
    };
    this.queue = this.queue.then(async () => {
      try {
        await fs.mkdir(path.dirname(this.file), { recursive: true });
        await fs.appendFile(this.file, `${JSON.stringify(line)}\n`, { mode: 0o600 });
      } catch {
        // The data dir is unwritable: the call itself still succeeds.
      }
    });
    return this.queue;
  }

  /** The newest `limit` entries, newest last; unreadable lines are skipped. */
  async read(limit = 200): Promise<UsageEntry[]> {
    await this.queue;
    let text: string;
    try {
      text = await fs.readFile(this.file, 'utf8');
    } catch {
      return [];
    }
    const entries: UsageEntry[] = [];
    for (const line of text.split('\n').slice(-limit - 1)) {
      if (!line.trim()) continue;
      try {
        entries.push(JSON.parse(line) as UsageEntry);
      } catch {
        // A half-written line from a crash: skip it.
      }
    }
    return entries.slice(-limit);
  }
}
