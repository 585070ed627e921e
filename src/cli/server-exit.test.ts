// `memdir server` ends by a signal, and that is its normal end: Ctrl-C or SIGTERM stop it gracefully
// and it exits 0 (a supervisor or a script reads 0 as a clean stop, anything else as a crash); it
// exits 2 when it cannot start. The real process, a real port on loopback.
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const MEMDIR = path.join(import.meta.dirname, 'memdir.ts');
let root: string;

beforeEach(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-server-exit-')));
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

/** The real `memdir server`; `stop` is sent once it says it listens (its URL is then asked once). */
function server(args: string[], stop?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null; err: string; answered: number | null }> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, MEMDIR_DATA_DIR: path.join(root, 'data'), NO_COLOR: '1' };
    delete env.MEMDIR_DEBUG;
    delete env.MEMDIR_SERVER_DB;
    const child = spawn(process.execPath, ['--import', 'tsx', MEMDIR, 'server', ...args], { env, cwd: path.resolve(import.meta.dirname, '../..') });
    let err = '';
    let answered: number | null = null;
    let sent = false;
    child.stdout.resume();
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      err += d;
      const url = /listening on (\S+)/.exec(err)?.[1];
      if (!stop || sent || !url) return;
      sent = true;
      void fetch(`${url}/v1/health`)
        .then((r) => (answered = r.status))
        .catch(() => (answered = -1))
        .finally(() => child.kill(stop));
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => setImmediate(() => resolve({ code, signal, err, answered })));
  });
}

describe('memdir server: its exit', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)('%s stops it gracefully and it exits 0 (its normal end)', async (stop) => {
    const run = await server(['--db', path.join(root, 'team.sqlite'), '--port', '0'], stop);
    // It answered a request (any HTTP status; an unauthenticated one is 401) before it was stopped: -1 is a failed fetch.
    expect(run.answered, run.err).toBeGreaterThanOrEqual(200);
    expect(run.signal).toBeNull();
    expect(run.code, run.err).toBe(0);
    expect(run.err).toContain('Stopping: finishing requests in flight…');
  });

  it('exits 2 with a sentence when it cannot start (its store is a folder)', async () => {
    const db = path.join(root, 'a-folder.sqlite');
    await fs.mkdir(db);
    const run = await server(['--db', db, '--port', '0']);
    expect(run.code, run.err).toBe(2);
    expect(run.err).toMatch(/^memdir server: /);
    expect(run.err).not.toMatch(/EISDIR|SQLITE_|Error:|at .*\.[jt]s:\d+/);
  });
});
