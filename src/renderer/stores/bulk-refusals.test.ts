import { describe, expect, it } from 'vitest';
import { groupRefusals, refusalLines } from './bulk-refusals.js';

describe('the memories a bulk change left, by reason', () => {
  it('says each reason once, with every file it kept named', () => {
    const groups = groupRefusals([
      { scope: 'private', file: 'a.md', reason: 'a.md: its frontmatter cannot be read; open it to repair it first.' },
      { scope: 'team', file: 'b.md', reason: 'team/b.md does not exist.' },
      { scope: 'private', file: 'c.md', reason: 'c.md: its frontmatter cannot be read; open it to repair it first.' },
      { scope: 'private', file: 'user_me.md', reason: 'A user memory stays private: user_me.md is about you, not the project.' },
    ]);
    expect(groups).toEqual([
      { why: 'Its frontmatter cannot be read; open it to repair it first.', files: ['a.md', 'c.md'] },
      { why: 'This memory does not exist.', files: ['team/b.md'] },
      { why: 'A user memory stays private: this memory is about you, not the project.', files: ['user_me.md'] },
    ]);
    expect(refusalLines(groups)[0]).toBe('Its frontmatter cannot be read; open it to repair it first (2): a.md, c.md');
  });
});
