/** Start the real headless host (the built app in out/) as a child process, as a user would. */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const SERVE = path.join(ROOT, 'out/main/shell/host/serve.js');
export const ARTIFACTS = path.join(ROOT, 'e2e/artifacts');

export interface Host {
  url: string;
  origin: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

export function startHost(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Host> {
  if (!fs.existsSync(SERVE)) throw new Error(`${SERVE} is missing: run \`npm run build\` first (npm test does).`);
  const child = spawn(process.execPath, [SERVE, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`host did not start: ${out}`)), 20_000);
    child.stdout!.setEncoding('utf8');
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (d: string) => (out += d));
    child.on('exit', (code) => reject(new Error(`host exited with ${code}: ${out}`)));
    child.stdout!.on('data', (d: string) => {
      out += d;
      const match = /running at (http:\/\/\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        const url = match[1]!;
        resolve({
          url,
          origin: new URL(url).origin,
          process: child,
          stop: () =>
            new Promise<void>((done) => {
              child.removeAllListeners('exit');
              if (child.exitCode !== null) return done();
              child.once('exit', () => done());
              child.kill('SIGTERM');
            }),
        });
      }
    });
  });
}

export function artifact(name: string): string {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  return path.join(ARTIFACTS, name);
}
