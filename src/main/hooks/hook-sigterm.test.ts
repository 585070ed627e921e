/**
 * Issue 13, item 5: when a `claude -p` run exits, Claude Code sends SIGTERM to the process
 * group of each async hook 12–25 ms after starting it (observed with 2.1.332: its hooks run as
 * `/bin/sh -c <command>` in their own process group). The hook command `hooks connect` writes
 * must have the event safe on disk by then. This runs that exact command the way Claude Code
 * does, payload on stdin, SIGTERM to its group 25 ms after the start, many times: no event may
 * be lost.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drainSpool, type HookEvent } from '../hook-spool/index.js';
import { applyHooksChange, planHooksChange } from './claude-settings-hooks.js';

const RUNS = 40;
const SIGTERM_AFTER_MS = 25;
const posix = process.platform !== 'win32';

let root: string;
let home: string;
let dataDir: string;

beforeAll(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-sigterm-')));
  home = path.join(root, 'home');
  dataDir = path.join(root, 'data');
  await fs.mkdir(home);
});
afterAll(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

/**
 * Run `command` as Claude Code runs an async hook, and SIGTERM its group `afterMs` later. With
 * `holdStdinMs`, the end of the payload comes that late, so the signal lands mid-copy.
 */
function runLikeClaudeCode(command: string, payload: string, afterMs: number, holdStdinMs = 0): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', command], { detached: true, stdio: ['pipe', 'ignore', 'ignore'], env: { ...process.env, MEMDIR_INTERNAL: '' } });
    child.on('error', reject);
    child.stdin.on('error', () => undefined);
    if (holdStdinMs === 0) child.stdin.end(payload);
    else {
      child.stdin.write(payload.slice(0, 10));
      setTimeout(() => child.stdin.end(payload.slice(10)), holdStdinMs);
    }
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // Already done.
      }
    }, afterMs);
    child.on('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

describe.skipIf(!posix)(
  `the hook command under Claude Code's SIGTERM${posix ? '' : ' (skipped: Windows runs memdir hook, and has no process groups to signal)'}`,
  () => {
    it(`keeps every event when its process group gets SIGTERM ${SIGTERM_AFTER_MS} ms after the start (${RUNS} runs)`, async () => {
      const options = { dataDir };
      const plan = await planHooksChange(home, 'connect', options);
      await applyHooksChange(home, 'connect', plan.baseHash, options);
      const settings = JSON.parse(await fs.readFile(path.join(home, 'settings.json'), 'utf8')) as { hooks: Record<string, { hooks: { command: string }[] }[]> };
      const command = settings.hooks.Stop![0]!.hooks[0]!.command;

      for (let i = 0; i < RUNS; i++) {
        const payload = JSON.stringify({
          session_id: `session-${i}`,
          transcript_path: path.join(home, 'projects', '-x', `session-${i}.jsonl`),
          cwd: root,
          hook_event_name: 'Stop',
          stop_hook_active: false,
          last_assistant_message: 'Done.',
        });
        // Every fourth run, the signal lands while the hook is still reading its input.
        await runLikeClaudeCode(command, payload, SIGTERM_AFTER_MS, i % 4 === 3 ? 60 : 0);
      }

      const seen: HookEvent[] = [];
      const drained = await drainSpool(dataDir, async (events) => void seen.push(...events));
      expect(drained.bad).toEqual([]);
      expect(seen.map((e) => e.sessionId).sort()).toEqual(Array.from({ length: RUNS }, (_, i) => `session-${i}`).sort());
    }, 120_000);
  },
);
