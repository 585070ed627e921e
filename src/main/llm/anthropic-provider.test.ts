import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_MODELS } from '../settings/app-settings.js';
import { AnthropicProvider } from './anthropic-provider.js';
import { type FakeAnthropic, startFakeAnthropic } from './test-support/fake-anthropic.js';
import { LlmError } from './types.js';
import { UsageLog } from './usage-log.js';

const KEY = 'sk-ant-api03-test-key-never-logged-0123456789';
let fake: FakeAnthropic;
let dataDir: string;

beforeEach(async () => {
  fake = await startFakeAnthropic();
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-llm-'));
});
afterEach(async () => {
  await fake.close();
  await fs.rm(dataDir, { recursive: true, force: true });
});

function provider(overrides: { maxRetries?: number; timeoutMs?: number } = {}): AnthropicProvider {
  return new AnthropicProvider({
    apiKey: KEY,
    keySource: 'test',
    baseURL: fake.url,
    models: DEFAULT_MODELS,
    timeoutMs: overrides.timeoutMs ?? 5_000,
    maxRetries: overrides.maxRetries ?? 2,
    usageLog: new UsageLog(dataDir),
  });
}

const ask = { task: 'recall' as const, system: 'be brief', messages: [{ role: 'user' as const, content: 'hello' }], maxTokens: 50 };

async function failure(promise: Promise<unknown>): Promise<LlmError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LlmError);
  return error as LlmError;
}

