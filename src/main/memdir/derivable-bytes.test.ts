import fs from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countDerivable, detectDerivable, derivableHints } from '../../shared/not-worth-saving.js';
import { countDerivableBytes, whitespaceAt } from './derivable-bytes.js';
import { NO_FIXTURES, realFixturesRoot, realTopicFiles } from './test-support/real-fixtures.js';

function fromBytes(text: string, prefix = ''): ReturnType<typeof countDerivable> {
  const bytes = Buffer.from(prefix + text, 'utf8');
  const from = Buffer.byteLength(prefix);
  return countDerivableBytes(bytes.toString('latin1'), bytes, from, bytes.length);
}

describe('R-NOTSAVE counts from bytes', () => {
  it('knows every character JavaScript calls whitespace, and no other', () => {
    const wrong: string[] = [];
    for (let c = 0; c <= 0xffff; c++) {
      if (c >= 0xd800 && c <= 0xdfff) continue;
      const ch = String.fromCharCode(c);
      const bytes = Buffer.from(`${ch}x`, 'utf8');
      const expected = /\s/.test(ch) && ch !== '\n' ? Buffer.byteLength(ch) : 0;
      if (whitespaceAt(bytes.toString('latin1'), 0) !== expected) wrong.push(`U+${c.toString(16)}`);
    }
    expect(wrong).toEqual([]);
  });

  it('gives the hints a memory of code, paths or git log gets', () => {
    const code = 'Notes\n```ts\nconst a = 1;\nconst b = 2;\nconst c = 3;\nconst d = 4;\nconst e = 5;\n```\n';
    const paths = '- src/main/app.ts\n- src/main/memdir/scan-dir.ts\n- `./docs/README.md:12` — the entry\n';
    const git = 'a1b2c3d Fix the cut\n9f8e7d6 Add the scanner\ncommit 0123456789abcdef0123456789abcdef01234567\n';
    for (const body of [code, paths, git, `\uFEFF${code}`, code.replace(/\n/g, '\r\n'), '部署前先跑集成测试\n']) {
      expect(derivableHints(fromBytes(body))).toEqual(detectDerivable(body));
    }
    expect(derivableHints(fromBytes(code)).map((h) => h.kind)).toEqual(['code']);
    expect(derivableHints(fromBytes(paths)).map((h) => h.kind)).toEqual(['file-paths']);
    expect(derivableHints(fromBytes(git)).map((h) => h.kind)).toEqual(['git-log']);
  });

  it('weighs "mostly code" by characters, as the text path does: long prose around a short snippet is not', () => {
    const prose = `${'部署前先跑集成测试，因为预发布环境的数据库迁移曾经在周五晚上失败过两次。'.repeat(3)}\n`;
    const snippet = '```sh\nnpm ci\nnpm test\nnpm run e2e\nnpm run build\nnpm run deploy\n```\n';
    for (const body of [prose + snippet + prose, snippet, `${snippet}\r\n${prose}`.replace(/\n/g, '\r\n')]) {
      expect(fromBytes(body), body).toEqual(countDerivable(body));
      expect(derivableHints(fromBytes(body))).toEqual(detectDerivable(body));
    }
    expect(derivableHints(fromBytes(prose + snippet + prose))).toEqual([]);
    expect(derivableHints(fromBytes(snippet)).map((h) => h.kind)).toEqual(['code']);
  });

  it('counts a body longer than its line buffer as the decoded text does (thousands of code lines, then prose)', () => {
    // The first buffer holds 2,048 lines: these bodies make it grow, once and then again.
    const code = Array.from({ length: 5_000 }, (_, i) => `  const 值${i} = "a: b # c"; // https://example.com/${i}`).join('\r\n');
    const body = `Notes\n\`\`\`ts\n${code}\n\`\`\`\n${'部署前先跑集成测试。\n'.repeat(3_000)}`;
    expect(fromBytes(body)).toEqual(countDerivable(body));
    expect(fromBytes(body).content).toBeGreaterThan(8_000);
  });

  it('property: on generated bodies the counts equal those of the decoded text', () => {
    const ws = fc.constantFrom('', ' ', '  ', '\t', '\u3000', '\u00a0', '\u2003', '\ufeff', '\u2028', '\u0085', '\v');
    const word = fc.constantFrom(
      'deploy',
      'Fix',
      'the',
      'cache',
      '部署',
      'テスト',
      '🚀',
      'é',
      'a1b2c3d',
      'deadbeef',
      'abcdef0',
      '0123456789abcdef0123456789abcdef01234567',
      'commit',
      'Author:',
      'Date:',
      'Mon',
      'Jan',
      '<a@b.c>',
      '—',
      '-',
      ':',
      '(',
      '12',
      '.',
      '`',
    );
    const path = fc.constantFrom(
      '\\frac{a}{b}',
      '\\x/y.md',
      '`\\x/y.md',
      'src/a.ts',
      './docs/x.md',
      '~/x/y.json',
      'C:\\x\\y.cs',
      'a/b/c.tsx:12',
      'src\\x.md',
      '/etc/hosts.conf',
      'a/b',
      'x/部署.md',
      'no-slash.md',
    );
    const bullet = fc.constantFrom('', '- ', '* ', '+ ', '1. ', '12.', '-', '`');
    const lineText = fc.oneof(
      {
        weight: 3,
        arbitrary: fc
          .array(
            fc.oneof(
              word,
              ws.map((w) => w || ' '),
            ),
            { maxLength: 8 },
          )
          .map((p) => p.join('')),
      },
      {
        weight: 2,
        arbitrary: fc
          .tuple(ws, bullet, path, fc.constantFrom('', ' — note', ': why', ' (see', '`', ':42', ' 🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀'.slice(0, 30)))
          .map((p) => p.join('')),
      },
      {
        weight: 2,
        arbitrary: fc
          .tuple(
            ws,
            bullet,
            fc.constantFrom(
              'a1b2c3d Fix it',
              'abcdef01234 x',
              'commit 0123456789abcdef0123456789abcdef01234567',
              'Author: Me <me@x.y>',
              'Date:   Mon Jan 5 10:00',
              'deadbeef\u3000y',
              '1234567\u00a0z',
            ),
          )
          .map((p) => p.join('')),
      },
      { weight: 1, arbitrary: fc.tuple(ws, fc.constantFrom('```', '~~~', '```ts', '``', '~~')).map((p) => p.join('')) },
      { weight: 1, arbitrary: fc.string({ maxLength: 10 }) },
    );
    const eol = fc.constantFrom('\n', '\n', '\r\n', '\r', '\r\r\n');
    const body = fc
      .array(fc.tuple(lineText, eol), { maxLength: 14 })
      .chain((lines) => fc.boolean().map((trailing) => lines.map(([t, e], i) => t + (i < lines.length - 1 || trailing ? e : '')).join('')));
    fc.assert(
      fc.property(body, fc.constantFrom('', '---\nname: x\n---\n', '\uFEFF'), (text, prefix) => {
        expect(fromBytes(text, prefix), JSON.stringify(text)).toEqual(countDerivable(text));
      }),
      { numRuns: 10_000 },
    );
  });

  it('property: on bodies with a code block, the characters are weighed as the decoded text weighs them', () => {
    const ws = fc.constantFrom('', ' ', '\t', '\u3000', '\u00a0', '\u2003', '\ufeff', '\u2028', '\u0085', '\v', '\r');
    const piece = fc.constantFrom('const a = 1;', 'npm test', '部署', 'テスト', '🚀', '𠀀', 'é', '—', 'x', '', '```', '~~~');
    const line = fc.tuple(ws, fc.array(piece, { maxLength: 4 }), ws).map(([a, p, b]) => a + p.join(' ') + b);
    const lines = (min: number, max: number) => fc.array(line, { minLength: min, maxLength: max });
    const eol = fc.constantFrom('\n', '\r\n');
    const body = fc
      .tuple(lines(0, 4), fc.constantFrom('```', '~~~', ' ```ts', '\u3000~~~'), lines(5, 12), fc.constantFrom('```', '~~~', ''), lines(0, 4), eol)
      .map(([before, open, code, close, after, e]) => [...before, open, ...code, close, ...after].join(e));
    fc.assert(
      fc.property(body, (text) => {
        expect(fromBytes(text), JSON.stringify(text)).toEqual(countDerivable(text));
      }),
      { numRuns: 5_000 },
    );
  });

  it.skipIf(realFixturesRoot() === null)(`counts every real memory the same way (skipped when ${NO_FIXTURES})`, () => {
    const files = realTopicFiles(realFixturesRoot()!);
    for (const file of files) {
      const text = fs.readFileSync(file, 'utf8');
      expect(fromBytes(text), file).toEqual(countDerivable(text));
    }
    expect(files.length).toBeGreaterThan(250);
  });
});
