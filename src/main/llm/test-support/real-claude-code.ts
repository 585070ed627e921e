/**
 * The real Claude Code, for interop tests — the one place that finds the pinned binary and
 * says how it runs offline: against the fake Messages API (fake-anthropic.ts), with a throwaway
 * home, config dir and tmp dir, telemetry and updates off. Where the binary is, or why the tests
 * are skipped, is {@link findClaudeCodeBinary}'s one rule (`$CLAUDE_CODE_BIN`, else the platform
 * package in this repository's node_modules). `.ci/run` installs the pinned release and sets
 * `CLAUDE_CODE_BIN`, so the interop tests run in CI.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';

/** The Claude Code release the interop tests and the committed captures come from. */
export const PINNED_CLAUDE_CODE = '2.1.332';

/** Where the real client is, or why it is not there. */
export type ClaudeCodeBinary = { found: true; path: string; version: string } | { found: false; reason: string };

async function versionOf(binary: string): Promise<string | null> {
  return new Promise((resolve) => {
    const child = spawn(binary, ['--version'], { stdio: ['ignore', 'pipe', 'ignore'], env: { PATH: process.env.PATH, DISABLE_AUTOUPDATER: '1' } });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', () => resolve(null));
    child.on('exit', (code) => resolve(code === 0 ? (out.trim().split(/\s+/)[0] ?? null) : null));
  });
}

/** The pinned Claude Code: `CLAUDE_CODE_BIN`, else the platform package in this repository's node_modules. */
export async function findClaudeCodeBinary(env: NodeJS.ProcessEnv = process.env): Promise<ClaudeCodeBinary> {
  const candidates = [env.CLAUDE_CODE_BIN, path.resolve('node_modules', '@anthropic-ai', `claude-code-${process.platform}-${process.arch}`, 'claude')].filter(
    (c): c is string => Boolean(c),
  );
  for (const candidate of candidates) {
    if (!(await fs.stat(candidate).catch(() => null))?.isFile()) continue;
    const version = await versionOf(candidate);
    if (version === PINNED_CLAUDE_CODE) return { found: true, path: candidate, version };
    return { found: false, reason: `Claude Code at ${candidate} is ${version ?? 'not runnable'}, not the pinned ${PINNED_CLAUDE_CODE}` };
  }
  return {
    found: false,
    reason: `Claude Code ${PINNED_CLAUDE_CODE} is not installed (set CLAUDE_CODE_BIN or install @anthropic-ai/claude-code-${process.platform}-${process.arch})`,
  };
}

/** Where one offline run keeps its state. */
export interface OfflineClaudeDirs {
  /** `CLAUDE_CONFIG_DIR` (the Claude Code home). */
  configDir: string;
  /** HOME and TMPDIR: Claude Code never sees the real ones. */
  scratch: string;
  /** The fake Messages API's base URL. */
  baseUrl: string;
}

/** The variables every offline run needs (nothing of the caller's environment but what `extra` adds). */
export function offlineClaudeEnv(dirs: OfflineClaudeDirs, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    PATH: '/usr/local/bin:/usr/bin:/bin',
    HOME: dirs.scratch,
    TMPDIR: dirs.scratch,
    CLAUDE_CONFIG_DIR: dirs.configDir,
    ANTHROPIC_BASE_URL: dirs.baseUrl,
    ANTHROPIC_API_KEY: 'sk-ant-api03-fake-key-for-interop-tests',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    ...extra,
  };
}

/** The pinned Claude Code, or why the interop tests are skipped. */
export const REAL_CLAUDE_CODE: ClaudeCodeBinary = await findClaudeCodeBinary();