describe('AnthropicProvider against the fake server', () => {
  it('sends the key and model, returns text, usage, an estimated cost and logs the call without secrets', async () => {
    fake.enqueue({ kind: 'message', text: 'hi there', usage: { input_tokens: 1000, output_tokens: 100, cache_read_input_tokens: 500 } });
    const result = await provider().complete(ask);
    expect(result.text).toBe('hi there');
    expect(result.usage).toEqual({ inputTokens: 1000, outputTokens: 100, cacheReadTokens: 500, cacheCreationTokens: 0 });
    expect(result.model).toBe(DEFAULT_MODELS.recall);
    // Sonnet: $3 in, $15 out, cache reads at a tenth of input.
    expect(result.costUsd).toBeCloseTo((1000 * 3 + 500 * 0.3 + 100 * 15) / 1e6, 10);
    expect(result.costNote).toMatch(/estimate/);
    const [request] = fake.messageRequests();
    // SDK 1.x sends the key as a bearer token; older versions used x-api-key.
    expect(String(request!.headers['x-api-key'] ?? request!.headers.authorization)).toContain(KEY);
    expect(request!.body).toMatchObject({ model: DEFAULT_MODELS.recall, system: 'be brief', max_tokens: 50 });
    const log = await fs.readFile(path.join(dataDir, 'llm-usage.jsonl'), 'utf8');
    const entry = JSON.parse(log.trim());
    expect(entry).toMatchObject({ task: 'recall', provider: 'anthropic', inputTokens: 1000, outputTokens: 100, outcome: 'ok' });
    expect(log).not.toContain(KEY);
    expect(log).not.toContain('hello');
    expect(log).not.toContain('hi there');
  });

  it('retries a 429 a bounded number of times, then says so', async () => {
    for (let i = 0; i < 3; i++) fake.enqueue({ kind: 'error', status: 429, retryAfterMs: 1 });
    const error = await failure(provider({ maxRetries: 2 }).complete(ask));
    expect(error.kind).toBe('rate-limited');
    expect(error.message).toMatch(/429.*after 2 retries/);
    expect(fake.messageRequests()).toHaveLength(3);
    const log = await new UsageLog(dataDir).read();
    expect(log.at(-1)).toMatchObject({ outcome: 'rate-limited', status: 429 });
  });

  it('recovers when a retry succeeds', async () => {
    fake.enqueue({ kind: 'error', status: 529, retryAfterMs: 1 }, { kind: 'message', text: 'second time' });
    expect((await provider().complete(ask)).text).toBe('second time');
  });

  it('classifies 500 and 529 overloaded', async () => {
    fake.enqueue({ kind: 'error', status: 500, retryAfterMs: 1 });
    expect((await failure(provider({ maxRetries: 0 }).complete(ask))).kind).toBe('server');
    fake.enqueue({ kind: 'error', status: 529, retryAfterMs: 1 });
    const overloaded = await failure(provider({ maxRetries: 0 }).complete(ask));
    expect(overloaded.kind).toBe('overloaded');
    expect(overloaded.message).toMatch(/overloaded/);
  });

  it('reports a refused key as an auth error and shows it in status()', async () => {
    fake.enqueue({ kind: 'error', status: 401 });
    const p = provider();
    expect((await failure(p.complete(ask))).kind).toBe('auth');
    expect(await p.status()).toMatchObject({ state: 'error', provider: 'anthropic' });
    expect((await p.status()).reason).not.toContain(KEY);
  });

  it('a refused key shows in the status of the next provider made for the same key — the app makes one per call — until a call succeeds or the key changes (s40)', async () => {
    fake.enqueue({ kind: 'error', status: 401 });
    await failure(provider().complete(ask));
    // What Settings and the recall playground ask: a fresh provider, as resolveProvider() makes for each call.
    expect(await provider().status()).toMatchObject({ state: 'error', reason: expect.stringMatching(/refused the key \(HTTP 401\)/) });
    const otherKey = new AnthropicProvider({ apiKey: `${KEY}-new`, baseURL: fake.url, models: DEFAULT_MODELS, timeoutMs: 5_000, maxRetries: 0 });
    expect(await otherKey.status()).toMatchObject({ state: 'online' });
    fake.enqueue({ kind: 'message', text: 'fine now' });
    await provider().complete(ask);
    expect(await provider().status()).toMatchObject({ state: 'online' });
  });

  it('a rate limit asking to wait longer than the call may take is said as such, at once — not "did not answer" after the whole budget (s40)', async () => {
    fake.enqueue({ kind: 'error', status: 429, retryAfterMs: 30_000 }, { kind: 'error', status: 429, retryAfterMs: 30_000 });
    const started = Date.now();
    const error = await failure(provider({ maxRetries: 2, timeoutMs: 3_000 }).complete(ask));
    expect(error.kind).toBe('rate-limited');
    expect(error.message).toBe(
      'The API is rate-limiting requests (HTTP 429) and asks to wait 30 s, longer than this call may take (3.0 s). Try again in a minute.',
    );
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(fake.messageRequests()).toHaveLength(1);
    // A wait that fits is waited, and the retry answers.
    fake.reset();
    fake.enqueue({ kind: 'error', status: 529, retryAfterMs: 50 }, { kind: 'message', text: 'after the wait' });
    expect((await provider({ maxRetries: 2, timeoutMs: 3_000 }).complete(ask)).text).toBe('after the wait');
  });

  it('gives up after its wall-clock budget, retries included', async () => {
    fake.enqueue({ kind: 'hang' }, { kind: 'hang' }, { kind: 'hang' });
    const started = Date.now();
    const error = await failure(provider({ timeoutMs: 300 }).complete(ask));
    expect(error.kind).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('stops when the caller aborts', async () => {
    fake.enqueue({ kind: 'message', text: 'late', delayMs: 2_000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const error = await failure(provider().complete({ ...ask, signal: controller.signal }));
    expect(error.kind).toBe('aborted');
  });

  it('reports a malformed JSON body as an unreadable answer', async () => {
    fake.enqueue({ kind: 'malformed' });
    const error = await failure(provider({ maxRetries: 0 }).complete(ask));
    expect(error.kind).toBe('bad-response');
  });

  it('streams: a whole stream assembles; a truncated one fails cleanly', async () => {
    fake.enqueue({ kind: 'message', text: 'streamed answer text' });
    expect((await provider().complete({ ...ask, stream: true })).text).toBe('streamed answer text');
    expect(fake.messageRequests()[0]!.body!.stream).toBe(true);
    fake.enqueue({ kind: 'message', text: 'streamed answer text', truncateAfterEvents: 3 });
    const error = await failure(provider({ maxRetries: 0 }).complete({ ...ask, stream: true }));
    expect(['bad-response', 'network']).toContain(error.kind);
  });

  it('says in words what a failure means and what to do — no parser message, no program error, no error code (s40)', async () => {
    /** Nothing a person cannot read: a JS error, a parser's words, an errno code. */
    const unreadable = /Cannot read|undefined|Unexpected (end|token)|JSON input|terminated|fetch failed|E[A-Z]{4,}|socket|TypeError|SyntaxError/;
    const cases: [string, Parameters<FakeAnthropic['enqueue']>[0], RegExp][] = [
      // A gateway or a wrong base URL answering with a web page, status 200.
      [
        'a web page',
        { kind: 'malformed', body: '<html><body>502 Bad Gateway</body></html>', contentType: 'text/html' },
        /not an answer of the Messages API.*base URL/,
      ],
      ['JSON not of the API', { kind: 'malformed', body: '{"ok":true}' }, /not an answer of the Messages API.*base URL/],
      ['cut JSON', { kind: 'malformed' }, /cut short or was not JSON.*[Tt]ry again/],
      ['a body cut mid-answer', { kind: 'message', text: 'a long answer '.repeat(50), cutAfterBytes: 120 }, /cut short|connection.*(closed|lost)/],
      ['429', { kind: 'error', status: 429, retryAfterMs: 1 }, /rate-limiting.*[Tt]ry again in a minute/],
      ['529', { kind: 'error', status: 529, retryAfterMs: 1 }, /overloaded.*[Tt]ry again in a few minutes/],
      ['500', { kind: 'error', status: 500, retryAfterMs: 1 }, /failed.*[Tt]ry again/],
    ];
    for (const [name, reply, says] of cases) {
      fake.enqueue(reply);
      const error = await failure(provider({ maxRetries: 0 }).complete(ask));
      expect(error.message, name).toMatch(says);
      expect(error.message, name).not.toMatch(unreadable);
    }
    fake.enqueue({ kind: 'hang' });
    const timeout = await failure(provider({ maxRetries: 0, timeoutMs: 200 }).complete(ask));
    expect(timeout.message).toMatch(/did not answer within 0\.2 s.*[Tt]ry again/);
    // Nothing listens: the address in words, and what to check.
    const closed = await startFakeAnthropic();
    await closed.close();
    const gone = new AnthropicProvider({ apiKey: KEY, baseURL: closed.url, models: DEFAULT_MODELS, timeoutMs: 2_000, maxRetries: 0 });
    const network = await failure(gone.complete(ask));
    expect(network.kind).toBe('network');
    expect(network.message).toMatch(/could not be reached.*(connection|network|base URL)/);
    expect(network.message).not.toMatch(unreadable);
  });

  it('redacts its key from any line', () => {
    expect(provider().redact(`failed with key ${KEY} and sk-ant-other-secret-abcdef`)).toBe('failed with key [redacted] and sk-ant-[redacted]');
  });
});
