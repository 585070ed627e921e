/**
 * Memdir's hooks against the real Claude Code (issue 13, items 4 and 5), offline: its requests go
 * to the fake Messages API, its home is a temp folder, `hooks connect` wrote its settings.json.
 *   - every `claude -p` run's final Stop (and its SessionEnd) reaches the spool before the run
 *     exits — even when the hook is slow to start (a loaded machine): Claude Code SIGTERMs async
 *     hooks as it exits, so Memdir's spooling hooks are synchronous (it waits for them);
 *   - after a `--resume` and after a `/compact`, the next request to the model carries the
 *     session's Session Memory note, handed back by the SessionStart hook.
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
import { applyHooksChange, planHooksChange } from './claude-settings-hooks.js';
import { drainSpool, type HookEvent } from '../hook-spool/index.js';

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
    for (const deadline = Date.now() + 15_000; !seen() && Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 100))) {
      const drained = await drainSpool(dataDir, async (e) => void events.push(...e));
      expect(drained.bad).toEqual([]);
    }
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
