import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../cli/main.js';
import { ENDPOINT_FILE, HookServer, deliverHookEvent, hookSocketPath, isAppListening } from './hook-channel.js';
import type { HookEvent } from './hook-payload.js';
import { coalesceHookEvents, drainSpool, spoolDir } from './hook-spool.js';
import { HOOK_LOG_FILE, runHook } from './run-hook.js';

let root: string;
let dataDir: string;
let servers: HookServer[];

beforeEach(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-hook-')));
  dataDir = path.join(root, 'data');
  servers = [];
});
afterEach(async () => {
  for (const server of servers) await server.close();
  await fs.rm(root, { recursive: true, force: true });
});

const payload = (over: Record<string, unknown> = {}) => JSON.stringify({ session_id: 'abc-123', transcript_path: path.join(root, 'home/projects/-x/abc-123.jsonl'), cwd: path.join(root, 'repo'), hook_event_name: 'Stop', stop_hook_active: false, ...over });
const stdin = (text: string) => Readable.from([Buffer.from(text)]);
const spooled = async () => (await fs.readdir(spoolDir(dataDir)).catch(() => [])).filter((n) => n.endsWith('.json'));
const hookLog = () => fs.readFile(path.join(dataDir, HOOK_LOG_FILE), 'utf8').catch(() => '');

async function listen(): Promise<HookEvent[]> {
  const received: HookEvent[] = [];
  const { server, problem } = await HookServer.start(dataDir, (event) => received.push(event));
  expect(problem).toBeNull();
  servers.push(server!);
  return received;
}

describe('memdir hook with the app closed', () => {
  it('spools the event (private files), and the next start reads it', async () => {
    const result = await runHook({ event: 'Stop', stdin: stdin(payload()), env: {}, dataDir });
    expect(result).toMatchObject({ outcome: 'spooled', message: expect.stringContaining('not running') });
    const files = await spooled();
    expect(files).toHaveLength(1);
    if (process.platform !== 'win32') {
      expect((await fs.stat(path.join(spoolDir(dataDir), files[0]!))).mode & 0o777).toBe(0o600);
      expect((await fs.stat(spoolDir(dataDir))).mode & 0o777).toBe(0o700);
    }
    const seen: HookEvent[] = [];
    const drained = await drainSpool(dataDir, async (events) => void seen.push(...events));
    expect(drained).toMatchObject({ read: 1, bad: [] });
    expect(seen).toEqual([expect.objectContaining({ event: 'Stop', sessionId: 'abc-123', stopHookActive: false })]);
    expect(await spooled()).toEqual([]);
  });

  it('coalesces many Stops of one transcript, keeps order, and removes damaged spool files', async () => {
    for (let i = 0; i < 5; i++) await runHook({ event: 'Stop', stdin: stdin(payload()), env: {}, dataDir });
    await runHook({ event: 'SessionEnd', stdin: stdin(payload({ hook_event_name: 'SessionEnd', reason: 'clear' })), env: {}, dataDir });
    await fs.writeFile(path.join(spoolDir(dataDir), '000-bad.json'), '{"v": 1, "event": {"event": "Nope"}}');
    const seen: HookEvent[] = [];
    const drained = await drainSpool(dataDir, async (events) => void seen.push(...events));
    expect(seen.map((e) => e.event)).toEqual(['Stop', 'SessionEnd']);
    expect(drained.stops).toEqual({ [seen[0]!.transcriptPath]: 5 });
    expect(drained.bad).toEqual([{ file: '000-bad.json', reason: 'not a spooled hook event' }]);
    expect(await spooled()).toEqual([]);
    expect(coalesceHookEvents([])).toEqual([]);
  });

  it('keeps the spool when handling fails, for the next start', async () => {
    await runHook({ event: 'Stop', stdin: stdin(payload()), env: {}, dataDir });
    await expect(drainSpool(dataDir, async () => Promise.reject(new Error('busy')))).rejects.toThrow('busy');
    expect(await spooled()).toHaveLength(1);
  });
});

