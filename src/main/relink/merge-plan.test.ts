import { describe, expect, it } from 'vitest';
import { type FileMap, planArea } from './merge-plan.js';

const files = (entries: Record<string, string>): FileMap => new Map(Object.entries(entries).map(([k, v]) => [k, Buffer.from(v)]));

describe('planArea: the source index is never dropped (issue 18, item 3)', () => {
  it('keeps a source index with lines the target cannot take as a conflict, beside the lines it appended', () => {
    const source = files({ 'MEMORY.md': '- terse reviews, no nitpicks\n- [Style](style.md) — house style\n', 'style.md': 'style\n' });
    const target = files({ 'MEMORY.md': '- [Laptop](laptop.md) — laptop notes\n', 'laptop.md': 'laptop\n' });
    const plan = planArea('agent:local:reviewer', source, target);
    expect(plan.add).toEqual(['style.md']);
    expect(plan.index).toBe('- [Laptop](laptop.md) — laptop notes\n- [Style](style.md) — house style\n');
    // The prose line has no place in the combined index: the whole source index is kept for the user.
    expect(plan.conflict).toEqual(['MEMORY.md']);
  });

  it('brings a source index over as it is where the target has memories but no index', () => {
    const source = files({ 'MEMORY.md': '- terse reviews\n' });
    const target = files({ 'laptop.md': '- reviews on the laptop\n' });
    const plan = planArea('agent:local:reviewer', source, target);
    expect(plan).toMatchObject({ add: ['MEMORY.md'], index: '- terse reviews\n', conflict: [] });
  });

  it('combines indexes without a conflict when every line of the source is in the result (headings aside)', () => {
    const source = files({ 'MEMORY.md': '# Memory\n- [A](a.md) — a\n- [B](b.md) — b\n', 'a.md': 'a\n', 'b.md': 'b\n' });
    const target = files({ 'MEMORY.md': '- [A](a.md) — a, said here\n', 'a.md': 'a\n' });
    const plan = planArea('private', source, target);
    expect(plan).toMatchObject({ add: ['b.md'], same: ['a.md'], conflict: [], index: '- [A](a.md) — a, said here\n- [B](b.md) — b\n' });
  });

  it('keeps the source index as a conflict when lines fall past the cut, and names them', () => {
    const full = Array.from({ length: 200 }, (_, i) => `- [M${i}](m${i}.md) — memory ${i}`).join('\n');
    const source = files({ 'MEMORY.md': '- [B](b.md) — b\n', 'b.md': 'b\n' });
    const target = files({ 'MEMORY.md': `${full}\n`, 'm0.md': 'x\n' });
    const plan = planArea('private', source, target);
    expect(plan).toMatchObject({ add: ['b.md'], index: null, notInIndex: ['b.md'], conflict: ['MEMORY.md'] });
  });
});
