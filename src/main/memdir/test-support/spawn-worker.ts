/** Start several Memdir processes (test workers run through tsx) at the same moment, and wait for them. */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

/** Start `worker` (a .ts file, run through tsx) with `args`; its stdin stays open for "go". */
export function startWorker(worker: string, args: string[]): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', worker, ...args], { cwd: projectRoot, stdio: ['pipe', 'pipe', 'inherit'] });
}

/** Resolves once `child` has printed `line` (a whole line); rejects if it exits first. */
export function waitForLine(child: ChildProcess, line: string): Promise<void> {
  let seen = '';
  return new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString('utf8');
      if (seen.split('\n').includes(line)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`worker exited (${code}) before printing "${line}"`)));
  });
}

/** Run `worker` (the path of a .ts file) once per argument list, all released together once each printed "ready"; resolves to the exit codes. */
export async function runWorkersTogether(worker: string, argLists: string[][]): Promise<(number | null)[]> {
  const children = argLists.map((args) => startWorker(worker, args));
  await Promise.all(children.map((child) => waitForLine(child, 'ready')));
  for (const child of children) child.stdin?.end('go\n');
  return Promise.all(children.map(async (child) => (child.exitCode ?? (await once(child, 'exit'))[0]) as number | null));
}
