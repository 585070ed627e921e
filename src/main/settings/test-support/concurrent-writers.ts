/**
 * What the concurrent-writer tests of settings.json and credentials.json have each writer save:
 * the app saves its settings while `memdir` in a terminal saves others, each one at a time.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AppSettingsPatch } from '../app-settings.js';

/** Per writer, settings each set once to a value other than its default (so a lost one shows). */
export const SETTINGS_PATCHES: Record<'app' | 'cli', AppSettingsPatch[]> = {
  app: [
    { theme: 'dark' },
    { model: { provider: 'offline' } },
    { model: { timeoutMs: 90_000 } },
    { model: { maxRetries: 5 } },
    { dream: { minHours: 12 } },
    { dream: { minSessions: 9 } },
    { dream: { maxTurns: 20 } },
    { dream: { checkEveryMinutes: 30 } },
  ],
  cli: [
    { recall: { timeoutMs: 30_000 } },
    { recall: { searchBodies: true } },
    { extraction: { enabled: false } },
    { extraction: { mode: 'apply' } },
    { extraction: { quietSeconds: 10 } },
    { session: { idleMinutes: 300 } },
    { session: { enabled: false } },
    { workspaces: { folders: ['/home/me/work'] } },
  ],
};

/**
 * Start one child process per argument list running `worker` (a .ts file, through tsx), let them
 * all go at once when each has printed "ready", and return their exit codes.
 */
export async function runWorkersTogether(worker: string, argLists: string[][]): Promise<number[]> {
  const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
  const workers = argLists.map((args) =>
    spawn(process.execPath, ['--import', 'tsx', worker, ...args], { cwd: projectRoot, stdio: ['pipe', 'pipe', 'inherit'] }),
  );
  await Promise.all(workers.map((w) => waitForLine(w, 'ready')));
  for (const w of workers) w.stdin?.end('go\n');
  return Promise.all(workers.map(async (w) => ((await once(w, 'exit'))[0] as number | null) ?? -1));
}

function waitForLine(child: ChildProcess, line: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString('utf8');
      if (seen.split('\n').includes(line)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`worker exited (${code}) before "${line}"`)));
  });
}
