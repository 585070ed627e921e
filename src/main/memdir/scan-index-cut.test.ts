import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { scanMemoryDir } from './scan-dir.js';

// The scan says which pointers reach the agent exactly as Claude Code 2.1.332 decided for the
// same files (test/fixtures/claude-code-index/, observed with the real client).
const FIXTURES = path.resolve(__dirname, '../../../test/fixtures/claude-code-index');
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'memdir-cut-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

function scanWithIndex(name: string) {
  const dir = path.join(root, name);
  fs.mkdirSync(dir, { recursive: true });
  fs.copyFileSync(path.join(FIXTURES, `${name}.md`), path.join(dir, 'MEMORY.md'));
  return scanMemoryDir(dir, { scope: 'private' });
}

describe('the index cut in a scan (R-INDEX)', () => {
  it('an index of 120 Chinese pointer lines (over 25,000 UTF-8 bytes) reaches the agent whole', () => {
    const scan = scanWithIndex('cjk120');
    expect(scan.index.cut).toEqual([]);
    expect(scan.index.loaded).toHaveLength(120);
    expect(scan.problems.filter((p) => p.code === 'over-limit')).toEqual([]);
  });

  it('frontmatter and a comment block do not count: entries 1–200 load, 201–220 are cut', () => {
    const scan = scanWithIndex('fm-comment-220');
    expect(scan.index.loaded).toHaveLength(200);
    expect(scan.index.cut).toEqual(Array.from({ length: 20 }, (_, i) => `entry_${201 + i}.md`));
    const over = scan.problems.find((p) => p.code === 'over-limit');
    expect(over?.line).toBe(210);
  });

  it('the over-limit problem says what Claude Code tells the agent', () => {
    const over = scanWithIndex('over-units').problems.find((p) => p.code === 'over-limit')!;
    expect(over.message).toContain('29.3KB (limit: 24.4KB)');
    expect(over.message).toContain('26 pointers are never seen');
    // No topic file at all: not one of them is a memory.
    expect(over.message).toContain('none of them to a memory the agent would otherwise miss (all 26 pointers below the cut name files that do not exist)');
  });

  it('counts the memories past the cut apart from the pointers below it that name files that do not exist', () => {
    const dir = path.join(root, 'mixed');
    fs.mkdirSync(dir, { recursive: true });
    const prose = Array.from({ length: 199 }, (_, i) => `- note ${i + 1}`);
    const below = [
      '- [A](a.md) — below',
      '- [Gone 1](gone_1.md) — below',
      '- See [B](b.md) for more',
      '- [Gone 2](gone_2.md) — below',
      '- [Top](top.md) — again',
    ];
    fs.writeFileSync(path.join(dir, 'MEMORY.md'), [`- [Top](top.md) — loaded`, ...prose, ...below].join('\n') + '\n');
    for (const f of ['top', 'a', 'b']) fs.writeFileSync(path.join(dir, `${f}.md`), `---\nname: ${f}\ndescription: about ${f}\ntype: project\n---\n${f}\n`);
    const scan = scanMemoryDir(dir, { scope: 'private' });
    expect(scan.index.cut).toEqual(['a.md', 'gone_1.md', 'b.md', 'gone_2.md', 'top.md']);
    expect(scan.index.cutMemories).toEqual(['a.md', 'b.md']);
    expect(scan.index.cutMissing).toEqual(['gone_1.md', 'gone_2.md']);
    const over = scan.problems.find((p) => p.code === 'over-limit')!;
    expect(over.message).toContain(
      'from line 201 on it never reaches the agent, so 2 memories are never seen at session start (2 of the 5 pointers below the cut name files that do not exist).',
    );
  });
});
