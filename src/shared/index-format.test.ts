import fc from 'fast-check';
import { micromark } from 'micromark';
import { describe, expect, it } from 'vitest';
import {
  addIndexEntry,
  encodeTarget,
  formatIndexEntry,
  indexEntries,
  indexLinks,
  parseIndex,
  removeIndexEntries,
  retargetIndexEntries,
  serializeIndex,
} from './index-format.js';

describe('parseIndex', () => {
  it('reads pointers in their common forms and keeps other lines verbatim', () => {
    const text = [
      '# Memory index',
      '',
      '- [User role](user_role.md) — senior backend engineer',
      '* [No ORM](./feedback_sql.md) - write SQL by hand',
      '+ [CI](project_ci.md): no Python 3.8',
      '- [Bare](reference_bare.md)',
      '- [Spaced](<reference with space.md>) — angle brackets',
      '- [Docs](https://example.com/docs) — external link, not a memory',
      'Some prose the user wrote.',
    ].join('\n');
    const index = parseIndex(text);
    expect(indexEntries(index).map((e) => [e.line, e.file, e.title, e.hook])).toEqual([
      [3, 'user_role.md', 'User role', 'senior backend engineer'],
      [4, 'feedback_sql.md', 'No ORM', 'write SQL by hand'],
      [5, 'project_ci.md', 'CI', 'no Python 3.8'],
      [6, 'reference_bare.md', 'Bare', ''],
      [7, 'reference with space.md', 'Spaced', 'angle brackets'],
    ]);
    expect(index.lines.filter((l) => l.kind === 'other')).toHaveLength(4);
    expect(serializeIndex(index)).toBe(text);
  });

  it('flags lines that try to be pointers but are not', () => {
    const index = parseIndex('- [Broken](feedback_x.md\n- feedback_y.md — no link\n- [Title] (spaced.md)\n');
    expect(index.lines.map((l) => l.kind)).toEqual(['malformed', 'malformed', 'malformed']);
  });

  it('reads links the way the agent follows them: anywhere on a line, never in backticks', () => {
    const index = parseIndex(
      [
        '- See [Deploy](project_deploy.md). Read before a release.',
        '- Owner profile: [owner-profile.md](owner-profile.md)',
        '- Rules live in `.claude/rules/patterns.md` and `editor/PLAN.md`.',
        '- Scrapped — the slope does not come from the jump (see [origin](trap_origin.md)).',
        '- [A](a.md) — see also [B](b.md)',
        '| [Table](table.md) | cell |',
        '- [[wikilink-style]] — a note',
        '- ![diagram](diagram.md)',
      ].join('\n'),
    );
    expect(indexLinks(index).map((l) => [l.line, l.file, l.primary])).toEqual([
      [1, 'project_deploy.md', true],
      [2, 'owner-profile.md', true],
      [4, 'trap_origin.md', false],
      [5, 'a.md', true],
      [5, 'b.md', false],
      [6, 'table.md', true],
    ]);
    // None of them tries to be the canonical pointer and fails.
    expect(index.lines.filter((l) => l.kind === 'malformed')).toEqual([]);
  });

  it('reads a pointer after any leading whitespace JavaScript knows, and never takes a non-bullet line for one', () => {
    const spaces = [' ', '\t', '\v', '\f', '\r', '\u00a0', '\u1680', '\u2000', '\u2003', '\u200a', '\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\ufeff'];
    for (const ws of spaces) {
      const [entry, malformed, heading, prose] = parseIndex(`${ws}- [T](f.md) — hook\n${ws}- x.md\n${ws}# [T](f.md)\n${ws}[T](f.md)\n`).lines;
      expect(entry, JSON.stringify(ws)).toMatchObject({ kind: 'entry', title: 'T', file: 'f.md', hook: 'hook' });
      expect(malformed?.kind, JSON.stringify(ws)).toBe('malformed');
      expect(heading?.kind).toBe('other');
      expect(prose?.kind).toBe('other');
    }
    expect(parseIndex('\u0085- [T](f.md)\n').lines[0]?.kind).toBe('other'); // NEL is not whitespace to JavaScript
    expect(parseIndex('- [a\\]b](f.md)\n').lines[0]).toMatchObject({ kind: 'entry', title: 'a]b' });
  });

  it('tolerates BOM and CRLF and writes them back', () => {
    const text = '\uFEFF- [A](a.md) — one\r\n- [B](b.md) — two\r\n';
    const index = parseIndex(text);
    expect(indexEntries(index).map((e) => e.file)).toEqual(['a.md', 'b.md']);
    expect(serializeIndex(index)).toBe(text);
    const added = serializeIndex(addIndexEntry(index, { title: 'C', file: 'c.md', hook: 'three' }));
    expect(added).toBe('\uFEFF- [A](a.md) — one\r\n- [B](b.md) — two\r\n- [C](c.md) — three\r\n');
  });

  it('reads Chinese titles and hooks', () => {
    const index = parseIndex('- [用户角色](user_role.md) — 高级后端工程师，偏好函数式编程\n');
    expect(indexEntries(index)[0]).toMatchObject({ title: '用户角色', file: 'user_role.md', hook: '高级后端工程师，偏好函数式编程' });
  });

  it('edits touch only the lines they concern', () => {
    const text = '# Index\n- [A](a.md) — one\n\nnote\n- [B](b.md) — two\n';
    let index = parseIndex(text);
    index = retargetIndexEntries(index, 'a.md', 'a2.md');
    index = removeIndexEntries(index, 'b.md');
    index = addIndexEntry(index, { title: 'C [x]', file: 'c.md', hook: 'multi\nline' });
    expect(serializeIndex(index)).toBe('# Index\n- [A](a2.md) — one\n\nnote\n- [C \\[x\\]](c.md) — multi line\n');
    expect(indexEntries(parseIndex(serializeIndex(index))).map((e) => e.title)).toEqual(['A', 'C [x]']);
  });

  it('removing a pointer leaves the lines above it as they were and renumbers only those below (a bulk delete of 1,000 from 3,000 was quadratic)', () => {
    const text = Array.from({ length: 3000 }, (_, i) => `- [M${i}](m${i}.md) — hook ${i}`).join('\n') + '\n';
    let index = parseIndex(text);
    const before = index.lines;
    index = removeIndexEntries(index, 'm2990.md');
    // The 2,990 lines above the removed one are the same objects (not copied); the 9 below are renumbered.
    expect(index.lines.slice(0, 2990).every((l, i) => l === before[i])).toBe(true);
    expect(index.lines.map((l) => l.line)).toEqual(Array.from({ length: 2999 }, (_, i) => i + 1));
    // Nothing to remove: the index itself, unchanged.
    expect(removeIndexEntries(index, 'absent.md')).toBe(index);
    index = removeIndexEntries(index, 'm5.md', new Set([6]));
    expect(index.lines).toHaveLength(2998);
    expect(serializeIndex(index)).toBe(
      text
        .split('\n')
        .filter((l) => l !== '- [M5](m5.md) — hook 5' && l !== '- [M2990](m2990.md) — hook 2990')
        .join('\n'),
    );
  });

  it('a rename changes only the link target of the line, as the user wrote it (./, the dash, the words around it)', () => {
    const text = '- [Git Push 规则](./git-push-rule.md) - 代码推送规范\n* [Spaced](<old name.md>): kept\n- [old.md](old.md)\n';
    let index = retargetIndexEntries(parseIndex(text), 'git-push-rule.md', 'feedback-git-push.md');
    index = retargetIndexEntries(index, 'old name.md', 'new name.md');
    index = retargetIndexEntries(index, 'old.md', 'sub/new.md');
    // A title that was the file's name follows it.
    expect(serializeIndex(index)).toBe(
      '- [Git Push 规则](./feedback-git-push.md) - 代码推送规范\n* [Spaced](<new name.md>): kept\n- [sub/new.md](sub/new.md)\n',
    );
    // A name a bare link cannot hold is written in the canonical form.
    expect(serializeIndex(retargetIndexEntries(parseIndex('- [A](a.md) — one\n'), 'a.md', 'a (2).md'))).toBe('- [A](<a (2).md>) — one\n');
  });

  it('property: any text survives parse → serialise byte for byte', () => {
    const line = fc.oneof(
      fc.string({ maxLength: 60 }),
      fc
        .tuple(fc.string({ maxLength: 20 }), fc.stringMatching(/^[a-z_]{1,12}\.md$/), fc.string({ maxLength: 30 }))
        .map(([t, f, h]) => `- [${t.replace(/[\]\\\n\r]/g, '')}](${f}) — ${h.replace(/[\n\r]/g, '')}`),
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 30 }), fc.constantFrom('\n', '\r\n'), fc.boolean(), fc.boolean(), (lines, eol, bom, final) => {
        const body = lines.map((l) => l.replace(/[\r\n]/g, ' ')).join(eol) + (final && lines.length ? eol : '');
        const text = (bom ? '\uFEFF' : '') + body;
        expect(serializeIndex(parseIndex(text))).toBe(text);
      }),
    );
  });

  it('property: a formatted entry parses back to the same title, file and hook', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 40 }).filter((s) => s.trim() !== '' && !/[\r\n]/.test(s)),
        fc.stringMatching(/^[a-zA-Z0-9_ -]{1,20}\.md$/),
        fc.string({ maxLength: 40 }).filter((s) => !/[\r\n]/.test(s)),
        (title, file, hook) => {
          const entries = indexEntries(parseIndex(formatIndexEntry({ title, file, hook })));
          expect(entries).toHaveLength(1);
          expect(entries[0]).toMatchObject({ title, file: file, hook: hook.trim() });
        },
      ),
    );
  });
});

