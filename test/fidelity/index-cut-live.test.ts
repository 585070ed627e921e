/**
 * The real Claude Code loads indexes in a temporary home (`claude -p` against the loopback fake
 * Messages API) and what its transcript records as injected, and the index text its first request
 * to the model carries, must equal byte for byte what Memdir shows ("what Claude Code sees",
 * `memdir show --loaded`) for the same file on disk — the check behind
 * test/fixtures/claude-code-index/observed.json. Runs every fixture where the pinned native binary
 * is: `$CLAUDE_CODE_BIN`, or `@anthropic-ai/claude-code-linux-x64` in node_modules; skipped with
 * the reason otherwise. `MEMDIR_RECORD_INDEX_FIXTURES=1` rewrites observed.json from what the
 * client did (and observed-team.json, the team case; first-session-2.1.332.json, a first session).
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
import { FIRST_SESSION_FIXTURE, FIRST_SESSION_SHOWN, type FirstSession, firstSessionShownByMemdir, layoutOf } from './first-session-case.js';

/** Auto memory on, as by default: Claude Code loads the index. */
const AUTO_MEMORY_ON = { autoMemoryEnabled: true, autoMemoryEnabledSource: 'default', autoMemoryEnabledFrom: null, memoryStores: null } as const;

const FIXTURES = path.resolve(__dirname, '../fixtures/claude-code-index');
const skip = REAL_CLAUDE_CODE.found ? null : REAL_CLAUDE_CODE.reason;
const record = process.env.MEMDIR_RECORD_INDEX_FIXTURES === '1';
// Every fixture: a run takes about half a second.
const cases = fs
  .readdirSync(FIXTURES)
  .filter((f) => f.endsWith('.md'))
  .map((f) => f.slice(0, -3));

