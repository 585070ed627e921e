/**
 * R-EXTRACT, R-EXCLUSIVE, R-TOPIC against the real Claude Code: its own extraction, run offline
 * in the homes of claude-code-extract-cases.ts, with the fake API deciding the extraction agent's
 * tool calls. What the client did — what it wrote on disk, what it refused, when it extracted or
 * skipped — must equal the recording (test/fixtures/claude-code-extract/), which
 * test/fidelity/extract.test.ts replays against Memdir without the binary.
 * `MEMDIR_RECORD_EXTRACT_FIXTURES=1` rewrites the recording from what the client did.
 *
 * As for the dream (dream/gates/claude-code-interop.test.ts), the offline client extracts only
 * where it reads its cached flags: `CLAUDE_CODE_GB_DISK_CACHE_WHEN_TELEMETRY_OFF`, and an entry
 * point other than the SDK's. Each turn's extraction is let end before the next prompt goes in.
 * The client registers its extractor from background work that the first turn starts; a first
 * turn answered at once ends before that, and is then extracted only with the second. The fake
 * model takes its time over the first answer, so that every turn has a pass of its own.
 * Skipped, with the reason, when the pinned Claude Code is not installed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeAnthropic, type FakeReply, type FakeRequest, startFakeAnthropic } from '../llm/test-support/fake-anthropic.js';
import { EMBEDDED_SESSION_ENV, REAL_CLAUDE_CODE, debugLogIn, offlineClaudeEnv, runClaudeCodeTurns } from '../llm/test-support/real-claude-code.js';
import { waitFor } from '../core/test-support/wait-for.js';
import {
  CADENCE_PROMPTS,
  EXCLUSIVE_CASES,
  EXCLUSIVE_PROMPTS,
  EXTRACT_FIXTURE,
  EXTRACT_MARKER,
  type ExtractHome,
  type ExtractRecording,
  GATE_CASES,
  STORES_EXTRACT_FIXTURE,
  STORES_EXTRACT_HOW,
  STORES_EXTRACT_SCRIPT,
  STORES_EXTRACT_SETTINGS,
  type StoresExtractRecording,
  TEAM_EXTRACT_FIXTURE,
  TEAM_EXTRACT_HOW,
  TEAM_SEED,
  TEAM_STORES,
  type TeamExtractRecording,
  type ScriptedCall,
  type ToolOutcome,
  WRITES_SCRIPT,
  extractionEvents,
  extractionPassesEnded,
  filesUnder,
  layOutExtractHome,
  normalizeObserved,
  placeInput,
} from './test-support/claude-code-extract-cases.js';

/** How long the fake model takes over the first turn's answer (see `session`). */
const FIRST_TURN_MS = 1_500;

const skip = REAL_CLAUDE_CODE.found ? null : REAL_CLAUDE_CODE.reason;
const record = process.env.MEMDIR_RECORD_EXTRACT_FIXTURES === '1';

type Block = { type: string; text?: string; id?: string; tool_use_id?: string; is_error?: boolean; content?: unknown; name?: string; input?: unknown };
type Message = { role: string; content: string | Block[] };

const messagesOf = (request: FakeRequest) => (request.body?.messages ?? []) as Message[];
const blocks = (m: Message | undefined): Block[] => (m === undefined ? [] : typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content);
const isExtraction = (request: FakeRequest) => request.rawBody.includes(EXTRACT_MARKER);
/** The index of the extraction agent's instruction among a request's messages. */
const instructionIndex = (messages: Message[]) => messages.findIndex((m) => blocks(m).some((b) => b.text?.startsWith(EXTRACT_MARKER)));
const toolUses = (calls: ScriptedCall[], home: ExtractHome) =>
  calls.map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: placeInput(c.input, home) }));
const answer = (content: Record<string, unknown>[]): FakeReply => ({
  kind: 'message',
  content,
  stopReason: content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn',
});
const text = (t: string): FakeReply => ({ kind: 'message', text: t });

function resultText(block: Block): string {
  const content = block.content;
  if (typeof content === 'string') return content;
  return Array.isArray(content) ? (content as Block[]).map((b) => b.text ?? '').join('') : '';
}

