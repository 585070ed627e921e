import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { frontmatterProblem, locateFrontmatter, parseTopicFile, serializeTopicFile } from './topic-file.js';

describe('parseTopicFile (R-TOPIC)', () => {
  it('reads flat frontmatter', () => {
    const t = parseTopicFile(
      '---\nname: No ORM\ndescription: Write SQL by hand\ntype: feedback\noriginSessionId: s1\n---\n\nWe never use an ORM.\n',
      'feedback_sql.md',
    );
    expect(t.meta).toMatchObject({ name: 'No ORM', description: 'Write SQL by hand', type: 'feedback', originSessionId: 's1', layout: 'flat' });
    expect(t.issues).toEqual([]);
    expect(t.body).toBe('\nWe never use an ORM.\n');
  });

  it('reads the nested metadata: variant', () => {
    const t = parseTopicFile(
      '---\nname: CI\ndescription: CI has no Python 3.8\nmetadata:\n  type: project\n  originSessionId: abc\n  modified: 2026-03-01\n---\nbody',
      'project_ci.md',
    );
    expect(t.meta).toMatchObject({ type: 'project', originSessionId: 'abc', modified: '2026-03-01', layout: 'nested' });
    expect(t.issues).toEqual([]);
  });

  it('tolerates a BOM and CRLF line endings', () => {
    const t = parseTopicFile('\uFEFF---\r\nname: 用户角色\r\ndescription: 高级后端工程师\r\ntype: user\r\n---\r\n正文\r\n', 'user_role.md');
    expect(t.meta).toMatchObject({ name: '用户角色', description: '高级后端工程师', type: 'user' });
    expect(t.issues).toEqual([]);
  });

  it('explains what is wrong instead of throwing', () => {
    const cases: [string, string, RegExp][] = [
      ['just text', 'bad-frontmatter', /no frontmatter/],
      ['', 'bad-frontmatter', /no frontmatter/],
      ['---\nname: "unclosed\n---\n', 'bad-frontmatter', /not valid YAML/],
      ['---\nname: x\n', 'bad-frontmatter', /never closes/],
      ['---\n- a\n- b\n---\n', 'bad-frontmatter', /not a list of key: value/],
      ['---\nname: x\ndescription: y\ntype: opinion\n---\n', 'invalid-type', /"opinion", which is not one of/],
      ['---\nname: x\ndescription: y\n---\n', 'invalid-type', /has no type/],
      ['---\nname: x\ntype: user\n---\n', 'bad-frontmatter', /has no description/],
    ];
    for (const [text, code, message] of cases) {
      const t = parseTopicFile(text, 'm.md');
      expect(
        t.issues.map((i) => i.code),
        text,
      ).toContain(code);
      expect(t.issues.map((i) => i.message).join(' '), text).toMatch(message);
    }
  });

  it('reads no description under metadata:, as Claude Code 2.1.332 reads none there, and says where it is (recall-modified-2.1.332.json)', () => {
    const t = parseTopicFile('---\nname: nested-desc\nmetadata:\n  type: reference\n  description: only under metadata\n---\nBody.\n', 'nested-desc.md');
    expect(t.meta).toMatchObject({ description: '', type: 'reference', layout: 'nested' });
    expect(t.issues).toEqual([
      {
        code: 'bad-frontmatter',
        message:
          'nested-desc.md keeps its description under metadata:, where Claude Code does not read it, so recall never sees it. Move the description to the top of the frontmatter, beside name.',
      },
    ]);
    // The top-level description is the one read, whatever metadata: holds.
    expect(parseTopicFile('---\nname: n\ndescription: top\nmetadata:\n  type: user\n  description: nested\n---\n', 'n.md').meta.description).toBe('top');
  });

  it('saving a memory whose description is only under metadata: adds no empty one at the top (a type change, a save leaving the field empty)', () => {
    const before = '---\nname: nested-desc\nmetadata:\n  type: reference\n  description: only under metadata\n---\nBody.\n';
    const after = serializeTopicFile({ name: 'nested-desc', description: '', type: 'project' }, 'Body.\n', before);
    expect(after).toBe('---\nname: nested-desc\nmetadata:\n  type: project\n  description: only under metadata\n---\nBody.\n');
    // Written by the person: it goes to the top, where Claude Code reads it.
    const moved = serializeTopicFile({ name: 'nested-desc', description: 'now at the top', type: 'reference' }, 'Body.\n', before);
    expect(parseTopicFile(moved, 'nested-desc.md').meta.description).toBe('now at the top');
    // A memory with no description anywhere still gets the empty field it always got.
    expect(serializeTopicFile({ name: 'n', description: '', type: 'user' }, 'x\n', '---\nname: n\ntype: user\n---\nx\n')).toContain('description:');
  });

  it('reads no type from a file-name prefix when there is no frontmatter, as Claude Code reads none', () => {
    expect(parseTopicFile('plain notes', 'feedback_testing.md').meta.type).toBeNull();
  });
});

