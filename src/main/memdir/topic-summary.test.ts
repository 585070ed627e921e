import fs from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { detectDerivable } from '../../shared/not-worth-saving.js';
import { decode } from './read-file.js';
import { NO_FIXTURES, realFixturesRoot, realTopicFiles } from './test-support/real-fixtures.js';
import { type FrontmatterSpan, parseTopicFile, readFrontmatterBlock } from './topic-file.js';
import { summarizeTopicBytes } from './topic-summary.js';

const FACTS = { size: 0, mtimeMs: 0, ctimeMs: 0, ino: 0 };

/** What the text path says about these bytes: decode, parse, detect. */
function fromText(bytes: Buffer, file: string): unknown {
  const outcome = decode(bytes, FACTS);
  if (!outcome.ok) return { problem: outcome.reason };
  const topic = parseTopicFile(outcome.text, file);
  return { meta: topic.meta, issues: topic.issues, hints: detectDerivable(topic.body) };
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * A plain reference for the summary, apart from the byte-level code: a strict decode, then on the
 * decoded text gray-matter's split written out with regexes, the header read by the one
 * frontmatter reader (itself held to the YAML path by frontmatter-scanner.test.ts) and the body
 * weighed by the shared R-NOTSAVE rules on its text.
 */
function plainSummary(bytes: Buffer, file: string): unknown {
  if (bytes.includes(0)) return { problem: 'it is a binary file, not text' };
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    return { problem: 'it is not valid UTF-8 text (saved in another encoding?)' };
  }
  const start = text.startsWith('\uFEFF') ? 1 : 0;
  const rest = text.slice(start);
  let span: FrontmatterSpan = { fence: 'none', yamlStart: start, yamlEnd: start, bodyStart: start };
  if (/^---[ \t]*\r?\n/.test(rest)) span = { ...span, fence: 'unclosed' };
  if (/^---[ \t]*\r?\n(?:[\s\S]*?\r?\n)?---[ \t]*(?:\r?\n|$)/.test(rest)) {
    // The YAML runs to the first "\n---"; the body starts after it, minus one "\r" and one "\n".
    const yamlEnd = text.indexOf('\n---', start + 3);
    let bodyStart = yamlEnd + 4;
    if (text[bodyStart] === '\r') bodyStart++;
    if (text[bodyStart] === '\n') bodyStart++;
    span = { fence: 'closed', yamlStart: start + 3, yamlEnd, bodyStart };
  }
  const { meta, issues } = readFrontmatterBlock(span, text.slice(span.yamlStart, span.yamlEnd), file);
  return { meta, issues, hints: detectDerivable(text.slice(span.bodyStart)) };
}

