import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ASSIGNMENT, assignments, valueStart } from './rules.js';

/** The pattern tried at every position: each match the first at or after the start of the value of the one before. */
function* everywhere(text: string): Generator<RegExpExecArray> {
  const pattern = new RegExp(ASSIGNMENT.source, 'g');
  for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
    yield m;
    pattern.lastIndex = valueStart(m);
  }
}

describe('assignments', () => {
  // The generic rule sees a credential assigned in text only if this search finds its assignment:
  // it must find what the pattern tried at every position finds, and the same first (an assignment
  // inside the value of the one before it is seen too: session 44, `Set: DB_PASSWORD=…`).
  const same = (text: string): void => {
    expect([...assignments(text)].map((m) => [m.index, ...m])).toEqual([...everywhere(text)].map((m) => [m.index, ...m]));
  };

  it('finds the matches the pattern finds at every position, in order', () => {
    const piece = fc.oneof(
      fc.constantFrom('a', 'Z', '_', '.', '-', '"', "'", '`', '*', '**', ' ', '\t', ':', '=', ':=', '=>', '\n', ',', '1', '(', 'é', 'password', 'api_key'),
      fc.nat({ max: 80 }).map((n) => 'k'.repeat(n)),
      fc.string({ unit: 'binary', maxLength: 12 }),
      // An assignment at the pattern's limits: the longest name, quoted, marked, blanks before the operator.
      fc
        .tuple(
          fc.constantFrom('', '"', "'", '`'),
          fc.integer({ min: 55, max: 63 }),
          fc.constantFrom('', '*', '**', '_', '`'),
          fc.nat({ max: 5 }),
          fc.constantFrom(':', '=', ':=', '=>'),
        )
        .map(([quote, length, marker, blanks, op]) => `${quote}p${'a'.repeat(length - 1)}${quote}${marker}${' '.repeat(blanks)}${op} Zy9Zy9Zy9`),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 60 }), (parts) => {
        same(parts.join(''));
      }),
      { numRuns: 2000 },
    );
  });

  it('finds an assignment inside the value of the one before', () => {
    expect([...assignments('Set: DB_PASSWORD=Zy9Zy9Zy9')].map((m) => m[2])).toEqual(['Set', 'DB_PASSWORD']);
    expect([...assignments('see https://x.test/a?api_key=Zy9Zy9Zy9&sort=ascending')].map((m) => m[2])).toEqual(['https', 'api_key', 'sort']);
  });

  it('finds them in memories as written', () => {
    same('---\nname: deploy\ndescription: how we ship\n---\n\ndb_password: Tr0ub4dor&3, then `api_key` = "aB3dEfGh1jKlMnOpQrStUvWx"\n');
    same(`url: https://x.test/?token=${'a1'.repeat(20)} and "${'n'.repeat(70)}": "value-one"\n**secret**: ${'Zy9'.repeat(8)}`);
  });
});
