import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_MODELS } from '../settings/app-settings.js';
import { ClaudeCliProvider, detectClaudeCli } from './claude-cli-provider.js';
import { installFakeClaude } from './test-support/fake-claude.js';
import { LlmError } from './types.js';
import { UsageLog } from './usage-log.js';

let root: string;
beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-cli-llm-'));
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

const ask = { task: 'recall' as const, system: 'answer in JSON', messages: [{ role: 'user' as const, content: 'which memories?' }], maxTokens: 100 };
const provider = (env: NodeJS.ProcessEnv, timeoutMs = 5_000) =>
  new ClaudeCliProvider({ env, dataDir: path.join(root, 'data'), models: DEFAULT_MODELS, timeoutMs, usageLog: new UsageLog(path.join(root, 'data')) });

async function failure(promise: Promise<unknown>): Promise<LlmError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LlmError);
  return error as LlmError;
}

describe('ClaudeCliProvider with a fake claude on PATH', () => {
  it('runs claude -p with the prompt on stdin, parses result, usage and reported cost', async () => {
    const fake = await installFakeClaude(path.join(root, 'bin'), {
      result: '{"selected":[]}',
      usage: { input_tokens: 900, output_tokens: 12 },
      totalCostUsd: 0.0031,
    });
    const p = provider(fake.env);
    expect(await p.status()).toMatchObject({ state: 'online', provider: 'claude-cli' });
    const result = await p.complete(ask);
    expect(result.text).toBe('{"selected":[]}');
    expect(result.usage).toMatchObject({ inputTokens: 900, outputTokens: 12 });
    expect(result.costUsd).toBe(0.0031);
    expect(result.costNote).toMatch(/reported by Claude Code/);
    const [call] = await fake.calls();
    expect(call!.argv.slice(0, 3)).toEqual(['-p', '--output-format', 'json']);
    expect(call!.argv).toContain('--model');
    expect(call!.argv[call!.argv.indexOf('--system-prompt') + 1]).toBe('answer in JSON');
    expect(call!.stdin).toBe('which memories?');
    // Runs in Memdir's own folder, marked as Memdir's, so its transcripts and hooks stay apart.
    expect(call!.cwd).toBe(await fs.realpath(path.join(root, 'data', 'claude-cli')));
    expect(call!.env.MEMDIR_INTERNAL).toBe('1');
    expect((await new UsageLog(path.join(root, 'data')).read())[0]).toMatchObject({ provider: 'claude-cli', outcome: 'ok', inputTokens: 900 });
  });

  it('handles an absent CLI cleanly', async () => {
    const env = { ...process.env, PATH: path.join(root, 'empty') };
    expect((await detectClaudeCli('claude', env)).available).toBe(false);
    const p = provider(env);
    expect(await p.status()).toMatchObject({ state: 'error', provider: 'claude-cli' });
    expect((await failure(p.complete(ask))).kind).toBe('unavailable');
  });

  it('reports a logged-out CLI as an auth error, garbage as a bad answer, a crash with its exit code', async () => {
    const loggedOut = await installFakeClaude(path.join(root, 'a'), { errorResult: 'Invalid API key · Please run /login' });
    expect((await failure(provider(loggedOut.env).complete(ask))).kind).toBe('auth');
    const garbage = await installFakeClaude(path.join(root, 'b'), { rawStdout: 'not json at all' });
    expect((await failure(provider(garbage.env).complete(ask))).kind).toBe('bad-response');
    const crash = await installFakeClaude(path.join(root, 'c'), { exitCode: 3, stderr: 'boom\n' });
    const error = await failure(provider(crash.env).complete(ask));
    expect(error.kind).toBe('server');
    expect(error.message).toMatch(/exit 3.*boom/);
  });

  it('times out and can be cancelled', async () => {
    const slow = await installFakeClaude(path.join(root, 'slow'), { delayMs: 5_000 });
    expect((await failure(provider(slow.env, 300).complete(ask))).kind).toBe('timeout');
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    expect((await failure(provider(slow.env).complete({ ...ask, signal: controller.signal }))).kind).toBe('aborted');
  });

  it('refuses tools instead of pretending', async () => {
    const fake = await installFakeClaude(path.join(root, 'bin'), {});
    const error = await failure(provider(fake.env).complete({ ...ask, tools: [{ name: 't', input_schema: { type: 'object' } }] }));
    expect(error.kind).toBe('unsupported');
  });
});
