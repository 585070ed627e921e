/**
 * The real Claude Code loads indexes in a temporary home (`claude -p` against the loopback fake
 * Messages API) and what its transcript records as injected must equal Memdir's prediction —
 * the check behind test/fixtures/claude-code-index/observed.json. Runs where the pinned native
 * binary is: `$CLAUDE_CODE_BIN`, or `@anthropic-ai/claude-code-linux-x64` in node_modules;
 * skipped with the reason otherwise. `MEMDIR_RECORD_INDEX_FIXTURES=1` runs every fixture and
 * rewrites observed.json from what the client did (and observed-team.json, the team case).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeAnthropic, startFakeAnthropic } from '../../src/main/llm/test-support/fake-anthropic.js';
import { PINNED_CLAUDE_CODE, REAL_CLAUDE_CODE, runClaudeCode } from '../../src/main/llm/test-support/real-claude-code.js';
import { agentIndexView, readInjectedIndex } from '../../src/main/transcripts/agent-index.js';
import { claudeCodeVersionIn } from '../../src/main/transcripts/claude-code-version.js';
import { loadIndexAsClaudeCode } from '../../src/shared/index-load.js';
import { RECORDED_CASES, SIZE_CASE_FIXTURE, type SizeCase, sizeCaseBytes } from './index-size-case.js';
import { TEAM_CASE_FIXTURE, type TeamCase, markersIn } from './team-index-case.js';

/** Auto memory on, as by default: Claude Code loads the index. */
const AUTO_MEMORY_ON = { autoMemoryEnabled: true, autoMemoryEnabledSource: 'default', autoMemoryEnabledFrom: null, memoryStores: null } as const;

const FIXTURES = path.resolve(__dirname, '../fixtures/claude-code-index');
const skip = REAL_CLAUDE_CODE.found ? null : REAL_CLAUDE_CODE.reason;
const record = process.env.MEMDIR_RECORD_INDEX_FIXTURES === '1';
const cases = record
  ? fs
      .readdirSync(FIXTURES)
      .filter((f) => f.endsWith('.md'))
      .map((f) => f.slice(0, -3))
  : ['cjk120', 'fm-comment-220', 'long-line', 'comments'];

