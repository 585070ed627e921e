/**
 * Real child processes for the dream lock tests: the lock worker under `node --import tsx`,
 * a live stand-in for a Claude Code holder, and the PID of a process that has exited.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const projectRoot = path.resolve(here, '../../../..');
const workerFile = path.join(here, 'lock-worker.ts');

/** A child whose stdout is read line by line. */
export interface LineChild {
  child: ChildProcess;
  /** The next line printed (waits for it); rejects if the child exits first. */
  nextLine(): Promise<string>;
  send(line: string): void;
}

function readLines(child: ChildProcess): LineChild {
  const lines: string[] = [];
  const waiting: { resolve: (line: string) => void; reject: (err: Error) => void }[] = [];
  let buffered = '';
  let exited: Error | null = null;
  child.stdout?.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    for (let nl = buffered.indexOf('\n'); nl !== -1; nl = buffered.indexOf('\n')) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      const waiter = waiting.shift();
      if (waiter) waiter.resolve(line);
      else lines.push(line);
    }
  });
  child.once('exit', (code, signal) => {
    exited = new Error(`child exited (${code ?? signal}) before printing the expected line`);
    for (const waiter of waiting.splice(0)) waiter.reject(exited);
  });
  return {
    child,
    nextLine: () => {
      const line = lines.shift();
      if (line !== undefined) return Promise.resolve(line);
      if (exited) return Promise.reject(exited);
      return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
    },
    send: (line) => {
      child.stdin?.write(`${line}\n`);
    },
  };
}

/** A user other than root, for permission tests run as root (which ignores permission bits). */
export const NOBODY = { uid: 65534, gid: 65534 };

/** Starts the lock worker (see lock-worker.ts) in `mode`, as another user if `as` is given. */
export function startLockWorker(mode: 'race' | 'hold' | 'try', memoryDir: string, dataDir: string, as?: { uid: number; gid: number }): LineChild {
  const child = spawn(process.execPath, ['--import', 'tsx', workerFile, mode, memoryDir, dataDir], {
    cwd: projectRoot,
    stdio: ['pipe', 'pipe', 'inherit'],
    ...(as ?? {}),
  });
  return readLines(child);
}

/** A process that stays alive until killed: a holder as Claude Code would be. */
export async function startIdleProcess(): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000); process.stdout.write("up\\n")'], { stdio: ['ignore', 'pipe', 'inherit'] });
  await once(child.stdout!, 'data');
  return child;
}

/** The PID of a process that has already exited. */
export async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await once(child, 'exit');
  return child.pid!;
}

/** Kills `child` with `signal` and waits for it to be gone. */
export async function killAndWait(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return { code: child.exitCode, signal: child.signalCode };
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  child.kill(signal);
  const [code, sig] = await exited;
  return { code, signal: sig };
}