/** What Memdir shows as "what Claude Code sees" (`memdir show --loaded`, the index view) for a memory folder whose MEMORY.md holds `bytes` (or links to them from outside). */
async function shownByMemdir(bytes: string | Buffer, link = false): Promise<string> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'memdir-cc-predict-'));
  try {
    const memoryDir = path.join(root, 'memory');
    fs.mkdirSync(memoryDir);
    fs.writeFileSync(path.join(link ? root : memoryDir, link ? 'dotfiles-index.md' : 'MEMORY.md'), bytes);
    if (link) fs.symlinkSync(path.join(root, 'dotfiles-index.md'), path.join(memoryDir, 'MEMORY.md'));
    return (await agentIndexView({ transcriptDirs: [], memoryDir, settings: AUTO_MEMORY_ON })).text;
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

/**
 * The index text the client's first request to the model carries: the body of the `<system-reminder>`
 * that starts "Contents of …/MEMORY.md (user's auto-memory, …):" (the transcript's AutoMem attachment,
 * rendered), or null when no request carries one.
 */
function indexSentIn(fake: FakeAnthropic): string | null {
  const first = fake.messageRequests()[0]?.body as { messages?: { content?: string | { type?: string; text?: string }[] }[] } | undefined;
  const content = first?.messages?.[0]?.content;
  const blocks = typeof content === 'string' ? [content] : (content ?? []).map((b) => b.text ?? '');
  for (const block of blocks) {
    const m = /\nContents of [^\n]*\/MEMORY\.md \(user's auto-memory, persists across conversations\):\n\n([^]*)\n<\/system-reminder>$/.exec(block);
    if (m) return m[1]!;
  }
  return null;
}

/**
 * Run `claude -p` once with `index` as the project's MEMORY.md (null: none; `noFolder`: no memory
 * folder either); what its transcript recorded, and the index text its request to the model carried.
 */
async function injectedBy(
  fake: FakeAnthropic,
  index: string | Buffer | null,
  options: { link?: boolean; debug?: boolean; fifo?: boolean; noFolder?: boolean; layout?: (folder: string) => Promise<void> } = {},
): Promise<{ version: string | null; content: string | null; sent: string | null; debug: string }> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'memdir-cc-'));
  try {
    const [scratch, config, project] = ['scratch', 'config', 'project'].map((d) => path.join(root, d));
    for (const d of [scratch!, config!, project!]) fs.mkdirSync(d, { recursive: true });
    const folder = path.join(config!, 'projects', fs.realpathSync(project!).replace(/[^A-Za-z0-9]/g, '-'));
    if (!options.noFolder) fs.mkdirSync(path.join(folder, 'memory'), { recursive: true });
    if (index === null) {
      // No MEMORY.md.
    } else if (options.link) {
      // MEMORY.md a link to a file outside the memory folder, as a dotfiles setup makes it.
      fs.writeFileSync(path.join(root, 'dotfiles-index.md'), index);
      fs.symlinkSync(path.join(root, 'dotfiles-index.md'), path.join(folder, 'memory', 'MEMORY.md'));
    } else if (options.fifo) execFileSync('mkfifo', [path.join(folder, 'memory', 'MEMORY.md')]);
    else fs.writeFileSync(path.join(folder, 'memory', 'MEMORY.md'), index);
    const debugFile = path.join(root, 'debug.log');
    fake.reset();
    await runClaudeCode(['-p', 'hello', ...(options.debug ? ['--debug-file', debugFile] : [])], {
      cwd: project!,
      configDir: config!,
      scratch: scratch!,
      baseUrl: fake.url,
    });
    const transcript = fs.readdirSync(folder).find((f) => f.endsWith('.jsonl'));
    const { version } = await claudeCodeVersionIn([folder]);
    const debug = fs.existsSync(debugFile) ? fs.readFileSync(debugFile, 'utf8') : '';
    await options.layout?.(folder);
    return { version, content: transcript ? await readInjectedIndex(path.join(folder, transcript)) : null, sent: indexSentIn(fake), debug };
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
      // What reached the model, byte for byte, is what Memdir shows for the same file on disk.
      expect(got.sent).toBe(got.content);
      expect(got.sent ?? '').toBe(await shownByMemdir(fs.readFileSync(path.join(FIXTURES, `${name}.md`))));
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
      expect(got.content).toBe(await shownByMemdir(bytes, link));
      expect(got.sent).toBe(got.content);
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
      expect(got.sent).toBe(got.content);
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

  // Nothing to load: an empty or blank MEMORY.md, none, or no memory folder at all. The client then
  // sends the model no index (no "Contents of …/MEMORY.md" reminder) and Memdir shows none. With no
  // memory folder the client makes an empty one and writes nothing into it: the layout a project's
  // first session leaves, recorded in first-session-2.1.332.json (replayed without the binary).
  it('an empty MEMORY.md, a blank one, none, and a first session with no memory folder', async () => {
    const recorded = JSON.parse(fs.readFileSync(FIRST_SESSION_FIXTURE, 'utf8')) as FirstSession;
    for (const [index, bytes] of [
      ['empty', ''],
      ['blank', '\r\n  \n\uFEFF\n'],
    ] as const) {
      const got = await injectedBy(fake, bytes);
      expect({ index, injected: got.content, sent: got.sent }).toEqual({ index, injected: null, sent: null });
      expect(await shownByMemdir(bytes)).toBe('');
    }
    const none = await injectedBy(fake, null);
    expect({ injected: none.content, sent: none.sent }).toEqual({ injected: null, sent: null });
    let seen: FirstSession | null = null;
    const first = await injectedBy(fake, null, {
      noFolder: true,
      layout: async (folder) => {
        seen = { ...recorded, claudeCode: (await claudeCodeVersionIn([folder])).version ?? '', layout: layoutOf(folder) };
        // Memdir on that layout: an empty memory, nothing loaded, nothing Claude Code would build.
        expect(await firstSessionShownByMemdir(folder)).toEqual(FIRST_SESSION_SHOWN);
      },
    });
    expect({ injected: first.content, sent: first.sent }).toEqual({ injected: null, sent: null });
    if (record) fs.writeFileSync(FIRST_SESSION_FIXTURE, `${JSON.stringify(seen, null, 1)}\n`);
    else expect(seen).toEqual(recorded);
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
