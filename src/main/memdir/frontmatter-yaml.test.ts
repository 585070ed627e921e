import { describe, expect, it } from 'vitest';
import { parseFrontmatterYaml } from './frontmatter-yaml.js';

describe("frontmatter YAML (the scanner first, then YAML with Claude Code's quoting retry)", () => {
  it('reads what the scanner leaves to YAML', () => {
    expect(parseFrontmatterYaml('a: "quoted"\nb: 12')).toEqual({ a: 'quoted', b: 12 });
    expect(parseFrontmatterYaml('tags: [a, b]\nenabled: true')).toEqual({ tags: ['a', 'b'], enabled: true });
  });

  it('reads "key: value: with colon" as Claude Code does, through its quoting retry', () => {
    expect(parseFrontmatterYaml('name: x\ndescription: use case: foo\ntype: user')).toEqual({ name: 'x', description: 'use case: foo', type: 'user' });
    expect(parseFrontmatterYaml('description: a: "b" \\ c\nglob: **/*.{ts,tsx}')).toEqual({ description: 'a: "b" \\ c', glob: '**/*.{ts,tsx}' });
    expect(parseFrontmatterYaml('name: [unclosed')).toEqual({ name: '[unclosed' });
    expect(parseFrontmatterYaml('name: x\r\ndescription: use case: foo\r\n')).toEqual({ name: 'x', description: 'use case: foo' });
    expect(() => parseFrontmatterYaml('name: "unterminated')).toThrow();
  });
});
