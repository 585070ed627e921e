/**
 * Memdir's hooks against the real Claude Code (issue 13, items 4 and 5), offline: its requests go
 * to the fake Messages API, its home is a temp folder, `hooks connect` wrote its settings.json.
 *   - every `claude -p` run's final Stop (and its SessionEnd) reaches the spool before the run
 *     exits — even when the hook is slow to start (a loaded machine): Claude Code SIGTERMs async
 *     hooks as it exits, so Memdir's spooling hooks are synchronous (it waits for them);
 *   - after a `--resume` and after a `/compact`, the next request to the model carries the
 *     session's Session Memory note, handed back by the SessionStart hook;
 *   - a hook's additionalContext reaches the model whole up to 10,000 characters (UTF-16 units),
 *     past that only as a 2 KB preview (recorded in test/fixtures/claude-code-session/
 *     hook-context-2.1.332.json, replayed by test/fidelity/session-handback.test.ts;
 *     `MEMDIR_RECORD_SESSION_FIXTURES=1` rewrites it), so a long note is handed back cut to fit.
 * Skipped, with the reason, when the pinned Claude Code is not installed or Memdir is not built.
 */
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sanitizeDirName } from '../../shared/sanitize.js';
import { type FakeAnthropic, startFakeAnthropic } from '../llm/test-support/fake-anthropic.js';
import { type ClaudeRunOptions, REAL_CLAUDE_CODE, runClaudeCode } from '../llm/test-support/real-claude-code.js';
import { SessionStore } from '../session/session-state.js';
import { waitFor } from '../core/test-support/wait-for.js';
import { applyHooksChange, planHooksChange } from './claude-settings-hooks.js';
import { drainSpool, type HookEvent } from '../hook-spool/index.js';
import { HOOK_CONTEXT_CASES, HOOK_CONTEXT_FIXTURE, type HookContextCase, hookContextText } from './test-support/hook-context-cases.js';

const record = process.env.MEMDIR_RECORD_SESSION_FIXTURES === '1';

const CLI_ENTRY = path.resolve(import.meta.dirname, '../../../out/cli/memdir.js');
const skip = !REAL_CLAUDE_CODE.found ? REAL_CLAUDE_CODE.reason : existsSync(CLI_ENTRY) ? null : `${CLI_ENTRY} is missing (npm run build)`;

