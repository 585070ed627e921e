/**
 * What the `kill` bench's runs share: workers bundled once (a bundled file starts in ~0.1 s, a
 * `node --import tsx` one in ~0.5 s, which over 200 restarts would be most of the run), started,
 * released, and SIGKILLed at a random moment; and the tally each run reports.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { processGroupGone } from '../../src/main/history/test-support/crash-check.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
// Inside the project, so the bundles' bare imports (packages are left out) resolve to node_modules.
const outDir = path.join(root, 'node_modules', '.cache', 'memdir-bench-kill');

/** Bundle a worker's source (relative to the project root); resolves to the bundle's path. */
export async function bundleWorker(source: string): Promise<string> {
  const outfile = path.join(outDir, `${path.basename(source, '.ts')}.mjs`);
  await fs.mkdir(outDir, { recursive: true });
  await build({
    entryPoints: [path.join(root, source)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    logLevel: 'silent',
    packages: 'external',
  });
  return outfile;
}

/** A started worker, loaded and waiting for "go". */
export interface Worker {
  child: ChildProcess;
  exit: Promise<[number | null, NodeJS.Signals | null]>;
  stdout: () => string;
  stderr: () => string;
}

/** Start `bundle` with `args`; resolves once it printed "ready". */
export async function startWorker(bundle: string, args: string[]): Promise<Worker> {
  // Its own process group: a kill can take the worker alone or with the git it runs.
  const child = spawn(process.execPath, [bundle, ...args], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  const exit = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  let out = '';
  let err = '';
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  await Promise.race([
    new Promise<void>((resolve) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('ready')) resolve();
      });
    }),
    exit.then(([code]) => {
      throw new Error(`worker ${path.basename(bundle)} exited (${code}) before it was ready: ${err.slice(0, 500)}`);
    }),
  ]);
  return { child, exit, stdout: () => out, stderr: () => err };
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Release `worker`, let it run for `ms`, SIGKILL it — alone (the git it was running finishes on
 * its own, as after a crash of the app), or with its whole process group when `group` (as a
 * power cut would: git killed mid-write). Waits until no process of the group is left: the next
 * start comes after. Resolves to how it ended: `killed`, `finished` when it was done first (no
 * kill), or `crashed` when it died on its own with an error.
 */
export async function releaseAndKill(worker: Worker, ms: number, opts: { group?: boolean } = {}): Promise<'killed' | 'finished' | 'crashed'> {
  worker.child.stdin!.end('go\n');
  const ended = await Promise.race([worker.exit.then(() => true), sleep(ms).then(() => false)]);
  if (!ended) {
    if (opts.group) process.kill(-worker.child.pid!, 'SIGKILL');
    else worker.child.kill('SIGKILL');
  }
  const [code, signal] = await worker.exit;
  await processGroupGone(worker.child.pid!);
  if (signal === 'SIGKILL') return 'killed';
  return code === 0 ? 'finished' : 'crashed';
}

/** What one kind of run found. */
export interface KillTally {
  /** SIGKILLs that landed while the worker was still working. */
  kills: number;
  /** Runs the worker finished before the kill (not counted as kills). */
  finished: number;
  /** A worker that died on its own, or a next start that threw: each a bug. */
  crashes: number;
  /** A file torn (content never written whole), a memory or an edit lost. */
  losses: number;
  /** Broken history: a repository that fails `git fsck`, or a write not recorded. */
  history: number;
  /** A status that said something false on the next start. */
  untruthful: number;
  /** A status erring on the safe side: an edit listed as waiting that the server already had. */
  conservative: number;
  /** Where kills landed, when a run can tell (`mid-write`, `while applying`…): the kills hit the hard moments. */
  landed: Record<string, number>;
  /** The first problems, for the report. */
  problems: string[];
}

export function emptyTally(): KillTally {
  return { kills: 0, finished: 0, crashes: 0, losses: 0, history: 0, untruthful: 0, conservative: 0, landed: {}, problems: [] };
}

/** Count a problem of `kind` and keep its description (the first few). */
export function note(tally: KillTally, kind: 'crashes' | 'losses' | 'history' | 'untruthful', problem: string): void {
  tally[kind]++;
  if (tally.problems.length < 10) tally.problems.push(`${kind}: ${problem}`);
}

/** Count a kill that landed at `where`. */
export function landed(tally: KillTally, where: string): void {
  tally.landed[where] = (tally.landed[where] ?? 0) + 1;
}
