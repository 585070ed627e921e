import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { quoteName, visibleText } from './visible-text.js';

describe('visibleText', () => {
  it('writes escape sequences, C1 controls and bidi overrides as \\uXXXX; keeps lines, tabs, emoji and scripts', () => {
    expect(visibleText('a\u001b[31mb\u009b2J\u202egnp.md\r')).toBe('a\\u001b[31mb\\u009b2J\\u202egnp.md\\u000d');
    expect(visibleText('line 1\n\tline 2 👩\u200d💻 می\u200cخواهم 中文')).toBe('line 1\n\tline 2 👩\u200d💻 می\u200cخواهم 中文');
    expect(visibleText('a\nb\u200d', { lines: false })).toBe('a\\u000ab\\u200d');
  });

  it('property: JSON text stays JSON, and parses to the same value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string({ unit: 'binary', maxLength: 60 }), (value, text) => {
        for (const v of [value, text, { text }]) {
          const shown = visibleText(JSON.stringify(v, null, 2));
          expect(shown).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
          expect(JSON.parse(shown)).toEqual(JSON.parse(JSON.stringify(v)));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('quotes a name on one line, cut, with nothing invisible', () => {
    expect(quoteName(`x\u202e${'y'.repeat(100)}`)).toBe(`"x\\u202e${'y'.repeat(78)}…"`);
    expect(quoteName('say "hi"')).toBe('"say \\"hi\\""');
  });
});
