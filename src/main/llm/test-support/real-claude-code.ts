/**
 * The real Claude Code, for interop tests: found, checked to be the pinned version, and run
 * offline against the fake Messages API (fake-anthropic.ts) with a throwaway home. Tests that
 * need it skip with {@link REAL_CLAUDE_CODE}'s reason when it is not installed.
 *
 * Where it is looked for: `$MEMDIR_CLAUDE_CODE_BIN`; the platform package in this repository's
 * `node_modules` (`@anthropic-ai/claude-code-<platform>-<arch>/claude`, what
 * `npm install @anthropic-ai/claude-code@<pinned>` brings); `claude` on PATH.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

/** The version the interop tests pin: their expectations were observed with it. */
export const PINNED_CLAUDE_CODE = '2.1.332';

function versionOf(binary: string): string | null {
  try {
    return /^(\d+\.\d+\.\d+)/.exec(execFileSync(binary, ['--version'], { encoding: 'utf8', timeout: 20_000, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', DISABLE_AUTOUPDATER: '1', HOME: '/nonexistent' } }).trim())?.[1] ?? null;
  } catch {
    return null;
  }
}

function locate(): { binary: string } | { reason: string } {
  const repo = path.resolve(import.meta.dirname, '../../../..');
  const candidates = [
    process.env.MEMDIR_CLAUDE_CODE_BIN,
    path.join(repo, 'node_modules', '@anthropic-ai', `claude-code-${process.platform}-${process.arch}`, process.platform === 'win32' ? 'claude.exe' : 'claude'),
    ...(process.env.PATH ?? '').split(path.delimiter).filter(Boolean).map((dir) => path.join(dir, 'claude')),
  ].filter((c): c is string => Boolean(c) && existsSync(c!));
  for (const binary of candidates) {
    const version = versionOf(binary);
    if (version === PINNED_CLAUDE_CODE) return { binary };
    if (binary === process.env.MEMDIR_CLAUDE_CODE_BIN) return { reason: `MEMDIR_CLAUDE_CODE_BIN is Claude Code ${version ?? '(unknown version)'}, the interop tests pin ${PINNED_CLAUDE_CODE}` };
  }
  return { reason: `Claude Code ${PINNED_CLAUDE_CODE} is not installed (set MEMDIR_CLAUDE_CODE_BIN, or npm install @anthropic-ai/claude-code@${PINNED_CLAUDE_CODE})` };
}

/** The pinned Claude Code binary, or why the interop tests are skipped. */
export const REAL_CLAUDE_CODE = locate();

/** A finished run. */
export interface ClaudeRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** How to run it. */
export interface ClaudeRunOptions {
  /** The launch directory. */
  cwd: string;
  /** `CLAUDE_CONFIG_DIR` (the Claude Code home); also HOME's `.claude` is never used. */
  configDir: string;
  /** A throwaway HOME and TMPDIR. */
  scratch: string;
  /** The fake Messages API's base URL. */
  baseUrl: string;
  stdin?: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

/** Run the real Claude Code offline with `args` (only the variables it needs, nothing of ours). */
export function runClaudeCode(args: string[], options: ClaudeRunOptions): Promise<ClaudeRun> {
  if (!('binary' in REAL_CLAUDE_CODE)) throw new Error(REAL_CLAUDE_CODE.reason);
  const env: NodeJS.ProcessEnv = {
    PATH: '/usr/local/bin:/usr/bin:/bin',
    HOME: options.scratch,
    TMPDIR: options.scratch,
    CLAUDE_CONFIG_DIR: options.configDir,
    ANTHROPIC_BASE_URL: options.baseUrl,
    ANTHROPIC_API_KEY: 'sk-ant-api03-fake-key-for-interop-tests',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    ...options.env,
  };
  return new Promise((resolve, reject) => {
    const child = spawn(REAL_CLAUDE_CODE.binary, args, { cwd: options.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
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
    child.stdin.end(options.stdin ?? '');
  });
}
