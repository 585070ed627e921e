import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../cli/main.js';
import { SessionStore } from '../session/session-state.js';
import { waitFor } from '../core/test-support/wait-for.js';
import { ENDPOINT_FILE, HookServer, hookSocketPath, isAppListening } from './hook-channel.js';
import { coalesceHookEvents, drainSpool, HOOK_LOG_FILE, type HookEvent, runHook, spoolDir, spoolHookCommand, watchSpool } from '../hook-spool/index.js';

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

const payload = (over: Record<string, unknown> = {}) =>
  JSON.stringify({
    session_id: 'abc-123',
    transcript_path: path.join(root, 'home/projects/-x/abc-123.jsonl'),
    cwd: path.join(root, 'repo'),
    hook_event_name: 'Stop',
    stop_hook_active: false,
    ...over,
  });
const stdin = (text: string) => Readable.from([Buffer.from(text)]);
const spooled = async () => (await fs.readdir(spoolDir(dataDir)).catch(() => [])).filter((n) => !n.startsWith('.'));
const hookLog = () => fs.readFile(path.join(dataDir, HOOK_LOG_FILE), 'utf8').catch(() => '');

async function listen(): Promise<void> {
  const { server, problem } = await HookServer.start(dataDir);
  expect(problem).toBeNull();
  servers.push(server!);
}

/** Run the shell command `hooks connect` installs for `event`, payload on stdin. */
function runShellHook(event: 'Stop' | 'PreCompact' | 'SessionEnd', text: string, env: NodeJS.ProcessEnv = {}): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = execFile('/bin/sh', ['-c', spoolHookCommand(event, dataDir)], { env: { ...process.env, MEMDIR_INTERNAL: '', ...env } }, (error) =>
      error && typeof error.code !== 'number' ? reject(error) : resolve(error ? (error.code as number) : 0),
    );
    child.stdin!.on('error', () => undefined);
    child.stdin!.end(text);
  });
}

