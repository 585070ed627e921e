// eslint-disable-next-line no-restricted-imports -- the property is stated in terms of what Node's path module does with an accepted key
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type PathKeyProblem, PATH_KEY_LIMITS, foldPathKey, sanitizePathKey } from './path-key.js';

const HOSTILE: [string, string, PathKeyProblem][] = [
  ['empty', '', 'empty'],
  ['null byte in the name', 'notes\0.md', 'null-byte'],
  ['null byte before the extension (C string truncation)', 'evil.md\0.png', 'null-byte'],
  ['newline', 'a\nb.md', 'control-char'],
  ['carriage return', 'a\r.md', 'control-char'],
  ['escape sequence (terminal injection)', '\u001b[31mred.md', 'control-char'],
  ['DEL', 'a\u007f.md', 'control-char'],
  ['C1 control', 'a\u0085.md', 'control-char'],
  ['right-to-left override (gpj.md spoofing)', 'invoice\u202Egpj.md', 'control-char'],
  ['zero-width space', 'MEM\u200BORY.md', 'control-char'],
  ['byte order mark', '\uFEFFMEMORY.md', 'control-char'],
  ['lone high surrogate', 'a\uD800.md', 'ill-formed'],
  ['lone low surrogate', '\uDC00b.md', 'ill-formed'],
  ['%-encoded traversal', '%2e%2e%2fetc%2fpasswd.md', 'encoded-traversal'],
  ['%-encoded traversal, upper case', '%2E%2E%2F%2E%2E%2Fx.md', 'encoded-traversal'],
  ['double-encoded traversal', '%252e%252e%252fx.md', 'encoded-traversal'],
  ['triple-encoded traversal', '%25252e%25252e%25252fx.md', 'encoded-traversal'],
  ['encoded slash only', 'a%2fb.md', 'encoded-traversal'],
  ['encoded backslash', '..%5cx.md', 'encoded-traversal'],
  ['encoded null byte', 'x%00.md', 'encoded-traversal'],
  ['overlong UTF-8 dot (%c0%ae)', '%c0%ae%c0%ae/x.md', 'encoded-traversal'],
  ['IIS %u encoding', '%u002e%u002e/x.md', 'encoded-traversal'],
  ['harmless escape is still refused', 'caf%C3%A9.md', 'percent-encoded'],
  ['full-width dots and slash', '．．／secret.md', 'unicode-lookalike'],
  ['full-width slash only', 'a／b.md', 'unicode-lookalike'],
  ['full-width backslash', '..＼x.md', 'unicode-lookalike'],
  ['one-dot leader U+2024', '\u2024\u2024/x.md', 'unicode-lookalike'],
  ['two-dot leader U+2025', '\u2025/x.md', 'unicode-lookalike'],
  ['division slash U+2215', '..\u2215x.md', 'unicode-lookalike'],
  ['fraction slash U+2044', 'a\u2044b.md', 'unicode-lookalike'],
  ['small full stop U+FE52', 'x\uFE52md', 'unicode-lookalike'],
  ['combining long solidus overlay', 'a\u0338b.md', 'unicode-lookalike'],
  ['full-width percent escape', '％２ｅ％２ｅ.md', 'unicode-lookalike'],
  ['ideographic full stop', 'notes。md', 'unicode-lookalike'],
  ['full-width colon', 'C：x.md', 'unicode-lookalike'],
  ['decomposed (NFD) accent', 'cafe\u0301.md', 'not-nfc'],
  ['backslash traversal', '..\\..\\windows\\win.ini.md', 'backslash'],
  ['backslash as separator', 'sub\\x.md', 'backslash'],
  ['absolute POSIX path', '/etc/passwd.md', 'absolute'],
  ['UNC path', '//server/share/x.md', 'absolute'],
  ['drive letter', 'C:x.md', 'drive-letter'],
  ['drive letter with slash', 'c:/Windows/x.md', 'drive-letter'],
  ['NTFS alternate data stream', 'notes.md:hidden', 'forbidden-char'],
  ['Windows wildcard', 'a*.md', 'forbidden-char'],
  ['8.3 short-name alias', 'PROJEC~1.md', 'forbidden-char'],
  ['pipe', 'a|b.md', 'forbidden-char'],
  ['angle bracket', '<x>.md', 'forbidden-char'],
  ['anchor in a link', 'a#b.md', 'forbidden-char'],
  ['parent segment', '../x.md', 'dot-segment'],
  ['parent segment in the middle', 'sub/../x.md', 'dot-segment'],
  ['dot segment', './x.md', 'dot-segment'],
  ['bare parent', '..', 'dot-segment'],
  ['empty segment', 'sub//x.md', 'empty-segment'],
  ['trailing slash', 'sub/', 'empty-segment'],
  ['hidden file', '.env.md', 'hidden'],
  ['git internals', '.git/config.md', 'hidden'],
  ['Memdir temp file', '.memdir-tmp-1234.md', 'hidden'],
  ['leading space', ' x.md', 'leading-space'],
  ['trailing dot (Windows strips it)', 'x.md.', 'trailing-dot-or-space'],
  ['trailing space (Windows strips it)', 'x.md ', 'trailing-dot-or-space'],
  ['folder with a trailing dot', 'sub./x.md', 'trailing-dot-or-space'],
  ['device name', 'CON', 'reserved-name'],
  ['device name with extension', 'nul.md', 'reserved-name'],
  ['device name, mixed case, as folder', 'Aux/x.md', 'reserved-name'],
  ['serial port', 'COM1.md', 'reserved-name'],
  ['printer port with superscript digit', 'LPT¹.md', 'reserved-name'],
  ['console input', 'CONIN$.md', 'reserved-name'],
  ['device name with double extension', 'prn.tar.md', 'reserved-name'],
  ['over-long key', `${'abc/'.repeat(60)}x.md`, 'too-long'],
  ['huge key', 'x'.repeat(10_000_000), 'too-long'],
  ['over-long segment', `${'n'.repeat(130)}.md`, 'segment-too-long'],
  ['too deep', 'a/b/c.md', 'too-deep'],
  ['not markdown', 'id_rsa', 'not-markdown'],
  ['upper-case extension', 'NOTES.MD', 'not-markdown'],
  ['script', 'x.md.sh', 'not-markdown'],
  ['extension only', 'sub/.md', 'hidden'],
  ['folder named like a file', 'a.md/b.md', 'folder-named-md'],
];

