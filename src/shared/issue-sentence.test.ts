import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { firstIssueSentence, issueSentence } from './issue-sentence.js';

describe('issueSentence', () => {
  it("says what is wrong with which field in words, not in zod's", () => {
    const schema = z.object({
      a: z.string(),
      b: z.number().int(),
      c: z.enum(['x', 'y']),
      d: z.string().max(3),
      e: z.string().regex(/^\d+$/),
      f: z.strictObject({}),
      g: z.union([z.string(), z.number()]),
    });
    const result = schema.safeParse({ b: 'one', c: 'q', d: 'abcdef', e: 'x', f: { z: 1 }, g: true });
    expect(result.success).toBe(false);
    expect(result.error!.issues.map(issueSentence)).toEqual([
      '"a" is missing',
      '"b" should be a number, not text',
      '"c" should be one of "x", "y"',
      '"d" is too long (at most 3 characters)',
      '"e" is not in the expected form',
      '"f" has fields that do not belong there ("z")',
      '"g" is in none of the accepted forms',
    ]);
    expect(firstIssueSentence([])).toBe('it does not have the expected shape');
  });
});
