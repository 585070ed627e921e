import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { scanMemoryDir } from '../../src/main/memdir/scan-dir.js';
import { agentIndexView } from '../../src/main/transcripts/agent-index.js';
import { parseIndex, splitLoadedEntries } from '../../src/shared/index-format.js';
import { NO_SHARED_FIXTURES, sharedMemoryFixtures } from '../../src/main/memdir/test-support/shared-fixtures.js';
import { formatIndexSize, lineFate, loadIndexAsClaudeCode, warningWordingFor } from '../../src/shared/index-load.js';
import { SIZE_CASE_FIXTURE, type SizeCase, sizeCaseBytes } from './index-size-case.js';
import { FIRST_SESSION_FIXTURE, FIRST_SESSION_SHOWN, type FirstSession, firstSessionShownByMemdir, layoutOf } from './first-session-case.js';

/** Auto memory on, as by default: Claude Code loads the index. */
const AUTO_MEMORY_ON = { autoMemoryEnabled: true, autoMemoryEnabledSource: 'default', autoMemoryEnabledFrom: null, memoryStores: null } as const;

// Indexes written into a temporary home and loaded by the real Claude Code 2.1.332 (`claude -p`
// against a loopback fake API); observed.json holds what its transcript recorded as injected
// (the `instructions` attachment, `type: "AutoMem"`). Byte for byte ground truth.
const FIXTURES = path.resolve(__dirname, '../fixtures/claude-code-index');
const observed = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'observed.json'), 'utf8')) as Record<string, { version: string; injected: string | null }>;
const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, `${name}.md`), 'utf8');

describe('loadIndexAsClaudeCode against what Claude Code 2.1.332 injected', () => {
  it.each(Object.keys(observed))('%s', (name) => {
    const { version, injected } = observed[name]!;
    expect(loadIndexAsClaudeCode(fixture(name), { version }).text).toBe(injected ?? '');
  });
});

// Indexes Memdir will not edit — not UTF-8, NUL and other control bytes, MEMORY.md a link to a
// file outside the memory folder (a dotfiles setup) — as the real 2.1.332 loaded them from disk:
// bad bytes as U+FFFD, control characters dropped, the link followed. The files' bytes are kept
// in unreadable/; observed-unreadable.json holds what the client's transcript recorded.
const UNREADABLE = path.join(FIXTURES, 'unreadable');
const observedUnreadable = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'observed-unreadable.json'), 'utf8')) as Record<
  string,
  { version: string; injected: string; link?: true }
>;

describe('an index Memdir will not edit still reaches the agent, as Claude Code 2.1.332 loaded it', () => {
  const roots: string[] = [];
  afterEach(() => {
    for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true });
  });
  /** A memory folder whose MEMORY.md holds the fixture's bytes, or links to it from outside the folder. */
  const memoryDirWith = (name: string, link: boolean): string => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'memdir-unreadable-'));
    roots.push(root);
    const memoryDir = path.join(root, 'memory');
    fs.mkdirSync(memoryDir);
    const bytes = fs.readFileSync(path.join(UNREADABLE, `${name}.md`));
    if (link) {
      fs.writeFileSync(path.join(root, 'dotfiles-index.md'), bytes);
      fs.symlinkSync(path.join(root, 'dotfiles-index.md'), path.join(memoryDir, 'MEMORY.md'));
    } else fs.writeFileSync(path.join(memoryDir, 'MEMORY.md'), bytes);
    fs.writeFileSync(path.join(memoryDir, 'orphan.md'), '---\nname: Orphan\ndescription: listed nowhere\ntype: user\n---\nBody.\n');
    return memoryDir;
  };

  it.each(Object.keys(observedUnreadable))('%s: memdir show --loaded prints what the client injected, byte for byte', async (name) => {
    const { injected, link } = observedUnreadable[name]!;
    const memoryDir = memoryDirWith(name, link === true);
    expect((await agentIndexView({ transcriptDirs: [], memoryDir, settings: AUTO_MEMORY_ON })).text).toBe(injected);
  });

  it.each(Object.keys(observedUnreadable))('%s: the scan lists its pointers as loaded, and Health says only the editing is refused', (name) => {
    const { injected, link } = observedUnreadable[name]!;
    const scan = scanMemoryDir(memoryDirWith(name, link === true), { scope: 'private' });
    const pointed = [...injected.matchAll(/\]\(([^)]+)\)/g)].map((m) => m[1]);
    expect(scan.index.loaded).toEqual(pointed);
    expect(scan.index).toMatchObject({ exists: true, lines: injected.split('\n').length, firstCutLine: null });
    const refusal = scan.problems.find((p) => p.file === 'MEMORY.md' && p.line === null)!;
    expect(refusal.code).toBe(link ? 'unsafe-link' : 'unreadable');
    expect(refusal.message).toMatch(/^Memdir cannot edit MEMORY\.md: .*\. Claude Code still loads it/);
    expect(refusal.message).not.toContain('starts without');
    // The agent never sees the orphan, but no fix is offered: each would rewrite a file Memdir will not edit.
    expect(scan.problems.find((p) => p.code === 'orphan')).toMatchObject({ file: 'orphan.md', fix: null });
    expect(scan.problems.filter((p) => p.fix !== null)).toEqual([]);
  });

  it('a link that loops loads nothing, and Health says so', async () => {
    const memoryDir = memoryDirWith('latin1', false);
    fs.rmSync(path.join(memoryDir, 'MEMORY.md'));
    fs.symlinkSync('MEMORY.md', path.join(memoryDir, 'MEMORY.md'));
    expect((await agentIndexView({ transcriptDirs: [], memoryDir, settings: AUTO_MEMORY_ON })).text).toBe('');
    const scan = scanMemoryDir(memoryDir, { scope: 'private' });
    expect(scan.index).toMatchObject({ exists: true, lines: 0, loaded: [] });
    expect(scan.problems.find((p) => p.file === 'MEMORY.md')!.message).toMatch(/The agent starts without its memory index\.$/);
  });
});

