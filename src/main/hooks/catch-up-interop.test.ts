/**
 * Catching up on the sessions the real Claude Code ran while Memdir was closed (no hooks, issue
 * s45), offline: Claude Code's requests and Memdir's extraction go to the fake Messages API.
 * Claude Code 2.1.332 appends a `--resume`d session to its transcript, and writes a
 * `--fork-session` as a new transcript that copies the history with its lines' own times (the
 * copied answers keep the source's `requestSessionId`): the next start extracts the turns that
 * ended while Memdir was closed, once, never the history before Memdir ever watched. Skipped, with the reason, when the pinned Claude Code is not installed.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sanitizeDirName } from '../../shared/sanitize.js';
import { AppContext } from '../app/app-context.js';
import { waitFor } from '../core/test-support/wait-for.js';
import { fakeProvider, operationsReply } from '../extract/test-support/extract-fixture.js';
import { type FakeAnthropic, type FakeRequest, startFakeAnthropic } from '../llm/test-support/fake-anthropic.js';
import { type ClaudeRunOptions, REAL_CLAUDE_CODE, runClaudeCode } from '../llm/test-support/real-claude-code.js';
import { updateAppSettings } from '../settings/app-settings.js';
import { AutoMemory } from './auto-memory.js';

const skip = REAL_CLAUDE_CODE.found ? null : REAL_CLAUDE_CODE.reason;
/** Memdir's extraction request (its system prompt), not one of Claude Code's. */
const isMemdirExtraction = (r: FakeRequest) => JSON.stringify(r.body?.system ?? '').includes('You maintain the long-term memory of an AI coding agent');

describe.skipIf(skip !== null)(`catching up on what the real Claude Code did while Memdir was closed${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let root: string;
  let dataDir: string;
  let fake: FakeAnthropic;
  let run: ClaudeRunOptions;

  beforeAll(async () => {
    root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-cc-catchup-')));
    dataDir = path.join(root, 'data');
    const configDir = path.join(root, 'claude-home');
    const project = path.join(root, 'project');
    const scratch = path.join(root, 'scratch');
    for (const dir of [configDir, project, scratch]) await fs.mkdir(dir, { recursive: true });
    fake = await startFakeAnthropic();
    fake.setHandler((r) => (isMemdirExtraction(r) ? operationsReply() : { kind: 'message', text: 'ok' }));
    run = { cwd: project, configDir, scratch, baseUrl: fake.url };
    await updateAppSettings(dataDir, { extraction: { mode: 'review', quietSeconds: 1, idleCloseSeconds: 5 } });
  });
  afterAll(async () => {
    await fake?.close();
    if (root) await fs.rm(root, { recursive: true, force: true });
  });

  async function prompt(text: string, extra: string[] = []): Promise<string> {
    const result = await runClaudeCode(['-p', text, '--output-format', 'json', ...extra], run);
    expect(result.code, result.stderr).toBe(0);
    return (JSON.parse(result.stdout) as { session_id: string }).session_id;
  }

  async function app(): Promise<{ auto: AutoMemory; ctx: AppContext }> {
    const ctx = await AppContext.create({ homeFlag: run.configDir, dataDir, env: {} });
    const provider = await fakeProvider(fake, dataDir);
    const auto = new AutoMemory(ctx, { provider: async () => provider });
    await auto.start();
    await auto.watching();
    return { auto, ctx };
  }

  const extractionsOf = (text: string) => fake.messageRequests().filter((r) => isMemdirExtraction(r) && JSON.stringify(r.body?.messages ?? '').includes(text));

  it('extracts the resumed and the forked session’s new turns once, and never the history from before Memdir watched', async () => {
    const id = await prompt('the deploy goes through staging');
    // Memdir first watches a while later (more than its allowance for clocks), then quits.
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    const first = await app();
    await first.auto.close();
    await first.ctx.close();

    // While Memdir is closed: the session is resumed, then forked into a new one. The fork copies
    // the resumed turn with its time too: it is the source's, extracted from the source alone
    // (review s45-3 #4: it was extracted from both transcripts).
    const sameId = await prompt('the resumed turn while memdir was closed', ['--resume', id]);
    const forkId = await prompt('we never mock the database in integration tests', ['--resume', id, '--fork-session']);
    expect(sameId).toBe(id);
    expect(forkId).not.toBe(id);
    const transcripts = path.join(run.configDir, 'projects', sanitizeDirName(run.cwd));
    const fork = await fs.readFile(path.join(transcripts, `${forkId}.jsonl`), 'utf8');
    expect(fork.includes('the deploy goes through staging') && fork.includes('the resumed turn while memdir was closed')).toBe(true);
    // Memdir starts later.
    await new Promise((resolve) => setTimeout(resolve, 1_500));

    const second = await app();
    try {
      await waitFor(
        () => extractionsOf('the resumed turn while memdir was closed').length > 0 && extractionsOf('we never mock the database').length > 0,
        30_000,
        'both sessions’ new turns to go to extraction',
      );
      await waitFor(() => second.ctx.jobs.list().every((j) => j.kind !== 'extract' || j.state === 'done' || j.state === 'failed'), 15_000, 'the runs to end');
      await second.auto.extraction.idle();
      expect(extractionsOf('the resumed turn while memdir was closed')).toHaveLength(1);
      expect(extractionsOf('we never mock the database')).toHaveLength(1);
      expect(extractionsOf('the deploy goes through staging')).toEqual([]);
    } finally {
      await second.auto.close();
      await second.ctx.close();
    }
  }, 90_000);
});