/** Run `claude -p` once with `index` as the project's MEMORY.md; what its transcript recorded. */
async function injectedBy(
  fake: FakeAnthropic,
  index: string | Buffer,
  options: { link?: boolean; debug?: boolean; fifo?: boolean } = {},
): Promise<{ version: string | null; content: string | null; debug: string }> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'memdir-cc-'));
  try {
    const [scratch, config, project] = ['scratch', 'config', 'project'].map((d) => path.join(root, d));
    for (const d of [scratch!, config!, project!]) fs.mkdirSync(d, { recursive: true });
    const folder = path.join(config!, 'projects', fs.realpathSync(project!).replace(/[^A-Za-z0-9]/g, '-'));
    fs.mkdirSync(path.join(folder, 'memory'), { recursive: true });
    if (options.link) {
      // MEMORY.md a link to a file outside the memory folder, as a dotfiles setup makes it.
      fs.writeFileSync(path.join(root, 'dotfiles-index.md'), index);
      fs.symlinkSync(path.join(root, 'dotfiles-index.md'), path.join(folder, 'memory', 'MEMORY.md'));
    } else if (options.fifo) execFileSync('mkfifo', [path.join(folder, 'memory', 'MEMORY.md')]);
    else fs.writeFileSync(path.join(folder, 'memory', 'MEMORY.md'), index);
    const debugFile = path.join(root, 'debug.log');
    await runClaudeCode(['-p', 'hello', ...(options.debug ? ['--debug-file', debugFile] : [])], {
      cwd: project!,
      configDir: config!,
      scratch: scratch!,
      baseUrl: fake.url,
    });
    const transcript = fs.readdirSync(folder).find((f) => f.endsWith('.jsonl'));
    const { version } = await claudeCodeVersionIn([folder]);
    const debug = fs.existsSync(debugFile) ? fs.readFileSync(debugFile, 'utf8') : '';
    return { version, content: transcript ? await readInjectedIndex(path.join(folder, transcript)) : null, debug };
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

describe.skipIf(skip !== null)(`the real Claude Code injects what Memdir predicts${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let fake: FakeAnthropic;
  const observed: Record<string, { version: string | null; injected: string | null }> = {};
  beforeAll(async () => {
    fake = await startFakeAnthropic({ fallback: { kind: 'message', text: 'ok' } });
  });
  afterAll(async () => {
    await fake?.close();
    if (record && Object.keys(observed).length === cases.length)
      fs.writeFileSync(path.join(FIXTURES, 'observed.json'), `${JSON.stringify(observed, null, 1)}\n`);
  });

  it.each(cases)(
    '%s',
    async (name) => {
      const index = fs.readFileSync(path.join(FIXTURES, `${name}.md`), 'utf8');
      const got = await injectedBy(fake, index);
      observed[name] = { version: got.version, injected: got.content };
      expect(got.version).toBe(PINNED_CLAUDE_CODE);
      expect(got.content ?? '').toBe(loadIndexAsClaudeCode(index, { version: got.version }).text);
    },
    60_000,
  );

  // Indexes Memdir will not edit (not UTF-8, control bytes, a link out of the folder): the client
  // still loads them, and `memdir show --loaded` must predict it from the same bytes on disk.
  it.each([
    ['latin1', false],
    ['nul', false],
    ['outside', true],
  ] as const)(
    'unreadable/%s',
    async (name, link) => {
      const bytes = fs.readFileSync(path.join(FIXTURES, 'unreadable', `${name}.md`));
      const got = await injectedBy(fake, bytes, { link });
      const root = fs.mkdtempSync(path.join(os.tmpdir(), 'memdir-cc-predict-'));
      try {
        const memoryDir = path.join(root, 'memory');
        fs.mkdirSync(memoryDir);
        fs.writeFileSync(path.join(link ? root : memoryDir, link ? 'dotfiles-index.md' : 'MEMORY.md'), bytes);
        if (link) fs.symlinkSync(path.join(root, 'dotfiles-index.md'), path.join(memoryDir, 'MEMORY.md'));
        expect(got.content).toBe((await agentIndexView({ transcriptDirs: [], memoryDir, settings: AUTO_MEMORY_ON })).text);
      } finally {
        fs.rmSync(root, { recursive: true, force: true });
      }
    },
    60_000,
  );

  // A MEMORY.md of 4 MB loads (cut as any long index); one byte more, or a named pipe, and the
  // client skips the file: the agent starts with no index, and Memdir must say so (index-size-case.ts).
  it('MEMORY.md at and over 4 MB, and a named pipe', async () => {
    const recorded = JSON.parse(fs.readFileSync(SIZE_CASE_FIXTURE, 'utf8')) as SizeCase;
    const seen: SizeCase['cases'] = {};
    for (const name of RECORDED_CASES) {
      const index = sizeCaseBytes(name);
      const got = await injectedBy(fake, index, { debug: true, fifo: name === 'fifo' });
      expect(got.version).toBe(PINNED_CLAUDE_CODE);
      const line = got.debug.split('\n').find((l) => l.includes('MEMORY.md') && l.includes('skipping'));
      seen[name] = { injected: got.content, debug: line ? line.replace(/^\S+ /, '').replace(/\S*\/memory\/MEMORY\.md/, '<memory>/MEMORY.md') : null };
      if (name !== 'fifo') {
        // Memdir's prediction from the same bytes on disk (the reader gives the file's size, not the decoded text's).
        const root = fs.mkdtempSync(path.join(os.tmpdir(), 'memdir-cc-size-'));
        try {
          fs.writeFileSync(path.join(root, 'MEMORY.md'), index);
          expect(got.content ?? '').toBe((await agentIndexView({ transcriptDirs: [], memoryDir: root, settings: AUTO_MEMORY_ON })).text);
        } finally {
          fs.rmSync(root, { recursive: true, force: true });
        }
      }
    }
    if (record) fs.writeFileSync(SIZE_CASE_FIXTURE, `${JSON.stringify({ ...recorded, cases: seen }, null, 1)}\n`);
    else expect(seen).toEqual(recorded.cases);
  }, 180_000);

  // R-LAYOUT's team/MEMORY.md: 2.1.332 sends the agent MEMORY.md's text only (its team/x.md
  // pointers with it), never team/MEMORY.md nor a memory's own text at session start.
  it('team/MEMORY.md', async () => {
    const recorded = JSON.parse(fs.readFileSync(TEAM_CASE_FIXTURE, 'utf8')) as TeamCase;
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'memdir-cc-team-')));
    try {
      const [scratch, config, project] = ['scratch', 'config', 'project'].map((d) => path.join(root, d)) as [string, string, string];
      for (const d of [scratch, config, project]) fs.mkdirSync(d, { recursive: true });
      const folder = path.join(config, 'projects', project.replace(/[^A-Za-z0-9]/g, '-'));
      const memoryDir = path.join(folder, 'memory');
      for (const [file, text] of Object.entries(recorded.files)) {
        fs.mkdirSync(path.dirname(path.join(memoryDir, file)), { recursive: true });
        fs.writeFileSync(path.join(memoryDir, file), text);
      }
      fake.reset();
      const run = await runClaudeCode(['-p', 'hello'], { cwd: project, configDir: config, scratch, baseUrl: fake.url });
      expect(run.code, run.stderr).toBe(0);
      const transcript = fs.readdirSync(folder).find((f) => f.endsWith('.jsonl'))!;
      const lines = fs.readFileSync(path.join(folder, transcript), 'utf8').split('\n').filter(Boolean);
      const attachment = lines.map((l) => JSON.parse(l) as { attachment?: { type?: string; files?: { path: string; type: string; content: string }[] } });
      const instructions = attachment.flatMap((l) => (l.attachment?.type === 'instructions' ? (l.attachment.files ?? []) : []));
      const seen = {
        claudeCode: (await claudeCodeVersionIn([folder])).version,
        instructions: instructions.map((f) => ({ file: path.relative(memoryDir, f.path), type: f.type, content: f.content })),
        reached: markersIn(recorded.files, JSON.stringify(fake.messageRequests().map((r) => r.body))),
      };
      if (record) fs.writeFileSync(TEAM_CASE_FIXTURE, `${JSON.stringify({ ...recorded, ...seen }, null, 1)}\n`);
      if (!record) expect(seen).toEqual({ claudeCode: recorded.claudeCode, instructions: recorded.instructions, reached: recorded.reached });
      // The client's truth, as it stands in the recording: only MEMORY.md, whole, and its team/a.md pointer with it.
      expect(seen.instructions).toEqual([{ file: 'MEMORY.md', type: 'AutoMem', content: recorded.files['MEMORY.md']!.trim() }]);
      expect(
        Object.entries(seen.reached)
          .filter(([, reached]) => reached)
          .map(([marker]) => marker),
      ).toEqual(['MARKER-MAIN-INDEX', 'MARKER-MAIN-POINTER-A']);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  }, 60_000);
});