// A MEMORY.md of exactly 4 MB, one byte more and a named pipe, as the real 2.1.332 loaded them
// (index-size-case.ts): the first is cut as any long index, the others skipped whole — the agent
// starts with no index.
const observedSize = JSON.parse(fs.readFileSync(SIZE_CASE_FIXTURE, 'utf8')) as SizeCase;
describe('a MEMORY.md over 4 MB, or not a regular file, is not loaded at all, as Claude Code 2.1.332 skipped it', () => {
  const roots: string[] = [];
  afterEach(() => {
    for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true });
  });
  const memoryDirWith = (name: string | number): string => {
    const memoryDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'memdir-size-')), 'memory');
    roots.push(path.dirname(memoryDir));
    fs.mkdirSync(memoryDir);
    fs.writeFileSync(path.join(memoryDir, 'MEMORY.md'), sizeCaseBytes(String(name)));
    return memoryDir;
  };
  const skipped = { injected: null, debug: '[DEBUG] [CLAUDE.md] skipping <memory>/MEMORY.md: not a regular file or exceeds 4194304 byte limit' };

  it('the recording: 4,194,304 bytes load (cut), 4,194,305 bytes and a named pipe load nothing', () => {
    expect(Object.keys(observedSize.cases)).toEqual(['4194304', '4194305', 'fifo', 'not-utf8-4194300']);
    expect(observedSize.cases['4194304']!.injected).toMatch(/^- \[Note 0\]\(note-0\.md\)[^]*> WARNING: MEMORY\.md is /);
    expect(observedSize.cases['4194305']).toEqual(skipped);
    expect(observedSize.cases.fifo).toEqual(skipped);
    // 4,194,300 bytes, 4 of them not UTF-8: its decoded text is 4,194,308 bytes, yet the client loaded it (it judges the file's size).
    expect(observedSize.cases['not-utf8-4194300']).toMatchObject({
      debug: null,
      injected: expect.stringMatching(/^- \[Note 0\]\(note-0\.md\) - xx\uFFFD{4}x[^]*> WARNING: MEMORY\.md is /),
    });
  });

  it.each(['4194304', '4194305', 'not-utf8-4194300'])('%s bytes: memdir show --loaded prints what the client injected', async (bytes) => {
    const memoryDir = memoryDirWith(bytes);
    expect((await agentIndexView({ transcriptDirs: [], memoryDir, settings: AUTO_MEMORY_ON })).text).toBe(observedSize.cases[bytes]!.injected ?? '');
  });

  it('a file under 4 MB whose decoded text is over it (bytes not UTF-8): the scan and Health judge the file, as the client does', () => {
    const scan = scanMemoryDir(memoryDirWith('not-utf8-4194300'), { scope: 'private' });
    expect(scan.index.loaded[0]).toBe('note-0.md');
    expect(scan.index.loadedLines).toBe(200);
    expect(scan.index.reason).not.toMatch(/skips a file this large/);
    expect(scan.problems.find((p) => p.code === 'over-limit')!.message).not.toMatch(/4,194,30\d bytes/);
  });

  it('over 4 MB: the scan lists every pointer as cut and Health says Claude Code skips the file', () => {
    const scan = scanMemoryDir(memoryDirWith(4_194_305), { scope: 'private' });
    expect(scan.index.loaded).toEqual([]);
    expect(scan.index.cut[0]).toBe('note-0.md');
    expect(scan.index.reason).toBe('4,194,305 bytes (limit: 4,194,304) \u2014 Claude Code skips a file this large and loads none of it');
    expect(scan.problems.find((p) => p.code === 'over-limit')!.message).toMatch(/^MEMORY\.md is 4,194,305 bytes .* from line 1 on it never reaches the agent/);
  });

  // Opening a named pipe waits for a writer: the scan must not open it (it hung `memdir show`, the app's scan, lint).
  it.skipIf(process.platform === 'win32')(
    'a named pipe: memdir show --loaded prints nothing and memdir show says it cannot be read, without hanging',
    () => {
      const root = fs.mkdtempSync(path.join(os.tmpdir(), 'memdir-fifo-'));
      roots.push(root);
      const memoryDir = path.join(root, 'home', 'projects', '-work-app', 'memory');
      fs.mkdirSync(memoryDir, { recursive: true });
      execFileSync('mkfifo', [path.join(memoryDir, 'MEMORY.md')]);
      const run = (...args: string[]) =>
        spawnSync(process.execPath, ['--import', 'tsx', path.resolve(__dirname, '../../src/cli/memdir.ts'), ...args], {
          env: { ...process.env, CLAUDE_CONFIG_DIR: path.join(root, 'home'), MEMDIR_DATA_DIR: path.join(root, 'data') },
          encoding: 'utf8',
          timeout: 20_000,
        });
      const loaded = run('show', '-work-app', '--loaded');
      expect(loaded.signal, 'memdir show --loaded hung on the pipe').toBeNull();
      expect(loaded.stdout).toBe('');
      const shown = run('show', '-work-app');
      expect(shown.signal, 'memdir show hung on the pipe').toBeNull();
      expect(shown.stdout).toMatch(/MEMORY\.md cannot be used: it is not a regular file/);
    },
    60_000,
  );
});

