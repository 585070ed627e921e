/**
 * The crash test issue 2 asks for: a child process writing memories in a loop (through
 * `transact` + `writeFileAtomic`) is SIGKILLed at 100 random moments. After every kill, every
 * file holds exactly its previous or its intended new content, and the shadow history is intact.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { watch } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { listHistory, readAtRevision, recordSnapshot, transact } from './history.js';
import { checkAfterKill, fsckHistory, processGroupGone } from './test-support/crash-check.js';

const KILLS = 100;
const here = path.dirname(fileURLToPath(import.meta.url));

let tmp: string;
let writer: string;

beforeAll(async () => {
  tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-crash-')));
  // One bundled file starts in ~0.1 s; `node --import tsx` takes ~0.4 s, which over 100
  // restarts would be most of the test's time budget.
  writer = path.join(tmp, 'crash-writer.mjs');
  await build({
    entryPoints: [path.join(here, 'test-support', 'crash-writer.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: writer,
    logLevel: 'silent',
    banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
  });
});

afterAll(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

interface Writer {
  child: ChildProcess;
  exit: Promise<[number | null, NodeJS.Signals | null]>;
  stderr: () => string;
  /** Resolves once the writer has committed a whole step to history. */
  committed: Promise<void>;
}

async function startWriter(mem: string, dataDir: string, logPath: string): Promise<Writer> {
  // Its own process group, so the test can wait for the git it leaves running when killed.
  const child = spawn(process.execPath, [writer, mem, dataDir, logPath], { stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  const exit = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  let out = '';
  let err = '';
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
  let onCommitted = (): void => undefined;
  const committed = new Promise<void>((resolve) => (onCommitted = resolve));
  await Promise.race([
    new Promise<void>((resolve) => {
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('ready')) resolve();
        if (out.includes('committed')) onCommitted();
      });
    }),
    exit.then(([code]) => {
      throw new Error(`writer exited early (${code}): ${err}`);
    }),
  ]);
  return { child, exit, stderr: () => err, committed };
}

async function checkFiles(mem: string, log: string): Promise<{ torn: string[]; temps: number }> {
  const check = await checkAfterKill(mem, log);
  expect(check.strays, 'unexpected dotfiles').toEqual([]);
  expect(check.badIndex, 'MEMORY.md holds a line that is not a pointer').toBe(false);
  // A file whose write completed must still be there.
  expect(check.vanished, 'files that vanished').toEqual([]);
  return { torn: check.torn, temps: check.temps };
}

/**
 * Random moments: a few ms to ~200 ms after the writer starts, or — so kills land inside
 * writes often, not only in the longer git steps — 0–3 ms after the writer logs that it is
 * starting or has finished a write.
 */
async function waitForKillMoment(logPath: string): Promise<void> {
  const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
  if (Math.random() < 0.6) return sleep(1 + Math.random() * 200);
  const watcher = watch(logPath);
  try {
    await Promise.race([once(watcher, 'change'), sleep(1_000)]);
  } finally {
    watcher.close();
  }
  await sleep(Math.random() * 3);
}

it(`crash test: ${KILLS} SIGKILLs of a writer never leave a torn memory or broken history`, async () => {
  const mem = path.join(tmp, 'memory');
  const dataDir = path.join(tmp, 'data');
  const logPath = path.join(tmp, 'writes.log');
  await fs.mkdir(mem);
  await fs.writeFile(logPath, '');
  let midWriteKills = 0;
  let tempFilesSeen = 0;
  let logLength = 0;

  let next = startWriter(mem, dataDir, logPath);
  for (let kill = 0; kill < KILLS; kill++) {
    const writerProcess = await next;
    writerProcess.child.stdin?.end('go\n');
    await waitForKillMoment(logPath);
    writerProcess.child.kill('SIGKILL');
    const [, signal] = await writerProcess.exit;
    expect(signal, `the writer died on its own: ${writerProcess.stderr()}`).toBe('SIGKILL');
    // The git command it was waiting for finishes on its own (it is not killed with it).
    expect(await processGroupGone(writerProcess.child.pid!)).toBe(true);
    // The next writer loads while we check; it touches nothing before it is told to go.
    next = startWriter(mem, dataDir, logPath);

    const log = await fs.readFile(logPath, 'utf8').catch(() => '');
    const { torn, temps } = await checkFiles(mem, log);
    expect(torn, `after kill ${kill}, files with content that was never written whole`).toEqual([]);
    const newLines = log.slice(logLength).split('\n').slice(0, -1);
    if (newLines.at(-1)?.startsWith('intend')) midWriteKills++;
    logLength = log.lastIndexOf('\n') + 1;
    tempFilesSeen += temps;

    await fsckHistory(dataDir, kill > 0);
    await listHistory(mem, { dataDir, limit: 3 });
    // A new writer takes over the dead one's lock at once, records what it left, and removes
    // its temp files.
    await transact(mem, { source: 'fix', summary: 'Check after crash', dataDir }, async () => undefined);
    expect((await fs.readdir(mem)).filter((n) => n.startsWith('.'))).toEqual([]);
    // Nothing left unrecorded: history now holds exactly what is on disk.
    expect(await recordSnapshot(mem, { source: 'fix', summary: 'Nothing left', dataDir })).toBeNull();
  }
  // A last writer runs until a step of its own is in history (on a loaded machine all 100
  // kills can land before any step commits), then is killed like the others.
  const last = await next;
  last.child.stdin?.end('go\n');
  await last.committed;
  last.child.kill('SIGKILL');
  await last.exit;
  expect(await processGroupGone(last.child.pid!)).toBe(true);
  expect((await checkFiles(mem, await fs.readFile(logPath, 'utf8'))).torn).toEqual([]);
  await transact(mem, { source: 'fix', summary: 'Check after the last crash', dataDir }, async () => undefined);

  const index = await fs.readFile(path.join(mem, 'MEMORY.md'), 'utf8');
  expect(await readAtRevision(mem, 'HEAD', 'MEMORY.md', { dataDir })).toBe(index);
  const history = await listHistory(mem, { dataDir });
  expect(history.some((e) => e.source === 'manual')).toBe(true);
  // The kills did land between a write's start and its end, not only between writes.
  expect(midWriteKills).toBeGreaterThanOrEqual(10);
  console.info(`crash test: ${KILLS} kills, ${midWriteKills} mid-write, ${tempFilesSeen} temp files cleaned, ${history.length} history entries`);
}, 180_000);
