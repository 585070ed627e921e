/**
 * `transcripts`: a 1 GB synthetic transcript read by the transcript reader with turn assembly,
 * against a bare synchronous loop in the same run that splits lines and `JSON.parse`s each (target ratio of
 * throughputs ≥ 0.5), and the reader's peak RSS measured in a child process so the baseline's
 * memory does not mix in (target ≤ 200 MB).
 *
 * The transcript mixes lines the way Claude Code writes them: snapshots, prompts (some Chinese),
 * responses split into one line per content block under one `message.id` (thinking, text,
 * tool_use), tool results with `toolUseResult` repeating the payload (Read, Edit's
 * `originalFile`), some of them hundreds of KB, Bash errors, system lines, compactions.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { readTurns } from '../../src/main/transcripts/turns.js';
import { type Scenario, compare, prng } from '../lib.js';

const TARGET_BYTES = 1024 * 1024 * 1024;
const CHUNK_BYTES = 1024 * 1024;
const MB = 1024 * 1024;

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../..');

/**
 * A pool of source lines, already JSON-escaped, to cut tool payloads from. Cutting at line
 * boundaries never splits an escape sequence.
 */
function codePool(random: () => number): { text: string; cuts: number[] } {
  const words = [
    'const',
    'return',
    'await',
    'config',
    'loader',
    'if',
    'user',
    'session',
    'memory',
    'index',
    'throw new Error',
    'export function',
    '// 部署前先跑集成测试',
    'map((x) => x.id)',
    '"quoted"',
    'path.join(dir, name)',
  ];
  const lines: string[] = [];
  const cuts: number[] = [0];
  let length = 0;
  while (length < 2 * MB) {
    const indent = '  '.repeat(Math.floor(random() * 4));
    const count = 3 + Math.floor(random() * 10);
    let line = indent;
    for (let i = 0; i < count; i++) line += `${words[Math.floor(random() * words.length)]} `;
    const escaped = JSON.stringify(`${line}\n`).slice(1, -1);
    lines.push(escaped);
    length += escaped.length;
    cuts.push(length);
  }
  return { text: lines.join(''), cuts };
}

interface Generated {
  bytes: number;
  lines: number;
  turns: number;
  toolCalls: number;
  ms: number;
}

