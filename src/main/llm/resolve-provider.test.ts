import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseAppSettings } from '../settings/app-settings.js';
import { CREDENTIAL_NAMES, FileCredentialStore } from '../settings/credentials.js';
import { resolveProvider } from './resolve-provider.js';
import { startFakeAnthropic } from './test-support/fake-anthropic.js';
import { installFakeClaude } from './test-support/fake-claude.js';
import { LlmError } from './types.js';

let root: string;
beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-resolve-'));
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

const settings = (model: Record<string, unknown> = {}) => parseAppSettings({ model }).settings;
const noCli = () => ({ PATH: path.join(root, 'nothing-here') });

describe('resolveProvider', () => {
  it('auto: Anthropic when ANTHROPIC_API_KEY is set, honouring ANTHROPIC_BASE_URL', async () => {
    const fake = await startFakeAnthropic();
    try {
      const p = await resolveProvider(settings(), { ...noCli(), ANTHROPIC_API_KEY: 'sk-ant-env-key-123456', ANTHROPIC_BASE_URL: fake.url }, { dataDir: root });
      expect(p.kind).toBe('anthropic');
      const status = await p.status();
      expect(status).toMatchObject({ state: 'online', endpoint: fake.url });
      expect(status.reason).toContain('ANTHROPIC_API_KEY');
      expect(status.reason).not.toContain('sk-ant-env-key');
      await p.complete({ task: 'recall', messages: [{ role: 'user', content: 'x' }], maxTokens: 5 });
      expect(fake.messageRequests()).toHaveLength(1);
    } finally {
      await fake.close();
    }
  });

  it('auto: a key from the credential store when the environment has none', async () => {
    const credentials = new FileCredentialStore(root);
    await credentials.set(CREDENTIAL_NAMES.anthropicApiKey, 'sk-ant-stored-key-123456');
    const p = await resolveProvider(settings(), noCli(), { dataDir: root, credentials });
    expect(p.kind).toBe('anthropic');
    expect((await p.status()).reason).toMatch(/credential store \(unencrypted\)/);
  });

  it('auto: the Claude Code CLI when there is no key but the CLI runs', async () => {
    const fake = await installFakeClaude(path.join(root, 'bin'), {}, noCli());
    const p = await resolveProvider(settings(), fake.env, { dataDir: root });
    expect(p.kind).toBe('claude-cli');
  });

  it('auto with nothing: offline as a mode, and calls reject with kind offline', async () => {
    const p = await resolveProvider(settings(), noCli(), { dataDir: root });
    expect(p.kind).toBe('offline');
    expect(await p.status()).toMatchObject({ state: 'offline' });
    const error = await p.complete({ task: 'recall', messages: [], maxTokens: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmError);
    expect((error as LlmError).kind).toBe('offline');
  });

  it('an explicit choice wins; one that cannot work is an error status with the reason', async () => {
    const env = { ...noCli(), ANTHROPIC_API_KEY: 'sk-ant-env-key-123456' };
    expect((await resolveProvider(settings({ provider: 'offline' }), env, { dataDir: root })).kind).toBe('offline');
    expect((await resolveProvider(settings(), env, { dataDir: root, offline: true })).kind).toBe('offline');
    const noKey = await resolveProvider(settings({ provider: 'anthropic' }), noCli(), { dataDir: root });
    expect(await noKey.status()).toMatchObject({ state: 'error', provider: 'offline' });
    expect((await noKey.status()).reason).toMatch(/no API key/);
    const noCliChosen = await resolveProvider(settings({ provider: 'claude-cli' }), env, { dataDir: root });
    expect(await noCliChosen.status()).toMatchObject({ state: 'error' });
  });
});
