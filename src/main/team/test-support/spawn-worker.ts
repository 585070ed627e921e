/** Start several Memdir processes (test workers run through tsx) at the same moment, and wait for them. */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const projectRoot = path.resolve(here, '../../../..');

function ready(child: ChildProcess): Promise<void> {
  let seen = '';
  return new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes('ready')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`worker exited (${code}) before it was ready`)));
  });
}

/** Run `worker` (a file in test-support/) once per argument list, all released together; resolves to the exit codes. */
export async function runWorkersTogether(worker: string, argLists: string[][]): Promise<(number | null)[]> {
  const children = argLists.map((args) =>
    spawn(process.execPath, ['--import', 'tsx', path.join(here, worker), ...args], { cwd: projectRoot, stdio: ['pipe', 'pipe', 'inherit'] }),
  );
  await Promise.all(children.map(ready));
  for (const child of children) child.stdin?.end('go\n');
  return Promise.all(children.map(async (child) => (child.exitCode ?? (await once(child, 'exit'))[0]) as number | null));
}