/** Write the synthetic transcript; ~70 KB per turn on average, ~13 lines per turn. */
function generate(file: string, targetBytes: number): Generated {
  const started = performance.now();
  const random = prng(0x5eed);
  const pool = codePool(random);
  const slice = (approxChars: number): string => {
    const chars = Math.min(approxChars, pool.text.length - 1);
    const startIdx = Math.floor(random() * (pool.cuts.length / 2));
    const start = pool.cuts[startIdx]!;
    let endIdx = startIdx;
    while (endIdx < pool.cuts.length - 1 && pool.cuts[endIdx]! - start < chars) endIdx++;
    return pool.text.slice(start, pool.cuts[endIdx]!);
  };
  const sizeOfResult = (): number => {
    const r = random();
    if (r < 0.7) return 2_000 + random() * 18_000;
    if (r < 0.95) return 20_000 + random() * 80_000;
    return 100_000 + random() * 300_000;
  };
  const prose = (chars: number, zh = false): string => {
    const en = 'We should keep the loader small and test the config path before the deploy. ';
    const cn = '部署前先跑集成测试，配置文件放在项目根目录。';
    const unit = zh ? cn : en;
    return unit.repeat(Math.max(1, Math.round(chars / unit.length)));
  };

  const fd = fs.openSync(file, 'w');
  let pending: string[] = [];
  let pendingChars = 0;
  let bytes = 0;
  let lines = 0;
  let turns = 0;
  let toolCalls = 0;
  let uuidN = 0;
  let parent = 'null';
  let clock = Date.parse('2026-03-01T09:00:00Z');
  const sessionId = '7c0d5a8e-3b9f-4f4c-9a55-1f2e3d4c5b6a';
  const cwd = '/Users/me/work/shop';
  const flush = () => {
    const chunk = pending.join('');
    bytes += Buffer.byteLength(chunk);
    fs.writeSync(fd, chunk);
    pending = [];
    pendingChars = 0;
  };
  const emit = (line: string) => {
    pending.push(line, '\n');
    pendingChars += line.length + 1;
    lines++;
    if (pendingChars > 8 * MB) flush();
  };
  /** A line in Claude Code's key order; `body` is the fields between `type` and `uuid`. */
  const line = (type: string, body: string): string => {
    const uuid = `00000000-0000-4000-8000-${(++uuidN).toString(16).padStart(12, '0')}`;
    clock += 700 + Math.floor(random() * 3000);
    const text = `{"parentUuid":${parent},"isSidechain":false,"userType":"external","cwd":"${cwd}","sessionId":"${sessionId}","version":"2.0.14","gitBranch":"main","type":"${type}",${body},"uuid":"${uuid}","timestamp":"${new Date(clock).toISOString()}"}`;
    parent = `"${uuid}"`;
    return text;
  };
  const envelope = (type: string, message: string, extra = ''): string => line(type, `"message":${message}${extra}`);
  let messageN = 0;
  const usage = (n: number) =>
    `{"input_tokens":${4 + (n % 7)},"cache_creation_input_tokens":${200 + (n % 900)},"cache_read_input_tokens":${20000 + n * 3},"output_tokens":${10 + (n % 400)},"service_tier":"standard"}`;
  const assistant = (blocks: string[], stop: string | null) => {
    const id = `msg_01${(++messageN).toString(36).padStart(10, '0')}`;
    const u = usage(messageN);
    blocks.forEach((block, i) => {
      const stopReason = i === blocks.length - 1 && stop ? `"${stop}"` : 'null';
      emit(
        envelope(
          'assistant',
          `{"model":"claude-sonnet-4-5-20250929","id":"${id}","type":"message","role":"assistant","content":[${block}],"stop_reason":${stopReason},"stop_sequence":null,"usage":${u}}`,
          `,"requestId":"req_${id}"`,
        ),
      );
    });
  };
  const toolUse = (id: string, name: string, input: string) => {
    toolCalls++;
    return `{"type":"tool_use","id":"${id}","name":"${name}","input":${input}}`;
  };
  const toolResult = (id: string, content: string, isError: boolean, toolUseResult: string) =>
    emit(
      envelope(
        'user',
        `{"role":"user","content":[{"tool_use_id":"${id}","type":"tool_result","content":"${content}"${isError ? ',"is_error":true' : ''}}]}`,
        `,"toolUseResult":${toolUseResult}`,
      ),
    );

  while (bytes + pendingChars < targetBytes) {
    turns++;
    const t = turns;
    const file1 = `${cwd}/src/module-${t % 97}.ts`;
    emit(
      `{"type":"file-history-snapshot","messageId":"snap-${t}","snapshot":{"messageId":"snap-${t}","trackedFileBackups":{"${file1}":{"backupFileName":"b${t}@v1","version":1,"backupTime":"${new Date(clock).toISOString()}"}},"timestamp":"${new Date(clock).toISOString()}"},"isSnapshotUpdate":false}`,
    );
    emit(envelope('user', `{"role":"user","content":"${prose(100 + random() * 1400, t % 10 === 0)}"}`));
    const read = `toolu_r${t}`;
    assistant(
      [
        `{"type":"thinking","thinking":"${prose(200 + random() * 1200)}","signature":"${'Eq'.repeat(80)}"}`,
        `{"type":"text","text":"${prose(120 + random() * 300)}"}`,
        toolUse(read, 'Read', `{"file_path":"${file1}"}`),
      ],
      'tool_use',
    );
    const readBody = slice(sizeOfResult());
    toolResult(read, readBody, false, `{"type":"text","file":{"filePath":"${file1}","content":"${readBody}","numLines":200,"startLine":1,"totalLines":200}}`);
    const edit = `toolu_e${t}`;
    const oldString = slice(300 + random() * 2000);
    const newString = slice(300 + random() * 2000);
    assistant(
      [
        `{"type":"text","text":"${prose(100 + random() * 300)}"}`,
        toolUse(edit, 'Edit', `{"file_path":"${file1}","old_string":"${oldString}","new_string":"${newString}"}`),
      ],
      'tool_use',
    );
    toolResult(
      edit,
      `The file ${file1} has been updated.`,
      false,
      `{"filePath":"${file1}","oldString":"${oldString}","newString":"${newString}","originalFile":"${slice(5_000 + random() * 45_000)}","structuredPatch":[{"oldStart":1,"oldLines":3,"newStart":1,"newLines":3,"lines":["-a","+b"]}],"userModified":false,"replaceAll":false}`,
    );
    const bash = `toolu_b${t}`;
    assistant([toolUse(bash, 'Bash', `{"command":"npm test -- module-${t % 97}","description":"Run the tests"}`)], 'tool_use');
    const failed = random() < 0.1;
    const output = slice(500 + random() * 9_500);
    toolResult(bash, output, failed, `{"stdout":"${output}","stderr":"","interrupted":false,"isImage":false}`);
    // Half the final answers carry end_turn, as in real transcripts where many lines say null.
    assistant([`{"type":"text","text":"${prose(300 + random() * 1700)}"}`], random() < 0.5 ? 'end_turn' : null);
    if (t % 5 === 0) emit(line('system', `"subtype":"turn_duration","durationMs":${Math.floor(random() * 60_000)}`));
    if (t % 400 === 0) {
      emit(line('system', `"subtype":"compact_boundary","content":"Conversation compacted","compactMetadata":{"trigger":"auto","preTokens":167000}`));
      emit(
        envelope(
          'user',
          `{"role":"user","content":"This session is being continued from a previous conversation. ${prose(3000)}"}`,
          ',"isCompactSummary":true',
        ),
      );
    }
  }
  flush();
  fs.closeSync(fd);
  return { bytes, lines, turns, toolCalls, ms: performance.now() - started };
}