describe('memdir hook with the app closed', () => {
  it('spools the event (private files), and the next start reads it', async () => {
    const result = await runHook({ event: 'Stop', stdin: stdin(payload()), env: {}, dataDir });
    expect(result).toMatchObject({ outcome: 'spooled', message: expect.stringContaining('spooled for the app') });
    const files = await spooled();
    expect(files).toEqual([expect.stringMatching(/^\d+-\d+-[0-9a-f]+-Stop\.hook$/)]);
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

  it.skipIf(process.platform === 'win32')(
    "the shell command writes the same entry, privately, exits 0 whatever happens, and skips Memdir's own sessions",
    async () => {
      expect(await runShellHook('PreCompact', payload({ hook_event_name: 'PreCompact', trigger: 'manual' }))).toBe(0);
      const files = await spooled();
      expect(files).toEqual([expect.stringMatching(/^\d+-\d+-PreCompact\.hook$/)]);
      expect((await fs.stat(path.join(spoolDir(dataDir), files[0]!))).mode & 0o777).toBe(0o600);
      expect((await fs.stat(spoolDir(dataDir))).mode & 0o777).toBe(0o700);
      expect(await runShellHook('Stop', payload(), { MEMDIR_INTERNAL: '1' })).toBe(0);
      expect(await spooled()).toHaveLength(1);
      // Garbage is spooled as it came (nothing is checked before it is safe) and refused when drained.
      expect(await runShellHook('Stop', 'not json {')).toBe(0);
      const seen: HookEvent[] = [];
      const drained = await drainSpool(dataDir, async (events) => void seen.push(...events));
      expect(seen).toEqual([expect.objectContaining({ event: 'PreCompact', trigger: 'manual' })]);
      expect(drained.bad).toEqual([{ file: expect.stringMatching(/-Stop\.hook$/), reason: 'the hook input is not JSON' }]);
      // A data dir it cannot create: still exit 0, so Claude Code carries on.
      await fs.writeFile(path.join(root, 'file'), '');
      dataDir = path.join(root, 'file', 'data');
      expect(await runShellHook('Stop', payload())).toBe(0);
    },
  );

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

describe('the running app', () => {
  it('answers pings with the token (socket 0600), refuses others, and is the only one taking the spool', async () => {
    await listen();
    expect(await isAppListening(dataDir)).toBe(true);
    if (process.platform !== 'win32') {
      expect((await fs.stat(hookSocketPath(dataDir))).mode & 0o777).toBe(0o600);
      expect((await fs.stat(path.join(dataDir, ENDPOINT_FILE))).mode & 0o777).toBe(0o600);
    }
    const answer = await new Promise<string>((resolve, reject) => {
      const conn = net.createConnection(hookSocketPath(dataDir));
      let text = '';
      conn.setEncoding('utf8');
      conn.on('connect', () => conn.write(`${JSON.stringify({ v: 1, token: 'guess', ping: true })}\n`));
      conn.on('data', (d: string) => (text += d));
      conn.on('end', () => resolve(text));
      conn.on('error', reject);
    });
    expect(JSON.parse(answer)).toEqual({ ok: false, error: 'wrong token' });
    expect(await HookServer.start(dataDir)).toMatchObject({ server: null, otherApp: true, problem: expect.stringContaining('Another Memdir') });
  });

  it('takes over from a crashed app (a stale endpoint and socket)', async () => {
    await listen();
    const endpoint = await fs.readFile(path.join(dataDir, ENDPOINT_FILE), 'utf8');
    await servers.pop()!.close();
    await fs.writeFile(path.join(dataDir, ENDPOINT_FILE), endpoint);
    expect(await isAppListening(dataDir)).toBe(false);
    await listen();
    expect(await isAppListening(dataDir)).toBe(true);
  });

  it('finds a socket outside a data dir too long for a socket address', async () => {
    dataDir = path.join(root, 'x'.repeat(120), 'data');
    expect(hookSocketPath(dataDir).startsWith(dataDir)).toBe(process.platform === 'win32');
    await listen();
    expect(await isAppListening(dataDir)).toBe(true);
  });

  it('notices a new spool entry within moments', async () => {
    let changes = 0;
    const stop = await watchSpool(dataDir, () => changes++, { pollMs: 60_000 });
    try {
      await runHook({ event: 'Stop', stdin: stdin(payload()), env: {}, dataDir });
      await waitFor(() => changes > 0, 5000, 'the spool watcher to notice the new entry');
    } finally {
      stop();
    }
  });
});

describe('SessionStart hands the session note back to Claude Code (R-SESSION)', () => {
  const start = (source: string, sessionId = 'abc-123') =>
    runHook({ event: 'SessionStart', stdin: stdin(payload({ hook_event_name: 'SessionStart', session_id: sessionId, source })), env: {}, dataDir });

  it('after a compaction or a resume, as additionalContext in the JSON Claude Code reads', async () => {
    await new SessionStore(dataDir).writeNote('abc-123', '# Session memory\n\n## Current task\nFix the flaky checkout test.\n');
    for (const source of ['compact', 'resume']) {
      const result = await start(source);
      expect(result.outcome).toBe('answered');
      const answer = JSON.parse(result.stdout!) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } };
      expect(answer.hookSpecificOutput.hookEventName).toBe('SessionStart');
      expect(answer.hookSpecificOutput.additionalContext).toMatch(
        /^Session Memory — Memdir's running note of this session[^\n]*\n\n# Session memory\n\n## Current task\nFix the flaky checkout test\.\n$/,
      );
    }
  });

  it('a note too long for Claude Code is cut to fit its 10,000 characters, keeping its beginning and its latest lines, and says where the whole note is', async () => {
    // Claude Code 2.1.332 puts a hook's additionalContext of more than 10,000 characters in a file
    // and gives the model a 2 KB preview of it (test/fixtures/claude-code-session/hook-context-2.1.332.json).
    const steps = Array.from({ length: 300 }, (_, i) => `- step ${i}: ${'checked the checkout flow again, '.repeat(2)}`);
    const note = ['# Session memory', '', '## Current task', 'Fix the flaky checkout test.', '', '## Where the workflow stands', ...steps, ''].join('\n');
    expect(note.length).toBeGreaterThan(20_000);
    await new SessionStore(dataDir).writeNote('abc-123', note);
    const result = await start('resume');
    const context = (JSON.parse(result.stdout!) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
    expect(context.length).toBeLessThanOrEqual(10_000);
    expect(context).toMatch(/^Session Memory — Memdir's running note[^\n]*\n\n# Session memory\n\n## Current task\nFix the flaky checkout test\.\n/);
    expect(context).toContain('- step 0:');
    expect(context.endsWith(`${steps.at(-1)!.trim()}\n`)).toBe(true);
    expect(context).not.toContain('- step 150:');
    expect(context).toContain(new SessionStore(dataDir).noteFile('abc-123'));
    expect(result.message).toMatch(/cut to \d[\d,]* of its 2\d,\d{3} characters/);

    // A note that fits, intro included, is handed back whole.
    const intro = context.slice(0, context.indexOf('# Session memory'));
    const fits = `# Session memory\n\n${'x'.repeat(10_000 - intro.length - '# Session memory\n\n'.length - 1)}`;
    await new SessionStore(dataDir).writeNote('abc-123', fits);
    const whole = (JSON.parse((await start('resume')).stdout!) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
    expect(whole).toBe(`${intro}${fits}\n`);
    expect(whole).toHaveLength(10_000);
    // One character more and it is cut: the count is of what would be handed back (the intro
    // included), not of the note alone, which is shorter than the limit.
    await new SessionStore(dataDir).writeNote('abc-123', `${fits}x`);
    const over = await start('resume');
    expect(over.message).toMatch(/, cut to [\d,]+ of its 10,001 characters \(intro included\) to fit Claude Code's limit$/);
  });

  it('nothing for a new session, another session, or no note; a bad payload is logged', async () => {
    await new SessionStore(dataDir).writeNote('abc-123', 'note');
    expect((await start('startup')).stdout).toBeUndefined();
    expect(await start('clear')).toMatchObject({ outcome: 'ignored' });
    expect(await start('compact', 'other-session')).toMatchObject({ outcome: 'ignored', message: expect.stringContaining('no Session Memory note') });
    expect(await runHook({ event: 'SessionStart', stdin: stdin('{'), env: {}, dataDir })).toMatchObject({ outcome: 'failed' });
    expect(await hookLog()).toContain('SessionStart: the hook input is not JSON');
  });

  it('prints the answer on stdout through the CLI', async () => {
    await new SessionStore(dataDir).writeNote('abc-123', 'the note');
    let out = '';
    const code = await runCli(['hook', 'SessionStart', '--data-dir', dataDir], {
      out: (t) => (out += t),
      err: () => undefined,
      env: {},
      cwd: root,
      stdin: stdin(payload({ hook_event_name: 'SessionStart', source: 'compact' })),
    });
    expect(code).toBe(0);
    expect(JSON.parse(out).hookSpecificOutput.additionalContext).toContain('the note');
  });
});

describe('memdir hook never fails Claude Code', () => {
  it("ignores Memdir's own sessions (MEMDIR_INTERNAL=1, or its claude-cli folder)", async () => {
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
    expect(await runHook({ event: 'Stop', stdin: never, env: {}, dataDir, stdinTimeoutMs: 100 })).toMatchObject({
      outcome: 'failed',
      message: expect.stringContaining('no hook input'),
    });
    const log = await hookLog();
    expect(log.trim().split('\n')).toHaveLength(6);
    expect(log).toContain('"UserPromptSubmit" is not a hook event Memdir spools');
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
      const child = execFile(
        process.execPath,
        ['--import', 'tsx', cli, 'hook', 'SessionEnd', '--data-dir', dataDir, '--json'],
        { cwd: path.resolve(import.meta.dirname, '../../..'), env: { ...process.env, MEMDIR_INTERNAL: '' } },
        (error, out) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout: out }),
      );
      child.stdin!.end(payload({ hook_event_name: 'SessionEnd', reason: 'logout' }));
    });
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ outcome: 'spooled' });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(await spooled()).toHaveLength(1);
  });
});
