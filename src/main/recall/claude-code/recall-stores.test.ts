/**
 * Recall in Claude Code 2.1.332's memory-store mode, replayed from what the real client did
 * (test/fixtures/claude-code/recall-stores-2.1.332.json and stores-setting-2.1.332.json, recorded by
 * claude-code-interop.test.ts): the list Memdir says Claude Code offers its selector is the list the
 * client offered, line for line, with the setting valid, unusable, blank or absent, and the recall
 * switch follows the setting wherever it is set (shell or a settings file's env block). Always runs:
 * no binary needed.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type MemoryStoresSetting, readEffectiveSettings } from '../../memdir/index.js';
import { writeRecallScenario } from '../test-support/claude-code-recall-scenario.js';
import {
  INVALID_STORE_VALUES,
  recordedManifest,
  STORES_RECALL_FIXTURE,
  STORES_SETTING_FIXTURE,
  type StoresRecallRecording,
} from '../test-support/claude-code-stores-recall-cases.js';
import { newClaudeCodeSession, recallLikeClaudeCode } from './recall-like-claude-code.js';
import { readClaudeCodeRecallSwitch } from './recall-switch.js';

interface SettingRun {
  instructions: string[];
  selectorAsked: number;
  beyondPlain: string[];
  missingFromPlain: string[];
}
const recording = JSON.parse(await fs.readFile(STORES_RECALL_FIXTURE, 'utf8')) as StoresRecallRecording;
const settingRuns = JSON.parse(await fs.readFile(STORES_SETTING_FIXTURE, 'utf8')) as {
  unset: SettingRun;
  shell: Record<string, SettingRun>;
  settingsEnvBlock: SettingRun;
};

let root: string;
let memoryDir: string;
beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-cc-stores-recall-'));
  memoryDir = path.join(root, 'memory');
  await writeRecallScenario(memoryDir);
  for (const [rel, text] of Object.entries(recording.files)) {
    await fs.mkdir(path.dirname(path.join(memoryDir, rel)), { recursive: true });
    await fs.writeFile(path.join(memoryDir, rel), text);
  }
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

/** What Memdir says Claude Code offers its selector for the recorded prompt, as the recording writes it down. */
async function offered(memoryStores: MemoryStoresSetting): Promise<string[]> {
  const result = await recallLikeClaudeCode({
    session: newClaudeCodeSession(memoryDir),
    query: recording.query,
    provider: null,
    model: 'claude-sonnet-5-5',
    autoMemoryEnabled: true,
    memoryStores,
    recallSwitch: { state: 'on', reason: '' },
  });
  expect(result.outcome).toBe('not-sent');
  return recordedManifest(result.request!.messages[0]!.content[0]!.text);
}

describe("Memdir's Claude Code recall offers what 2.1.332 offers", () => {
  it('with a valid CLAUDE_MEMORY_STORES: every MEMORY.md but the root one, store files at any depth, a line of text for a missing description', async () => {
    expect(await offered({ value: recording.stores, from: 'CLAUDE_MEMORY_STORES' })).toEqual(recording.withStores);
  });

  it('without it: the plain list', async () => {
    expect(await offered(null)).toEqual(recording.withoutStores);
  });

  it('the setting set in a settings env block counts like the shell', async () => {
    const { settingsEnvBlock } = settingRuns;
    const list = await offered({ value: recording.stores, from: `CLAUDE_MEMORY_STORES in the env block of ${path.join(root, 'settings.json')}` });
    expect(list.filter((l) => !recording.withoutStores.includes(l))).toEqual(settingsEnvBlock.beyondPlain);
    expect(recording.withoutStores.filter((l) => !list.includes(l))).toEqual(settingsEnvBlock.missingFromPlain);
  });

  it.each(INVALID_STORE_VALUES.filter((v) => v.trim() !== ''))('a value the client cannot use (%j): recall is on, the plain list is offered', async (value) => {
    const run = settingRuns.shell[value]!;
    expect(run.selectorAsked).toBe(1);
    const list = await offered({ value, from: 'CLAUDE_MEMORY_STORES' });
    expect(list.filter((l) => !recording.withoutStores.includes(l))).toEqual(run.beyondPlain);
    expect(recording.withoutStores.filter((l) => !list.includes(l))).toEqual(run.missingFromPlain);
  });
});

describe("Claude Code's recall switch follows CLAUDE_MEMORY_STORES wherever it is set", () => {
  /** A home with no cached server flag (recall off by it) and the user's settings as given. */
  async function home(settings: unknown): Promise<string> {
    const dir = path.join(root, 'claude');
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(path.join(dir, '.claude.json'), JSON.stringify({ cachedGrowthBookFeatures: { tengu_moth_copse: false } }));
    await fs.writeFile(path.join(dir, 'settings.json'), JSON.stringify(settings));
    return dir;
  }
  const switchFor = async (claudeHome: string, env: NodeJS.ProcessEnv) => {
    const settings = await readEffectiveSettings(claudeHome, null, env, { managedDir: path.join(root, 'no-managed') });
    return readClaudeCodeRecallSwitch(claudeHome, env, settings);
  };

  it('in a settings file env block, as in the shell: on (recorded: the selector was asked)', async () => {
    expect(settingRuns.settingsEnvBlock.selectorAsked).toBe(1);
    const claudeHome = await home({ env: { CLAUDE_MEMORY_STORES: recording.stores } });
    const seen = await switchFor(claudeHome, { CLAUDE_CONFIG_DIR: claudeHome });
    expect(seen.state).toBe('on');
    expect(seen.reason).toContain(path.join(claudeHome, 'settings.json'));
  });

  it('set to a value the client cannot use: still on; blank: off (recorded)', async () => {
    const claudeHome = await home({});
    for (const value of INVALID_STORE_VALUES) {
      const seen = await switchFor(claudeHome, { CLAUDE_CONFIG_DIR: claudeHome, CLAUDE_MEMORY_STORES: value });
      expect(seen.state, value).toBe(settingRuns.shell[value]!.selectorAsked > 0 ? 'on' : 'off');
    }
    expect(settingRuns.unset.selectorAsked).toBe(0);
    expect((await switchFor(claudeHome, { CLAUDE_CONFIG_DIR: claudeHome })).state).toBe('off');
  });
});
