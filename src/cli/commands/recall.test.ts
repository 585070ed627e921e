import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CliIo, UsageError } from '../command.js';
import { ProjectNotFoundError } from '../../main/memdir/projects.js';
import { TranscriptNotFoundError } from '../../main/recall/recall-service.js';
import { type FakeAnthropic, jsonReply, startFakeAnthropic } from '../../main/llm/test-support/fake-anthropic.js';
import { writeMemoryFixture } from '../../main/recall/test-support/memory-fixture.js';
import { recallCommand } from './recall.js';

let root: string;
let home: string;
let dataDir: string;
let fake: FakeAnthropic;

beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-cli-recall-'));
  home = path.join(root, 'claude-home');
  dataDir = path.join(root, 'data');
  await writeMemoryFixture(path.join(home, 'projects', '-work-shop', 'memory'));
  // Short budgets: a failing model must not slow the suite.
  await fs.mkdir(dataDir, { recursive: true });
  await fs.writeFile(path.join(dataDir, 'settings.json'), JSON.stringify({ model: { maxRetries: 0 }, recall: { timeoutMs: 1_000 } }));
  fake = await startFakeAnthropic();
});
afterEach(async () => {
  await fake.close();
  await fs.rm(root, { recursive: true, force: true });
});

function io(env: NodeJS.ProcessEnv): CliIo & { stdout: () => string; stderr: () => string } {
  let out = '';
  let err = '';
  return {
    out: (t) => {
      out += t;
    },
    err: (t) => {
      err += t;
    },
    env,
    cwd: root,
    stdout: () => out,
    stderr: () => err,
  };
}

const online = () => ({
  PATH: path.join(root, 'no-bin'),
  MEMDIR_DATA_DIR: dataDir,
  ANTHROPIC_API_KEY: 'sk-ant-cli-test-key-0123456789',
  ANTHROPIC_BASE_URL: fake.url,
  HOME: root,
});
const offline = () => ({ PATH: path.join(root, 'no-bin'), MEMDIR_DATA_DIR: dataDir, HOME: root });

async function run(values: Record<string, string | boolean>, env: NodeJS.ProcessEnv) {
  const cli = io(env);
  const code = await recallCommand.run({ positionals: [], values: { home, ...values }, io: cli });
  return { code, out: cli.stdout(), err: cli.stderr() };
}

