import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CredentialCipher, CREDENTIALS_FILE, FileCredentialStore } from './credentials.js';
import { runWorkersTogether } from '../memdir/test-support/spawn-worker.js';

let dataDir: string;
beforeEach(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-cred-'));
});
afterEach(async () => {
  await fs.rm(dataDir, { recursive: true, force: true });
});

/** A reversible stand-in for Electron's safeStorage (XOR; the real one is the OS keychain). */
const xorCipher: CredentialCipher = {
  encrypt: (text) => Buffer.from(Buffer.from(text, 'utf8').map((b) => b ^ 0x5a)),
  decrypt: (data) => Buffer.from(data.map((b) => b ^ 0x5a)).toString('utf8'),
};

describe('file credential store', () => {
  it('stores, reads and deletes by name in a 0600 file, saying it is unencrypted', async () => {
    const store = new FileCredentialStore(dataDir);
    expect(store.encrypted).toBe(false);
    expect(await store.get('anthropic-api-key')).toBeNull();
    await Promise.all([store.set('anthropic-api-key', 'sk-ant-test-123'), store.set('team-token', 'tok')]);
    expect(await store.get('anthropic-api-key')).toBe('sk-ant-test-123');
    expect(await store.list()).toEqual(['anthropic-api-key', 'team-token']);
    const stat = await fs.stat(path.join(dataDir, CREDENTIALS_FILE));
    if (process.platform !== 'win32') expect(stat.mode & 0o777).toBe(0o600);
    const raw = JSON.parse(await fs.readFile(path.join(dataDir, CREDENTIALS_FILE), 'utf8'));
    expect(raw.encrypted).toBe(false);
    await store.delete('team-token');
    expect(await store.list()).toEqual(['anthropic-api-key']);
  });

  it('encrypts with the shell cipher: the value is not on disk in clear', async () => {
    const store = new FileCredentialStore(dataDir, xorCipher);
    expect(store.encrypted).toBe(true);
    await store.set('anthropic-api-key', 'sk-ant-secret-value');
    const text = await fs.readFile(path.join(dataDir, CREDENTIALS_FILE), 'utf8');
    expect(text).not.toContain('sk-ant-secret-value');
    expect(await store.get('anthropic-api-key')).toBe('sk-ant-secret-value');
    // Without the cipher (the CLI), an encrypted value is unreadable: null, not garbage.
    expect(await new FileCredentialStore(dataDir).get('anthropic-api-key')).toBeNull();
  });

  it('reports a damaged file in words and can overwrite it', async () => {
    await fs.writeFile(path.join(dataDir, CREDENTIALS_FILE), 'garbage');
    const store = new FileCredentialStore(dataDir);
    await expect(store.get('anthropic-api-key')).rejects.toThrow(/damaged/);
    await store.set('anthropic-api-key', 'k');
    expect(await store.get('anthropic-api-key')).toBe('k');
    await expect(store.set('../evil', 'x')).rejects.toThrow(/not a valid credential name/);
  });
});

describe('credentials saved by more than one writer', () => {
  const worker = path.join(path.dirname(fileURLToPath(import.meta.url)), 'test-support', 'credentials-worker.ts');

  it('keeps both tokens when two stores in one process (the app and a team connection) save at once', async () => {
    const app = new FileCredentialStore(dataDir);
    const team = new FileCredentialStore(dataDir);
    await Promise.all([app.set('anthropic-api-key', 'sk-app'), team.set('team-token', 'tok-team'), app.set('personal-token', 'tok-personal')]);
    const reader = new FileCredentialStore(dataDir);
    expect(await reader.list()).toEqual(['anthropic-api-key', 'personal-token', 'team-token']);
    expect(await reader.get('team-token')).toBe('tok-team');
    expect((await fs.stat(path.join(dataDir, CREDENTIALS_FILE))).mode & 0o777).toBe(0o600);
  });

  it('keeps every token of two processes (the app and memdir team in a terminal) saving at the same time', async () => {
    const count = 6;
    expect(
      await runWorkersTogether(worker, [
        [dataDir, 'app', String(count)],
        [dataDir, 'cli', String(count)],
      ]),
    ).toEqual([0, 0]);
    const store = new FileCredentialStore(dataDir);
    const expected = ['app', 'cli'].flatMap((prefix) => Array.from({ length: count }, (_, n) => `${prefix}-${n}`)).sort();
    expect(await store.list()).toEqual(expected);
    expect(await store.get('cli-3')).toBe('token-cli-3');
    expect((await fs.stat(path.join(dataDir, CREDENTIALS_FILE))).mode & 0o777).toBe(0o600);
  });

  it('keeps an encrypted entry written by another store while carrying plain entries over to encryption', async () => {
    await new FileCredentialStore(dataDir).set('team-token', 'tok-team');
    await Promise.all([
      new FileCredentialStore(dataDir, xorCipher).set('anthropic-api-key', 'sk-enc'),
      new FileCredentialStore(dataDir, xorCipher).delete('nothing-here'),
    ]);
    const text = await fs.readFile(path.join(dataDir, CREDENTIALS_FILE), 'utf8');
    expect(text).not.toContain('tok-team');
    expect(text).not.toContain('sk-enc');
    const store = new FileCredentialStore(dataDir, xorCipher);
    expect(await store.get('team-token')).toBe('tok-team');
    expect(await store.get('anthropic-api-key')).toBe('sk-enc');
  });
});
