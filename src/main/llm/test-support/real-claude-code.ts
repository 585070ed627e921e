/**
 * Run the real Claude Code offline, for interop tests: against the fake Messages API
 * (fake-anthropic.ts), with a throwaway home, only the variables it needs. Where the pinned
 * binary is, or why the tests are skipped, is {@link findClaudeCodeBinary}'s one rule
 * (`$CLAUDE_CODE_BIN`, else the platform package in this repository's node_modules).
 */
import { spawn } from 'node:child_process';
import { type ClaudeCodeBinary, findClaudeCodeBinary } from '../../recall/test-support/capture-claude-code-recall.js';

/** The pinned Claude Code, or why the interop tests are skipped. */
export const REAL_CLAUDE_CODE: ClaudeCodeBinary = await findClaudeCodeBinary();

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
  if (!REAL_CLAUDE_CODE.found) throw new Error(REAL_CLAUDE_CODE.reason);
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
    const child = spawn(REAL_CLAUDE_CODE.path, args, { cwd: options.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
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