/** The floor: read synchronously with the same buffer size, split on `\n`, decode, `JSON.parse` each line. */
function bareParse(file: string): number {
  const fd = fs.openSync(file, 'r');
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  let carry: Buffer[] = [];
  let parsed = 0;
  try {
    for (;;) {
      const bytesRead = fs.readSync(fd, chunk, 0, CHUNK_BYTES, null);
      if (bytesRead === 0) break;
      const data = chunk.subarray(0, bytesRead);
      let from = 0;
      for (let nl = data.indexOf(10, 0); nl !== -1; nl = data.indexOf(10, from)) {
        const text = carry.length > 0 ? Buffer.concat([...carry, data.subarray(from, nl)]).toString('utf8') : data.toString('utf8', from, nl);
        carry = [];
        JSON.parse(text);
        parsed++;
        from = nl + 1;
      }
      if (from < data.length) carry.push(Buffer.from(data.subarray(from)));
    }
  } finally {
    fs.closeSync(fd);
  }
  return parsed;
}

async function readAllTurns(file: string): Promise<{ turns: number; toolCalls: number; mergedLines: number; lines: number }> {
  const stream = readTurns(file, { final: true });
  let turns = 0;
  let toolCalls = 0;
  let mergedLines = 0;
  for await (const turn of stream) {
    turns++;
    toolCalls += turn.toolCalls.length;
    mergedLines += turn.mergedLines;
  }
  return { turns, toolCalls, mergedLines, lines: stream.stats.lines };
}