describe('locateFrontmatter', () => {
  it('property: a block is closed exactly when the fence pattern says so (a `---` line, spaces or tabs after it)', () => {
    const CLOSED = /^---[ \t]*\r?\n(?:[\s\S]*?\r?\n)?---[ \t]*(?:\r?\n|$)/;
    const piece = fc.constantFrom('---', '--- ', '---\t', '----', '---x', ' ---', '\n', '\r\n', '\r', ' ', '\t', 'name: x', '-', '--', 'x');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 10 }), (pieces) => {
        const text = pieces.join('');
        const fence = locateFrontmatter(text, 0).fence;
        expect(fence === 'closed', JSON.stringify(text)).toBe(CLOSED.test(text));
        expect(fence === 'none', JSON.stringify(text)).toBe(!/^---[ \t]*\r?\n/.test(text));
      }),
      { numRuns: 20_000 },
    );
  });
});

describe('serializeTopicFile', () => {
  it('writes a new file as Claude Code writes a memory: the type under metadata: after node_type, a blank line before the body', () => {
    const text = serializeTopicFile({ name: 'No ORM', description: 'Write SQL: by hand', type: 'feedback' }, 'Body\n');
    expect(text).toBe('---\nname: No ORM\ndescription: "Write SQL: by hand"\nmetadata:\n  node_type: memory\n  type: feedback\n---\n\nBody\n');
    expect(parseTopicFile(text, 'f.md').meta).toMatchObject({ name: 'No ORM', description: 'Write SQL: by hand', type: 'feedback' });
  });

  it('keeps unknown keys, their order, comments, the nested layout, BOM and CRLF on round trip', () => {
    const before =
      '\uFEFF---\r\n# kept comment\r\nname: Old\r\ncustom: [1, 2]\r\ndescription: old desc\r\nmetadata:\r\n  type: project\r\n  owner: alice\r\n---\r\nold body\r\n';
    const after = serializeTopicFile({ name: 'New', description: 'new desc', type: 'reference' }, 'new body\n', before);
    expect(after).toBe(
      '\uFEFF---\r\n# kept comment\r\nname: New\r\ncustom: [1, 2]\r\ndescription: new desc\r\nmetadata:\r\n  type: reference\r\n  owner: alice\r\n---\r\nnew body\r\n',
    );
    const parsed = parseTopicFile(after, 'x.md');
    expect(parsed.meta).toMatchObject({ name: 'New', type: 'reference', layout: 'nested' });
    expect(parsed.data).toMatchObject({ custom: [1, 2], metadata: { owner: 'alice' } });
  });

  it('keeps the frontmatter byte for byte when only the body changed: flow lists, quoting, folded text, comments, key order', () => {
    const before =
      "---\nname: 'No ORM: ever'\ndescription: >-\n  Write SQL by hand,\n  never an ORM\ntype: feedback   # why: the 2024 outage\ntags: [db, sql]\noriginSessionId: c28bc67a-0fd6-454b-9bc9-23644d064f78\n---\nold body\n";
    const fields = { name: 'No ORM: ever', description: 'Write SQL by hand, never an ORM', type: 'feedback' } as const;
    expect(parseTopicFile(before, 'f.md').meta).toMatchObject(fields);
    const after = serializeTopicFile(fields, 'new body\n', before);
    expect(after).toBe(before.replace('old body', 'new body'));
  });

  it('changes only what changed: a new type leaves the other values as they were written', () => {
    const before = "---\nname: 'No ORM: ever'\ndescription: >-\n  Write SQL by hand,\n  never an ORM\ntype: feedback\ntags: [db, sql]\n---\nbody\n";
    const after = serializeTopicFile({ name: 'No ORM: ever', description: 'Write SQL by hand, never an ORM', type: 'project' }, 'body\n', before);
    expect(after).toBe(before.replace('type: feedback', 'type: project'));
  });

  it('a changed value keeps its quoting where YAML allows it, and takes quotes where it needs them', () => {
    const before = "---\nname: 'Old'\ndescription: plain words\ntype: user\n---\nbody\n";
    const after = serializeTopicFile({ name: 'New: with colon', description: 'Write SQL: by hand # not a comment', type: 'user' }, 'body\n', before);
    expect(after).toBe('---\nname: \'New: with colon\'\ndescription: "Write SQL: by hand # not a comment"\ntype: user\n---\nbody\n');
    expect(parseTopicFile(after, 'f.md').meta).toMatchObject({ name: 'New: with colon', description: 'Write SQL: by hand # not a comment' });
  });

  it('adds a missing field at the end, and under metadata: through the document, keeping the rest', () => {
    const flat = serializeTopicFile(
      { name: 'A', description: 'b', type: 'user', originSessionId: 'c28bc67a-0fd6-454b-9bc9-23644d064f78' },
      'x\n',
      '---\nname: A\ndescription: b\ntype: user # mine\n---\nx\n',
    );
    expect(flat).toBe('---\nname: A\ndescription: b\ntype: user # mine\noriginSessionId: c28bc67a-0fd6-454b-9bc9-23644d064f78\n---\nx\n');
    const nested = serializeTopicFile(
      { name: 'A', description: 'b', type: 'user', modified: '2026-12-05' },
      'x\n',
      '---\nname: A\ndescription: b\nmetadata:\n  type: user\n---\nx\n',
    );
    expect(parseTopicFile(nested, 'f.md').data).toEqual({ name: 'A', description: 'b', metadata: { type: 'user', modified: '2026-12-05' } });
  });

  it('fills a field written empty (name:) and reads back what was asked', () => {
    const after = serializeTopicFile({ name: 'Filled', description: 'b', type: 'user' }, 'x\n', '---\nname:\ndescription: b\ntype: user\n---\nx\n');
    expect(after).toBe('---\nname: Filled\ndescription: b\ntype: user\n---\nx\n');
    expect(parseTopicFile(after, 'f.md').meta).toMatchObject({ name: 'Filled', description: 'b', type: 'user' });
    expect(parseTopicFile(after, 'f.md').issues).toEqual([]);
  });

  it('replaces unreadable frontmatter with a clean one rather than failing', () => {
    const after = serializeTopicFile({ name: 'A', description: 'b', type: 'user' }, 'x', '---\nname: [broken\n---\nold');
    expect(parseTopicFile(after, 'a.md').issues).toEqual([]);
  });
});