/** What the first extraction pass was told: its instruction (the last user message of its first request) and the '# Memory' section of that request's system prompt. */
function firstPassTold(requests: FakeRequest[], home: ExtractHome, sessionId: string | null): { instruction: string; memorySection: string } {
  const first = requests.find((r) => isExtraction(r) && instructionIndex(messagesOf(r)) === messagesOf(r).length - 1)!;
  const system = ((first.body?.system ?? []) as Block[]).map((b) => b.text ?? '').join('\n');
  const instruction = blocks(messagesOf(first).at(-1))
    .map((b) => b.text ?? '')
    .join('');
  return {
    instruction: normalizeObserved(instruction, home, sessionId),
    memorySection: normalizeObserved(/^# Memory\n[\s\S]*?(?=\n# )/m.exec(system)?.[0] ?? '', home, sessionId),
  };
}

/** Every tool result any request carried, by tool_use id. */
function toolResults(requests: FakeRequest[]): Map<string, Block> {
  const out = new Map<string, Block>();
  for (const r of requests) for (const m of messagesOf(r)) for (const b of blocks(m)) if (b.type === 'tool_result' && b.tool_use_id) out.set(b.tool_use_id, b);
  return out;
}

/** The extraction agent's answers: `script`, step by step, in the first pass; nothing to save after. */
const scripted =
  (script: ScriptedCall[][]) =>
  (step: number, fork: number, home: ExtractHome): FakeReply =>
    fork === 0 ? answer(script[step] ? toolUses(script[step], home) : [{ type: 'text', text: 'Saved.' }]) : text('Nothing to save.');

/** What each call of `script` got back, by id, normalised. */
function outcomesOf(script: ScriptedCall[][], requests: FakeRequest[], home: ExtractHome, sessionId: string | null): Record<string, ToolOutcome> {
  const results = toolResults(requests);
  const out: Record<string, ToolOutcome> = {};
  for (const call of script.flat()) {
    const result = results.get(call.id);
    out[call.id] = {
      tool: call.name,
      isError: result?.is_error === true,
      result: result ? normalizeObserved(resultText(result), home, sessionId).slice(0, 240) : '(no result)',
    };
  }
  return out;
}

describe.skipIf(skip !== null)(`Claude Code's own extraction, recorded for Memdir${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let fake: FakeAnthropic;
  let tmp: string;
  let count = 0;
  const observed: Partial<ExtractRecording> = { exclusive: {}, gate: {} };
  const recorded = fs.existsSync(EXTRACT_FIXTURE) ? (JSON.parse(fs.readFileSync(EXTRACT_FIXTURE, 'utf8')) as ExtractRecording) : null;
  const apiKey = offlineClaudeEnv({ configDir: '', scratch: '', baseUrl: '' }).ANTHROPIC_API_KEY!;

  beforeAll(async () => {
    fake = await startFakeAnthropic();
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'memdir-cc-extract-live-')));
  });
  afterAll(async () => {
    await fake?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
    const complete =
      observed.writes &&
      observed.cadence &&
      Object.keys(observed.exclusive!).length === EXCLUSIVE_CASES.length &&
      Object.keys(observed.gate!).length === GATE_CASES.length;
    if (record && complete) {
      fs.mkdirSync(path.dirname(EXTRACT_FIXTURE), { recursive: true });
      const out = { client: REAL_CLAUDE_CODE.found ? REAL_CLAUDE_CODE.version : null, ...observed };
      fs.writeFileSync(EXTRACT_FIXTURE, `${JSON.stringify(out, null, 1)}\n`);
    }
  });

  /**
   * One session in a fresh home. `extraction(step, fork)` answers the extraction agent (its
   * `step`-th request in its `fork`-th pass), `main(turn)` the first request of each main turn;
   * a main request answering tool results gets "done".
   */
  async function session(
    prompts: readonly string[],
    answers: { extraction?: (step: number, fork: number, home: ExtractHome) => FakeReply; main?: (turn: number, home: ExtractHome) => FakeReply },
    options: { flags?: Record<string, unknown>; waitForPasses?: boolean; env?: NodeJS.ProcessEnv; seed?: Record<string, string> } = {},
  ) {
    const root = path.join(tmp, `session-${count++}`);
    fs.mkdirSync(path.join(root, 'scratch'), { recursive: true });
    const home = layOutExtractHome(root, { ...(options.flags ? { flags: options.flags } : {}), apiKeySuffix: apiKey.slice(-20) });
    for (const [rel, t] of Object.entries(options.seed ?? {})) {
      fs.mkdirSync(path.dirname(path.join(home.memoryDir, rel)), { recursive: true });
      fs.writeFileSync(path.join(home.memoryDir, rel), t);
    }
    const debugLog = debugLogIn(root);
    let forks = 0;
    let turns = 0;
    fake.reset();
    fake.setHandler((request) => {
      const messages = messagesOf(request);
      if (isExtraction(request)) {
        const at = instructionIndex(messages);
        const step = messages.slice(at + 1).filter((m) => m.role === 'assistant').length;
        if (step === 0) forks++;
        return answers.extraction?.(step, forks - 1, home) ?? text('Nothing to save.');
      }
      if (blocks(messages.at(-1)).some((b) => b.type === 'tool_result')) return text('done');
      const turn = turns++;
      const reply = answers.main?.(turn, home) ?? text('ok');
      // The extractor is registered by background work the first turn starts; a first turn
      // slower than that work is extracted at its end like every later one.
      return turn === 0 && reply.kind === 'message' ? { ...reply, delayMs: FIRST_TURN_MS } : reply;
    });
    const waitForPasses = async (n: number): Promise<void> => {
      await waitFor(() => extractionPassesEnded(debugLog.read()) >= n, 30_000, `the client's extraction pass ${n} to end (its debug log)`);
    };
    const run = await runClaudeCodeTurns(prompts, debugLog.args, {
      cwd: home.project,
      configDir: home.configDir,
      scratch: path.join(root, 'scratch'),
      baseUrl: fake.url,
      env: { ...EMBEDDED_SESSION_ENV, ...options.env },
      ...(options.waitForPasses === false ? {} : { beforeTurn: waitForPasses, beforeExit: () => waitForPasses(prompts.length) }),
      timeoutMs: 90_000,
    });
    expect(run.code, run.stderr).toBe(0);
    const transcripts = fs.readdirSync(path.dirname(home.memoryDir)).filter((f) => f.endsWith('.jsonl'));
    const sessionId = transcripts.length === 1 ? transcripts[0]!.replace(/\.jsonl$/, '') : null;
    return { home, requests: [...fake.messageRequests()], debugLog: debugLog.read(), sessionId };
  }

  it('team: what the extraction agent is told with team memory on (a team store in CLAUDE_MEMORY_STORES)', async () => {
    const { home, requests, sessionId } = await session(
      ['Remember that we never use an ORM, always plain SQL', 'Thank you, that is all for today'],
      {},
      {
        env: { CLAUDE_MEMORY_STORES: TEAM_STORES },
        seed: TEAM_SEED,
      },
    );
    const seen: TeamExtractRecording = {
      client: REAL_CLAUDE_CODE.found ? REAL_CLAUDE_CODE.version : null,
      how: TEAM_EXTRACT_HOW,
      stores: TEAM_STORES,
      seed: TEAM_SEED,
      ...firstPassTold(requests, home, sessionId),
    };
    if (record) fs.writeFileSync(TEAM_EXTRACT_FIXTURE, `${JSON.stringify(seen, null, 1)}\n`);
    else expect(seen).toEqual(JSON.parse(fs.readFileSync(TEAM_EXTRACT_FIXTURE, 'utf8')));
  }, 120_000);

  // In memory-store mode: what the agent is told (no MEMORY.md, where team memories go) and what
  // becomes of its writes, a pointer in MEMORY.md among them.
  it('stores: what the extraction agent is told and what becomes of its writes in memory-store mode', async () => {
    const runs: StoresExtractRecording['runs'] = {};
    for (const [name, stores] of Object.entries(STORES_EXTRACT_SETTINGS)) {
      const { home, requests, sessionId } = await session(
        ['Remember that we never use an ORM, always plain SQL', 'Thank you, that is all for today'],
        { extraction: scripted(STORES_EXTRACT_SCRIPT) },
        { env: { CLAUDE_MEMORY_STORES: stores } },
      );
      const writes = outcomesOf(STORES_EXTRACT_SCRIPT, requests, home, sessionId);
      const files: Record<string, string> = {};
      for (const [rel, t] of Object.entries(filesUnder(home.memoryDir))) {
        const seen = normalizeObserved(t, home, sessionId);
        files[rel] = seen.length > 1000 ? `(${seen.length} characters)` : seen;
      }
      runs[name] = { ...firstPassTold(requests, home, sessionId), writes, files };
    }
    const seen: StoresExtractRecording = {
      client: REAL_CLAUDE_CODE.found ? REAL_CLAUDE_CODE.version : null,
      how: STORES_EXTRACT_HOW,
      settings: STORES_EXTRACT_SETTINGS,
      script: STORES_EXTRACT_SCRIPT,
      runs,
    };
    if (record) fs.writeFileSync(STORES_EXTRACT_FIXTURE, `${JSON.stringify(seen, null, 1)}\n`);
    else expect(seen).toEqual(JSON.parse(fs.readFileSync(STORES_EXTRACT_FIXTURE, 'utf8')));
  }, 240_000);

  it('writes: what is on disk after the extraction agent writes, and what it is refused', async () => {
    const { home, requests, sessionId } = await session(['Remember that we never use an ORM, always plain SQL', 'Thank you, that is all for today'], {
      extraction: scripted(WRITES_SCRIPT),
    });
    const writes = outcomesOf(WRITES_SCRIPT, requests, home, sessionId);
    const files: Record<string, string> = {};
    for (const [rel, t] of Object.entries(filesUnder(home.memoryDir))) files[`$MEM/${rel}`] = normalizeObserved(t, home, sessionId);
    for (const [rel, t] of Object.entries(filesUnder(home.outside))) files[`$ROOT/outside/${rel}`] = normalizeObserved(t, home, sessionId);
    for (const [rel, t] of Object.entries(filesUnder(home.project))) files[`$PROJ/${rel}`] = normalizeObserved(t, home, sessionId);
    Object.assign(observed, { writes, files, ...firstPassTold(requests, home, sessionId) });
    if (!record) {
      expect(writes).toEqual(recorded?.writes);
      expect(files).toEqual(recorded?.files);
      expect(observed.instruction).toEqual(recorded?.instruction);
      expect(observed.memorySection).toEqual(recorded?.memorySection);
    }
  }, 120_000);

  it.each(EXCLUSIVE_CASES.map((c) => [c.name, c] as const))(
    'R-EXCLUSIVE: %s',
    async (name, c) => {
      const { requests, debugLog } = await session(EXCLUSIVE_PROMPTS, { main: (turn, h) => (turn === 0 ? answer(toolUses([c.call], h)) : text('ok')) });
      const firstPass = /\[extractMemories\] (starting|skipping[^\n]*)/.exec(debugLog)?.[1] ?? '(none)';
      const outcome = {
        skippedAsWritten: firstPass.includes('already wrote to memory'),
        callFailed: toolResults(requests).get(c.call.id)?.is_error === true,
      };
      observed.exclusive![name] = outcome;
      if (!record) expect(outcome).toEqual(recorded?.exclusive[name]);
    },
    120_000,
  );

  it('cadence: after every turn, over the messages since its cursor, not when no prompt has 3 words', async () => {
    const { home, requests, debugLog } = await session(CADENCE_PROMPTS, {});
    const passes = requests.filter((r) => isExtraction(r) && instructionIndex(messagesOf(r)) === messagesOf(r).length - 1);
    const recentMessages = passes.map((r) =>
      Number(
        /most recent ~(\d+) messages/.exec(
          blocks(messagesOf(r).at(-1))
            .map((b) => b.text ?? '')
            .join(''),
        )?.[1],
      ),
    );
    // The pass is a fork of the conversation: everything before its instruction is the conversation so far.
    const contextMessages = passes.map((r) => messagesOf(r).length - 1);
    observed.cadence = { events: extractionEvents(debugLog, home), recentMessages, contextMessages };
    if (!record) expect(observed.cadence).toEqual(recorded?.cadence);
  }, 120_000);

  it.each(GATE_CASES.map((c) => [c.name, c] as const))(
    'gate: %s',
    async (name, c) => {
      const { requests } = await session(EXCLUSIVE_PROMPTS, {}, { flags: c.flags, waitForPasses: false });
      observed.gate![name] = requests.some(isExtraction);
      if (!record) expect(observed.gate![name]).toEqual(recorded?.gate[name]);
    },
    120_000,
  );
});