/** Run the reader alone in a fresh Node process and return its peak RSS. */
function measureInChild(file: string): Promise<{ peakRssMb: number; startRssMb: number; ms: number; turns: number }> {
  const moduleUrl = pathToFileURL(path.join(repoRoot, 'src/main/transcripts/turns.ts')).href;
  const code = `
    const { readTurns } = await import(${JSON.stringify(moduleUrl)});
    const startRss = process.memoryUsage().rss;
    const started = performance.now();
    let turns = 0;
    for await (const turn of readTurns(process.env.MEMDIR_BENCH_TRANSCRIPT, { final: true })) turns++;
    const ms = performance.now() - started;
    process.stdout.write(JSON.stringify({ turns, ms, startRss, maxRssKb: process.resourceUsage().maxRSS }));
  `;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
      cwd: repoRoot,
      env: { ...process.env, MEMDIR_BENCH_TRANSCRIPT: file },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`reader child exited with ${code}: ${err}`));
      const r = JSON.parse(out) as { turns: number; ms: number; startRss: number; maxRssKb: number };
      // maxRSS is in kilobytes on Linux and macOS alike in Node's resourceUsage().
      resolve({ peakRssMb: r.maxRssKb / 1024, startRssMb: r.startRss / MB, ms: r.ms, turns: r.turns });
    });
  });
}

export const transcriptsScenario: Scenario = {
  name: 'transcripts',
  description: 'a 1 GB synthetic transcript: turn reader vs bare split + JSON.parse, and the reader’s peak RSS',
  async run(log) {
    const root = await fsp.mkdtemp(path.join(os.tmpdir(), 'memdir-bench-transcripts-'));
    try {
      const file = path.join(root, 'session.jsonl');
      const gen = generate(file, TARGET_BYTES);
      log(`generated ${(gen.bytes / MB).toFixed(0)} MB, ${gen.lines} lines, ${gen.turns} turns in ${(gen.ms / 1000).toFixed(1)} s`);

      const memory = await measureInChild(file);
      log(`reader alone in a child: peak RSS ${memory.peakRssMb.toFixed(0)} MB (${memory.startRssMb.toFixed(0)} MB before reading)`);

      let check: Awaited<ReturnType<typeof readAllTurns>> | null = null;
      const timing = await compare(
        3,
        () => bareParse(file),
        async () => {
          check = await readAllTurns(file);
        },
      );
      // The reader must have seen exactly what was written, or its speed means nothing.
      const seen = check as Awaited<ReturnType<typeof readAllTurns>> | null;
      if (!seen || seen.turns !== gen.turns || seen.toolCalls !== gen.toolCalls || seen.lines !== gen.lines || memory.turns !== gen.turns) {
        throw new Error(
          `reader saw ${seen?.turns} turns / ${seen?.toolCalls} tool calls / ${seen?.lines} lines, expected ${gen.turns} / ${gen.toolCalls} / ${gen.lines}`,
        );
      }
      const mb = gen.bytes / MB;
      const baselineMBps = mb / (timing.baselineMs / 1000);
      const readerMBps = mb / (timing.subjectMs / 1000);
      log(`bare parse ${baselineMBps.toFixed(0)} MB/s, turn reader ${readerMBps.toFixed(0)} MB/s`);
      return {
        ratios: {
          'reader throughput / bare split+JSON.parse throughput': { value: timing.baselineMs / timing.subjectMs, target: 0.5, better: 'higher' },
          'reader peak RSS, MB (child process)': { value: memory.peakRssMb, target: 200, better: 'lower', note: 'absolute, not a ratio' },
        },
        figures: {
          'file MB': mb,
          lines: gen.lines,
          turns: gen.turns,
          'tool calls': gen.toolCalls,
          'lines merged by message.id': seen.mergedLines,
          'generation s': gen.ms / 1000,
          'bare split+JSON.parse ms': timing.baselineMs,
          'bare split+JSON.parse MB/s': baselineMBps,
          'turn reader ms': timing.subjectMs,
          'turn reader MB/s': readerMBps,
          'reader peak RSS MB': memory.peakRssMb,
          'child RSS before reading MB': memory.startRssMb,
          'child read ms': memory.ms,
        },
      };
    } finally {
      await fsp.rm(root, { recursive: true, force: true });
    }
  },
};
