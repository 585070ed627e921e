import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dirNameMatchesKey, djb2, sanitizeDirName } from './sanitize.js';

describe('sanitizeDirName (R-SANITIZE)', () => {
  it('replaces every character outside [A-Za-z0-9] with "-" without collapsing', () => {
    expect(sanitizeDirName('/Users/me/work/my_app')).toBe('-Users-me-work-my-app');
    expect(sanitizeDirName('/a//b..c')).toBe('-a--b--c');
    expect(sanitizeDirName('C:\\Users\\me\\proj')).toBe('C--Users-me-proj');
  });

  it('replaces each UTF-16 code unit, as JavaScript does: CJK one dash, emoji two', () => {
    expect(sanitizeDirName('/home/李雷/项目')).toBe('-home------');
    expect(sanitizeDirName('/x/😀')).toBe('-x---');
  });

  it('keeps names up to 200 characters whole', () => {
    const key = `/${'a'.repeat(199)}`;
    expect(sanitizeDirName(key)).toBe(`-${'a'.repeat(199)}`);
  });

  it('cuts longer names to 200 and appends "-" and a base-36 djb2 hash of the key', () => {
    const key = `/${'deep/'.repeat(50)}project`;
    const name = sanitizeDirName(key);
    expect(name.slice(0, 200)).toBe(key.replace(/[^a-zA-Z0-9]/g, '-').slice(0, 200));
    expect(name.slice(200)).toBe(`-${Math.abs(djb2(key)).toString(36)}`);
  });

  it('djb2 matches the 32-bit JavaScript idiom on known values', () => {
    expect(djb2('')).toBe(0);
    expect(djb2('a')).toBe(97);
    expect(djb2('ab')).toBe(97 * 31 + 98);
  });

  it('property: output is only [A-Za-z0-9-], length rule holds, and it is deterministic', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (key) => {
        const name = sanitizeDirName(key);
        expect(name).toMatch(/^[A-Za-z0-9-]*$/);
        if (key.length <= 200) expect(name.length).toBe(key.length);
        else expect(name.length).toBeGreaterThan(201);
        expect(sanitizeDirName(key)).toBe(name);
      }),
    );
  });

  it('long names match on the 200-character prefix whatever hash the writer used (Bun vs Node)', () => {
    const key = `/${'x'.repeat(300)}`;
    const prefix = sanitizeDirName(key).slice(0, 200);
    expect(dirNameMatchesKey(`${prefix}-bunhash123`, key)).toBe(true);
    expect(dirNameMatchesKey(sanitizeDirName(key), key)).toBe(true);
    expect(dirNameMatchesKey(`${prefix}`, key)).toBe(false);
    expect(dirNameMatchesKey('-short', '/short')).toBe(true);
    expect(dirNameMatchesKey('-short-abc', '/short')).toBe(false);
  });
});
