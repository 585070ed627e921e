/**
 * R-DREAM-GATE against the real Claude Code: in each home of claude-code-dream-cases.ts the
 * client runs a session of a few turns offline, and whether it started its own dream — with how many
 * sessions, which ones, or which gate stopped it — must equal both the recorded outcome
 * (test/fixtures/claude-code-dream/) and what Memdir says Claude Code would do there.
 * `MEMDIR_RECORD_DREAM_FIXTURES=1` rewrites the recording from what the client did.
 *
 * Two variables make the offline client able to dream at all, each standing for what a person's
 * own session has: `CLAUDE_CODE_ENTRYPOINT` other than the SDK's (`claude -p` runs as `sdk-cli`,
 * which never dreams; an interactive session is `cli`), and
 * `CLAUDE_CODE_GB_DISK_CACHE_WHEN_TELEMETRY_OFF` (offline runs turn telemetry off, and then the
 * client reads no cached flag at all — so never dreams — unless told to).
 * Skipped, with the reason, when the pinned Claude Code is not installed.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeAnthropic, startFakeAnthropic } from '../../llm/test-support/fake-anthropic.js';
import {
  EMBEDDED_SESSION_ENV,
  REAL_CLAUDE_CODE,
  debugLogIn,
  offlineClaudeEnv,
  runClaudeCode,
  runClaudeCodeTurns,
} from '../../llm/test-support/real-claude-code.js';
import { waitFor } from '../../core/test-support/wait-for.js';
import {
  DREAM_CASES,
  DREAM_FIXTURE,
  type DreamOutcome,
  clientDreamOutcome,
  layOutDreamCase,
  memdirDreamVerdict,
} from '../test-support/claude-code-dream-cases.js';
import { inspectDreamLock } from '../consolidation-lock.js';
import { checkDreamGates } from './dream-gates.js';
import { SessionScanCache } from './session-scan.js';

const skip = REAL_CLAUDE_CODE.found ? null : REAL_CLAUDE_CODE.reason;
const record = process.env.MEMDIR_RECORD_DREAM_FIXTURES === '1';
const DREAM_PROMPT = 'You are performing a dream';
/**
 * The session's prompts. The client checks its gates at the end of each turn once its start-up
 * work has run, which a busy machine delays past the first turns: six turns leave it time to.
 */
const TURNS = ['hello', 'go on', 'thanks', 'and then', 'more', 'bye'];
/** The client's debug lines that end its gate check: it fired, or a gate said no. */
const DECIDED = /\[autoDream\] (?:firing|skip|lock held|lock acquire failed|scan throttle)/;
/** Where the client decides without a debug line (flag, setting, time gate), how long the session stays open for it to. */
const SILENT_DECISION_MS = 5_000;

