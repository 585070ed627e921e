// Issue 15, finding 10: `memdir show … | head` exits quietly. The real `memdir` process, its stdout
// a pipe whose reader goes away after the first chunk, as `head` does.
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const MEMDIR = path.join(import.meta.dirname, 'memdir.ts');
let root: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-pipe-')));
  const memory = path.join(root, 'home', 'projects', '-work-app', 'memory');
  await fs.mkdir(memory, { recursive: true });
  // Far more than a pipe holds (64 KiB), so the writer is still writing when the reader leaves.
  const line = 'The payments service retries webhooks three times with exponential backoff.\n';
  await fs.writeFile(path.join(memory, 'project_big.md'), `---\nname: Big\ndescription: big\ntype: project\n---\n\n${line.repeat(9000)}`);
  for (let i = 0; i < 400; i++)
    await fs.writeFile(path.join(memory, `project_${i}.md`), `---\nname: Note ${i}\ndescription: ${line.trim()} (${i})\ntype: project\n---\n\nx\n`);
  env = { ...process.env, CLAUDE_CONFIG_DIR: path.join(root, 'home'), MEMDIR_DATA_DIR: path.join(root, 'data') };
});
afterAll(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

/** Run memdir, read one chunk of its stdout, then close the pipe; resolve with its exit and stderr. */
function runAndCloseEarly(args: string[]): Promise<{ code: number | null; signal: string | null; stderr: string; read: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', MEMDIR, ...args], {
      env,
      cwd: path.resolve(import.meta.dirname, '../..'),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let read = 0;
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.stdout.once('data', (chunk: Buffer) => {
      read = chunk.length;
      child.stdout.destroy();
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve({ code, signal, stderr, read }));
  });
}

describe('a reader that goes away (memdir … | head)', () => {
  it.each([
    ['show a large memory', ['show', '-work-app', 'project_big.md']],
    ['scan --json', ['scan', '--json']],
  ])('%s: exits quietly, without an EPIPE crash', async (_name, args) => {
    const result = await runAndCloseEarly(args);
    expect(result.read).toBeGreaterThan(0);
    expect(result.stderr).toBe('');
    expect(result.signal).toBeNull();
    expect(result.code).toBe(0);
  });
});
