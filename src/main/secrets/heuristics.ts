/**
 * Judging whether a string is a real secret or a stand-in for one. Memories talk *about*
 * credentials all the time ("the key is in Vault", `API_KEY=<your-key>`, `sk-ant-xxxx`), so
 * every rule that is not anchored on a provider's exact format passes its candidate here.
 */

/** Shannon entropy in bits per character. Random base64 is ~5.5–6, English words ~2.5–3.5. */
export function entropy(value: string): number {
  if (value.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const ch of value) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  const n = [...value].length;
  for (const count of counts.values()) {
    const p = count / n;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/** How many of lower case, upper case, digits and symbols occur. */
export function charClasses(value: string): number {
  return [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9]/].filter((re) => re.test(value)).length;
}

// Marks of a masked value or a reference: anywhere in a value, they make it a stand-in.
const TEMPLATE_MARKS = ['xxxx', '****', 'process.env', 'os.environ', 'getenv', 'vault:', 'op://'];

// Template shapes, where a bare `<`, `>`, `{` or `...` could be part of a real password (`Xk9<q2!vR>t...`):
// `<your-token>`, `<API_KEY>`, `<base64 of user:password>` (words in angle brackets, each one
// lower, UPPER or Capitalised, a number after it at most), `${VAR}`, `{{ var }}`, `$(cmd)`, `%(name)s`.
const TEMPLATE_SHAPES = [
  /<(?:[a-z]+|[A-Z]+|[A-Z][a-z]+)\d*(?:[ _.:/-]+(?:[a-z]+|[A-Z]+|[A-Z][a-z]+)\d*)*>/,
  /\$\{[^{}\s]+\}/,
  /\{\{[^{}]+\}\}/,
  /\$\([^()]+\)/,
  /%\([A-Za-z_]\w*\)[sdr]/,
];
// Dots standing for what was left out: alone, or joining parts with no other symbol — a prefix and
// the dots (`sk-ant-...`, `ghp_…`), a value shown elided (`ghp_Ab12...Yz89`).
const ELIDED = /^[\w-]*(?:\.\.\.|…)[\w-]*$/;

// Words a placeholder is made of (lower case). A value is a placeholder when it is (nearly) only
// these — `your_password_here`, `MySecretPassword`, `secret123`, `replace-with-your-token` — never
// because one of them sits inside a real password (`MySecretPw2024`, `Mastodon2024!`: review x2 F2).
const PLACEHOLDER_WORDS = new Set([
  'example',
  'placeholder',
  'your',
  'yours',
  'my',
  'the',
  'a',
  'an',
  'some',
  'any',
  'here',
  'goes',
  'put',
  'with',
  'for',
  'of',
  'to',
  'me',
  'real',
  'actual',
  'new',
  'value',
  'change',
  'changeme',
  'dummy',
  'sample',
  'fake',
  'redacted',
  'replace',
  'insert',
  'todo',
  'fixme',
  'tbd',
  'test',
  'tests',
  'testing',
  'demo',
  'local',
  'dev',
  'secret',
  'secrets',
  'password',
  'passwd',
  'passphrase',
  'pass',
  'token',
  'api',
  'key',
  'apikey',
  'mykey',
  'user',
  'username',
  'db',
  'database',
  'keychain',
]);

/**
 * Whole values that are no credential — a type, a yes/no, a default or example password — in one
 * list for every rule (the URL password rule and the assignments alike).
 */
const NON_VALUES = new Set([
  'none',
  'null',
  'nil',
  'undefined',
  'true',
  'false',
  'yes',
  'no',
  'on',
  'off',
  'required',
  'optional',
  'string',
  'str',
  'int',
  'bool',
  'boolean',
  'empty',
  'default',
  'unknown',
  'hidden',
  'masked',
  'removed',
  'test',
  'testing',
  'n/a',
  'na',
  'tbd',
  'admin',
  'root',
  'guest',
  'postgres',
  'mysql',
  'redis',
  'user',
  'pass',
  'password',
  'secret',
  'example',
  'changeme',
  'letmein',
  'qwerty',
  'abc123',
  '123456',
  '12345678',
]);

/** Whether `letters` (lower case, letters only) is a run of PLACEHOLDER_WORDS, one after another. */
function madeOfPlaceholderWords(letters: string): boolean {
  // ends[i]: letters[0, i) splits into words of the list.
  const ends = [true, ...Array.from({ length: letters.length }, () => false)];
  for (let i = 1; i <= letters.length; i++) {
    for (let j = Math.max(0, i - 11); j < i && !ends[i]; j++) ends[i] = ends[j]! && PLACEHOLDER_WORDS.has(letters.slice(j, i));
  }
  return ends[letters.length]!;
}

/**
 * Whether `value` is a template, an example or a masked value rather than a credential: a whole
 * value of NON_VALUES, a template anywhere (`<your-password>`, `${VAR}`, `{{x}}`, `xxxx`), dots for
 * what was left out (`...`, `sk-ant-...`), one character
 * repeated or a counting sequence, or (nearly) only placeholder words — separators and at most
 * three digits besides (`your-password-here`, `changeme2`). A placeholder word inside a value with
 * other letters, more digits or a symbol is part of a real password.
 */
export function looksLikePlaceholder(value: string): boolean {
  const lower = value.toLowerCase();
  if (NON_VALUES.has(lower)) return true;
  if (TEMPLATE_MARKS.some((w) => lower.includes(w)) || TEMPLATE_SHAPES.some((re) => re.test(value)) || ELIDED.test(value)) return true;
  // A provider's documented example, which ends by saying so in capitals (AWS: `AKIAIOSFODNN7EXAMPLE`,
  // `wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY`); EXAMPLE elsewhere is part of a real password (`EXAMPLECORP-Pr0d!9x`).
  if (/EXAMPLE(?:KEY)?$/.test(value)) return true;
  // One character repeated (`aaaaaaaa`, `00000000`), or a run of x/X/*/0/# of 6+.
  if (/^(.)\1*$/.test(value) || /([xX*#0.])\1{5,}/.test(value)) return true;
  // Counting sequences (`1234567890`, `abcdefgh`).
  if (/0123456789|123456789|abcdefghij/i.test(value)) return true;
  if (/[^A-Za-z0-9_\-. ]/.test(value) || (value.match(/\d/g)?.length ?? 0) > 3) return false;
  const letters = lower.replace(/[^a-z]/g, '');
  return letters.length > 0 && madeOfPlaceholderWords(letters);
}

/**
 * Whether a password found in a URL (`scheme://user:password@host`) is a stand-in rather than a
 * credential: too short, the user name again, a template or placeholder. The one check for
 * Memdir's URL rule and the preset's connection-string rules alike.
 */
export function looksLikePlaceholderUrlPassword(password: string, user?: string): boolean {
  return password.length < 4 || password === user || /^[:$%{[]/.test(password) || looksLikePlaceholder(password);
}

/**
 * Whether a value matched by a provider's exact format is still a stand-in: masked (`ghp_xxxx…`,
 * `****`), templated (`<password>`, `${PW}`), already redacted (`[REDACTED]`) or the provider's
 * documented example. Narrower than
 * `looksLikePlaceholder`, whose word list would sometimes hit inside a long random body.
 */
export function looksMasked(value: string): boolean {
  return /([xX*#.])\1{5,}|…|[<>{}[\]]|\$\(|example|redacted/i.test(value) || /^(.)\1*$/.test(value);
}

/**
 * Whether `value` names where a secret comes from instead of being one: `$VAR`, `%VAR%`,
 * `ALL_CAPS_NAME`, `config.db.password`, a path or a URL.
 */
export function looksLikeReference(value: string): boolean {
  return (
    /^\$[A-Za-z_]/.test(value) ||
    /^%[A-Za-z_]+%$/.test(value) ||
    /^[A-Z][A-Z0-9_]*$/.test(value) ||
    /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+(?:\(\)?)?$/.test(value) ||
    // A path: short segments, none of base64's + or =, not one random blob (keys may start with "/").
    // (Segments joined by a mandatory "/": an optional one inside a repeat backtracks exponentially.)
    (/^(?:\/|\.\.?\/|~\/)[\w.@-]{1,40}(?:\/[\w.@-]{1,40})*\/?$/.test(value) && (value.split('/').filter(Boolean).length >= 2 || entropy(value) < 4)) ||
    /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ||
    /^[a-z]+(?:[-_][a-z]+)+$/.test(value)
  );
}

// Past this many characters a mask says the length in digits rather than a star for each.
const MASK_STARS = 32;

/**
 * The one way a secret is shown (a finding's `match`): nothing of it but its length, one star a
 * character (`************`: a 12-character password), and past 32 the count (`****…(40)`); a token
 * whose format starts with a public prefix (`prefix`: its rule's, rules.ts) keeps that prefix and
 * twelve stars (`ghp_************`, `sk-ant-************`), the prefix being no part of the secret.
 * Its kind is the finding's title. (Session 45: two to four leading characters were shown, a third of
 * a short password.)
 */
export function maskSecret(secret: string, prefix?: RegExp): string {
  const shown = prefix ? (new RegExp(`^(?:${prefix.source})`).exec(secret)?.[0] ?? '') : '';
  if (shown !== '') return `${shown}${'*'.repeat(12)}`;
  const length = [...secret].length;
  return length <= MASK_STARS ? '*'.repeat(length) : `${'*'.repeat(MASK_STARS)}…(${length})`;
}
