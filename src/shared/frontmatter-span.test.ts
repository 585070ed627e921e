import { describe, expect, it } from 'vitest';
import { placeOfLine } from './frontmatter-span.js';

describe('placeOfLine: a line of a topic file in the terms the editor shows', () => {
  const file = '---\nname: Deploy\ndescription: >-\n  two lines\n  of text\ntype: project\n---\n\nFirst.\nSecond.\n';
  it('names the body line, and keeps the file line', () => {
    expect(placeOfLine(file, 10)).toBe('at line 3 of its body (line 10 of the file)');
    expect(placeOfLine(file.replace(/\n/g, '\r\n'), 9)).toBe('at line 2 of its body (line 9 of the file)');
    expect(placeOfLine(`\uFEFF${file}`, 8)).toBe('at line 1 of its body (line 8 of the file)');
  });
  it('names the field a frontmatter line belongs to, a value over several lines included', () => {
    expect(placeOfLine(file, 2)).toBe('in its name field (line 2 of the file)');
    expect(placeOfLine(file, 5)).toBe('in its description field (line 5 of the file)');
  });
  it('says only the line for a file without frontmatter (MEMORY.md)', () => {
    expect(placeOfLine('- [A](a.md) — a\n- [B](b.md) — b\n', 2)).toBe('at line 2');
  });
});