// A CommonMark reader, as a Markdown preview reads MEMORY.md: micromark, the parser under the app's react-markdown.
const commonMark = (text: string) => micromark(text);

describe('formatIndexEntry: the pointer line Memdir writes keeps the index rules (s30-explore 7)', () => {
  it('cuts a long description to one hook of at most 150 characters, at a word, with an ellipsis', () => {
    const line = formatIndexEntry({ title: 'Long', file: 'longdesc.md', hook: 'word '.repeat(2000) });
    expect(line).toBe(`- [Long](longdesc.md) — ${Array.from({ length: 29 }, () => 'word').join(' ')}\u2026`);
    expect(indexEntries(parseIndex(line))[0]!.hook.length).toBeLessThanOrEqual(150);
    // A hook of 150 characters is written whole; a Chinese one is cut by UTF-16 units, never inside a character.
    const whole = 'x'.repeat(150);
    expect(formatIndexEntry({ title: 'T', file: 't.md', hook: whole })).toBe(`- [T](t.md) — ${whole}`);
    expect(formatIndexEntry({ title: 'T', file: 't.md', hook: '😀'.repeat(100) })).toBe(`- [T](t.md) — ${'😀'.repeat(74)}\u2026`);
  });

  it('writes no control, bidi or invisible character (what Claude Code removes at load): tabs and line breaks become spaces', () => {
    expect(formatIndexEntry({ title: 'Ct\u0007rl\u202e', file: 'ctrl.md', hook: 'tab\there\u0007bell \u202eevil\u200b\r\nnext\u001b[31m' })).toBe(
      '- [Ctrl](ctrl.md) — tab herebell evil next[31m',
    );
    // Joiners that are part of writing stay (an emoji sequence).
    expect(formatIndexEntry({ title: 'Dev', file: 'dev.md', hook: '👩\u200d💻 at work' })).toBe('- [Dev](dev.md) — 👩\u200d💻 at work');
  });

  it('escapes both brackets of a title: Memdir and a CommonMark reader read back the same title', () => {
    for (const [title, file, line] of [
      ['Br]ack[et', 'brk.md', '- [Br\\]ack\\[et](brk.md)'],
      ['br[ack]et', 'br[ack]et.md', '- [br\\[ack\\]et](br[ack]et.md)'],
      ['back\\slash [x]', 'b.md', '- [back\\\\slash \\[x\\]](b.md)'],
    ] as const) {
      expect(formatIndexEntry({ title, file })).toBe(line);
      expect(indexEntries(parseIndex(line))).toMatchObject([{ title, file }]);
      expect(commonMark(line)).toBe(`<ul>\n<li><a href="${encodeURI(file)}">${title}</a></li>\n</ul>`);
    }
  });
});

