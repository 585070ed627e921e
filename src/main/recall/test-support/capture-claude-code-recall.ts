/**
 * Run the real Claude Code through the recall scenario (claude-code-recall-scenario.ts) against
 * the fake Messages API, and keep what it sent its recall selector and what it then loaded.
 * Claude Code runs offline in a throwaway home: a temporary CLAUDE_CONFIG_DIR, HOME and TMPDIR,
 * telemetry and non-essential traffic off. Its recall selector is switched on the way Anthropic's
 * servers switch it on: the cached feature flag `tengu_moth_copse` in `.claude.json` (read with
 * telemetry off only under CLAUDE_CODE_GB_DISK_CACHE_WHEN_TELEMETRY_OFF=1). Prompts go in over
 * `--input-format stream-json`, one after the other, in one session; the main agent's scripted
 * reply reads a file first, so the recalled memories get attached (and recorded) on its second
 * step.
 *
 * Standalone, to refresh the committed capture after a Claude Code update:
 *   CLAUDE_CODE_BIN=/path/to/claude npx tsx src/main/recall/test-support/capture-claude-code-recall.ts
 * writes test/fixtures/claude-code/recall-<version>.json.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { sanitizeDirName } from '../../../shared/sanitize.js';
import { type FakeRequest, startFakeAnthropic } from '../../llm/test-support/fake-anthropic.js';
import { PINNED_CLAUDE_CODE, findClaudeCodeBinary, offlineClaudeEnv } from '../../llm/test-support/real-claude-code.js';
import { recalledInLine } from '../claude-code/surfaced.js';
import { SCENARIO_QUERIES, writeRecallScenario } from './claude-code-recall-scenario.js';

/** What one session of the real client did. */
export interface CapturedRecall {
  /** The selector requests, in order (bodies as received). */
  requests: Record<string, unknown>[];
  /** The `anthropic-beta` header of each. */
  betas: string[];
  /** Files loaded after each prompt, relative to the memory dir, as its transcript records them. */
  loaded: string[][];
  /** Where the scenario was written (left for the caller to compare with). */
  memoryDir: string;
  /** The files its instructions attachments loaded at session start, relative to the memory dir, with their type (`MEMORY.md (AutoMem)`). */
  instructions: string[];
}

const isSelector = (r: FakeRequest): boolean => JSON.stringify(r.body?.system ?? '').includes('You are selecting memories');

/** Run the scenario's prompts in one Claude Code session. `root` is a fresh temp dir the caller removes. */
export async function captureClaudeCodeRecall(options: {
  binary: string;
  root: string;
  model?: string;
  queries?: readonly { query: string; answer: string }[];
  /** More variables for the client (CLAUDE_MEMORY_STORES, say), and files written into the memory dir beside the scenario's. */
  env?: NodeJS.ProcessEnv;
  files?: Record<string, string>;
  /** The `env` block of the user's settings.json (none by default). */
  settingsEnv?: Record<string, string>;
  /** The cached server flag that switches recall on (default true); false: recall is on only if something else turns it on. */
  recallFlag?: boolean;
  /** Runs on the written memory dir before the client starts (to give files one mtime, say). */
  touch?: (memoryDir: string) => Promise<void>;
}): Promise<CapturedRecall> {
  const queries = options.queries ?? SCENARIO_QUERIES;
  const [home, config, tmp, project] = ['home', 'config', 'tmp', 'project'].map((d) => path.join(options.root, d)) as [string, string, string, string];
  for (const dir of [home, config, tmp, project]) await fs.mkdir(dir, { recursive: true });
  const key = await fs.realpath(project);
  const projectDir = path.join(config, 'projects', sanitizeDirName(key));
  const memoryDir = path.join(projectDir, 'memory');
  await writeRecallScenario(memoryDir);
  for (const [rel, text] of Object.entries(options.files ?? {})) {
    await fs.mkdir(path.dirname(path.join(memoryDir, rel)), { recursive: true });
    await fs.writeFile(path.join(memoryDir, rel), text);
  }
  await options.touch?.(memoryDir);
  await fs.writeFile(path.join(project, 'README.md'), 'hello\n');
  await fs.writeFile(
    path.join(config, '.claude.json'),
    JSON.stringify({
      hasCompletedOnboarding: true,
      projects: { [key]: { hasTrustDialogAccepted: true } },
      cachedGrowthBookFeatures: { tengu_moth_copse: options.recallFlag ?? true },
    }),
  );
  if (options.settingsEnv) await fs.writeFile(path.join(config, 'settings.json'), JSON.stringify({ env: options.settingsEnv }));

  const fake = await startFakeAnthropic();
  let selectorCalls = 0;
  let mainCalls = 0;
  fake.setHandler((request) => {
    if (isSelector(request)) return { kind: 'message', text: queries[selectorCalls++]?.answer ?? '{"selected_memories":[]}' };
    mainCalls++;
    const messages = (request.body?.messages ?? []) as { content?: unknown }[];
    const answered = JSON.stringify(messages[messages.length - 1]?.content ?? '').includes('tool_result');
    // First step: read a file (and give the recall time to finish), so the memories get attached.
    if (!answered)
      return {
        kind: 'message',
        content: [{ type: 'tool_use', id: `toolu_${mainCalls}`, name: 'Read', input: { file_path: path.join(project, 'README.md') } }],
        stopReason: 'tool_use',
        delayMs: 1_500,
      };
    return { kind: 'message', text: 'Done.' };
  });
  try {
    const env = offlineClaudeEnv(
      { configDir: config, scratch: tmp, baseUrl: fake.url },
      {
        PATH: process.env.PATH,
        HOME: home,
        CLAUDE_CODE_GB_DISK_CACHE_WHEN_TELEMETRY_OFF: '1',
        ...(options.model ? { ANTHROPIC_DEFAULT_SONNET_MODEL: options.model } : {}),
        ...options.env,
      },
    );
    const child = spawn(options.binary, ['-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose'], {
      cwd: project,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const send = (query: string) => child.stdin.write(`${JSON.stringify({ type: 'user', message: { role: 'user', content: query } })}\n`);
    let next = 1;
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      // Each finished turn prints a result line: then the next prompt goes in, or stdin closes.
      for (const line of d.toString().split('\n')) {
        if (!line.includes('"type":"result"')) continue;
        if (next < queries.length) send(queries[next++]!.query);
        else child.stdin.end();
      }
    });
    send(queries[0]!.query);
    const code = await new Promise<number | null>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`Claude Code did not finish within 120 s: ${stderr.slice(0, 500)}`));
      }, 120_000);
      child.on('exit', (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    if (code !== 0) throw new Error(`Claude Code exited with ${String(code)}: ${stderr.slice(0, 500)}`);

    const selector = fake.messageRequests().filter(isSelector);
    const transcripts = (await fs.readdir(projectDir)).filter((f) => f.endsWith('.jsonl'));
    const loaded: string[][] = [];
    const instructions: string[] = [];
    for (const transcript of transcripts) {
      // One session: each recall attachment is one prompt's load, in order.
      for (const line of (await fs.readFile(path.join(projectDir, transcript), 'utf8')).split('\n')) {
        const recalled = recalledInLine(line, memoryDir);
        if (recalled) loaded.push(recalled.map((m) => m.file));
        if (!line.includes('"instructions"')) continue;
        const attachment = (JSON.parse(line) as { attachment?: { type?: string; files?: { path: string; type: string }[] } }).attachment;
        if (attachment?.type === 'instructions')
          for (const f of attachment.files ?? []) if (f.path.startsWith(memoryDir)) instructions.push(`${path.relative(memoryDir, f.path)} (${f.type})`);
      }
    }
    return {
      requests: selector.map((r) => r.body ?? {}),
      betas: selector.map((r) => String(r.headers['anthropic-beta'] ?? '')),
      loaded,
      memoryDir,
      instructions,
    };
  } finally {
    await fake.close();
  }
}

