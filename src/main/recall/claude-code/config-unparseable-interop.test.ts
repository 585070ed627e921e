/**
 * The real Claude Code with a `.claude.json` that is not JSON: `memdir recall --claude-code` tells
 * the user the client does not start with it, on the strength of a recording
 * (test/fixtures/claude-code/config-unparseable-2.1.332.json, read by src/cli/commands/recall.test.ts).
 * This runs the pinned client offline against such a config and checks the recording still says
 * what it does, so a client that started anyway would fail here. Skipped, with the reason, without it.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeAnthropic, startFakeAnthropic } from '../../llm/test-support/fake-anthropic.js';
import { PINNED_CLAUDE_CODE, REAL_CLAUDE_CODE, runClaudeCode } from '../../llm/test-support/real-claude-code.js';

const FIXTURE = path.resolve(import.meta.dirname, `../../../../test/fixtures/claude-code/config-unparseable-${PINNED_CLAUDE_CODE}.json`);
const BROKEN = '{"numStartups": 3, broken';

interface ConfigUnparseableRecording {
  client: string;
  exitCode: number;
  stdout: string;
  stderr: string[];
}

const skip = REAL_CLAUDE_CODE.found ? null : REAL_CLAUDE_CODE.reason;

describe.skipIf(skip !== null)(`a .claude.json that is not JSON, in the real Claude Code${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let root: string;
  let fake: FakeAnthropic;
  beforeEach(async () => {
    root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-cc-config-')));
    fake = await startFakeAnthropic();
  });
  afterEach(async () => {
    await fake.close();
    await fs.rm(root, { recursive: true, force: true });
  });

  it('the client does not start with it, says so and keeps the file, as the recording the recall switch relies on says', async () => {
    const configDir = path.join(root, 'home');
    const scratch = path.join(root, 'scratch');
    const cwd = path.join(root, 'project');
    for (const dir of [configDir, scratch, cwd]) await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(path.join(configDir, '.claude.json'), BROKEN);

    const run = await runClaudeCode(['-p', 'hi'], { cwd, configDir, scratch, baseUrl: fake.url });

    const backups = await fs.readdir(path.join(configDir, 'backups')).catch(() => []);
    const seen: ConfigUnparseableRecording = {
      client: PINNED_CLAUDE_CODE,
      exitCode: run.code ?? -1,
      stdout: run.stdout,
      stderr: run.stderr
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => line.replaceAll(configDir, '<home>').replace(/\.corrupted\.\d+/, '.corrupted.<ms>')),
    };
    const recorded = JSON.parse(await fs.readFile(FIXTURE, 'utf8')) as ConfigUnparseableRecording;
    expect(seen, `Claude Code ${PINNED_CLAUDE_CODE} no longer does what ${path.basename(FIXTURE)} recorded`).toEqual({
      client: recorded.client,
      exitCode: recorded.exitCode,
      stdout: recorded.stdout,
      stderr: recorded.stderr,
    });
    // It never got as far as a request: no session, so no recall.
    expect(fake.requests).toEqual([]);
    // configAfter: the same bytes, and a copy in <home>/backups.
    expect(await fs.readFile(path.join(configDir, '.claude.json'), 'utf8')).toBe(BROKEN);
    expect(backups).toEqual([expect.stringMatching(/^\.claude\.json\.corrupted\.\d+$/)]);
    expect(await fs.readFile(path.join(configDir, 'backups', backups[0]!), 'utf8')).toBe(BROKEN);
  }, 120_000);
});