describe('loadIndexAsClaudeCode (R-INDEX)', () => {
  it('counts UTF-16 code units, not UTF-8 bytes: 120 Chinese pointer lines load whole', () => {
    const text = fixture('cjk120');
    const load = loadIndexAsClaudeCode(text);
    expect(load.bytes).toBeGreaterThan(25_000);
    expect(load.chars).toBeLessThan(25_000);
    expect(load).toMatchObject({ lines: 120, truncated: false, firstCutLine: null, reason: null });
    expect(splitLoadedEntries(parseIndex(text), load).cut).toEqual([]);
  });

  it('strips frontmatter and block comments before counting: entries 1–200 load, 201 on are cut', () => {
    const text = fixture('fm-comment-220');
    const load = loadIndexAsClaudeCode(text);
    const { loaded, cut } = splitLoadedEntries(parseIndex(text), load);
    expect(loaded.map((e) => e.file)).toEqual(Array.from({ length: 200 }, (_, i) => `entry_${String(i + 1).padStart(3, '0')}.md`));
    expect(cut[0]!.file).toBe('entry_201.md');
    expect(cut).toHaveLength(20);
    // Frontmatter (5 lines) and the comment block (4 lines) come first: entry 201 is file line 210.
    expect(load.firstCutLine).toBe(210);
    expect(load.reason).toBe('220 lines (limit: 200)');
    expect([1, 5, 6, 9].map((l) => lineFate(load, l))).toEqual(['hidden', 'hidden', 'hidden', 'hidden']);
  });

  it('a pointer inside a comment never reaches the agent and is not called cut either', () => {
    const text = fixture('comments');
    const { loaded, cut } = splitLoadedEntries(parseIndex(text), loadIndexAsClaudeCode(text));
    expect(loaded.map((e) => e.file)).not.toContain('hidden.md');
    expect(cut).toEqual([]);
  });

  it('keeps a newline exactly at offset 25,000 and cuts after it', () => {
    const load = loadIndexAsClaudeCode(fixture('nl-at-25000'));
    expect(load.loadedChars).toBe(25_000);
    expect(load.warning).toContain('2 of 147 lines were cut off, starting at line 146 ("- [Last](last.md) — after the limit")');
    expect(loadIndexAsClaudeCode(fixture('nl-at-25001')).loadedLines).toBe(144);
  });

  it('cuts a line longer than the limit mid-line and says so', () => {
    const load = loadIndexAsClaudeCode(fixture('long-line'));
    expect(load).toMatchObject({ firstCutLine: 1, loadedLines: 0, loadedChars: 25_000 });
    expect(load.reason).toBe('29.3KB (limit: 24.4KB) — index entries are too long');
    expect(load.warning).toContain('everything after the first 25000 characters of line 1 was cut off');
  });

  it('200 lines load whole, 201 lose the last', () => {
    expect(loadIndexAsClaudeCode(fixture('lines-200')).truncated).toBe(false);
    expect(loadIndexAsClaudeCode(fixture('lines-201'))).toMatchObject({ truncated: true, firstCutLine: 201, loadedLines: 200 });
  });

  it('counts the \\r of CRLF line ends, as Claude Code does', () => {
    const text = fixture('crlf-units');
    expect(loadIndexAsClaudeCode(text).chars).toBe(text.trim().length);
    expect(loadIndexAsClaudeCode(text.replace(/\r\n/g, '\n')).chars).toBe(text.trim().length - 164);
  });

  it("words the warning the way the user's Claude Code version does", () => {
    const text = fixture('lines-201');
    expect(
      loadIndexAsClaudeCode(text, { version: '2.1.88' }).text.endsWith(
        '\n\n> WARNING: MEMORY.md is 201 lines (limit: 200). Only part of it was loaded. Keep index entries to one line under ~200 chars; move detail into topic files.',
      ),
    ).toBe(true);
    expect(loadIndexAsClaudeCode(text, { version: '2.1.332' }).warning).toContain('Only part of it was loaded: 1 of 201 lines were cut off');
    expect(warningWordingFor(null)).toBe('detailed');
    expect(warningWordingFor('garbage')).toBe('detailed');
    expect(warningWordingFor('2.2.0')).toBe('detailed');
    expect(warningWordingFor('2.1.331')).toBe('plain');
    expect(warningWordingFor('1.0.128')).toBe('plain');
  });

  it('an index that is only frontmatter injects nothing', () => {
    expect(loadIndexAsClaudeCode(fixture('fm-only'))).toMatchObject({ text: '', lines: 0, truncated: false });
    expect(loadIndexAsClaudeCode('')).toMatchObject({ text: '', lines: 0 });
  });

  it('formats sizes like Claude Code', () => {
    expect(formatIndexSize(25_000)).toBe('24.4KB');
    expect(formatIndexSize(26_931)).toBe('26.3KB');
    expect(formatIndexSize(1024 * 30)).toBe('30KB');
    expect(formatIndexSize(900)).toBe('900 bytes');
    expect(formatIndexSize(3 * 1024 * 1024)).toBe('3MB');
  });
});