describe('a name or description cut short by a YAML comment (R-TOPIC, R-RECALL-SELECT)', () => {
  const cutOf = (text: string) => parseTopicFile(text, 'retro.md').issues.filter((i) => i.code === 'cut-by-comment');

  it('says what Claude Code reads, what was written, and on which line of the file', () => {
    const text = '---\nname: Retro — AI integration\ndescription: PRs #45-#61 introduced the AI assistant\ntype: project\n---\nbody\n';
    const t = parseTopicFile(text, 'retro.md');
    // YAML (and Claude Code's recall manifest) reads everything from ` #` on as a comment.
    expect(t.meta.description).toBe('PRs');
    expect(cutOf(text)).toEqual([
      {
        code: 'cut-by-comment',
        line: 3,
        message:
          'retro.md: the description stops at " #", because YAML reads the rest of the line as a comment: Claude Code reads "PRs", not "PRs #45-#61 introduced the AI assistant". Quote the value to keep all of it.',
      },
    ]);
  });

  it('finds it on the YAML path too (a header the fast reader leaves to the library), nested under metadata:, and in a name', () => {
    // A tab in a value sends the header to the YAML library.
    const slow = '---\nname: Tabs\there\ndescription: PR #50 — the architecture doc\ntype: project\n---\n';
    expect(cutOf(slow).map((i) => [i.line, i.message.match(/reads "([^"]*)"/)?.[1]])).toEqual([[3, 'PR']]);
    const nested = '---\nname: Issue #12 fix\nmetadata:\n  description: see #12\n  type: project\n---\n';
    // A description under metadata: is one Claude Code never reads (recall-modified-2.1.332.json): no cut to tell of there.
    expect(cutOf(nested).map((i) => [i.line, i.message.match(/the (\w+) stops/)?.[1], i.message.match(/reads "([^"]*)"/)?.[1]])).toEqual([
      [2, 'name', 'Issue'],
    ]);
  });

  it('stays quiet where nothing is cut: a quoted value, a comment after a quoted value, a # not after a space, a type with a comment, a header Claude Code quotes on retry', () => {
    for (const text of [
      '---\nname: x\ndescription: "PR #50 merged"\ntype: project\n---\n',
      "---\nname: x\ndescription: 'PR #50 merged' # a note\ntype: project\n---\n",
      '---\nname: x\ndescription: PR#50 and (#51) merged\ntype: project\n---\n',
      '---\nname: x\ndescription: PR 50 merged\ntype: project # decided in March\n---\n',
      // `Shipped: ` makes the line invalid YAML; Claude Code's retry quotes it, # and all, and reads the whole text.
      '---\nname: x\ndescription: Shipped: tokens, closed TODO #37 at last\ntype: project\n---\n',
    ]) {
      expect(cutOf(text), text).toEqual([]);
    }
  });
});

describe('frontmatter that is not YAML: one sentence, on the line of the file, alike in Health and in the editor', () => {
  it("the-library's feedback_plan_prefix.md: a quoted word, then more text", () => {
    const text = '---\nname: "plan:" prefix means propose, don\'t execute\ndescription: x\ntype: feedback\n---\nbody\n';
    const t = parseTopicFile(text, 'feedback_plan_prefix.md');
    const why = 'line 2: the value of "name" goes on after its closing quote; put the whole value in quotes';
    expect(t.issues.map((i) => i.message)).toEqual([`feedback_plan_prefix.md has frontmatter that is not valid YAML, ${why}.`]);
    // The editor refuses to save the same block, naming the same line of the file in the same words.
    expect(frontmatterProblem(t.frontmatter!)).toBe(`The frontmatter is still not valid YAML, ${why}. Fix it, or rebuild it from the fields.`);
  });

  it("never passes on the parser's own words, and names the file's line", () => {
    const cases: [string, number, RegExp][] = [
      ['---\nname: x\ndescription: "never closed\ntype: user\n---\n', 3, /the quote that opens the value of "description" is never closed/],
      ['---\nname: x\ndescription: y\n  type: user\n---\n', 3, /line 3: /],
      ["---\nname: x\ndescription: 'it's'\ntype: user\n---\n", 3, /the value of "description" goes on after its closing quote/],
      ['\uFEFF---\r\nname: x\r\ndescription: "a" b\r\ntype: user\r\n---\r\n', 3, /the value of "description" goes on after its closing quote/],
      ['---\nname: [a, b\ndescription: "x" y\ntype: user\n---\n', 2, /the \[ that opens the value of "name" is never closed/],
      ['---\nname: x\n\tdescription: y\n---\n', 3, /a tab indents the line/],
    ];
    for (const [text, line, what] of cases) {
      const message = parseTopicFile(text, 'm.md').issues[0]!.message;
      expect(message, text).toMatch(/^m\.md has frontmatter that is not valid YAML, line \d+: [^()]+\.$/);
      expect(message, text).toContain(`line ${line}: `);
      expect(message, text).toMatch(what);
      expect(message, text).not.toMatch(/column|Unexpected|node end|implicit|:\)/i);
      const repaired = parseTopicFile(text, 'm.md').frontmatter!;
      expect(frontmatterProblem(repaired), text).toContain(`line ${line}: `);
    }
  });
});