describe.skipIf(skip !== null)(`Claude Code's own dream agrees with Memdir${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let fake: FakeAnthropic;
  let tmp: string;
  let holder: ChildProcess;
  const observed: Record<string, DreamOutcome> = {};
  const recorded = fs.existsSync(DREAM_FIXTURE) ? (JSON.parse(fs.readFileSync(DREAM_FIXTURE, 'utf8')) as { cases: Record<string, DreamOutcome> }).cases : {};

  beforeAll(async () => {
    fake = await startFakeAnthropic();
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'memdir-cc-dream-live-')));
    holder = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  });
  afterAll(async () => {
    holder?.kill();
    await fake?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
    if (record && Object.keys(observed).length === DREAM_CASES.length) {
      fs.mkdirSync(path.dirname(DREAM_FIXTURE), { recursive: true });
      fs.writeFileSync(DREAM_FIXTURE, `${JSON.stringify({ client: REAL_CLAUDE_CODE.found ? REAL_CLAUDE_CODE.version : null, cases: observed }, null, 1)}\n`);
    }
  });

  it.each(DREAM_CASES.map((c) => [c.name, c] as const))(
    '%s',
    async (_name, c) => {
      const root = path.join(tmp, `case-${Object.keys(observed).length}`);
      fs.mkdirSync(root);
      const scratch = path.join(root, 'scratch');
      fs.mkdirSync(scratch);
      // The client asks a person to approve an API key from the environment outside `-p`; this one is approved.
      const apiKey = offlineClaudeEnv({ configDir: '', scratch: '', baseUrl: '' }).ANTHROPIC_API_KEY!;
      const home = layOutDreamCase(root, c, { livePid: holder.pid!, apiKeySuffix: apiKey.slice(-20) });
      const memdir = await memdirDreamVerdict(home, path.join(root, 'memdir-data'));

      const lockFile = path.join(home.memoryDir, '.consolidate-lock');
      const lockBefore = fs.statSync(lockFile, { throwIfNoEntry: false })?.mtimeMs ?? null;
      const lockTaken = () => (fs.statSync(lockFile, { throwIfNoEntry: false })?.mtimeMs ?? null) !== lockBefore;
      fake.reset();
      const dreamRequest = () => fake.messageRequests().find((r) => r.rawBody.includes(DREAM_PROMPT)) ?? null;
      const debugLog = debugLogIn(root);
      // Whether the client says what it decided: it fires or a gate it names stops it (the recorded
      // outcome; Memdir's verdict while recording).
      const expected = record ? memdir : recorded[c.name];
      const saysDecision = expected === undefined || expected.fired || expected.skipped !== null;
      const run = await runClaudeCodeTurns(TURNS, debugLog.args, {
        cwd: home.project,
        configDir: home.configDir,
        scratch,
        baseUrl: fake.url,
        env: EMBEDDED_SESSION_ENV,
        // The client checks its gates after a turn without awaiting them: the session stays open
        // until it said what it decided (a busy machine is slow to) where it says so, or a few
        // seconds where it decides silently (flag, setting, time gate: no debug line to wait for).
        // A dream starts by taking the lock; once it is taken, the dream is let reach the model
        // before the session ends.
        beforeExit: async () => {
          if (saysDecision) await waitFor(() => DECIDED.test(debugLog.read()), 30_000, "the client's dream decision (its debug log)");
          else await new Promise((resolve) => setTimeout(resolve, SILENT_DECISION_MS));
          await waitFor(() => !lockTaken() || dreamRequest() !== null, 30_000, 'the dream that took the lock to reach the model');
        },
        timeoutMs: 90_000,
      });
      expect(run.code, run.stderr).toBe(0);
      const request = dreamRequest();
      const client = clientDreamOutcome(debugLog.read(), request ? extractPrompt(request.body) : null);
      observed[c.name] = client;

      if (!record) expect(client).toEqual(recorded[c.name]);
      expect(memdir).toEqual({ ...client, listed: null });
      if (client.fired) {
        // The lock it took: its PID (gone now), its mtime the new lastConsolidatedAt.
        const lock = await inspectDreamLock(home.memoryDir, { dataDir: path.join(root, 'memdir-data') });
        expect(lock).toMatchObject({ state: 'stale', content: 'pid', holderAlive: false });
        expect(lock.lastConsolidatedAtMs).toBeGreaterThan(Date.now() - 120_000);
      }
    },
    120_000,
  );

  it.each([
    ["`claude -p`, whose entry point is the SDK's", { CLAUDE_CODE_GB_DISK_CACHE_WHEN_TELEMETRY_OFF: '1' }, true],
    ['a session with telemetry off, its cached flags unread', { CLAUDE_CODE_ENTRYPOINT: 'claude-vscode' }, false],
  ] as const)(
    'never dreams in %s, every gate open',
    async (_name, env, oneShot) => {
      const root = path.join(tmp, `never-${oneShot ? 'p' : 'telemetry'}`);
      fs.mkdirSync(path.join(root, 'scratch'), { recursive: true });
      const apiKey = offlineClaudeEnv({ configDir: '', scratch: '', baseUrl: '' }).ANTHROPIC_API_KEY!;
      const home = layOutDreamCase(root, DREAM_CASES.find((c) => c.name === 'never consolidated')!, { livePid: holder.pid!, apiKeySuffix: apiKey.slice(-20) });
      fake.reset();
      const options = { cwd: home.project, configDir: home.configDir, scratch: path.join(root, 'scratch'), baseUrl: fake.url, env };
      for (let i = 0; i < 3 && oneShot; i++) expect((await runClaudeCode(['-p', `hello ${i}`], options)).code).toBe(0);
      if (!oneShot) expect((await runClaudeCodeTurns(TURNS, [], options)).code).toBe(0);
      expect(fake.messageRequests().filter((r) => r.rawBody.includes(DREAM_PROMPT))).toEqual([]);
      expect(fs.existsSync(path.join(home.memoryDir, '.consolidate-lock'))).toBe(false);
    },
    120_000,
  );

  it("keeps the new lock time when the dream's model request fails (no rollback), so Memdir's time gate closes as the client's does", async () => {
    const root = path.join(tmp, 'dream-fails');
    fs.mkdirSync(path.join(root, 'scratch'), { recursive: true });
    const apiKey = offlineClaudeEnv({ configDir: '', scratch: '', baseUrl: '' }).ANTHROPIC_API_KEY!;
    const home = layOutDreamCase(root, DREAM_CASES.find((c) => c.name === 'lock 25 h old')!, { livePid: holder.pid!, apiKeySuffix: apiKey.slice(-20) });
    const lockFile = path.join(home.memoryDir, '.consolidate-lock');
    const before = fs.statSync(lockFile).mtimeMs;
    fake.reset();
    fake.setHandler((request) => (request.rawBody.includes(DREAM_PROMPT) ? { kind: 'error', status: 400 } : { kind: 'message', text: 'ok' }));
    const debugLog = debugLogIn(root);
    const ended = /\[autoDream\] (?:completed|\w+ failed|aborted)/;
    const run = await runClaudeCodeTurns(TURNS, debugLog.args, {
      cwd: home.project,
      configDir: home.configDir,
      scratch: path.join(root, 'scratch'),
      baseUrl: fake.url,
      env: EMBEDDED_SESSION_ENV,
      beforeExit: async () => {
        await waitFor(() => ended.test(debugLog.read()), 30_000, 'the failed dream to end (its debug log)');
      },
      timeoutMs: 90_000,
    });
    fake.setHandler(null);
    expect(run.code, run.stderr).toBe(0);
    expect(fake.messageRequests().some((r) => r.rawBody.includes(DREAM_PROMPT))).toBe(true);
    // The failed request ends the dream as "completed": the lock keeps the time it fired.
    expect(debugLog.read()).toMatch(/\[autoDream\] completed/);
    const after = fs.statSync(lockFile).mtimeMs;
    expect(after).toBeGreaterThan(before + 24 * 3_600_000);
    const report = await checkDreamGates(
      { memoryDir: home.memoryDir, projectDir: home.folder, transcriptDirs: [home.folder] },
      { dataDir: path.join(root, 'memdir-data'), sessionCache: new SessionScanCache() },
    );
    expect(report.lastConsolidatedAt).toBe(new Date(after).toISOString());
    expect(report.gates[0]).toMatchObject({ name: 'time', passed: false });
  }, 120_000);
});

/** The text the dream request sent the model (its first user message). */
function extractPrompt(body: Record<string, unknown> | null): string {
  const messages = (body?.messages ?? []) as { content: string | { type: string; text?: string }[] }[];
  return messages
    .flatMap((m) => (typeof m.content === 'string' ? [m.content] : m.content.map((b) => b.text ?? '')))
    .filter((t) => t.includes(DREAM_PROMPT))
    .join('\n');
}
