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

// Words that mark a value as an example, a template or a masked value (lower case).
const PLACEHOLDER_WORDS = [
  'xxxx',
  'example',
  'placeholder',
  'your',
  'changeme',
  'change_me',
  'change-me',
  'dummy',
  'sample',
  'fake',
  'redacted',
  'replace',
  'insert',
  'todo',
  'fixme',
  'secret',
  'password',
  'passwd',
  'passphrase',
  'token',
  'apikey',
  'api_key',
  'api-key',
  'mykey',
  '****',
  '…',
  '...',
  '<',
  '>',
  '${',
  '{{',
  '$(',
  '%(',
  'process.env',
  'os.environ',
  'getenv',
  'vault:',
  'op://',
  'keychain',
];
// Whole values that are clearly not credentials.
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
  'letmein',
  'qwerty',
  'abc123',
  '123456',
  '12345678',
]);

/** Whether `value` is a template, an example or a masked value rather than a credential. */
export function looksLikePlaceholder(value: string): boolean {
  const lower = value.toLowerCase();
  if (NON_VALUES.has(lower)) return true;
  if (PLACEHOLDER_WORDS.some((w) => lower.includes(w))) return true;
  // One character repeated (`aaaaaaaa`, `00000000`), or a run of x/X/*/0/# of 6+.
  if (/^(.)\1*$/.test(value) || /([xX*#0.])\1{5,}/.test(value)) return true;
  // Counting sequences (`1234567890`, `abcdefgh`).
  if (/0123456789|123456789|abcdefghij/i.test(value)) return true;
  return false;
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

/** Keep a few leading characters, mask the rest: enough to recognise, not to use. */
export function maskSecret(secret: string): string {
  const chars = [...secret];
  const keep = chars.length >= 16 ? 4 : chars.length >= 8 ? 2 : 1;
  return `${chars.slice(0, keep).join('')}${'*'.repeat(Math.min(12, Math.max(4, chars.length - keep)))}`;
}
