/**
 * `memdir server` in its own process, as it runs for real (on another machine, usually), for
 * the e2e test and the `sync` bench: resolves once it prints the address it listens on.
 */
import { type ChildProcess, spawn } from 'node:child_process';

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** SIGTERM, then wait for the exit. */
  stop(): Promise<void>;
}

/**
 * `memdirArgs`: how to run the CLI under `node` — the built `out/cli/memdir.js`, or
 * `--import tsx src/cli/memdir.ts` from source.
 */
export function startServerProcess(memdirArgs: string[], db: string, options: { rate: number; timeoutMs?: number; host?: string }): Promise<ServerProcess> {
  // A host of its own is there to serve plain http off loopback on purpose (the client's refusal is what is tested).
  const host = options.host ? ['--host', options.host, '--allow-http'] : [];
  const child = spawn(process.execPath, [...memdirArgs, 'server', '--db', db, '--port', '0', '--rate', String(options.rate), ...host], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  return new Promise((resolve, reject) => {
    let err = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`memdir server did not start: ${err}`));
    }, options.timeoutMs ?? 30_000);
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (d: string) => {
      err += d;
      const match = /listening on (http:\/\/\S+)/.exec(err);
      if (match) {
        clearTimeout(timer);
        resolve({ url: match[1]!, child, stop });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`memdir server exited with ${code}: ${err}`));
    });
  });
}