const ACCEPTED = [
  'MEMORY.md',
  'project_api.md',
  'feedback_no-orm.md',
  'infra/dns.md',
  'reference links.md',
  '项目_部署.md',
  'café.md',
  'v1.2-notes.md',
  'con-tracts.md',
  'COM10.md',
  'ok%.md',
];

describe('sanitizePathKey (R-SYNC-SECURITY)', () => {
  it(`has a table of at least 40 hostile keys (${HOSTILE.length})`, () => {
    expect(HOSTILE.length).toBeGreaterThanOrEqual(40);
  });

  it.each(HOSTILE)('refuses %s', (_name, key, code) => {
    const result = sanitizePathKey(key);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.code).toBe(code);
    // A sentence a person can act on, which never carries the raw control characters or a 10 MB key.
    expect(result.reason).toMatch(/^Refused team memory key ".*": .+/s);
    expect(result.reason.length).toBeLessThan(400);
    expect(result.reason).not.toMatch(/[\0\n\r\u001b]/);
  });

  it.each(ACCEPTED)('accepts %s unchanged', (key) => {
    expect(sanitizePathKey(key)).toEqual({ ok: true, key });
  });

  it('explains an encoded traversal by showing what it decodes to', () => {
    const result = sanitizePathKey('%252e%252e%252fx.md');
    expect(!result.ok && result.reason).toContain('decoded 2×');
    expect(!result.ok && result.reason).toContain('../x.md');
  });

  it('accepts keys right at the limits and refuses one byte more', () => {
    const segment = `${'s'.repeat(PATH_KEY_LIMITS.maxSegmentBytes - 3)}.md`;
    expect(sanitizePathKey(segment).ok).toBe(true);
    expect(sanitizePathKey(`s${segment}`)).toMatchObject({ ok: false, code: 'segment-too-long' });
    const folder = 'f'.repeat(PATH_KEY_LIMITS.maxBytes - PATH_KEY_LIMITS.maxSegmentBytes - 1);
    expect(sanitizePathKey(`${folder}/${segment}`).ok).toBe(true);
    expect(sanitizePathKey(`${folder}f/${segment}`)).toMatchObject({ ok: false, code: 'too-long' });
  });

  it('counts UTF-8 bytes, not characters', () => {
    expect(sanitizePathKey(`${'记'.repeat(41)}.md`).ok).toBe(true); // 123 + 3 bytes
    expect(sanitizePathKey(`${'记'.repeat(42)}.md`)).toMatchObject({ ok: false, code: 'segment-too-long' });
  });

  it('folds keys so case-only twins are recognised', () => {
    expect(foldPathKey('MEMORY.md')).toBe(foldPathKey('memory.md'));
    expect(foldPathKey('Infra/DNS.md')).toBe('infra/dns.md');
  });

  // Pieces attackers combine, plus ordinary name characters, so accepted keys are not all trivial.
  const piece = fc.constantFrom(
    'a',
    'B',
    '7',
    '_',
    '-',
    ' ',
    '.',
    '..',
    '/',
    '\\',
    '%',
    '%2e',
    '%2f',
    '%25',
    '．',
    '／',
    '\u2215',
    '\u2024',
    ':',
    'C:',
    '~',
    '\0',
    '\n',
    '\u202E',
    '\u200B',
    'CON',
    'nul',
    'é',
    'e\u0301',
    '记',
    '.md',
    'md',
    'MEMORY',
    '\uD800',
    '😀',
  );
  const keyArb = fc.oneof(
    fc.array(piece, { maxLength: 12 }).map((parts) => parts.join('')),
    fc.array(piece, { maxLength: 6 }).map((parts) => `${parts.join('')}.md`),
    fc.tuple(fc.array(piece, { maxLength: 4 }), fc.array(piece, { maxLength: 4 })).map(([a, b]) => `${a.join('')}/${b.join('')}.md`),
    fc.string({ unit: 'binary', maxLength: 40 }).map((s) => `${s}.md`),
  );

  it('property: an accepted key is a normalised relative path that stays inside any root', () => {
    let accepted = 0;
    fc.assert(
      fc.property(keyArb, fc.constantFrom('/srv/team', '/home/a b/memory/team', 'C:/Users/x/team'), (key, root) => {
        const result = sanitizePathKey(key);
        if (!result.ok) return;
        accepted++;
        expect(result.key).toBe(key);
        expect(path.posix.isAbsolute(key)).toBe(false);
        expect(path.posix.normalize(key)).toBe(key);
        expect(key.split('/').every((s) => s !== '' && s !== '.' && s !== '..')).toBe(true);
        const joined = path.posix.join(root, key);
        expect(joined.startsWith(`${root}/`)).toBe(true);
        expect(path.posix.relative(root, joined)).toBe(key);
        // The Windows reading of the same key stays inside too (no backslash, no drive, no device).
        const win = path.win32.join('C:\\team', key);
        expect(win.startsWith('C:\\team\\')).toBe(true);
        expect(path.win32.relative('C:\\team', win)).toBe(key.replaceAll('/', '\\'));
      }),
      { numRuns: 3000 },
    );
    expect(accepted).toBeGreaterThan(50);
  });

  it('property: never throws, whatever the input', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (key) => {
        const result = sanitizePathKey(key);
        expect(typeof result.ok).toBe('boolean');
      }),
    );
  });
});