// Real indexes from shared/fixtures/memories (third-party, read in place), loaded by Claude Code 2.1.332.
const shared = sharedMemoryFixtures();
const observedShared = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'observed-shared.json'), 'utf8')) as Record<
  string,
  { version: string; injected: string | null }
>;
describe.skipIf(!shared)(`real indexes as Claude Code 2.1.332 injected them${shared ? '' : ` (skipped: ${NO_SHARED_FIXTURES})`}`, () => {
  it.each(Object.keys(observedShared))('%s', (id) => {
    const raw = fs.readFileSync(path.join(shared!, id, 'memory', 'MEMORY.md'), 'utf8');
    expect(loadIndexAsClaudeCode(raw, { version: observedShared[id]!.version }).text).toBe(observedShared[id]!.injected ?? '');
  });
});

// A project's first session with no memory folder, as the real 2.1.332 left it (first-session-2.1.332.json):
// the layout laid out again, Memdir shows an empty memory — nothing loaded, nothing Claude Code would build, no problem.
describe('the folder a first session of Claude Code 2.1.332 leaves', () => {
  it('is an empty memory to Memdir', async () => {
    const recorded = JSON.parse(fs.readFileSync(FIRST_SESSION_FIXTURE, 'utf8')) as FirstSession;
    expect(recorded.layout).toEqual(['<session>.jsonl', 'memory/']);
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'memdir-first-session-'));
    try {
      for (const entry of recorded.layout)
        if (entry.endsWith('/')) fs.mkdirSync(path.join(folder, entry), { recursive: true });
        else fs.writeFileSync(path.join(folder, entry.replace('<session>', '0b8a2f4e-3c1d-4e5f-8a9b-0c1d2e3f4a5b')), '');
      expect(layoutOf(folder)).toEqual(recorded.layout);
      expect(await firstSessionShownByMemdir(folder)).toEqual(FIRST_SESSION_SHOWN);
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });
});