describe.skipIf(skip !== null)(`Memdir's hooks in the real Claude Code${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let root: string;
  let dataDir: string;
  let fake: FakeAnthropic;
  let run: ClaudeRunOptions;

  beforeAll(async () => {
    root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-cc-hooks-')));
    dataDir = path.join(root, 'data');
    const configDir = path.join(root, 'claude-home');
    const project = path.join(root, 'project');
    const scratch = path.join(root, 'scratch');
    for (const dir of [configDir, project, scratch]) await fs.mkdir(dir, { recursive: true });
    fake = await startFakeAnthropic();
    run = { cwd: project, configDir, scratch, baseUrl: fake.url };
    const options = { dataDir, cliEntry: CLI_ENTRY, execPath: process.execPath, electron: false };
    const plan = await planHooksChange(configDir, 'connect', options);
    await applyHooksChange(configDir, 'connect', plan.baseHash, options);
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

  it('the final Stop and the SessionEnd of every claude -p run reach the spool', async () => {
    const sessions: string[] = [];
    for (let i = 0; i < 3; i++) sessions.push(await prompt(`hello ${i}`));
    // Claude Code may exit before its async SessionEnd hook has finished (the hook goes on,
    // unsignalled): wait for the spool rather than race it.
    const events: HookEvent[] = [];
    const seen = () => sessions.every((id) => ['Stop', 'SessionEnd'].every((name) => events.some((e) => e.sessionId === id && e.event === name)));
    await waitFor(
      async () => {
        const drained = await drainSpool(dataDir, async (e) => void events.push(...e));
        expect(drained.bad).toEqual([]);
        return seen();
      },
      15_000,
      'the final Stop and SessionEnd of every run in the spool',
    );
    for (const id of sessions)
      expect(
        events
          .filter((e) => e.sessionId === id)
          .map((e) => e.event)
          .sort(),
        id,
      ).toEqual(['SessionEnd', 'Stop']);
  }, 120_000);

  it('waits for the spooling hooks: a hook a second slow to start still delivers the final Stop and SessionEnd before the run exits', async () => {
    // A loaded machine can take longer than Claude Code's ~15 ms grace to start a shell; a
    // second is far beyond it. The same hooks, each made to start a second late.
    const configDir = path.join(root, 'slow-home');
    const slowData = path.join(root, 'slow-data');
    await fs.mkdir(configDir, { recursive: true });
    const options = { dataDir: slowData, cliEntry: CLI_ENTRY, execPath: process.execPath, electron: false };
    await applyHooksChange(configDir, 'connect', (await planHooksChange(configDir, 'connect', options)).baseHash, options);
    const file = path.join(configDir, 'settings.json');
    const settings = JSON.parse(await fs.readFile(file, 'utf8')) as { hooks: Record<string, { hooks: { command: string }[] }[]> };
    for (const event of ['Stop', 'SessionEnd']) for (const entry of settings.hooks[event]![0]!.hooks) entry.command = `sleep 1; ${entry.command}`;
    await fs.writeFile(file, JSON.stringify(settings, null, 2));
    const result = await runClaudeCode(['-p', 'hello slow', '--output-format', 'json'], { ...run, configDir });
    expect(result.code, result.stderr).toBe(0);
    const id = (JSON.parse(result.stdout) as { session_id: string }).session_id;
    // Right after the run: nothing is still on its way.
    const events: HookEvent[] = [];
    expect((await drainSpool(slowData, async (e) => void events.push(...e))).bad).toEqual([]);
    expect(
      events
        .filter((e) => e.sessionId === id)
        .map((e) => e.event)
        .sort(),
    ).toEqual(['SessionEnd', 'Stop']);
  }, 120_000);

  it("a hook's additionalContext reaches the model whole up to 10,000 UTF-16 units, then only as a preview", async () => {
    const observed: HookContextCase[] = [];
    for (const spec of HOOK_CONTEXT_CASES) {
      const text = hookContextText(spec);
      const configDir = path.join(root, `context-${spec.name}`);
      const answer = path.join(configDir, 'answer.json');
      await fs.mkdir(configDir, { recursive: true });
      await fs.writeFile(answer, JSON.stringify({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: text } }));
      await fs.writeFile(
        path.join(configDir, 'settings.json'),
        JSON.stringify({ hooks: { SessionStart: [{ hooks: [{ type: 'command', command: `cat '${answer}'` }] }] } }),
      );
      fake.reset();
      const result = await runClaudeCode(['-p', 'hello', '--output-format', 'json'], { ...run, configDir });
      expect(result.code, result.stderr).toBe(0);
      const body = fake.messageRequests().at(-1)!.rawBody;
      observed.push({
        ...spec,
        chars: text.length,
        codePoints: [...text].length,
        utf8Bytes: Buffer.byteLength(text),
        whole: body.includes(JSON.stringify(text).slice(1, -1)),
        preview: body.includes('<persisted-output>') && body.includes('Preview (first 2KB)'),
      });
    }
    if (record)
      await fs.writeFile(HOOK_CONTEXT_FIXTURE, `${JSON.stringify({ client: REAL_CLAUDE_CODE.found && REAL_CLAUDE_CODE.version, cases: observed }, null, 2)}\n`);
    expect(observed).toEqual((JSON.parse(await fs.readFile(HOOK_CONTEXT_FIXTURE, 'utf8')) as { cases: HookContextCase[] }).cases);
  }, 180_000);

  it('a note longer than that is handed back cut to fit: the model gets its beginning and its latest lines, not a preview', async () => {
    const id = await prompt('work through the checkout steps');
    const steps = Array.from({ length: 300 }, (_, i) => `- step ${i}: checked the checkout flow again (marker 5c1e${i})`);
    await new SessionStore(dataDir).writeNote(
      id,
      ['# Session memory', '', '## Current task', 'Walk the checkout steps (marker 9d2b).', '', ...steps].join('\n'),
    );
    fake.reset();
    await prompt('go on', ['--resume', id]);
    const resumed = fake.messageRequests().at(-1)!.rawBody;
    expect(resumed).not.toContain('<persisted-output>');
    expect(resumed).toContain('marker 9d2b');
    expect(resumed).toContain('marker 5c1e299');
    expect(resumed).toContain(new SessionStore(dataDir).noteFile(id));
  }, 120_000);

  it('after --resume and after /compact, the next request carries the Session Memory note', async () => {
    const id = await prompt('fix the flaky checkout test');
    const note = '# Session memory\n\n## Current task\nFix the flaky checkout test (marker 7f3a9c).\n';
    await new SessionStore(dataDir).writeNote(id, note);

    fake.reset();
    await prompt('go on', ['--resume', id]);
    const resumed = fake.messageRequests().at(-1)!;
    expect(resumed.rawBody).toContain('marker 7f3a9c');

    // /compact, then a prompt, in one process: the request after the compaction has the note.
    fake.reset();
    const lines = [
      { type: 'user', message: { role: 'user', content: '/compact' } },
      { type: 'user', message: { role: 'user', content: 'what next?' } },
    ]
      .map((l) => JSON.stringify(l))
      .join('\n');
    const compacted = await runClaudeCode(['-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose', '--resume', id], {
      ...run,
      stdin: `${lines}\n`,
    });
    expect(compacted.code, compacted.stderr).toBe(0);
    expect(compacted.stdout).toContain('"subtype":"compact_boundary"');
    expect(compacted.stdout).toContain('SessionStart:compact');
    const after = fake.messageRequests().at(-1)!;
    expect(after.rawBody).toContain('what next?');
    expect(after.rawBody).toContain('marker 7f3a9c');
    // The note before the compaction was summarised away (the fake summary is "ok"): this one is the compact hook's.
    const transcript = await fs.readFile(path.join(run.configDir, 'projects', sanitizeDirName(run.cwd), `${id}.jsonl`), 'utf8');
    expect(transcript).toMatch(/"hookName":"SessionStart:compact"[^\n]*marker 7f3a9c/);
  }, 180_000);
});
