/**
 * The hook Claude Code runs when a turn ends (issue 13, item 5): from the start of the installed
 * `Stop` command (`/bin/sh -c …`, as Claude Code runs it) to the event safe in the spool, against
 * the plainest way to do the same I/O — `sh -c 'cat > file'` — both spawned the same way (the
 * spawn itself is most of either figure). Claude Code 2.1.332 sends SIGTERM to async hooks
 * 12–25 ms after starting them when a `claude -p` run exits; the hook ignores it, so what
 * matters is that it stays a shell's work and not a Node start: `memdir hook` under Node (the
 * Windows command, and the one that lost events) is given for comparison.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { installedHookCommand } from '../../src/main/hooks/claude-settings-hooks.js';
import { drainSpool } from '../../src/main/hook-spool/index.js';
import { type Scenario, median, percentile, time } from '../lib.js';

const ROUNDS = 60;

function runShell(command: string, payload: string, args: string[] = []): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(args.length ? process.execPath : '/bin/sh', args.length ? args : ['-c', command], {
      stdio: ['pipe', 'ignore', 'ignore'],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    });
    child.on('error', reject);
    child.on('exit', () => resolve());
    child.stdin.end(payload);
  });
}

export const hookScenario: Scenario = {
  name: 'hook',
  description: "the installed Stop hook, start to event safe on disk, against sh -c 'cat > file'",
  async run(log) {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-bench-hook-'));
    try {
      const dataDir = path.join(root, 'data');
      const payload = JSON.stringify({
        session_id: 'bench-session',
        transcript_path: path.join(root, 'projects', '-x', 'bench-session.jsonl'),
        cwd: root,
        hook_event_name: 'Stop',
        stop_hook_active: false,
        last_assistant_message: 'Done: the checkout test is fixed and the suite passes.'.repeat(20),
      });
      const command = installedHookCommand('Stop', { dataDir, platform: 'linux' });
      const plain = `cat > '${path.join(root, 'plain.json')}'`;
      const cli = path.resolve(import.meta.dirname, '../../out/cli/memdir.js');
      const subject: number[] = [];
      const baseline: number[] = [];
      await runShell(command, payload);
      await runShell(plain, payload);
      for (let i = 0; i < ROUNDS; i++) {
        baseline.push(await time(() => runShell(plain, payload)));
        subject.push(await time(() => runShell(command, payload)));
      }
      const node: number[] = [];
      for (let i = 0; i < 10; i++) node.push(await time(() => runShell('', payload, [cli, 'hook', 'Stop', '--data-dir', dataDir])));
      const drained = await drainSpool(dataDir, async () => undefined);
      log(`${drained.read} spool entries written, ${drained.bad.length} bad`);
      return {
        ratios: {
          'installed hook / sh cat baseline (median)': {
            value: median(subject) / median(baseline),
            target: 4,
            better: 'lower',
            note: 'a test, mkdir only when missing, cat, date and mv against one cat',
          },
          'memdir hook under Node / installed hook (median)': {
            value: median(node) / median(subject),
            target: 3,
            better: 'higher',
            note: 'why the installed command is not a Node program',
          },
        },
        figures: {
          'baseline sh cat median ms': median(baseline),
          'installed hook median ms': median(subject),
          'installed hook p95 ms': percentile(subject, 95),
          'memdir hook under Node median ms': median(node),
          'spool entries': drained.read,
          rounds: ROUNDS,
        },
      };
    } finally {
      await fs.rm(root, { recursive: true, force: true });
    }
  },
};