/** A finished run. */
export interface ClaudeRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** How to run it. */
export interface ClaudeRunOptions extends OfflineClaudeDirs {
  /** The launch directory. */
  cwd: string;
  stdin?: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

/**
 * Spawn the real Claude Code offline with `argv` (only the variables it needs, nothing of ours),
 * collect its output, kill it past the timeout; `start` drives its stdin and may watch its stdout.
 */
function spawnClaudeCode(argv: string[], options: ClaudeRunOptions, start: (child: ChildProcessWithoutNullStreams) => void): Promise<ClaudeRun> {
  if (!REAL_CLAUDE_CODE.found) throw new Error(REAL_CLAUDE_CODE.reason);
  const env = offlineClaudeEnv(options, options.env);
  return new Promise((resolve, reject) => {
    const child = spawn(REAL_CLAUDE_CODE.path, argv, { cwd: options.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.on('error', () => undefined);
    start(child);
  });
}

/** Run the real Claude Code offline with `args` (only the variables it needs, nothing of ours). */
export function runClaudeCode(args: string[], options: ClaudeRunOptions): Promise<ClaudeRun> {
  return spawnClaudeCode(args, options, (child) => child.stdin.end(options.stdin ?? ''));
}

/**
 * The variables of a session run as an application embedding the client runs it, not as `-p`'s
 * `sdk-cli`: the client then does its background work (extraction, its own dream), reading its
 * cached feature flags although telemetry is off.
 */
export const EMBEDDED_SESSION_ENV: NodeJS.ProcessEnv = { CLAUDE_CODE_ENTRYPOINT: 'claude-vscode', CLAUDE_CODE_GB_DISK_CACHE_WHEN_TELEMETRY_OFF: '1' };

/** The client's `--debug-file` in `folder`: the arguments that turn it on, and its text so far ('' before it is written). */
export function debugLogIn(folder: string): { args: string[]; read: () => string } {
  const file = path.join(folder, 'debug.log');
  return { args: ['--debug-file', file], read: () => (existsSync(file) ? readFileSync(file, 'utf8') : '') };
}

/** A multi-turn run (`--input-format stream-json`): how long to stay open after the last turn. */
export interface ClaudeTurnsOptions extends ClaudeRunOptions {
  /**
   * Awaited after the last turn's result, before stdin is closed (the client exits then): work
   * the client starts in the background after a turn, such as its own dream, goes on meanwhile.
   * If it throws, stdin is closed and the run rejects with its error.
   */
  beforeExit?: () => Promise<void>;
  /**
   * Awaited before each prompt after the first (`turn` is its 0-based index), once the previous
   * turn's result came out: background work that turn started, such as its memory extraction,
   * can be let finish first, so that what one turn set off does not overlap the next. If it
   * throws, no further prompt is sent, stdin is closed and the run rejects with its error.
   */
  beforeTurn?: (turn: number) => Promise<void>;
}

function isResultLine(line: string): boolean {
  try {
    return (JSON.parse(line) as { type?: unknown }).type === 'result';
  } catch {
    return false;
  }
}

/**
 * Run the real Claude Code offline for several turns of one session, as an application embedding
 * it does: `-p --input-format stream-json --output-format stream-json` with `args` after them,
 * each prompt sent only once the previous turn's result came out. Resolves when it exited; rejects
 * with the error of a `beforeTurn` or `beforeExit` that threw (once the client exited).
 */
export async function runClaudeCodeTurns(prompts: readonly string[], args: string[], options: ClaudeTurnsOptions): Promise<ClaudeRun> {
  const argv = ['-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose', ...args];
  let failed: { error: unknown } | null = null;
  const run = await spawnClaudeCode(argv, options, (child) => {
    let pending = '';
    let sent = 0;
    const send = () => child.stdin.write(`${JSON.stringify({ type: 'user', message: { role: 'user', content: prompts[sent++] } })}\n`);
    /** Runs a hook; if it throws, keeps the error and closes stdin, so the client exits and the run rejects. */
    const hook = (work: () => Promise<void>, then: () => void) =>
      void work().then(then, (error: unknown) => {
        failed ??= { error };
        child.stdin.end();
      });
    const finish = () => hook(options.beforeExit ?? (async () => undefined), () => child.stdin.end());
    child.stdout.on('data', (d: string) => {
      pending += d;
      let newline: number;
      while ((newline = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, newline);
        pending = pending.slice(newline + 1);
        if (failed || !isResultLine(line)) continue;
        if (sent >= prompts.length) finish();
        else if (options.beforeTurn) hook(() => options.beforeTurn!(sent), send);
        else send();
      }
    });
    if (prompts.length === 0) finish();
    else send();
  });
  if (failed) throw (failed as { error: unknown }).error;
  return run;
}