describe('encodeTarget: one encoding rule, used both ways (issue 15)', () => {
  it('property: the pointer Memdir writes for any file name reads back as that file name', () => {
    // Any single path segment a file system could hold (not empty, ".", ".." or with "/").
    const segment = fc
      .string({ unit: 'grapheme-composite', minLength: 1, maxLength: 40 })
      .filter((s) => !s.includes('/') && s !== '.' && s !== '..' && !s.includes('\0'));
    fc.assert(
      fc.property(segment, fc.option(segment, { nil: undefined }), (name, folder) => {
        const file = folder ? `${folder}/${name}` : name;
        const entries = indexEntries(parseIndex(formatIndexEntry({ title: 'T', file, hook: 'h' })));
        expect(entries.map((e) => e.file)).toEqual([file]);
      }),
      { numRuns: 500 },
    );
  });

  it('writes names with %, #, ?, :, spaces and parentheses so they survive', () => {
    expect(encodeTarget('a%41b.md')).toBe('a%2541b.md');
    expect(encodeTarget('x#y.md')).toBe('x%23y.md');
    expect(encodeTarget('c:why?.md')).toBe('c%3Awhy%3F.md');
    expect(encodeTarget('notes (old).md')).toBe('<notes (old).md>');
    expect(encodeTarget('feedback_sql.md')).toBe('feedback_sql.md');
  });
});

describe('a link target with a raw space, as the agent reads it (review x1 F9)', () => {
  it('reads `[T](my notes.md)` as a pointer to my notes.md, and as a link inside a sentence too', () => {
    const index = parseIndex('- [My notes](my notes.md) — notes\n- See [Old plan](old plan.md "the old one") first.\n- [Docs](docs page)\n');
    expect(index.lines[0]).toMatchObject({ kind: 'entry', file: 'my notes.md', title: 'My notes', hook: 'notes' });
    expect(indexLinks(index).map((l) => l.file)).toEqual(['my notes.md', 'old plan.md']);
    // Not a .md target: not a memory link, as before.
    expect(index.lines[2]!.kind).not.toBe('entry');
  });
});
