/**
 * The crash test issue 2 asks for: a child process writing memories in a loop (through
 * `transact` + `writeFileAtomic`) is SIGKILLed at 100 random moments. After every kill, every
 * file holds exactly its previous or its intended new content, and the shadow history is intact.
 */
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { watch } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseIndex } from '../../shared/index-format.js';
import { TEMP_FILE_PREFIX } from '../memdir/safe-fs.js';
import { listHistory, readAtRevision, recordSnapshot, transact } from './history.js';

const KILLS = 100;
const here = path.dirname(fileURLToPath(import.meta.url));
const run = promisify(execFile);

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

const sha = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

/** Per file: the hash of its last completed write, and hashes of writes begun after it. */
function expectedContents(log: string): Map<string, { done: string | null; pending: Set<string> }> {
  const files = new Map<string, { done: string | null; pending: Set<string> }>();
  // The last line may be torn by the kill; only whole lines count.
  for (const line of log.split('\n').slice(0, -1)) {
    const [kind, file = '', hash = ''] = line.split(' ');
    const state = files.get(file) ?? { done: null, pending: new Set<string>() };
    files.set(file, state);
    if (kind === 'intend') state.pending.add(hash);
    else state.done = hash;
    if (kind === 'done') state.pending.clear();
  }
  return files;
}

interface Writer {
  child: ChildProcess;
  exit: Promise<[number | null, NodeJS.Signals | null]>;
  stderr: () => string;
}

async function startWriter(mem: string, dataDir: string, logPath: string): Promise<Writer> {
  const child = spawn(process.execPath, [writer, mem, dataDir, logPath], { stdio: ['pipe', 'pipe', 'pipe'] });
  const exit = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  let out = '';
  let err = '';
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
  await Promise.race([
    new Promise<void>((resolve) => {
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('ready')) resolve();
      });
    }),
    exit.then(([code]) => {
      throw new Error(`writer exited early (${code}): ${err}`);
    }),
  ]);
  return { child, exit, stderr: () => err };
}

async function checkFiles(mem: string, log: string): Promise<{ torn: string[]; temps: number }> {
  const expected = expectedContents(log);
  const torn: string[] = [];
  let temps = 0;
  for (const name of await fs.readdir(mem)) {
    if (name.startsWith('.')) {
      expect(name.startsWith(TEMP_FILE_PREFIX), `unexpected dotfile ${name}`).toBe(true);
      temps++;
      continue;
    }
    const data = await fs.readFile(path.join(mem, name));
    const state = expected.get(name);
    const hash = sha(data);
    if (!state || (hash !== state.done && !state.pending.has(hash))) torn.push(name);
    if (name === 'MEMORY.md') {
      expect(parseIndex(data.toString('utf8')).lines.every((l) => l.kind === 'entry')).toBe(true);
    }
  }
  for (const [name, state] of expected) {
    // A file whose write completed must still be there.
    if (state.done !== null) await expect(fs.access(path.join(mem, name)), `${name} vanished`).resolves.toBeUndefined();
  }
  return { torn, temps };
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

/** `git fsck` on the shadow repo; before the first commit (killed during creation) there may be none yet. */
async function fsck(dataDir: string, mustExist: boolean): Promise<void> {
  const [key = ''] = await fs.readdir(path.join(dataDir, 'history')).catch(() => []);
  const gitDir = path.join(dataDir, 'history', key, 'repo.git');
  if (!mustExist && !(await fs.access(path.join(gitDir, 'HEAD')).then(() => true, () => false))) return;
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GIT_')));
  await run('git', [`--git-dir=${gitDir}`, 'fsck', '--strict', '--no-dangling', '--no-progress'], {
    env: { ...env, GIT_CONFIG_NOSYSTEM: '1' },
  });
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
    // The next writer loads while we check; it touches nothing before it is told to go.
    next = startWriter(mem, dataDir, logPath);

    const log = await fs.readFile(logPath, 'utf8').catch(() => '');
    const { torn, temps } = await checkFiles(mem, log);
    expect(torn, `after kill ${kill}, files with content that was never written whole`).toEqual([]);
    const newLines = log.slice(logLength).split('\n').slice(0, -1);
    if (newLines.at(-1)?.startsWith('intend')) midWriteKills++;
    logLength = log.lastIndexOf('\n') + 1;
    tempFilesSeen += temps;

    await fsck(dataDir, kill > 0);
    await listHistory(mem, { dataDir, limit: 3 });
    // A new writer takes over the dead one's lock at once, records what it left, and removes
    // its temp files.
    await transact(mem, { source: 'fix', summary: 'Check after crash', dataDir }, async () => undefined);
    expect((await fs.readdir(mem)).filter((n) => n.startsWith('.'))).toEqual([]);
    // Nothing left unrecorded: history now holds exactly what is on disk.
    expect(await recordSnapshot(mem, { source: 'fix', summary: 'Nothing left', dataDir })).toBeNull();
  }
  (await next).child.kill('SIGKILL');

  const index = await fs.readFile(path.join(mem, 'MEMORY.md'), 'utf8');
  expect(await readAtRevision(mem, 'HEAD', 'MEMORY.md', { dataDir })).toBe(index);
  const history = await listHistory(mem, { dataDir });
  expect(history.some((e) => e.source === 'manual')).toBe(true);
  // The kills did land between a write's start and its end, not only between writes.
  expect(midWriteKills).toBeGreaterThanOrEqual(10);
  console.info(`crash test: ${KILLS} kills, ${midWriteKills} mid-write, ${tempFilesSeen} temp files cleaned, ${history.length} history entries`);
}, 180_000);
