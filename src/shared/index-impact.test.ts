import { describe, expect, it } from 'vitest';
import { indexImpact, sizeChange } from './index-impact.js';

const lines = (n: number) => Array.from({ length: n }, (_, i) => `- [M${i}](m${i}.md) — hook ${i}`).join('\n') + '\n';

describe('indexImpact', () => {
  it('says nothing is lost when the index has room', () => {
    expect(indexImpact(lines(10), { kind: 'add', title: 'New', file: 'new.md', hook: 'h' })).toMatchObject({
      newlyCut: [],
      changedIsCut: false,
      after: { lines: 11, cut: 0 },
    });
  });

  it('names the files a rewrite stops pointing at (not those it moves past the cut)', () => {
    const text = lines(3);
    expect(indexImpact(text, { kind: 'replace', text: '' }).dropped).toEqual(['m0.md', 'm1.md', 'm2.md']);
    const moved = `${Array.from({ length: 200 }, (_, i) => `note ${i}`).join('\n')}\n- [M0](m0.md) — hook 0\n`;
    expect(indexImpact(text, { kind: 'replace', text: moved })).toMatchObject({ dropped: ['m1.md', 'm2.md'], newlyCut: ['m0.md'] });
  });

  it('warns that a new pointer at line 201 would never reach the agent', () => {
    expect(indexImpact(lines(200), { kind: 'add', title: 'New', file: 'new.md', hook: 'h' })).toMatchObject({
      newlyCut: [],
      changedIsCut: true,
      after: { lines: 201, cut: 1 },
    });
  });

  it('names the existing pointers a longer hook pushes past the byte limit', () => {
    // 24,905 characters: m0's short hook, then 100 pointers of 230-character hooks. A pointer Memdir
    // writes holds at most 150 characters of hook (pointerHook), so a 3,000-character one adds 145.
    const text = ['- [M0](m0.md) — short', ...Array.from({ length: 100 }, (_, i) => `- [M${i + 1}](m${i + 1}.md) — ${'x'.repeat(230)}`)].join('\n') + '\n';
    expect(text.trim().length).toBe(24_905);
    const impact = indexImpact(text, { kind: 'update', file: 'm0.md', title: 'M0', hook: 'y'.repeat(3000) });
    expect(indexImpact(text, { kind: 'update', file: 'm0.md', title: 'M0', hook: 'short' }).newlyCut).toEqual([]);
    expect(impact.newlyCut).toEqual(['m100.md']);
    expect(impact.changedIsCut).toBe(false);
  });

  it('counts as Claude Code counts: a pointer added to 120 Chinese lines (35 KB of UTF-8, 13,000 characters) is not cut', () => {
    const zh = Array.from({ length: 120 }, (_, i) => `- [记忆${i}](m${i}.md) — ${'部署测试前端后端接口文档团队会议决定'.repeat(5)}`).join('\n') + '\n';
    expect(new TextEncoder().encode(zh).length).toBeGreaterThan(25_000);
    expect(indexImpact(zh, { kind: 'add', title: '新的', file: 'new.md', hook: '新的记忆' })).toMatchObject({
      newlyCut: [],
      changedIsCut: false,
      after: { lines: 121, cut: 0 },
    });
  });

  it('does not count frontmatter and a comment block against the 200 lines', () => {
    const text = `---\nname: index\n---\n<!--\nkept by hand\n-->\n${lines(199)}`;
    expect(indexImpact(text, { kind: 'add', title: 'New', file: 'new.md', hook: 'h' })).toMatchObject({ changedIsCut: false, after: { lines: 200, cut: 0 } });
  });
});

describe('sizeChange (Health\'s "Effect of the fixes")', () => {
  it('says the figures plainly and what Claude Code loads apart, never "396 of 200 lines"', () => {
    const text = sizeChange('MEMORY.md', { lines: 409, chars: 32_000 }, { lines: 396, chars: 31_200 }, true);
    expect(text).toBe('MEMORY.md goes from 409 to 396 lines (31,200 characters); Claude Code loads at most 200 lines and 25,000 characters');
    expect(text).not.toMatch(/of 200 lines/);
    expect(sizeChange('team/MEMORY.md', { lines: 3, chars: 90 }, { lines: 4, chars: 130 }, false)).toBe(
      'team/MEMORY.md goes from 3 to 4 lines (130 characters)',
    );
    expect(sizeChange('MEMORY.md', { lines: 200, chars: 9_000 }, { lines: 200, chars: 9_000 }, true)).toBe('MEMORY.md stays at 200 lines');
  });
});
