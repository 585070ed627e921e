import fs from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CommentCut } from '../../shared/frontmatter.js';
import type YAML from 'yaml';
import { YAML_FAILS, type YamlFailure, readFrontmatterFast, scanFrontmatter } from './frontmatter-scanner.js';
import { describeYamlError, parseFrontmatterYaml, parseYamlWithRetry } from './frontmatter-yaml.js';
import { NO_FIXTURES, realFixturesRoot, realTopicFiles } from './test-support/real-fixtures.js';
import { locateFrontmatter } from './topic-file.js';

/** Headers where the scanner found a name or description cut by a comment (and the YAML path agreed). */
let cutHeaders = 0;
/** Failing headers whose first error the scanner named itself (and the YAML path agreed). */
let knownFailures = 0;

/**
 * The scanner's answer must be exactly the YAML path's (YAML, then Claude Code's quoting retry),
 * and when it says the YAML path fails, that path must throw; a decline is always allowed. Says
 * which way the YAML path got its answer.
 */
function agrees(source: string): 'answered' | 'answered-after-retry' | 'fails' | 'declined' {
  const cuts: CommentCut[] = [];
  const failed: { failure?: YamlFailure } = {};
  const fast = readFrontmatterFast(source, cuts, failed);
  if (fast === undefined || fast === YAML_FAILS) expect(cuts).toEqual([]);
  if (fast === undefined) return 'declined';
  if (fast === YAML_FAILS) {
    expect(() => parseYamlWithRetry(source), JSON.stringify(source)).toThrow();
    // Where and how: the library's first error is on the line the scanner names, with its code, so
    // the sentence a person reads is the same whichever of them found it.
    let thrown: unknown;
    try {
      parseYamlWithRetry(source);
    } catch (error) {
      thrown = error;
    }
    const first = thrown as YAML.YAMLParseError;
    if (failed.failure) {
      expect(failed.failure, JSON.stringify(source)).toStrictEqual({ line: first.linePos?.[0].line, code: first.code });
      knownFailures++;
    }
    let fastError: unknown;
    try {
      parseFrontmatterYaml(source);
    } catch (error) {
      fastError = error;
    }
    expect(describeYamlError(fastError, source, 1), JSON.stringify(source)).toBe(describeYamlError(thrown, source, 1));
    return 'fails';
  }
  expect(scanFrontmatter(source)).toStrictEqual(fast);
  let expected: { value: unknown; retried: boolean };
  try {
    expected = parseYamlWithRetry(source);
  } catch (error) {
    throw new Error(`the scanner answered ${JSON.stringify(fast)} where the YAML path fails for ${JSON.stringify(source)}`, { cause: error });
  }
  expect(fast, JSON.stringify(source)).toStrictEqual(expected.value);
  // The names and descriptions a comment cuts short: the scanner finds exactly the ones the YAML document shows.
  const slowCuts: CommentCut[] = [];
  parseYamlWithRetry(source, slowCuts);
  const byLine = (list: CommentCut[]) => [...list].sort((a, b) => a.line - b.line);
  expect(byLine(cuts), JSON.stringify(source)).toStrictEqual(byLine(slowCuts));
  if (cuts.length > 0) cutHeaders++;
  return expected.retried ? 'answered-after-retry' : 'answered';
}

