/**
 * Claude Code's recall scan, case by case. Every expected manifest line below is what Claude Code
 * 2.1.332 sent its selector for the same file (captured against the fake API while this was
 * written; the committed capture in test/fixtures/claude-code/ pins the main scenario).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { headOf, isRecallCandidatePath, readHeadFrontmatter, scanLikeClaudeCode } from './scan-memories.js';
import { scanMemoryDir } from '../../memdir/scan-dir.js';
import { folderListing, RECALL_ORDER_FIXTURE, type RecallOrderFixture, stampAll, tiedFiles } from '../test-support/tied-mtimes.js';
import { manifestLine, parseSelectorAnswer, selectorBudget } from './selector-request.js';

let root: string;
let memoryDir: string;
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0) / 1000;

beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-cc-scan-'));
  memoryDir = path.join(root, 'memory');
  await fs.mkdir(memoryDir, { recursive: true });
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

/** Write files with mtimes one minute apart, the first newest, and return the manifest. */
async function manifestOf(files: [string, string | Buffer][]): Promise<string[]> {
  let age = 0;
  for (const [file, text] of files) {
    const abs = path.join(memoryDir, file);
    await fs.mkdir(path.dirname(abs), { recursive: true });
    await fs.writeFile(abs, text);
    age += 60;
    await fs.utimes(abs, T0 - age, T0 - age);
  }
  return (await scanLikeClaudeCode(memoryDir)).memories.map(manifestLine);
}

const at = (minutes: number) => new Date((T0 - minutes * 60) * 1000).toISOString();

