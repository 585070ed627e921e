/**
 * The real Claude Code, for tests that compare Memdir with it (R-KEY, R-SETTINGS, R-LAYOUT).
 * It runs offline: `claude -p` against the loopback fake Messages API, in a temporary config
 * dir, home and tmp dir, with telemetry and updates off. What it did is read back from its
 * request (the system prompt names the memory directory it uses, or has no memory section when
 * auto memory is off) and from the folders it wrote under `projects/`.
 *
 * The binary is the pinned release `findClaudeCodeBinary` finds (`CLAUDE_CODE_BIN`, else the
 * platform package in node_modules); tests skip with {@link claudeCodeSkipReason} otherwise.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startFakeAnthropic } from '../../llm/test-support/fake-anthropic.js';
import { findClaudeCodeBinary } from '../../recall/test-support/capture-claude-code-recall.js';

const found = await findClaudeCodeBinary();

/** The pinned binary (found the one way the interop tests find it), or null. */
export const claudeCodeBin: string | null = found.found ? found.path : null;

/** Why the real-client tests are skipped, or null when they run. */
export const claudeCodeSkipReason: string | null = found.found ? null : found.reason;

/** What one `claude -p` run did. */
export interface ClaudeCodeRun {
  /** The memory directory its system prompt names (trailing separator removed), or null when it has no memory section. */
  memoryDir: string | null;
  /** Folders under `<configDir>/projects/`: which hold transcripts, which a `memory/` dir. */
  folders: { name: string; transcripts: string[]; memory: boolean }[];
  /** The folder its session transcript went to. */
  transcriptFolder: string | null;
  exitCode: number | null;
  output: string;
}

/** Options of one run; `configDir` is created when missing. */
export interface ClaudeCodeRunOptions {
  cwd: string;
  /** `CLAUDE_CONFIG_DIR`; its `settings.json` is the user settings. */
  configDir: string;
  /** A scratch directory for HOME and TMPDIR. */
  scratch: string;
  /** Extra environment (PATH included: pass a PATH without git to run without it). */
  env?: Record<string, string>;
  timeoutMs?: number;
}

/** Run `claude -p hello` once (see the module comment). */
export async function runClaudeCode(options: ClaudeCodeRunOptions): Promise<ClaudeCodeRun> {
  if (!claudeCodeBin) throw new Error(claudeCodeSkipReason!);
  const fake = await startFakeAnthropic({ fallback: { kind: 'message', text: 'ok' } });
  const home = path.join(options.scratch, 'home');
  const tmp = path.join(options.scratch, 'tmp');
  for (const dir of [home, tmp, options.configDir]) fs.mkdirSync(dir, { recursive: true });
  try {
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: home,
      TMPDIR: tmp,
      CLAUDE_CONFIG_DIR: options.configDir,
      ANTHROPIC_BASE_URL: fake.url,
      ANTHROPIC_API_KEY: 'sk-ant-api03-memdir-test-not-a-key',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      ...options.env,
    };
    const child = spawn(claudeCodeBin, ['-p', 'hello'], { cwd: options.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    const exitCode = await new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    clearTimeout(timer);
    let memoryDir: string | null = null;
    for (const request of fake.messageRequests()) {
      const system = JSON.stringify(request.body?.system ?? '');
      const match = /persistent file-based memory at `([^`]+)`/.exec(system);
      if (match) memoryDir = match[1]!.replace(/[/\\]+$/, '');
    }
    const projects = path.join(options.configDir, 'projects');
    const folders = (fs.existsSync(projects) ? fs.readdirSync(projects) : []).sort().map((name) => {
      const entries = fs.readdirSync(path.join(projects, name));
      return { name, transcripts: entries.filter((e) => e.endsWith('.jsonl')), memory: entries.includes('memory') };
    });
    return { memoryDir, folders, transcriptFolder: folders.find((f) => f.transcripts.length > 0)?.name ?? null, exitCode, output };
  } finally {
    await fake.close();
  }
}