describe('frontmatter scanner', () => {
  it('reads the shapes real memories have: #, colons, quotes, URLs, emoji, Chinese and Japanese, nested metadata', () => {
    const cases: [string, Record<string, unknown>][] = [
      ['name: No ORM\ndescription: We write SQL by hand\ntype: feedback', { name: 'No ORM', description: 'We write SQL by hand', type: 'feedback' }],
      [
        'name: x\nmetadata: \n  node_type: memory\n  type: project\n  originSessionId: 8c34-62ff',
        { name: 'x', metadata: { node_type: 'memory', type: 'project', originSessionId: '8c34-62ff' } },
      ],
      ['description: PRs #45-#61 added the AI assistant', { description: 'PRs' }], // ` #` opens a YAML comment
      ['description: issue#45 fixed', { description: 'issue#45 fixed' }],
      ['description: see PR #412 for the fix', { description: 'see PR' }],
      ['description: runbook at https://wiki.example.com/ops?env=prod#rollback', { description: 'runbook at https://wiki.example.com/ops?env=prod#rollback' }],
      ['description: "Don\'t claim \\"0 warnings\\" from an incremental build"', { description: 'Don\'t claim "0 warnings" from an incremental build' }],
      ["description: 'it''s fine'", { description: "it's fine" }],
      ['name: 用户角色\ndescription: 部署前先跑集成测试 🚀', { name: '用户角色', description: '部署前先跑集成测试 🚀' }],
      [
        'name: アレンができるかどうか\ndescription: 価格・仕様・プランを確認する',
        { name: 'アレンができるかどうか', description: '価格・仕様・プランを確認する' },
      ],
      ['description: 6.12 Direction pivot — from adaptive LR', { description: '6.12 Direction pivot — from adaptive LR' }],
      ['modified: 2026-03-05', { modified: '2026-03-05' }],
      ['\nname: x\n\ndescription: y\n', { name: 'x', description: 'y' }],
    ];
    for (const [source, expected] of cases) {
      expect(scanFrontmatter(source), source).toStrictEqual(expected);
      expect(agrees(source)).not.toBe('declined');
    }
  });

  it('reads "description: use case: foo" the way Claude Code does, through its quoting retry', () => {
    const source = 'name: x\ndescription: use case: foo\ntype: user';
    expect(scanFrontmatter(source)).toStrictEqual({ name: 'x', description: 'use case: foo', type: 'user' });
    expect(agrees(source)).toBe('answered-after-retry');
    // Once the retry applies it applies to every line: a comment is no longer a comment.
    const both = 'name: Deploy #3\ndescription: rollback: always';
    expect(scanFrontmatter(both)).toStrictEqual({ name: 'Deploy #3', description: 'rollback: always' });
    expect(agrees(both)).toBe('answered-after-retry');
    // A value starting with a backtick is a YAML error the retry repairs.
    expect(scanFrontmatter('description: `npm test` first')).toStrictEqual({ description: '`npm test` first' });
  });

  it('declines what it cannot be sure of, and the YAML path decides', () => {
    for (const source of [
      'a: 12',
      'a: true',
      'a: ~',
      'a: [1, 2]',
      'a: |\n  block',
      'a: b\na: c',
      'a: "x\n  y"',
      'a: x\n  continued',
      'a:\n  - x',
      'a: *alias',
      'a:\tb',
      'a: b\r',
      '- a',
      'a2: x: y',
      'name: "plan:" prefix',
      '# c\na: b',
      '',
    ]) {
      expect(scanFrontmatter(source), JSON.stringify(source)).toBeUndefined();
    }
  });

  it('leaves to YAML exactly the characters it is not sure of: tabs, CR, controls, line separators, BOM, U+FFFE/FFFF', () => {
    const unsure = (c: number) =>
      c === 0x09 ||
      c === 0x0d ||
      c <= 0x08 ||
      c === 0x0b ||
      c === 0x0c ||
      (c >= 0x0e && c <= 0x1f) ||
      (c >= 0x7f && c <= 0x9f) ||
      [0x2028, 0x2029, 0xfeff, 0xfffe, 0xffff].includes(c);
    const wrong: string[] = [];
    for (let c = 0; c <= 0xffff; c++) {
      if (c === 0x0a || (c >= 0xd800 && c <= 0xdfff)) continue;
      const declined = scanFrontmatter(`name: x${String.fromCharCode(c)}y`) === undefined;
      if (declined !== unsure(c)) wrong.push(`U+${c.toString(16)}`);
    }
    expect(wrong).toEqual([]);
  });

  it('names where and how YAML fails as the library does, or leaves the wording to it when not sure', () => {
    const known = (source: string) => {
      const failed: { failure?: YamlFailure } = {};
      expect(readFrontmatterFast(source, [], failed)).toBe(YAML_FAILS);
      expect(agrees(source)).toBe('fails');
      return failed.failure ?? null;
    };
    expect(known('\nname: "plan:" prefix means propose\ntype: feedback')).toEqual({ line: 2, code: 'UNEXPECTED_TOKEN' });
    expect(known("name: 'it''s' here")).toEqual({ line: 1, code: 'UNEXPECTED_TOKEN' });
    expect(known('k: "a" b\nname: "c" d')).toEqual({ line: 1, code: 'UNEXPECTED_TOKEN' });
    expect(known('k: a: b\nname: "c" d')).toEqual({ line: 1, code: 'BLOCK_AS_IMPLICIT_KEY' });
    // A quoted value with a colon after it may read as a key; the library reads a reserved character before the rest: it words those.
    expect(known('a: "": "\nname: ""')).toBeNull();
    expect(known('k: "a" b\nname: `x')).toBeNull();
  });

  it('property: on generated headers it answers exactly what the YAML path answers, or declines', () => {
    const word = fc.constantFrom(
      'deploy',
      'SQL',
      'the',
      'CI',
      'x',
      'Ünïcödé',
      '部署',
      'テスト',
      '🚀',
      '✅',
      '6.12',
      '2026-03-05',
      '12',
      'true',
      'null',
      '~',
      'yes',
      'http://a.b/c?d=e#f',
      'a-b',
      '_',
    );
    const common = fc.constantFrom(' ', ' ', ' ', ' #', '#', ': ', ':', '"', "'", '—', '\u3000', '\u00a0', '(', ')', '.', '/');
    const rare = fc.constantFrom(
      '  ',
      '\\',
      '`',
      '@',
      '%',
      ',',
      '[',
      ']',
      '{',
      '}',
      '!',
      '&',
      '*',
      '|',
      '>',
      '-',
      '?',
      '\t',
      '\\"',
      "''",
      '\r',
      '\u2028',
      '\ufeff',
      '\u0007',
    );
    const plain = fc
      .array(fc.oneof({ weight: 12, arbitrary: word }, { weight: 6, arbitrary: common }, { weight: 1, arbitrary: rare }), { minLength: 0, maxLength: 8 })
      .map((parts) => parts.join(''));
    const value = fc.oneof(
      { weight: 6, arbitrary: plain },
      { weight: 2, arbitrary: plain.map((v) => `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`) },
      { weight: 1, arbitrary: plain.map((v) => `"${v}"`) },
      { weight: 1, arbitrary: plain.map((v) => `'${v.replace(/'/g, "''")}'`) },
      { weight: 1, arbitrary: plain.map((v) => `'${v}'`) },
      { weight: 1, arbitrary: fc.oneof(fc.string({ maxLength: 12 }), fc.string({ unit: 'binary', maxLength: 6 })) },
    );
    const key = fc.oneof(
      { weight: 12, arbitrary: fc.constantFrom('name', 'description', 'type', 'originSessionId', 'node_type', 'modified', 'metadata', 'a-b', 'x_1') },
      { weight: 2, arbitrary: fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_-]{0,6}$/) },
      { weight: 1, arbitrary: fc.constantFrom('__proto__', 'a b', '"q"', '-x', '1a', 'k ') },
    );
    const indent = fc.constantFrom('  ', '  ', '  ', ' ', '    ', '\t');
    const line = fc.oneof(
      { weight: 8, arbitrary: fc.tuple(key, fc.constantFrom(' ', ' ', ' ', ' ', '  ', '', '\t'), value).map(([k, sep, v]) => `${k}:${sep}${v}`) },
      {
        weight: 2,
        arbitrary: fc
          .tuple(key, fc.constantFrom('', ' ', '  '), fc.array(fc.tuple(indent, key, value), { minLength: 1, maxLength: 4 }))
          .map(([k, trail, inner]) => `${k}:${trail}\n${inner.map(([i, k2, v]) => `${i}${k2}: ${v}`).join('\n')}`),
      },
      {
        weight: 1,
        arbitrary: fc.oneof(
          fc.tuple(indent, value).map(([i, v]) => `${i}${v}`),
          fc.constantFrom('', '  ', '# comment', '---', '...', '- item'),
        ),
      },
    );
    // Half the headers look like real ones (the keys memories use, realistic values), half are hostile.
    const realistic = fc
      .tuple(plain, plain, fc.constantFrom('user', 'feedback', 'project', 'reference'), fc.boolean(), plain)
      .map(([name, description, type, nested, extra]) =>
        nested
          ? `name: ${name}\ndescription: ${description}\nmetadata: \n  node_type: memory\n  type: ${type}\n  originSessionId: ${extra}`
          : `name: ${name}\ndescription: ${description}\ntype: ${type}\noriginSessionId: ${extra}`,
      );
    const hostile = fc.array(line, { minLength: 1, maxLength: 6 }).map((lines) => lines.join('\n'));
    let answered = 0;
    let retried = 0;
    let fails = 0;
    fc.assert(
      fc.property(fc.oneof(realistic, hostile), fc.boolean(), (header, leadingNewline) => {
        const source = `${leadingNewline ? '\n' : ''}${header}`;
        const how = agrees(source);
        if (how === 'answered' || how === 'answered-after-retry') answered++;
        if (how === 'answered-after-retry') retried++;
        if (how === 'fails') fails++;
      }),
      { numRuns: 10_000 },
    );
    // Not a vacuous pass: the scanner answers a good share, some of them through the retry, and knows some failures.
    // The headers are random: the bounds sit well below what a run gives (answered ~3,500, retried ~450–510, fails
    // 97–138, cut ~230–250, known failures 60–97 in four runs; a bound of 100 on fails failed one run in four).
    expect(answered).toBeGreaterThan(3_000);
    expect(retried).toBeGreaterThan(200);
    expect(fails).toBeGreaterThan(40);
    expect(cutHeaders).toBeGreaterThan(100);
    expect(knownFailures).toBeGreaterThan(20);
  });

  it.skipIf(realFixturesRoot() === null)(`answers nearly every header of the real memory directories, exactly (skipped when ${NO_FIXTURES})`, () => {
    const root = realFixturesRoot()!;
    let headers = 0;
    let answered = 0;
    const declined: string[] = [];
    const failing: string[] = [];
    for (const file of realTopicFiles(root)) {
      const text = fs.readFileSync(file, 'utf8');
      const span = locateFrontmatter(text, text.charCodeAt(0) === 0xfeff ? 1 : 0);
      if (span.fence !== 'closed') continue;
      headers++;
      const source = text.slice(span.yamlStart, span.yamlEnd).replace(/\r\n?/g, '\n');
      const how = agrees(source);
      if (how === 'answered' || how === 'answered-after-retry') answered++;
      else (how === 'fails' ? failing : declined).push(file.slice(root.length + 1));
    }
    expect(headers).toBeGreaterThan(250);
    // The one real header the YAML path itself cannot read (`name: "plan:" prefix …`) is known to fail, where and how the library says.
    expect(declined).toEqual([]);
    expect(failing).toEqual(['N3rdage__the-library/memory/feedback_plan_prefix.md']);
    expect(answered).toBe(headers - 1);
  });
});