describe('memdir hook with the app running', () => {
  it('hands the event over the socket (0600), and spools nothing', async () => {
    const received = await listen();
    const result = await runHook({ event: 'PreCompact', stdin: stdin(payload({ hook_event_name: 'PreCompact', trigger: 'auto' })), env: {}, dataDir });
    expect(result.outcome).toBe('delivered');
    expect(received).toEqual([expect.objectContaining({ event: 'PreCompact', trigger: 'auto' })]);
    expect(await spooled()).toEqual([]);
    if (process.platform !== 'win32') {
      expect((await fs.stat(hookSocketPath(dataDir))).mode & 0o777).toBe(0o600);
      expect((await fs.stat(path.join(dataDir, ENDPOINT_FILE))).mode & 0o777).toBe(0o600);
    }
    expect(await isAppListening(dataDir)).toBe(true);
  });

  it('refuses a message without the token, and does not start a second listener', async () => {
    const received = await listen();
    const answer = await new Promise<string>((resolve, reject) => {
      const conn = net.createConnection(hookSocketPath(dataDir));
      let text = '';
      conn.setEncoding('utf8');
      conn.on('connect', () => conn.write(`${JSON.stringify({ v: 1, token: 'guess', event: JSON.parse(payload()) })}\n`));
      conn.on('data', (d: string) => (text += d));
      conn.on('end', () => resolve(text));
      conn.on('error', reject);
    });
    expect(JSON.parse(answer)).toEqual({ ok: false, error: 'wrong token' });
    expect(received).toEqual([]);
    expect(await HookServer.start(dataDir, () => undefined)).toMatchObject({ server: null, problem: expect.stringContaining('Another Memdir') });
  });

  it('spools when the endpoint is stale (the app crashed) and a new app takes the socket over', async () => {
    await listen();
    const endpoint = await fs.readFile(path.join(dataDir, ENDPOINT_FILE), 'utf8');
    await servers.pop()!.close();
    await fs.writeFile(path.join(dataDir, ENDPOINT_FILE), endpoint);
    expect((await runHook({ event: 'Stop', stdin: stdin(payload()), env: {}, dataDir, deliverTimeoutMs: 500 })).outcome).toBe('spooled');
    const received = await listen();
    const event = (await drainSpoolEvents())[0]!;
    expect(await deliverHookEvent(dataDir, event)).toEqual({ delivered: true });
    expect(received).toHaveLength(1);
  });

  it('finds a socket outside a data dir too long for a socket address', async () => {
    dataDir = path.join(root, 'x'.repeat(120), 'data');
    expect(hookSocketPath(dataDir).startsWith(dataDir)).toBe(process.platform === 'win32');
    const received = await listen();
    expect((await runHook({ event: 'Stop', stdin: stdin(payload()), env: {}, dataDir })).outcome).toBe('delivered');
    expect(received).toHaveLength(1);
  });
});

async function drainSpoolEvents(): Promise<HookEvent[]> {
  const seen: HookEvent[] = [];
  await drainSpool(dataDir, async (events) => void seen.push(...events));
  return seen;
}

describe('memdir hook never fails Claude Code', () => {
  it('ignores Memdir\'s own sessions (MEMDIR_INTERNAL=1, or its claude-cli folder)', async () => {
    expect((await runHook({ event: 'Stop', stdin: stdin(payload()), env: { MEMDIR_INTERNAL: '1' }, dataDir })).outcome).toBe('ignored');
    expect((await runHook({ event: 'Stop', stdin: stdin(payload({ cwd: path.join(dataDir, 'claude-cli') })), env: {}, dataDir })).outcome).toBe('ignored');
    expect(await spooled()).toEqual([]);
  });

  it('logs bad input and returns: garbage, the wrong event, a missing session id, nothing on stdin', async () => {
    const cases: [string, string][] = [
      ['Stop', 'not json {'],
      ['Stop', payload({ hook_event_name: 'PreCompact' })],
      ['Stop', JSON.stringify({ transcript_path: '/x' })],
      ['Stop', payload({ session_id: '../../etc' })],
      ['UserPromptSubmit', payload()],
    ];
    for (const [event, text] of cases) expect((await runHook({ event, stdin: stdin(text), env: {}, dataDir })).outcome, text).toBe('failed');
    const never = new Readable({ read() {} });
    expect(await runHook({ event: 'Stop', stdin: never, env: {}, dataDir, stdinTimeoutMs: 100 })).toMatchObject({ outcome: 'failed', message: expect.stringContaining('no hook input') });
    const log = await hookLog();
    expect(log.trim().split('\n')).toHaveLength(6);
    expect(log).toContain('not JSON');
    expect(await spooled()).toEqual([]);
  });

  it('exits 0 through the CLI whatever it is given', async () => {
    const io = (text: string) => ({ out: () => undefined, err: () => undefined, env: { MEMDIR_DATA_DIR: dataDir }, cwd: root, stdin: stdin(text) });
    expect(await runCli(['hook', 'Stop'], io('garbage'))).toBe(0);
    expect(await runCli(['hook'], io(payload()))).toBe(0);
    expect(await runCli(['hook', 'Stop', 'extra'], io(payload()))).toBe(0);
    expect(await runCli(['hook', 'Stop', '--data-dir', dataDir], io(payload()))).toBe(0);
    expect(await spooled()).toHaveLength(1);
  });

  it('runs as a real process: exit 0, quickly, with the event spooled', async () => {
    const cli = path.resolve(import.meta.dirname, '../../cli/memdir.ts');
    const started = Date.now();
    const { code, stdout } = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const child = execFile(process.execPath, ['--import', 'tsx', cli, 'hook', 'SessionEnd', '--data-dir', dataDir, '--json'], { cwd: path.resolve(import.meta.dirname, '../../..'), env: { ...process.env, MEMDIR_INTERNAL: '' } }, (error, out) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout: out }));
      child.stdin!.end(payload({ hook_event_name: 'SessionEnd', reason: 'logout' }));
    });
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ outcome: 'spooled' });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(await spooled()).toHaveLength(1);
  });
});
