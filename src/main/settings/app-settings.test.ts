import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_MODELS, appSettingsPath, defaultAppSettings, loadAppSettings, parseAppSettings, saveAppSettings, updateAppSettings } from './app-settings.js';
import { runWorkersTogether } from '../memdir/test-support/spawn-worker.js';
import { SETTINGS_PATCHES } from './test-support/concurrent-writers.js';

let dataDir: string;
beforeEach(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-settings-'));
});
afterEach(async () => {
  await fs.rm(dataDir, { recursive: true, force: true });
});

describe('app settings', () => {
  it('reads all defaults when there is no file, with recall on a Sonnet-class model', async () => {
    const load = await loadAppSettings(dataDir);
    expect(load.exists).toBe(false);
    expect(load.problems).toEqual([]);
    expect(load.settings.theme).toBe('system');
    expect(load.settings.model.provider).toBe('auto');
    expect(load.settings.model.models.recall).toBe(DEFAULT_MODELS.recall);
    expect(load.settings.model.models.recall).toMatch(/sonnet/);
  });

  it('keeps good values, replaces bad ones by defaults and says which', () => {
    const { settings, problems } = parseAppSettings({
      theme: 'purple',
      model: { provider: 'anthropic', baseURL: 'ftp://nope', timeoutMs: -5, models: { recall: 'claude-x', extract: '' } },
    });
    expect(settings.theme).toBe('system');
    expect(settings.model.provider).toBe('anthropic');
    expect(settings.model.baseURL).toBeNull();
    expect(settings.model.timeoutMs).toBe(defaultAppSettings().model.timeoutMs);
    expect(settings.model.models.recall).toBe('claude-x');
    expect(settings.model.models.extract).toBe(DEFAULT_MODELS.extract);
    expect(problems.join('\n')).toMatch(/"theme"/);
    expect(problems.join('\n')).toMatch(/"model.baseURL"/);
    expect(problems.join('\n')).toMatch(/"model.timeoutMs"/);
    expect(problems.join('\n')).toMatch(/"model.models.extract"/);
  });

  it('reads bad JSON as defaults with a problem, never a crash', async () => {
    await fs.writeFile(appSettingsPath(dataDir), '{"theme": "dark",');
    const load = await loadAppSettings(dataDir);
    expect(load.settings).toEqual(defaultAppSettings());
    expect(load.problems[0]).toMatch(/not valid JSON/);
    await fs.writeFile(appSettingsPath(dataDir), '[1,2]');
    expect((await loadAppSettings(dataDir)).problems[0]).toMatch(/not hold a JSON object/);
  });

  it('keeps sections it does not know across a save (a newer Memdir wrote them)', async () => {
    await fs.writeFile(appSettingsPath(dataDir), JSON.stringify({ theme: 'dark', team: { server: 'https://team.example' }, model: { futureKey: 1 } }));
    const load = await loadAppSettings(dataDir);
    await saveAppSettings(dataDir, load.settings);
    const saved = JSON.parse(await fs.readFile(appSettingsPath(dataDir), 'utf8'));
    expect(saved.team).toEqual({ server: 'https://team.example' });
    expect(saved.model.futureKey).toBe(1);
    expect(saved.theme).toBe('dark');
  });

  it('updates atomically and refuses an invalid change without writing', async () => {
    const ok = await updateAppSettings(dataDir, { model: { baseURL: 'http://127.0.0.1:9999', maxRetries: 1 } });
    expect(ok.ok).toBe(true);
    const load = await loadAppSettings(dataDir);
    expect(load.settings.model.baseURL).toBe('http://127.0.0.1:9999');
    expect(load.settings.model.maxRetries).toBe(1);
    expect(load.settings.model.provider).toBe('auto');
    const bad = await updateAppSettings(dataDir, { model: { maxRetries: 99 } });
    expect(bad.ok).toBe(false);
    expect((await loadAppSettings(dataDir)).settings.model.maxRetries).toBe(1);
    // No temp files left behind.
    expect((await fs.readdir(dataDir)).filter((n) => n.includes('.tmp-'))).toEqual([]);
  });
});

describe('settings saved by more than one writer', () => {
  const worker = path.join(path.dirname(fileURLToPath(import.meta.url)), 'test-support', 'settings-worker.ts');

  /** Every setting each writer saved, as it now reads from disk. */
  async function expectEverySaved(): Promise<void> {
    const { settings, problems } = await loadAppSettings(dataDir);
    expect(problems).toEqual([]);
    let expected = defaultAppSettings() as Record<string, unknown>;
    for (const patch of [...SETTINGS_PATCHES.app, ...SETTINGS_PATCHES.cli]) expected = mergeForTest(expected, patch as Record<string, unknown>);
    expect(settings).toEqual(expected);
  }

  it('keeps both changes when two calls in one process save different settings at once', async () => {
    const results = await Promise.all([...SETTINGS_PATCHES.app, ...SETTINGS_PATCHES.cli].map((patch) => updateAppSettings(dataDir, patch)));
    expect(results.every((r) => r.ok)).toBe(true);
    await expectEverySaved();
  });

  it('keeps every setting of two processes (the app and a terminal) saving at the same time', async () => {
    expect(
      await runWorkersTogether(worker, [
        [dataDir, 'app'],
        [dataDir, 'cli'],
      ]),
    ).toEqual([0, 0]);
    await expectEverySaved();
  });

  it('keeps a damaged settings file aside, under a dated name, when a change is saved over it', async () => {
    await fs.writeFile(appSettingsPath(dataDir), '{"theme": "dark",');
    expect(await updateAppSettings(dataDir, { model: { maxRetries: 99 } })).toMatchObject({ ok: false });
    expect(await fs.readFile(appSettingsPath(dataDir), 'utf8')).toBe('{"theme": "dark",');
    expect(await updateAppSettings(dataDir, { theme: 'light' })).toMatchObject({ ok: true });
    expect((await loadAppSettings(dataDir)).settings.theme).toBe('light');
    const aside = (await fs.readdir(dataDir)).filter((n) => n.startsWith('settings.json.damaged-'));
    expect(aside).toHaveLength(1);
    expect(await fs.readFile(path.join(dataDir, aside[0] ?? ''), 'utf8')).toBe('{"theme": "dark",');
  });
});

function mergeForTest(base: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const out = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    const now = out[key];
    out[key] = value && typeof value === 'object' && !Array.isArray(value) && now && typeof now === 'object' ? { ...now, ...value } : value;
  }
  return out;
}