/** A captured body without what only Claude Code sends (the fixture's `dynamic` list names them). */
export function withoutClaudeCodeOwnParts(body: Record<string, unknown>): Record<string, unknown> {
  const { metadata: _metadata, ...rest } = body;
  const system = rest.system as { text: string }[];
  return { ...rest, system: system.filter((block) => !block.text.startsWith('x-anthropic-billing-header:')) };
}

/** The committed capture: where it lives and what it holds. */
export const CAPTURE_FIXTURE = path.join('test', 'fixtures', 'claude-code', `recall-${PINNED_CLAUDE_CODE}.json`);

/** The runs of the committed capture: Claude Code's default selector model, and one that cannot think. */
export const CAPTURE_RUNS: readonly { name: string; model?: string; queries: number }[] = [
  { name: 'default-model', queries: SCENARIO_QUERIES.length },
  { name: 'thinking-off-model', model: 'claude-sonnet-4-6', queries: 1 },
];

async function main(): Promise<void> {
  const binary = await findClaudeCodeBinary();
  if (!binary.found) throw new Error(binary.reason);
  const runs = [];
  for (const run of CAPTURE_RUNS) {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-capture-recall-'));
    try {
      const captured = await captureClaudeCodeRecall({
        binary: binary.path,
        root,
        queries: SCENARIO_QUERIES.slice(0, run.queries),
        ...(run.model ? { model: run.model } : {}),
      });
      runs.push({
        name: run.name,
        env: run.model ? { ANTHROPIC_DEFAULT_SONNET_MODEL: run.model } : {},
        requests: captured.requests,
        betas: captured.betas,
        loaded: captured.loaded,
      });
    } finally {
      await fs.rm(root, { recursive: true, force: true });
    }
  }
  const fixture = {
    claudeCode: binary.version,
    how: 'src/main/recall/test-support/capture-claude-code-recall.ts: the recall scenario (claude-code-recall-scenario.ts) in one session of the real client against the fake Messages API.',
    dynamic: [
      "system[0] is Claude Code's billing attribution block (`x-anthropic-billing-header: cc_version=<version>.<build>; cc_entrypoint=<entrypoint>;`): Memdir does not send it.",
      'metadata.user_id holds the device and session ids: Memdir does not send it.',
      'The model is the configured one (Claude Code: ANTHROPIC_DEFAULT_SONNET_MODEL, else its default Sonnet); max_tokens and thinking follow from it.',
      "Manifest times are the files' mtimes: the scenario sets them.",
      'Claude Code posts to /v1/messages?beta=true with an anthropic-beta header (kept in `betas`); Memdir sends the same body to /v1/messages.',
    ],
    runs,
  };
  await fs.mkdir(path.dirname(CAPTURE_FIXTURE), { recursive: true });
  await fs.writeFile(CAPTURE_FIXTURE, `${JSON.stringify(fixture, null, 2)}\n`);
  process.stdout.write(`wrote ${CAPTURE_FIXTURE}\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
