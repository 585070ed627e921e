import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseFrontmatterYaml, parseSimpleFrontmatter, parseWithRetry } from './frontmatter-yaml.js';

describe('frontmatter YAML fast path', () => {
  it('reads the usual flat and nested layouts without the YAML library', () => {
    expect(parseSimpleFrontmatter('name: No ORM\ndescription: We write SQL by hand, never an ORM\ntype: feedback')).toEqual({
      name: 'No ORM',
      description: 'We write SQL by hand, never an ORM',
      type: 'feedback',
    });
    expect(parseSimpleFrontmatter('name: x\nmetadata:\n  type: project\n  originSessionId: abc-123')).toEqual({
      name: 'x',
      metadata: { type: 'project', originSessionId: 'abc-123' },
    });
    expect(parseSimpleFrontmatter('name: 用户角色\ndescription: 高级后端工程师')).toEqual({ name: '用户角色', description: '高级后端工程师' });
  });

  it('hands anything it is not sure about to the YAML library', () => {
    for (const source of ['a: "quoted"', 'a: 12', 'a: true', 'a2: x: y', 'a: [1, 2]', '# comment\na: b', 'a: |\n  block', 'a: b #c', 'a: b\na: c', 'a: 2026-03-05']) {
      expect(parseSimpleFrontmatter(source), source).toBeUndefined();
    }
    expect(parseFrontmatterYaml('a: "quoted"\nb: 12')).toEqual({ a: 'quoted', b: 12 });
  });

  it('reads "key: value: with colon" as Claude Code does, through its quoting retry', () => {
    expect(parseFrontmatterYaml('name: x\ndescription: use case: foo\ntype: user')).toEqual({ name: 'x', description: 'use case: foo', type: 'user' });
    expect(parseFrontmatterYaml('description: a: "b" \\ c\nglob: **/*.{ts,tsx}')).toEqual({ description: 'a: "b" \\ c', glob: '**/*.{ts,tsx}' });
    expect(parseFrontmatterYaml('name: [unclosed')).toEqual({ name: '[unclosed' });
    expect(() => parseFrontmatterYaml('name: "unterminated')).toThrow();
  });

  it('property: whenever the fast path answers, it answers exactly what the slow path does', () => {
    const scalar = fc.oneof(fc.string({ maxLength: 30 }), fc.string({ unit: 'binary', maxLength: 12 }));
    const key = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_-]{0,10}$/);
    const line = fc.oneof(
      fc.tuple(key, scalar).map(([k, v]) => `${k}: ${v}`),
      fc.tuple(key, key, scalar).map(([k, k2, v]) => `${k}:\n  ${k2}: ${v}`),
      fc.tuple(key).map(([k]) => `${k}:`),
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 6 }), (lines) => {
        const source = lines.join('\n');
        const fast = parseSimpleFrontmatter(source);
        if (fast === undefined) return;
        let expected: unknown;
        try {
          expected = parseWithRetry(source);
        } catch {
          throw new Error(`fast path accepted what YAML rejects: ${JSON.stringify(source)}`);
        }
        expect(fast).toEqual(expected ?? {});
      }),
      { numRuns: 3000 },
    );
  });
});