describe('memdir recall', () => {
  it('--json on a failed model call: the fallback and the failure, documented, in whole milliseconds like latencyMs, never the key', async () => {
    fake.enqueue({ kind: 'error', status: 401, type: 'authentication_error', message: 'invalid x-api-key sk-ant-cli-test-key-0123456789' });
    const { code, out } = await run({ project: '-work-shop', query: 'can I use an ORM?', json: true }, online());
    expect(code).toBe(0);
    expect(out).not.toContain('sk-ant-cli-test-key');
    const json = JSON.parse(out);
    expect(json).toMatchObject({ method: 'local', fallbackReason: expect.stringMatching(/^The API refused the key \(HTTP 401\)/) });
    expect(json.modelError).toEqual({ kind: 'auth', message: json.fallbackReason, latencyMs: expect.any(Number) });
    expect(Number.isInteger(json.modelError.latencyMs)).toBe(true);
    // What a script reads on failure is in the contract --help shows.
    for (const key of ['fallbackReason', 'modelError', 'kind', 'explanation']) expect(recallCommand.details).toContain(`"${key}"`);
  });

  it('--json: the model selects through ANTHROPIC_BASE_URL (the contract fields)', async () => {
    fake.enqueue(jsonReply({ selected: [{ file: 'feedback_no_orm.md', reason: 'ORM rule' }] }, { usage: { input_tokens: 321, output_tokens: 9 } }));
    const { code, out } = await run({ project: '-work-shop', query: 'can I use an ORM?', json: true }, online());
    expect(code).toBe(0);
    const json = JSON.parse(out);
    expect(json).toMatchObject({
      method: 'model',
      selected: [{ file: 'feedback_no_orm.md', reason: 'ORM rule' }],
      tokens: { inputTokens: 321, outputTokens: 9 },
    });
    expect(typeof json.latencyMs).toBe('number');
    expect(Number.isInteger(json.latencyMs)).toBe(true);
    expect(json.fallbackReason).toBeUndefined();
    expect(json.project.dir).toBe('-work-shop');
    expect(fake.messageRequests()).toHaveLength(1);
  });

  it('--json: falls back to the local ranker with the reason when the model fails', async () => {
    fake.enqueue({ kind: 'error', status: 529 });
    const { code, out } = await run({ project: '-work-shop', query: 'can I use an ORM?', json: true }, online());
    expect(code).toBe(0);
    const json = JSON.parse(out);
    expect(json.method).toBe('local');
    expect(json.fallbackReason).toMatch(/overloaded/);
    expect(json.selected[0]).toMatchObject({ file: 'feedback_no_orm.md' });
    expect(json.selected[0].score).toBeGreaterThan(0);
  });

  it('--offline and no key both use the local ranker without a request', async () => {
    const forced = JSON.parse((await run({ project: '-work-shop', query: '双十一前能发版吗', offline: true, json: true }, online())).out);
    expect(forced.method).toBe('local');
    expect(forced.selected[0].file).toBe('project_release_freeze.md');
    const none = JSON.parse((await run({ project: '-work-shop', query: 'python in CI', json: true }, offline())).out);
    expect(none.method).toBe('local');
    expect(none.fallbackReason).toBeUndefined();
    expect(fake.messageRequests()).toHaveLength(0);
  });

  it('prints a short table with method and fallback reason', async () => {
    fake.enqueue({ kind: 'message', text: 'The ORM one, I believe.' });
    const { code, out } = await run({ project: '-work-shop', query: 'can I use an ORM?' }, online());
    expect(code).toBe(0);
    expect(out).toMatch(/method: local ranker/);
    expect(out).toMatch(/fallback: The model answered in prose/);
    expect(out).toMatch(/1\s+feedback_no_orm\.md\s+\d/);
    expect(out).toMatch(/always loaded: MEMORY\.md, 9 pointer/);
  });

  it('usage and I/O errors: missing or empty --query, unknown project (exit 2 via runCli)', async () => {
    await expect(run({ project: '-work-shop' }, offline())).rejects.toBeInstanceOf(UsageError);
    await expect(run({ project: '-work-shop', query: '  ' }, offline())).rejects.toBeInstanceOf(UsageError);
    await expect(run({ query: 'x' }, offline())).rejects.toBeInstanceOf(UsageError);
    await expect(run({ project: '-no-such-project', query: 'x' }, offline())).rejects.toBeInstanceOf(ProjectNotFoundError);
  });

  it('accepts a project path relative to the caller, for a project with no memory yet', async () => {
    await fs.mkdir(path.join(root, 'repo'));
    const json = JSON.parse((await run({ project: 'repo', query: 'anything', json: true }, offline())).out);
    expect(json).toMatchObject({ method: 'local', selected: [] });
    expect(json.notes.join(' ')).toMatch(/no topic files/);
  });

  describe('--claude-code', () => {
    it('a .claude.json that is there but not JSON is said so, never "not found" (recorded: the client then does not start)', async () => {
      const recorded = JSON.parse(
        await fs.readFile(path.join(import.meta.dirname, '../../../test/fixtures/claude-code/config-unparseable-2.1.332.json'), 'utf8'),
      );
      expect(recorded.exitCode).toBe(1);
      await fs.mkdir(home, { recursive: true });
      await fs.writeFile(path.join(home, '.claude.json'), '{"numStartups": 3, broken');
      const { code, out } = await run({ project: '-work-shop', query: 'ORM', 'claude-code': true, offline: true, json: true }, offline());
      expect(code).toBe(0);
      const { claudeCodeSwitch } = JSON.parse(out);
      expect(claudeCodeSwitch.state).toBe('unknown');
      expect(claudeCodeSwitch.reason).not.toContain('was found, so');
      expect(claudeCodeSwitch.reason).toBe(
        `Claude Code's config ${path.join(home, '.claude.json')} is there but cannot be read: it is not valid JSON (line 1, column 20). Claude Code 2.1.332 does not start with it (a configuration error) until it is fixed or moved aside, so whether its recall is switched on is unknown.`,
      );
    });

    it('a config that cannot be read at all (a folder by that name) is said so, without a claim the recording does not back (review s43)', async () => {
      await fs.mkdir(path.join(home, '.claude.json'), { recursive: true });
      const { out } = await run({ project: '-work-shop', query: 'ORM', 'claude-code': true, offline: true, json: true }, offline());
      const { claudeCodeSwitch } = JSON.parse(out);
      expect(claudeCodeSwitch.state).toBe('unknown');
      expect(claudeCodeSwitch.reason).toMatch(
        new RegExp(`^Claude Code's config ${path.join(home, '.claude.json').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is there but cannot be read: `),
      );
      expect(claudeCodeSwitch.reason).not.toContain('does not start');
      expect(claudeCodeSwitch.reason).not.toMatch(/EISDIR|errno/);
    });

    it('the first config file there decides, even when it cannot be read: a broken .config.json is not passed over for .claude.json (review s43)', async () => {
      await fs.mkdir(home, { recursive: true });
      await fs.writeFile(path.join(home, '.config.json'), '{broken');
      await fs.writeFile(path.join(home, '.claude.json'), JSON.stringify({ cachedGrowthBookFeatures: {} }));
      const { out } = await run({ project: '-work-shop', query: 'ORM', 'claude-code': true, offline: true, json: true }, offline());
      const { claudeCodeSwitch } = JSON.parse(out);
      expect(claudeCodeSwitch.state).toBe('unknown');
      expect(claudeCodeSwitch.reason).toContain(path.join(home, '.config.json'));
    });

    it('--json: loads what Claude Code would load, from its exact request, in subfolders too', async () => {
      await fs.mkdir(path.join(home, 'projects', '-work-shop', 'memory', 'retros'), { recursive: true });
      await fs.writeFile(
        path.join(home, 'projects', '-work-shop', 'memory', 'retros', 'q3.md'),
        '---\nname: Q3\ndescription: The Q3 retro on the orders outage\ntype: project\n---\n',
      );
      fake.enqueue({ kind: 'message', text: '{"selected_memories":["retros/q3.md","invented.md"]}', usage: { input_tokens: 700, output_tokens: 12 } });
      const { code, out } = await run({ project: '-work-shop', query: 'what went wrong with the orders outage', 'claude-code': true, json: true }, online());
      expect(code).toBe(0);
      const json = JSON.parse(out);
      expect(json).toMatchObject({
        mode: 'claude-code',
        claudeCodeVersion: '2.1.332',
        outcome: 'selected',
        selected: [{ file: 'retros/q3.md' }],
        dropped: [{ file: 'invented.md', reason: 'not in the manifest' }],
        tokens: { inputTokens: 700 },
      });
      expect(json.manifest).toMatchObject({ candidates: 10, offered: 10 });
      expect(json.neverRecalled).toMatchObject({ count: 0, files: [], cutoff: null });
      const body = fake.messageRequests()[0]!.body!;
      expect(body.output_config).toEqual({ format: { type: 'json_schema', schema: expect.objectContaining({ required: ['selected_memories'] }) } });
      expect(JSON.stringify(body)).not.toContain('BODY-SECRET');
      expect(Number.isInteger(json.latencyMs)).toBe(true);
    });

    it('prints what would load, what was dropped and what can never be recalled; a one-word prompt loads nothing', async () => {
      fake.enqueue({ kind: 'message', text: '{"selected_memories":["feedback_no_orm.md","nope.md"]}' });
      const { out } = await run({ project: '-work-shop', query: 'can I use an ORM?', 'claude-code': true }, online());
      expect(out).toMatch(/as Claude Code 2\.1\.332 would/);
      expect(out).toMatch(/outcome: selected/);
      expect(out).toMatch(/1\s+feedback_no_orm\.md/);
      expect(out).toMatch(/not loaded: nope\.md \(not in the manifest\)/);
      expect(out).toMatch(/manifest: 9 of 9 topic file\(s\) offered/);
      const single = await run({ project: '-work-shop', query: 'ORM', 'claude-code': true }, online());
      expect(single.out).toMatch(/outcome: skipped/);
      expect(single.out).toMatch(/two words or more/);
      expect(fake.messageRequests()).toHaveLength(1);
    });

    it('--offline shows the request without sending it; --session continues a session from its transcript', async () => {
      const offlineRun = JSON.parse((await run({ project: '-work-shop', query: 'two words', 'claude-code': true, offline: true, json: true }, online())).out);
      expect(offlineRun).toMatchObject({ outcome: 'not-sent', request: { max_tokens: 512, thinking: { type: 'disabled' } } });
      expect(fake.messageRequests()).toHaveLength(0);
      const transcript = path.join(root, 'session.jsonl');
      await fs.writeFile(
        transcript,
        `${JSON.stringify({ type: 'attachment', attachment: { type: 'relevant_memories', memories: [{ path: path.join(home, 'projects', '-work-shop', 'memory', 'feedback_no_orm.md'), content: 'x' }] } })}\n`,
      );
      fake.enqueue({ kind: 'message', text: '{"selected_memories":["feedback_no_orm.md"]}' });
      const continued = JSON.parse(
        (await run({ project: '-work-shop', query: 'can I use an ORM?', 'claude-code': true, session: 'session.jsonl', json: true }, online())).out,
      );
      expect(continued).toMatchObject({
        outcome: 'nothing',
        selected: [],
        dropped: [{ file: 'feedback_no_orm.md', reason: 'already loaded earlier in this session' }],
        session: { transcript, surfaced: ['feedback_no_orm.md'] },
      });
    });

    it('usage and I/O errors: --session without --claude-code, an unknown session', async () => {
      await expect(run({ project: '-work-shop', query: 'two words', session: 'abc' }, offline())).rejects.toBeInstanceOf(UsageError);
      await expect(run({ project: '-work-shop', query: 'two words', 'claude-code': true, session: 'no-such-session' }, offline())).rejects.toThrow(
        TranscriptNotFoundError,
      );
    });
  });
});