describe('topic summary from bytes', () => {
  it('says what the text path says, for good and bad files', () => {
    const files = [
      '---\nname: No ORM\ndescription: use case: raw SQL #3\ntype: feedback\n---\n\n- src/db/a.ts\n- src/db/b.ts\n- src/db/c.ts\n',
      '\uFEFF---\r\nname: 用户角色\r\ndescription: 高级后端工程师\r\nmetadata: \r\n  type: user\r\n---\r\n正文\r\n',
      '---\nname: x\n',
      '---\n---\nbody',
      '---\n# only a comment\n---\nbody',
      'no frontmatter at all',
      '',
      '---\nname: "plan:" prefix\n---\n',
    ];
    for (const text of files) expect(summarizeTopicBytes(Buffer.from(text), 'feedback_x.md'), text).toEqual(fromText(Buffer.from(text), 'feedback_x.md'));
    for (const bytes of [Buffer.from([0x2d, 0x00, 0x41]), Buffer.from([0x61, 0xff, 0x62]), Buffer.from([0xed, 0xa0, 0x80])]) {
      expect(summarizeTopicBytes(bytes, 'x.md')).toEqual(fromText(bytes, 'x.md'));
    }
  });

  it('property: on generated files the summary equals parse + detect on the decoded text', () => {
    const value = fc
      .array(fc.constantFrom('deploy', 'SQL', ' ', ' #3', ': ', '"', "'", '部署', '🚀', '2026-03-05', 'http://a/b#c', '`x`', '12', 'user', '—'), {
        maxLength: 6,
      })
      .map((p) => p.join(''));
    const header = fc
      .tuple(value, value, fc.constantFrom('user', 'feedback', 'project', 'reference', 'opinion', ''), fc.boolean())
      .map(([n, d, t, nested]) => (nested ? `name: ${n}\ndescription: ${d}\nmetadata:\n  type: ${t}` : `name: ${n}\ndescription: ${d}\ntype: ${t}`));
    const bodyLine = fc.constantFrom(
      'Prose about the deploy.',
      '- src/a/b.ts',
      '```',
      'const x = 1;',
      'a1b2c3d Fix it',
      '',
      '  ',
      '\u3000',
      '部署前先跑集成测试',
      '---',
      '# Heading',
    );
    const file = fc
      .tuple(
        fc.boolean(),
        fc.constantFrom('closed', 'closed', 'unclosed', 'none'),
        header,
        fc.array(bodyLine, { maxLength: 12 }),
        fc.constantFrom('\n', '\r\n'),
      )
      .map(([bom, fence, h, body, eol]) => {
        const text = fence === 'none' ? body.join('\n') : fence === 'unclosed' ? `---\n${h}\n${body.join('\n')}` : `---\n${h}\n---\n${body.join('\n')}`;
        return (bom ? '\uFEFF' : '') + text.replace(/\n/g, eol);
      });
    fc.assert(
      fc.property(file, fc.constantFrom('m.md', 'feedback_m.md'), (text, name) => {
        const bytes = Buffer.from(text);
        expect(summarizeTopicBytes(bytes, name), JSON.stringify(text)).toEqual(fromText(bytes, name));
      }),
      { numRuns: 1_000 },
    );
  });

  it('property: on hostile generated files (CRLF, BOM, CJK, emoji, #, :, quotes, URLs, invalid UTF-8, NUL, odd fences, huge lines) it equals a plain reference', () => {
    const piece = fc.constantFrom(
      'deploy',
      'use case: foo',
      ' #3',
      '#',
      ':',
      ': ',
      '"',
      "'",
      '"plan:" prefix',
      'https://wiki.example.com/ops/deploy?env=prod#rollback',
      '部署前先跑集成测试',
      'デプロイ前に結合テストを実行する',
      '🚀',
      '👩‍💻',
      '\t',
      '  ',
      '[a, b]',
      '{x: 1}',
      '`x`',
      '—',
      '\u3000',
      '\u00a0',
    );
    const value = fc.array(piece, { maxLength: 6 }).map((p) => p.join(''));
    const key = fc.constantFrom('name', 'description', 'type', 'originSessionId', 'modified', 'metadata', 'x-note', '  type', '  name', '# c', '');
    const headerLine = fc.tuple(key, value).map(([k, v]) => (k === '' ? v : k.startsWith('#') ? `${k} ${v}` : `${k}: ${v}`));
    const header = fc.array(headerLine, { maxLength: 7 }).map((lines) => lines.join('\n'));
    const huge = fc.constantFrom('x'.repeat(70_000), '部署'.repeat(20_000), `- src/${'a/'.repeat(3000)}b.ts`, '🚀'.repeat(9_000));
    const bodyLine = fc.oneof(
      {
        weight: 12,
        arbitrary: fc.constantFrom(
          'Prose about the deploy: why it broke (see PR #412).',
          '- src/a/b.ts',
          '\u00a0- src/a/b.ts',
          '\u2003a1b2c3d Fix it',
          '- `./docs/x.md:12` — the entry',
          '```',
          '~~~',
          'const x = 1;',
          'a1b2c3d Fix it',
          'commit 0123456789abcdef0123456789abcdef01234567',
          'Author: Me <me@x.y>',
          '',
          '  ',
          '\u3000',
          '部署前先跑集成测试',
          '---',
          '----',
          '--- ',
          '---x',
          '# Heading',
          '"quoted": yes',
          'https://example.com/a/b.md',
        ),
      },
      { weight: 1, arbitrary: huge },
      { weight: 2, arbitrary: fc.string({ maxLength: 12 }) },
    );
    const fence = fc.constantFrom('---', '---', '--- \t', '----', '---x');
    const file = fc
      .tuple(
        fc.boolean(),
        fc.constantFrom('closed', 'closed', 'closed', 'unclosed', 'none'),
        fence,
        header,
        fence,
        fc.array(bodyLine, { maxLength: 14 }),
        fc.constantFrom('\n', '\r\n', '\r'),
        fc.constantFrom('\n', '\r\n'),
      )
      .map(([bom, shape, open, h, close, body, bodyEol, headEol]) => {
        const head = shape === 'none' ? '' : shape === 'unclosed' ? `${open}\n${h}\n` : `${open}\n${h}\n${close}\n`;
        return (bom ? '\uFEFF' : '') + head.replace(/\n/g, headEol) + body.join(bodyEol);
      });
    // Bytes no text holds: a stray byte, a cut sequence, an encoded surrogate, an overlong form, a NUL.
    const damage = fc.option(fc.tuple(fc.constantFrom([0xff], [0xc3], [0xed, 0xa0, 0x80], [0xc0, 0x80], [0x00], [0xe2, 0x82]), fc.nat()), { freq: 4 });
    fc.assert(
      fc.property(file, damage, fc.constantFrom('m.md', 'feedback_m.md', 'retros/x.md'), (text, hurt, name) => {
        let bytes = Buffer.from(text);
        if (hurt) {
          const at = hurt[1] % (bytes.length + 1);
          bytes = Buffer.concat([bytes.subarray(0, at), Buffer.from(hurt[0]), bytes.subarray(at)]);
        }
        expect(summarizeTopicBytes(bytes, name), JSON.stringify(text.slice(0, 300))).toEqual(plainSummary(bytes, name));
      }),
      { numRuns: 3_000 },
    );
  });

  it.skipIf(realFixturesRoot() === null)(`says the same as the text path for every real memory (skipped when ${NO_FIXTURES})`, () => {
    for (const abs of realTopicFiles(realFixturesRoot()!)) {
      const bytes = fs.readFileSync(abs);
      expect(summarizeTopicBytes(bytes, 'm.md'), abs).toEqual(fromText(bytes, 'm.md'));
    }
  });
});
