// Issue 15, finding 10: `memdir team connect|sync` tell a script what happened by their exit code —
// refused entries and failed syncs are never 0. A lying server on loopback.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Behaviour, type MaliciousServer, startMaliciousServer } from '../../main/team/test-support/malicious-server.js';
import type { CliIo } from '../command.js';
import { runCli } from '../main.js';

const TOKEN = `mdt_${'0'.repeat(16)}_${'A'.repeat(43)}`;
let root: string;
let home: string;
let server: MaliciousServer | null = null;

beforeEach(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-team-exit-')));
  home = path.join(root, 'home');
  await fs.mkdir(path.join(home, 'projects', '-work-app', 'memory', 'team'), { recursive: true });
});
afterEach(async () => {
  await server?.close();
  server = null;
  await fs.rm(root, { recursive: true, force: true });
});

async function memdir(args: string[], stdin?: string): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = {
    out: (t) => (out += t),
    err: (t) => (err += t),
    env: { MEMDIR_DATA_DIR: path.join(root, 'data'), HOME: root },
    cwd: root,
    ...(stdin ? { stdin: Readable.from([stdin]) } : {}),
  };
  const code = await runCli(args, io);
  return { code, out, err };
}

async function connect(behaviour: Behaviour): Promise<{ code: number; out: string; err: string }> {
  server = await startMaliciousServer(behaviour);
  return memdir(['team', 'connect', '--project', '-work-app', '--home', home, '--server', server.url, '--team', 'platform', '--token-stdin', '--json'], TOKEN);
}

describe('team exit codes', () => {
  it('connect and sync exit 1 when the server sent entries that were refused', async () => {
    const connected = await connect({ kind: 'entries', entries: { '../../escape.md': { content: 'x' }, 'ok.md': { content: 'fine\n' } } });
    expect(JSON.parse(connected.out).sync.pull.refused).toEqual([expect.objectContaining({ key: '../../escape.md' })]);
    expect(connected.code).toBe(1);
    const again = await memdir(['team', 'sync', '--project', '-work-app', '--home', home]);
    expect(again.out).toContain('Refused from the server');
    expect(again.code).toBe(1);
  });

  it('connect exits 2 when its first sync failed (the connection is kept), and so does sync', async () => {
    await fs.writeFile(path.join(home, 'projects', '-work-app', 'memory', 'team', 'project_api.md'), 'v2 on 2026-04-01.\n');
    const connected = await connect({ kind: 'refuse-push', status: 500, body: { error: 'internal', message: 'boom' } });
    expect(JSON.parse(connected.out).sync.error).toMatchObject({ message: expect.any(String) });
    expect(connected.code).toBe(2);
    const status = await memdir(['team', 'status', '--project', '-work-app', '--home', home, '--json']);
    expect(JSON.parse(status.out)).toMatchObject({ connected: true });
    const again = await memdir(['team', 'sync', '--project', '-work-app', '--home', home]);
    expect(again.code).toBe(2);
    expect(again.err).toMatch(/^memdir team sync: /m);
  });

  it('status says the last sync failed, and why, until one gets through (as the Team sync tab of the app does)', async () => {
    await fs.writeFile(path.join(home, 'projects', '-work-app', 'memory', 'team', 'project_api.md'), 'v2 on 2026-04-01.\n');
    const connected = await connect({ kind: 'refuse-push', status: 500, body: { error: 'internal', message: 'boom' } });
    expect(connected.code).toBe(2);
    const said = JSON.parse(connected.out).sync.error.message as string;
    const { at } = JSON.parse(connected.out).sync.error as { at: string };
    const text = await memdir(['team', 'status', '--project', '-work-app', '--home', home]);
    expect(text.out).toContain(`Last sync failed (${at}): ${said}`);
    expect(text.out).not.toContain('Everything here is on the server');
    expect(text.code).toBe(1);
    const json = JSON.parse((await memdir(['team', 'status', '--project', '-work-app', '--home', home, '--json'])).out);
    expect(json.lastError).toMatchObject({ message: said });
  });
});

describe('a folder Claude Code syncs itself', () => {
  it('is listed, named in words, and never makes connect, sync or status exit 1 by itself', async () => {
    const team = path.join(home, 'projects', '-work-app', 'memory', 'team');
    await fs.mkdir(path.join(team, 'store'), { recursive: true });
    await fs.writeFile(path.join(team, 'store', '.memory-sync'), '{"v":1,"partition":"/x/store"}');
    await fs.writeFile(path.join(team, 'store', 'local.md'), 'the client syncs this\n');
    const connected = await connect({ kind: 'entries', entries: { 'store/server.md': { content: 'from a teammate\n' }, 'ok.md': { content: 'fine\n' } } });
    const report = JSON.parse(connected.out).sync;
    expect(report.pull.written).toEqual(['ok.md']);
    expect(report.pull.refused).toEqual([expect.objectContaining({ key: 'store/server.md' })]);
    expect(report.waiting).toEqual([expect.objectContaining({ key: 'store', reason: 'claude-code-store' })]);
    expect(connected.code).toBe(0);
    const again = await memdir(['team', 'sync', '--project', '-work-app', '--home', home]);
    expect(again.out).toContain('Not uploaded: team/store — team/store/ is a folder Claude Code syncs itself');
    expect(again.code).toBe(0);
    const status = await memdir(['team', 'status', '--project', '-work-app', '--home', home]);
    expect(status.out).toContain('Held back: team/store — ');
    expect(status.code).toBe(0);

    // The whole team folder: named in words, not ".".
    await fs.writeFile(path.join(team, '.memory-sync'), '{"v":1,"partition":"/x/team"}');
    const whole = await memdir(['team', 'status', '--project', '-work-app', '--home', home]);
    expect(whole.out).toContain('Held back: the whole team folder — team/ is a folder Claude Code syncs itself');
    expect(whole.code).toBe(0);
  });
});
