import { describe, expect, it } from 'vitest';
import { cutFactsOf, cutFactsText, cutPointersText, missingFilesOf } from './index-cut.js';

const memories = (...files: string[]) => files.map((file) => ({ file }));

describe('what is past the index cut (index-cut.ts)', () => {
  it('tells the memories past the cut from the pointers to missing files, and counts neither twice', () => {
    const cut = ['a.md', 'gone_1.md', 'gone_2.md', 'a.md', 'kept.md', 'gone_1.md', 'b.md', 'README.md'];
    const facts = cutFactsOf(
      { reach: { loaded: ['kept.md', 'gone_0.md'], cut }, cutPointers: cut },
      memories('kept.md', 'a.md', 'b.md', 'orphan.md'),
      () => new Set(['gone_0.md', 'gone_1.md', 'gone_2.md']),
    );
    // a.md twice is one memory; kept.md is loaded higher up; README.md exists but is no memory: neither fact.
    expect(facts).toEqual({ cutMemories: ['a.md', 'b.md'], cutMissing: ['gone_1.md', 'gone_2.md', 'gone_1.md'] });
    expect(cutFactsText(facts)).toBe('2 memories past the cut · 3 pointers to missing files');
    expect(cutFactsText(facts, { names: 1 })).toBe('2 memories past the cut (a.md, …) · 3 pointers to missing files');
    expect(cutPointersText(8, facts)).toBe('8 pointers (2 memories past the cut · 3 pointers to missing files)');
  });

  it('says nothing of what is not there', () => {
    expect(cutFactsText({ cutMemories: ['a.md'], cutMissing: [] })).toBe('1 memory past the cut');
    expect(cutFactsText({ cutMemories: [], cutMissing: ['x.md'] })).toBe('1 pointer to missing files');
    expect(cutPointersText(1, { cutMemories: [], cutMissing: [] })).toBe('1 pointer');
    expect(cutFactsOf({ reach: { loaded: ['a.md'], cut: [] }, cutPointers: [] }, memories('a.md'), () => new Set())).toEqual({
      cutMemories: [],
      cutMissing: [],
    });
  });

  it("takes a missing file to be what Health calls a dangling link's target", () => {
    const missing = missingFilesOf([
      { code: 'dangling-link', target: 'gone.md' },
      { code: 'duplicate-pointer', target: 'a.md' },
      { code: 'orphan', target: undefined },
    ]);
    expect([...missing]).toEqual(['gone.md']);
  });
});