describe('the manifest line of each kind of file, as Claude Code 2.1.332 wrote it', () => {
  it('reads YAML the way Claude Code does', async () => {
    const lines = await manifestOf([
      ['dup.md', '---\nname: Dup\ndescription: first\ndescription: second\ntype: user\n---\n'],
      ['yes.md', '---\nname: Yes\ndescription: yes\ntype: user\n---\n'],
      ['date.md', '---\nname: Date\ndescription: 2026-01-01\ntype: user\n---\n'],
      ['tilde.md', '---\nname: T\ndescription: ~\ntype: user\n---\n'],
      ['qnum.md', '---\nname: Q\ndescription: "42"\ntype: user\n---\n'],
      ['numdesc.md', '---\nname: Num\ndescription: 42\ntype: project\n---\n'],
      ['literal.md', '---\nname: L\ndescription: |\n  line a\n  line b\ntype: user\n---\n'],
      ['comment.md', '---\nname: C\ndescription: with comment # here\ntype: user # typed\n---\n'],
      ['anchor.md', '---\nname: &n Anchor\ndescription: *n\ntype: user\n---\n'],
      ['octal.md', '---\nname: O\ndescription: 0o17\ntype: user\n---\n'],
      ['list.md', '---\nname: List\ndescription: [a, b]\ntype: user\n---\n'],
      ['emptydesc.md', '---\nname: E\ndescription: ""\ntype: user\n---\n'],
      ['spaces.md', '---\nname: Sp\ndescription: "  padded  "\ntype: feedback\n---\n'],
      ['tab.md', '---\nname: Tab\ndescription: has\ttab inside\ntype: user\n---\n'],
      ['unicode.md', '---\nname: 中文\ndescription: 用户希望用中文回答\ntype: user\n---\n'],
    ]);
    expect(lines).toEqual([
      `- [user] dup.md (${at(1)}): second`,
      `- [user] yes.md (${at(2)}): yes`,
      `- [user] date.md (${at(3)}): 2026-01-01`,
      `- [user] tilde.md (${at(4)})`,
      `- [user] qnum.md (${at(5)}): 42`,
      `- [project] numdesc.md (${at(6)})`,
      `- [user] literal.md (${at(7)}): line a\nline b\n`,
      `- [user] comment.md (${at(8)}): with comment`,
      `- [user] anchor.md (${at(9)}): Anchor`,
      `- [user] octal.md (${at(10)})`,
      `- [user] list.md (${at(11)})`,
      `- [user] emptydesc.md (${at(12)})`,
      `- [feedback] spaces.md (${at(13)}):   padded  `,
      `- [user] tab.md (${at(14)}): has\ttab inside`,
      `- [user] unicode.md (${at(15)}): 用户希望用中文回答`,
    ]);
  });

  it('finds the frontmatter fence and retries broken YAML the way Claude Code does', async () => {
    const lines = await manifestOf([
      ['bad-yaml.md', '---\nname: [unclosed\ndescription: desc of bad yaml: yes\ntype: user\n---\n'],
      ['tags.md', '---\nname: [unclosed\ndescription: tags: a\ntags: [a, b]\ntype: user\n---\n'],
      ['tabs.md', '---\nname: Tabs\n\tdescription: tab indented\ndescription: ok: yes\ntype: user\n---\n'],
      ['nofence-end.md', '---\nname: X\ndescription: no closing fence\ntype: user\n'],
      ['space-fence.md', '--- \nname: SF\ndescription: fence with trailing space\ntype: user\n--- \nbody'],
      ['inline-fence.md', '---\nname: IF\ndescription: d\ntype: user---\nbody'],
      ['lead-blank.md', '\n---\nname: LB\ndescription: leading blank line\ntype: user\n---\n'],
      ['typecase.md', '---\nname: TC\ndescription: d\ntype: " user"\n---\n'],
      ['metatype-bad.md', '---\nname: MB\ndescription: d\ntype: user\nmetadata:\n  type: nope\n---\n'],
      ['metatype-null.md', '---\nname: MN\ndescription: d\ntype: user\nmetadata:\n  type:\n---\n'],
      ['nested-desc.md', '---\nname: ND\nmetadata:\n  description: only nested\n  type: user\ntype: feedback\n---\n'],
      ['empty.md', ''],
      ['bigfirst.md', `---\ndescription: ${'y'.repeat(70_000)}\ntype: user\n---\n`],
      ['utf16.md', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('---\nname: U\ndescription: utf16 file\ntype: user\n---\n', 'utf16le')])],
    ]);
    expect(lines).toEqual([
      `- [user] bad-yaml.md (${at(1)}): desc of bad yaml: yes`,
      `- [user] tags.md (${at(2)}): tags: a`,
      `- tabs.md (${at(3)})`,
      `- nofence-end.md (${at(4)})`,
      `- [user] space-fence.md (${at(5)}): fence with trailing space`,
      `- [user] inline-fence.md (${at(6)}): d`,
      `- lead-blank.md (${at(7)})`,
      `- typecase.md (${at(8)}): d`,
      `- metatype-bad.md (${at(9)}): d`,
      `- metatype-null.md (${at(10)}): d`,
      `- [user] nested-desc.md (${at(11)})`,
      `- empty.md (${at(12)})`,
      `- bigfirst.md (${at(13)})`,
      `- [user] utf16.md (${at(14)}): utf16 file`,
    ]);
  });

  it('lists subfolders and follows links, leaving out what Claude Code leaves out', async () => {
    const outside = path.join(root, 'outside');
    await fs.mkdir(outside);
    await fs.writeFile(path.join(outside, 'linked.md'), '---\nname: L\ndescription: linked from outside\ntype: user\n---\n');
    await fs.utimes(path.join(outside, 'linked.md'), T0, T0);
    const lines = await manifestOf([
      ['team/sub/deep.md', '---\ndescription: team subfolder\n---\n'],
      ['team/.dot.md', '---\ndescription: a dot file directly in team/\n---\n'],
      ['.hidden/h.md', '---\ndescription: in a dot folder\n---\n'],
      ['.dot.md', '---\ndescription: dot file\n---\n'],
      ['UPPER.MD', '---\ndescription: upper-case extension\n---\n'],
      ['memory.md', '---\ndescription: lower-case memory.md\ntype: project\n---\n'],
      ['Sessions/s.md', '---\ndescription: in Sessions/\n---\n'],
      ['logs/l.md', '---\ndescription: in logs/\n---\n'],
      ['proposals/p.md', '---\ndescription: in proposals/\n---\n'],
      ['agent-memory/a.md', '---\ndescription: agent memory folder\ntype: user\n---\n'],
      ['deep/er/MEMORY.md', '- [x](x.md)\n'],
      ['LOGS./a.md', '---\ndescription: LOGS with a trailing dot\n---\n'],
      ['TEAM/x.md', '---\ndescription: upper-case TEAM\n---\n'],
    ]);
    await fs.symlink(path.join(outside, 'linked.md'), path.join(memoryDir, 'link-file.md'));
    await fs.symlink(outside, path.join(memoryDir, 'link-dir'));
    await fs.symlink(memoryDir, path.join(memoryDir, 'loop'));
    const withLinks = (await scanLikeClaudeCode(memoryDir)).memories.map(manifestLine);
    expect(lines).toEqual([
      `- ${path.join('team', '.dot.md')} (${at(2)}): a dot file directly in team/`,
      `- [project] memory.md (${at(6)}): lower-case memory.md`,
      `- [user] ${path.join('agent-memory', 'a.md')} (${at(10)}): agent memory folder`,
      `- ${path.join('TEAM', 'x.md')} (${at(13)}): upper-case TEAM`,
    ]);
    expect(withLinks.slice(0, 2).sort()).toEqual([
      `- [user] ${path.join('link-dir', 'linked.md')} (${at(0)}): linked from outside`,
      `- [user] link-file.md (${at(0)}): linked from outside`,
    ]);
    expect(withLinks).toHaveLength(6);
  });

  it('keeps files of one mtime in the order the OS lists each folder, as the recorded client does, not in name order (review x5 F4)', async () => {
    const recorded = JSON.parse(await fs.readFile(RECALL_ORDER_FIXTURE, 'utf8')) as RecallOrderFixture;
    expect([recorded.offeredInFolderListingOrder, recorded.offeredInNameOrder]).toEqual([true, false]);
    const files = { ...tiedFiles(40), ...tiedFiles(12, 'sub'), ...tiedFiles(12, '.') };
    for (const [rel, text] of Object.entries(files)) {
      await fs.mkdir(path.dirname(path.join(memoryDir, rel)), { recursive: true });
      await fs.writeFile(path.join(memoryDir, rel), text);
    }
    await stampAll(memoryDir);
    const scanned = (await scanLikeClaudeCode(memoryDir)).memories.map((m) => m.file);
    expect(scanned).toHaveLength(64);
    expect(scanned).toEqual(folderListing(memoryDir));
    expect(scanned).not.toEqual([...scanned].sort());
  });

  it('reads only the first 30 lines and 64 KiB of a file', () => {
    const lines = Array.from({ length: 40 }, (_, i) => `l${i}`);
    expect(headOf(lines.join('\n')).split('\n')).toEqual(lines.slice(0, 30));
    expect(headOf('a\r\nb\r\n')).toBe('a\nb\n');
    expect(headOf('\uFEFFx')).toBe('x');
    const long = 'x'.repeat(70_000);
    expect(headOf(`---\ndescription: d\n---\n${long}\nmore`)).toBe('---\ndescription: d\n---');
    expect(
      readHeadFrontmatter(
        headOf(`---\nname: Late\n${Array.from({ length: 30 }, (_, i) => `k${i}: v`).join('\n')}\ndescription: after line 30\ntype: user\n---\n`),
      ),
    ).toEqual({ description: null, type: null });
  });

  it('a NUL in the frontmatter makes it none: no type, no description (other control characters are read as written)', () => {
    // Claude Code 2.1.332's selector request, live: `- nul.md (…)` beside `- [user] esc.md (…): has \u001b[31m esc only`,
    // and the same for SOH, DEL and NEL.
    const file = (description: string) => `---\nname: n\ndescription: ${description}\ntype: user\n---\nbody\n`;
    expect(readHeadFrontmatter(file('has \u0000 nul'))).toEqual({ description: null, type: null });
    expect(readHeadFrontmatter(file('has \u0000 nul and \u001b[31m esc'))).toEqual({ description: null, type: null });
    for (const c of ['\u001b[31m', '\u0001', '\u007f', '\u0085'])
      expect(readHeadFrontmatter(file(`has ${c} x`))).toEqual({ description: `has ${c} x`, type: 'user' });
    // In the body it is no matter.
    expect(readHeadFrontmatter(`${file('d')}a \u0000 b\n`)).toEqual({ description: 'd', type: 'user' });
  });

  it('names the candidate paths Claude Code offers', () => {
    expect(['a.md', 'x/y/z.md', 'team/t.md', 'memory.md', 'logs.md'].every((p) => isRecallCandidatePath(p))).toBe(true);
    expect(
      ['MEMORY.md', 'x/MEMORY.md', 'a.MD', 'a.txt', 'team/x/y.md', '.a.md', 'x/.y/z.md', 'LOGS/a.md', 'sessions./a.md'].some((p) => isRecallCandidatePath(p)),
    ).toBe(false);
  });

  it('an unreadable memory dir yields nothing, a missing one no error', async () => {
    expect(await scanLikeClaudeCode(path.join(root, 'nope'))).toEqual({ memories: [], error: null });
  });
});

