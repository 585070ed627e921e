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
import fs from 'node:fs';
import path from 'node:path';
import { startFakeAnthropic } from '../../llm/test-support/fake-anthropic.js';
import { REAL_CLAUDE_CODE, runClaudeCode } from '../../llm/test-support/real-claude-code.js';

/** Why the real-client tests are skipped, or null when they run. */
export const claudeCodeSkipReason: string | null = REAL_CLAUDE_CODE.found ? null : REAL_CLAUDE_CODE.reason;

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
  /** Every request it sent to the Messages API, as JSON text (what the model was given: the memory index included). */
  requests: string;
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
export async function observeClaudeCode(options: ClaudeCodeRunOptions): Promise<ClaudeCodeRun> {
  const fake = await startFakeAnthropic({ fallback: { kind: 'message', text: 'ok' } });
  const scratch = path.join(options.scratch, 'home');
  for (const dir of [scratch, options.configDir]) fs.mkdirSync(dir, { recursive: true });
  try {
    const run = await runClaudeCode(['-p', 'hello'], {
      cwd: options.cwd,
      configDir: options.configDir,
      scratch,
      baseUrl: fake.url,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...options.env },
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    });
    const exitCode = run.code;
    const output = run.stdout + run.stderr;
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
    const requests = JSON.stringify(fake.messageRequests().map((r) => r.body));
    return { memoryDir, folders, transcriptFolder: folders.find((f) => f.transcripts.length > 0)?.name ?? null, exitCode, output, requests };
  } finally {
    await fake.close();
  }
}
