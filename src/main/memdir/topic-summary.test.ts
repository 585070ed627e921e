import fs from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { detectDerivable } from '../../shared/not-worth-saving.js';
import { decode } from './read-file.js';
import { NO_FIXTURES, realFixturesRoot, realTopicFiles } from './test-support/real-fixtures.js';
import { parseTopicFile } from './topic-file.js';
import { summarizeTopicBytes } from './topic-summary.js';

const FACTS = { size: 0, mtimeMs: 0, ctimeMs: 0, ino: 0 };

/** What the text path says about these bytes: decode, parse, detect. */
function fromText(bytes: Buffer, file: string): unknown {
  const outcome = decode(bytes, FACTS);
  if (!outcome.ok) return { problem: outcome.reason };
  const topic = parseTopicFile(outcome.text, file);
  return { meta: topic.meta, issues: topic.issues, hints: detectDerivable(topic.body) };
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

  it.skipIf(realFixturesRoot() === null)(`says the same as the text path for every real memory (skipped when ${NO_FIXTURES})`, () => {
    for (const abs of realTopicFiles(realFixturesRoot()!)) {
      const bytes = fs.readFileSync(abs);
      expect(summarizeTopicBytes(bytes, 'm.md'), abs).toEqual(fromText(bytes, 'm.md'));
    }
  });
});