describe('what Memdir shows of each file, against what Claude Code sends', () => {
  it('shows a type only where Claude Code reads one: never from a file name when the frontmatter is missing or broken', async () => {
    const files: [string, string][] = [
      ['feedback_none.md', 'no frontmatter at all\n'],
      ['feedback_broken.md', '---\nname: "unclosed\ndescription: d\ntype: project\n---\n'],
      ['project_nofence.md', '---\nname: X\ndescription: no closing fence\ntype: user\n'],
      ['user_lead-blank.md', '\n---\nname: LB\ndescription: leading blank line\ntype: user\n---\n'],
      ['reference_ok.md', '---\nname: OK\ndescription: fine\ntype: reference\n---\n'],
      ['feedback_retry.md', '---\nname: [unclosed\ndescription: desc: yes\ntype: user\n---\n'],
    ];
    await manifestOf(files);
    const claude = new Map((await scanLikeClaudeCode(memoryDir)).memories.map((m) => [m.file, m.type]));
    const memdir = new Map(scanMemoryDir(memoryDir, { scope: 'private' }).memories.map((m) => [m.file, m.type]));
    expect(Object.fromEntries(memdir)).toEqual(Object.fromEntries(claude));
    expect(memdir.get('feedback_none.md')).toBeNull();
  });
});

