import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { utf8Length } from '../../shared/utf8.js';
import { utf8ByteLength } from './read-file.js';

describe('the native UTF-8 size', () => {
  it('property: counts what the shared utf8Length counts, lone surrogates included', () => {
    const piece = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 8 }),
      fc.string({ unit: 'binary', maxLength: 8 }),
      fc.constantFrom('\ud800', '\udc00', '\ud83d\ude80', 'é', '部署', '\u0000', '\uffff'),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), (pieces) => {
        const text = pieces.join('');
        expect(utf8ByteLength(text), JSON.stringify(text)).toBe(utf8Length(text));
      }),
      { numRuns: 5_000 },
    );
  });
});
