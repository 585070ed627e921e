/**
 * A fake `claude` executable for tests of the CLI provider — the model stand-in for that
 * provider. `installFakeClaude(dir, behaviour)` writes `dir/claude` (a Node script) and returns
 * an env whose PATH starts with `dir`. The script records its argv, stdin and cwd to
 * `dir/calls.jsonl` and answers as `behaviour` says.
 */
import fs from 'node:fs/promises';
import path from 'node:path';

export interface FakeClaudeBehaviour {
  /** Printed for `--version`. */
  version?: string;
  /** The `result` text of a successful answer. */
  result?: string;
  /** Print this instead of a JSON result (e.g. garbage). */
  rawStdout?: string;
  /** Answer with `is_error: true` and this text. */
  errorResult?: string;
  /** Exit with this code after printing `stderr`. */
  exitCode?: number;
  stderr?: string;
  /** Wait this long before answering. */
  delayMs?: number;
  usage?: { input_tokens?: number; output_tokens?: number; cache_read_input_tokens?: number; cache_creation_input_tokens?: number };
  totalCostUsd?: number;
}

export interface FakeClaude {
  dir: string;
  command: string;
  /** `env` with `dir` first on PATH. */
  env: NodeJS.ProcessEnv;
  calls(): Promise<{ argv: string[]; stdin: string; cwd: string; env: Record<string, string | undefined> }[]>;
}

/** Write the fake executable into `dir`. */
export async function installFakeClaude(dir: string, behaviour: FakeClaudeBehaviour, baseEnv: NodeJS.ProcessEnv = process.env): Promise<FakeClaude> {
  await fs.mkdir(dir, { recursive: true });
  const command = path.join(dir, 'claude');
  const callsFile = path.join(dir, 'calls.jsonl');
  const script = `#!${process.execPath}
const fs = require('node:fs');
const b = ${JSON.stringify(behaviour)};
const argv = process.argv.slice(2);
if (argv.includes('--version')) { process.stdout.write((b.version || '2.1.0 (Claude Code)') + '\\n'); process.exit(0); }
let stdin = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (c) => { stdin += c; });
process.stdin.on('end', () => {
  fs.appendFileSync(${JSON.stringify(callsFile)}, JSON.stringify({ argv, stdin, cwd: process.cwd(), env: { MEMDIR_INTERNAL: process.env.MEMDIR_INTERNAL } }) + '\\n');
  setTimeout(() => {
    if (b.stderr) process.stderr.write(b.stderr);
    if (b.rawStdout !== undefined) { process.stdout.write(b.rawStdout); process.exit(b.exitCode || 0); }
    if (b.exitCode) process.exit(b.exitCode);
    const model = argv[argv.indexOf('--model') + 1] || 'claude-sonnet-4-6';
    const isError = b.errorResult !== undefined;
    process.stdout.write(JSON.stringify({
      type: 'result', subtype: isError ? 'error_during_execution' : 'success', is_error: isError,
      duration_ms: 12, num_turns: 1, result: isError ? b.errorResult : (b.result ?? 'ok'), session_id: 'fake-session',
      total_cost_usd: b.totalCostUsd ?? 0.0042,
      usage: Object.assign({ input_tokens: 120, output_tokens: 30, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }, b.usage || {}),
      modelUsage: { [model]: {} },
    }));
    process.exit(0);
  }, b.delayMs || 0);
});
`;
  await fs.writeFile(command, script, { mode: 0o755 });
  const env = { ...baseEnv, PATH: `${dir}${path.delimiter}${baseEnv.PATH ?? ''}` };
  return {
    dir,
    command,
    env,
    async calls() {
      const text = await fs.readFile(callsFile, 'utf8').catch(() => '');
      return text
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { argv: string[]; stdin: string; cwd: string; env: Record<string, string | undefined> });
    },
  };
}