describe('the answer and the budget', () => {
  const known = new Set(['a.md', 'sub/b.md']);
  it('drops unknown names, strips a [type] prefix, and fails closed', () => {
    expect(parseSelectorAnswer({ text: '{"selected_memories":["a.md","nope.md","[project] sub/b.md",3]}', stopReason: 'end_turn' }, known)).toMatchObject({
      names: ['a.md', 'sub/b.md'],
      dropped: [{ file: 'nope.md' }, { file: '3' }],
      failure: null,
    });
    expect(parseSelectorAnswer({ text: '```json\n{"selected_memories":["a.md"]}\n```', stopReason: 'end_turn' }, known).names).toEqual(['a.md']);
    for (const answer of [
      { text: '{"selected_memories":["a.md"]}', stopReason: 'max_tokens' },
      { text: null, stopReason: 'end_turn' },
      { text: 'a.md', stopReason: 'end_turn' },
      { text: '{"selected":["a.md"]}', stopReason: 'end_turn' },
      { text: 'null', stopReason: 'end_turn' },
    ]) {
      const parsed = parseSelectorAnswer(answer, known);
      expect(parsed.names).toEqual([]);
      expect(parsed.failure).toMatch(/loads no memory/);
    }
  });

  it('gives thinking models 2,048 more tokens and turns thinking off for the others', () => {
    expect(selectorBudget('claude-sonnet-5-5')).toEqual({ maxTokens: 2_560, thinking: null });
    expect(selectorBudget('claude-sonnet-4-6')).toEqual({ maxTokens: 512, thinking: { type: 'disabled' } });
    expect(selectorBudget('claude-sonnet-4-5-20250929')).toEqual({ maxTokens: 512, thinking: { type: 'disabled' } });
    expect(selectorBudget('claude-3-5-haiku-latest')).toEqual({ maxTokens: 512, thinking: { type: 'disabled' } });
  });
});
