/**
 * Memdir's own secret rules, for what @secretlint/secretlint-rule-preset-recommend 12.0.0
 * lacks (LIBRARIES.md): Google API keys, every Anthropic key kind, JWTs, Stripe, Twilio,
 * Mailgun, PyPI, DigitalOcean, the GitLab token kinds beyond `glpat-`, Memdir's own sync
 * tokens, credentials in any URL and before a host with no scheme (`user:password@host`), on a
 * command line (`curl -u`, `mysql -p`) and in a registry's auth, and generic high-entropy assignments — and for two preset
 * rules that miss real keys: OpenAI keys ending in a dash, SendGrid keys with more than one
 * dash, SEC1 EC private keys — and every token Claude Code 2.1.332's own team-memory scanner
 * refuses (claude-code-rules.test.ts holds Memdir to its table). Formats follow the
 * public gitleaks rules and the providers' documentation. JavaScript has no `(?i)` groups: a
 * case-insensitive rule uses the `i` flag on the whole pattern.
 *
 * Each rule returns where the secret itself is (not the whole line or URL), so a redaction
 * replaces just the secret and leaves `postgres://app:[REDACTED]@db/x` readable.
 */
import { ANTHROPIC_KEY, ANTHROPIC_KEY_KIND, ANTHROPIC_KEY_PREFIX, BEARER_TOKEN } from '../../shared/key-shapes.js';
import { charClasses, entropy, looksLikePlaceholder, looksLikePlaceholderUrlPassword, looksLikeReference, looksMasked } from './heuristics.js';

export interface RuleMatch {
  start: number;
  end: number;
}

export interface SecretRule {
  /** Stable id, reported as `memdir/<id>`. */
  id: string;
  /** What was found, for people. */
  title: string;
  /** `warning` for heuristics (a guess), `error` for a provider's exact format. */
  severity: 'error' | 'warning';
  /** Specific rules win over generic ones when two report the same text. */
  priority: number;
  /** A cheap test every text with a match passes; most memories fail it and skip `find` (a prefixed format's: its prefix). */
  hint: RegExp;
  /**
   * What every token of the format starts with, when it is a provider's prefix (`sk-ant-`,
   * `GOCSPX-`): a token wrapped onto the next line after it is joined back (views.ts
   * `joinedView`). The one list of such prefixes, with {@link PRESET_FORMATS}.
   */
  prefix?: RegExp;
  /** The rule its findings are reported under, when it is a preset check run here (`aws/AWSAccessKeyID`); `memdir/<id>` otherwise. */
  reportedAs?: string;
  find: (text: string) => RuleMatch[];
}

/** Every match of `pattern` whose secret (group 1 if present, else the match) passes `accept`. */
function matches(pattern: RegExp, accept: (secret: string, match: RegExpExecArray) => boolean = () => true): (text: string) => RuleMatch[] {
  return (text) => {
    const found: RuleMatch[] = [];
    for (const m of text.matchAll(pattern)) {
      const secret = m[1] ?? m[0];
      const start = m.index + (m[1] !== undefined ? m[0].indexOf(m[1]) : 0);
      if (accept(secret, m as RegExpExecArray)) found.push({ start, end: start + secret.length });
    }
    return found;
  };
}

/** A random-looking body: not a placeholder, enough distinct characters. */
function randomish(minEntropy: number): (secret: string) => boolean {
  return (secret) => !looksLikePlaceholder(secret) && entropy(secret) >= minEntropy;
}

function base64urlJson(segment: string): unknown {
  try {
    const json = Buffer.from(segment, 'base64url').toString('utf8');
    return JSON.parse(json);
  } catch {
    return null;
  }
}

// Names under which a value is a credential, compared with letters and digits only, lower case.
const SECRET_NAME =
  /(password|passwd|passphrase|pwd|secret|apikey|accesskey|accountkey|privatekey|authtoken|accesstoken|refreshtoken|token|credential|signingkey|encryptionkey|masterkey|sessionkey|webhookkey)/;
const PASSWORD_NAME = /(password|passwd|passphrase|pwd)/;
// `pass` or `pw` as the last word of a name as written (`SMTP_PASS`, `db.pass`, `dbPass`, `DB_PW`,
// `adminPw`): a password's name too. Never inside another word (`bypass`, `compass`), nor alone: prose says `tests pass: …`, `Pass 2: …`.
const PASS_WORD = /[A-Za-z0-9](?:[_.-](?:pass|Pass|PASS|pw|Pw|PW)|Pass|Pw|PW)$/;
// …unless the name says it holds something about the credential rather than the credential.
const NOT_A_SECRET_NAME =
  /(name|names|id|ids|file|path|dir|url|uri|endpoint|type|length|len|count|size|policy|expiry|expires|expiration|ttl|env|var|header|field|param|prefix|suffix|version|ref|hint|format|limit|limits|regex|pattern|enabled|required|timeout|usage|tokens|tokenizer|budget|max|min|cost|price|rotation|manager|store|location|arn|source|provider|mode|method|kind|hash|salt|reset|strength|rules|length)$/;

// key [quote] [**] op [quote] value — bounded repetitions keep it linear on long lines. The value
// may hold < and > after its first character (a real password can: `Xk9<q2!vR>t`; heuristics.ts
// says which are templates), never a bracket that would run it into code (`grad(loss`). Sticky:
// tried only where `assignments` says a match may start.
export const ASSIGNMENT =
  /(?<![A-Za-z0-9_])(["'`]?)([A-Za-z_][A-Za-z0-9_.-]{0,60})\1[*_`]{0,2}[ \t]{0,4}(?::=|=>|=|:)[ \t]{0,4}(["'`]?)([^\s"'`,;<>(){}[\]][^\s"'`,;(){}[\]]{5,299})\3/y;
// Its operator's first character, and how far past the start of a match it can be: a quote, 61
// characters of name, a quote, two markers, four blanks.
const OPERATOR = /[:=]/g;
const OPERATOR_REACH = 69;

/** Whether a UTF-16 unit is an ASCII letter, digit or `_`: a name character, `[A-Za-z0-9_]`. */
function isWord(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95;
}

/** Whether the unit may stand between the start of an ASSIGNMENT match and its operator: `[A-Za-z0-9_.\-"'`* \t]`. */
function beforeOperator(c: number): boolean {
  return isWord(c) || c === 46 || c === 45 || c === 34 || c === 39 || c === 96 || c === 42 || c === 32 || c === 9;
}

/** Whether ASSIGNMENT could start at a unit: a name's first character or a quote, `[A-Za-z_"'`]`. */
function startsAssignment(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 34 || c === 39 || c === 96;
}

/** Where a match of ASSIGNMENT's value starts (after its opening quote). */
export function valueStart(m: RegExpExecArray): number {
  return m.index + m[0].length - m[3]!.length - m[4]!.length;
}

/**
 * The matches of ASSIGNMENT, each the first match at or after the start of the value of the one
 * before: a value may hold an assignment of its own (`Set: DB_PASSWORD=…`, `config: password=…`,
 * a URL's `?api_key=…` after `https:`), which the one before would otherwise swallow. Found from the operators out rather
 * than by trying the pattern at every word of the text: memories hold one `:` or `=` in fifty
 * characters, and a match starts before one, within OPERATOR_REACH, at a name's first
 * character or its quote, with nothing but name, quote, marker and blank characters between.
 * The pattern is tried at each such place, in order, and decides.
 */
export function* assignments(text: string): Generator<RegExpExecArray> {
  const operator = new RegExp(OPERATOR);
  let from = 0;
  for (let op = operator.exec(text); op !== null; op = operator.exec(text)) {
    const at = op.index;
    if (at <= from) continue;
    let start = at;
    const low = Math.max(from, at - OPERATOR_REACH);
    while (start > low && beforeOperator(text.charCodeAt(start - 1))) start--;
    for (let s = start; s < at; s++) {
      // The pattern's first character with no name character before it (its look-behind).
      if (!startsAssignment(text.charCodeAt(s)) || (s > 0 && isWord(text.charCodeAt(s - 1)))) continue;
      ASSIGNMENT.lastIndex = s;
      const m = ASSIGNMENT.exec(text);
      if (m === null) continue;
      yield m;
      from = valueStart(m);
      operator.lastIndex = Math.max(operator.lastIndex, from);
      break;
    }
  }
}

// What ends a sentence after an unquoted value, and is none of it.
const SENTENCE_END = /[.,;:?]+$/;

function genericAssignments(text: string): RuleMatch[] {
  const found: RuleMatch[] = [];
  for (const m of assignments(text)) {
    // A match whose value starts inside the value just reported is part of that stretch (one
    // finding a stretch is all the scanner keeps): `password:password:…` is one hit per 300
    // characters, not one per operator (thousands of hits made secretlint's pairwise
    // de-duplication quadratic: minutes on a few hundred KB).
    if (found.length > 0 && valueStart(m) < found[found.length - 1]!.end) continue;
    const name = m[2]!.toLowerCase().replace(/[^a-z0-9]/g, '');
    const passWord = PASS_WORD.test(m[2]!);
    if (!(SECRET_NAME.test(name) || passWord) || NOT_A_SECRET_NAME.test(name)) continue;
    let value = m[4]!;
    // `name::Type` is a type or a scope (Julia, Haskell, C++, Rust), no value: `gap_pass::Union{…}`.
    if (m[3] === '' && value.startsWith(':')) continue;
    // A URL query's parameter ends at the next one: `?api_key=…&page=2`.
    if (m[3] === '' && /[?&]/.test(text[m.index - 1] ?? '')) value = value.split('&')[0]!;
    // Unquoted values in prose end at the sentence: "password: hunter2." → hunter2 (a `!` is
    // kept: passwords end in one far more often than a note's sentence does, `SMTP_PASS=Vq7r…!`).
    if (m[3] === '') value = value.replace(SENTENCE_END, '');
    if (looksLikePlaceholder(value) || looksLikeReference(value) || /^\d+$/.test(value)) continue;
    const bits = entropy(value);
    const classes = charClasses(value);
    const isPassword = PASSWORD_NAME.test(name) || passWord;
    const credible = isPassword
      ? value.length >= 6 && bits >= 2.0 && (classes >= 2 || (value.length >= 12 && bits >= 3.0))
      : (value.length >= 16 && bits >= 3.0 && classes >= 2) || (value.length >= 20 && bits >= 3.5);
    if (!credible) continue;
    const start = m.index + m[0].lastIndexOf(m[4]!);
    // A name that only ends in pass names a build's or a renderer's pass as often as a password
    // (`BUILD_PASS: ubuntu-22.04`, `shadowPass: ShadowMap2D`, `second-pass: Refactor2 done`).
    if (passWord && !PASSWORD_NAME.test(name) && m[3] === '' && aPassNotAPassword(m[2]!, value, text.slice(start + value.length))) continue;
    found.push({ start, end: start + value.length });
  }
  return found;
}

// "the admin password is: X", "password was X" — prose rather than an assignment.
const PASSWORD_PROSE = /\b(?:password|passwd|passphrase)[ \t]+(?:is|was)[ \t]*:?[ \t]*(["'`]?)([^\s"'`<>(){}[\]]{6,100})\1/gi;

// The same in Chinese: "密码：X", "数据库密码是 X", "口令为 X" (full-width or ASCII colon, or none after 是/为).
const PASSWORD_PROSE_ZH = /(?:密码|密碼|口令)(?:[ \t]*(?:是|为|為)[ \t]*[:：]?|[ \t]*[:：])[ \t]*(["'`]?)([^\s"'`<>(){}[\]，。；、）（]{6,100})\1/g;

// The word and the password with nothing between (a .netrc's `login admin password X`, "Wi-Fi
// password X", `--password X`): the word starts prose as often (`password manager`, `password
// Argon2id hashing`), so the value must look made — 10 or more characters of three kinds, or 12
// or more of two with entropy ≥ 3 — where after "is" six characters of two kinds do.
const PASSWORD_WORD = /\b(?:password|passwd|passphrase)[ \t]+(["'`]?)([^\s"'`<>(){}[\]]{10,100})\1/gi;

/**
 * Whether a password with no scheme or operator to vouch for it looks made rather than a word of
 * prose: `min` or more characters of three kinds (lower, upper, digit, other), or 12 or more of
 * two kinds with entropy ≥ 3.
 */
/**
 * Whether a value reads as made rather than as a name, a word or a version (`Refactor2`,
 * `ShadowMap2D`, `ubuntu-22.04`): it holds a character no identifier holds (`Summer2024!`), or
 * letters and digits take turns four or more times (`Vq7rT2mXk9Lp`, `S3cr3tP4ss`), or it is long
 * and random (16 or more characters, entropy ≥ 3.5).
 */
function madeNotNamed(value: string): boolean {
  if (/[^A-Za-z0-9._-]/.test(value)) return true;
  if ((value.match(/[A-Za-z]+|[0-9]+/g) ?? []).length >= 4) return true;
  return value.length >= 16 && entropy(value) >= 3.5;
}

// A version (`ubuntu-22.04`, `v1.2.3`), and a CamelCase name of two or more words (`ShadowMap2D`).
const VERSION = /\d\.\d/;
const CAMEL_CASE_NAME = /^(?:[A-Z][a-z]+){2,}[A-Za-z0-9]*$/;
// A lower-case word after the value on its line: prose (`second-pass: Refactor2 done`).
const PROSE_AFTER = /^[ \t]+[a-z]{2,}\b/;
// An environment variable's name (`DB_PASS`, `SMTP_PW`): a password's, in prose too (`set DB_PASS=… for prod`).
const ENV_NAME = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/;
// A word or CamelCase words and a year (`Summer2024`, `SummerTime2024`): the commonest human password
// and no pass's name (session 45: the real memories hold no such value under any name).
// Only when nothing follows the value on its line: `reviewPass: Sprint2024 notes` is a pass's (review s45-1 #8).
const WORDS_AND_YEAR = /^[A-Za-z]+(?:19|20)\d\d$/;
const NOTHING_AFTER = /^[ \t]*(?:\r?\n|$)/;

/**
 * Whether an unquoted value under a name that only ends in pass or pw is a pass's rather than a
 * password: it reads as named (see madeNotNamed) and is a version, or — under a name that is no
 * environment variable's (`shadowPass`, `second-pass`) — a CamelCase name or a word that prose goes on after. A bare word and digits (`Summer2024`, `Welcome1`, `qwerty123`) is the
 * commonest human password, so it is one unless prose follows — and a word or CamelCase words and a
 * year (`SummerTime2024`) is one when nothing follows it on its line (`reviewPass: Sprint2024 notes`
 * is a pass's); a quoted value is never judged here.
 */
function aPassNotAPassword(name: string, value: string, after: string): boolean {
  if (madeNotNamed(value)) return false;
  if (VERSION.test(value)) return true;
  // Under an environment variable's name only a version is a pass's (`BUILD_PASS: ubuntu-22.04`).
  if (ENV_NAME.test(name) || (WORDS_AND_YEAR.test(value) && NOTHING_AFTER.test(after))) return false;
  return CAMEL_CASE_NAME.test(value) || PROSE_AFTER.test(after);
}

// Hashing schemes and words about them joined by `-`: a term (`PBKDF2-SHA256`, `Argon2id-hashed`),
// not a password. Only known pieces: a generated or passphrase password is words joined by `-` too
// (`vohpon-Koxsy2-dafgeh`, `Correct-Horse-Battery9`).
const HASHING_TERM_PIECE =
  /^(?:sha|pbkdf|argon|bcrypt|scrypt|yescrypt|hmac|md|blake|hash|hashed|hashing|salted|peppered|keyed|stretched|encrypted|based)\d*(?:id|i|d)?\d*$/i;

function hashingTerm(value: string): boolean {
  const pieces = value.split('-');
  return pieces.length >= 2 && pieces.every((p) => HASHING_TERM_PIECE.test(p));
}

function looksMade(value: string, min: number): boolean {
  const classes = charClasses(value);
  return (value.length >= min && classes >= 3) || (value.length >= 12 && classes >= 2 && entropy(value) >= 3);
}

function passwordProse(text: string): RuleMatch[] {
  const found: RuleMatch[] = [];
  const candidates = [
    ...[...text.matchAll(PASSWORD_PROSE), ...text.matchAll(PASSWORD_PROSE_ZH)].map((m) => ({ m, bare: false })),
    ...[...text.matchAll(PASSWORD_WORD)].map((m) => ({ m, bare: true })),
  ];
  for (const { m, bare } of candidates) {
    const value = m[1] === '' ? m[2]!.replace(SENTENCE_END, '') : m[2]!;
    if (looksLikePlaceholder(value) || looksLikeReference(value) || /^\d+$/.test(value)) continue;
    if (value.length < 6 || entropy(value) < 2.0 || charClasses(value) < 2) continue;
    if (bare && (!looksMade(value, 10) || hashingTerm(value))) continue;
    const start = m.index + m[0].lastIndexOf(m[2]!);
    found.push({ start, end: start + value.length });
  }
  return found;
}

// A line of PostgreSQL's password file (`~/.pgpass`, PGPASSFILE): `host:port:database:user:password`,
// each of the first four a name or `*` (`db.internal:5432:app:app_user:…`, `*:*:*:postgres:…`), alone
// on its line but for indentation, a list marker, a label naming the file or the database
// (`pgpass: …`, `Prod DB: …`), a code span's backticks and a comment after it (`… # prod`). The host is `*`,
// localhost, or a name with a dot (a time's `12:00:00:…` is none), the port digits or `*`. The
// password runs to the line's end and is judged as a URL's (heuristics.ts) and, being no word of
// prose, must look made (as before a host: 8 or more characters of three kinds, or 12 of two).
const PGPASS_LINE =
  /^[ \t]{0,8}(?:[-*+>][ \t]{1,4})?(?:([A-Za-z.][A-Za-z0-9 ._-]{0,40}):[ \t]{1,4})?`?(\*|localhost|[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){1,8}):(\*|\d{1,5}):(\*|[A-Za-z0-9_.$-]{1,63}):(\*|[A-Za-z0-9_.@$-]{1,63}):([^\s`]{1,200})`?[ \t]*(?:#[^\n]{0,200})?$/gm;

// A label before a .pgpass line names the file or the database (`pgpass:`, `Prod DB:`); any other
// label makes a trace, a cache key or a health check of the same shape (review s45-4 #3).
const PGPASS_LABEL = /(?:^|[^A-Za-z])(?:\.?pgpass|pgpassfile|postgres(?:ql)?|psql|pg|db|database)(?![A-Za-z])/i;
// A label naming .pgpass or PostgreSQL; a PostgreSQL port (or `*`: the file's own wildcard); a host or database saying so.
// Not any port but another service's (review s45-8 #5): a list of other services is never whole, and a trace or a
// cache key of this shape on any of theirs was refused on save (review s45-9 #4); PostgreSQL on port 15432 is missed.
const PGPASS_FILE = /(?:^|[^A-Za-z])(?:\.?pgpass|pgpassfile|postgres(?:ql)?|psql|pg)(?![A-Za-z])/i;
const PG_PORT = /^(?:\*|543[2-9]|6432|6543|25060)$/;
const PG_NAME = /(?:^|[^A-Za-z])(?:db|pg|postgres(?:ql)?|psql|sql|database)(?![A-Za-z])|\*/i;

function pgpassLines(text: string): RuleMatch[] {
  const found: RuleMatch[] = [];
  for (const m of text.matchAll(PGPASS_LINE)) {
    const [, label, host, port, database, user, password] = m as unknown as string[];
    if (label !== undefined && !PGPASS_LABEL.test(label)) continue;
    // With no label, or one naming any database (`Redis DB:`), the line must be PostgreSQL's (review s45-6 #3).
    if ((label === undefined || !PGPASS_FILE.test(label)) && !PG_PORT.test(port!) && !PG_NAME.test(`${host} ${database}`)) continue;
    if (looksLikePlaceholderUrlPassword(password!, user) || looksLikeReference(password!) || !looksMade(password!, 8)) continue;
    const start = m.index + m[0].lastIndexOf(`:${password}`) + 1;
    found.push({ start, end: start + password!.length });
  }
  return found;
}

// A login and its password written side by side in prose, with no operator a rule above sees:
// - a user and a password with a slash between (`Grafana: admin / S3cr3tP4ss!`, `Grafana admin /
//   …`, `Grafana: Admin/…`). Tech notes write the same shape (`Stack: react / TypeScript-5.4`,
//   `Branches: main / feature/login-v2`, `Shortcut: ctrl / Cmd+Shift+P`: review s45-1 #1), so it
//   needs a credential context — the user is an account's name (admin, root, deploy, an e-mail
//   address…) or the label before it names credentials (`Staging creds: alice / …`) — and the
//   password must look made and be no name (`Guest2Access`), path, version, key combination or
//   capitalised words joined by `-` (`OpenID-Connect`; a passphrase so written is missed here, not
//   after `password`), package, address or setting (`react-hook-form@7`, `SameSite=Lax`) — unless
//   it is one of the commonest passwords (`admin / Summer2024`). Where each form is taken: loginBefore;
// - a user's word and its name, then a password's word (pass, pw, pwd, password) and the password
//   (`user: deploy pass: Xk9#mP2q`, `login admin, password hunter2-Prod!`). The user holds a letter
//   or digit and stands apart from its word, the password starts with neither `-` nor `.`
//   (`docs/user-password-reset-flow.md`, `the user.pass-through option`), and a bare `pass` or `pw`,
//   a verb in prose (`the user tests pass: …`, `each user login must pass …`), needs a `:` or `=`
//   after both words, or after the pass when the user is an account's name (`user admin pass: …`);
//   then six characters of two kinds do.
// A value ends at a `;` (a connection string's next key) and starts with no bracket (`<YourPassword>`).
// The first is found from its slash out (a pattern starting at the label was tried at every word of
// every memory: 40 ms a pass over the 353 real memories, against 1); a walk back from a slash is
// bounded (64 characters for the user, 60 for the label), so a text of slashes stays linear.
const LOGIN_SLASH = /[ \t]{0,4}\/[ \t]{0,4}/g;
const LOGIN_USER = /^[a-z0-9][a-z0-9._-]{0,63}(?:@[a-z0-9.-]{1,253})?$/i;
// An account's name rather than a word of prose: a built-in or service account, a name built on one
// (`app_admin`, `svc-grafana`, `deploy-bot`), or an e-mail address.
const ACCOUNT_NAME =
  /^(?:admin\w*|administrator|root|superuser|su|sa|sysadmin|deploy(?:er)?|ci|postgres|dba|guest|operator|svc|ec2-user|ubuntu|pi|elastic|jenkins|testuser|demo|[a-z0-9]+[._-](?:admin|user|bot|svc|deploy|ro|rw)|(?:svc|admin|bot|deploy)[._-][a-z0-9._-]+|[^@]+@[^@]+)$/i;
// A label that names credentials: `Staging creds:`, `Grafana login:`, `DB account:`.
const CREDENTIAL_LABEL = /\b(?:log[ -]?ins?|sign[ -]?in|creds?|credentials?|accounts?|auth|users?|user[ _-]?names?|passwords?|passwd|pass|pwd|pw)\b/i;
// What a note's value is and a password is not: a path, a version, a key combination, CamelCase
// words joined by `-` (`TypeScript-5.4`, `Node20-LTS`), a file's name (`Settings2View.tsx`), a
// package at a version or tag (`react-hook-form@7`), an e-mail address, a setting (`SameSite=Lax`).
const NOT_A_SLASH_PASSWORD =
  /[/+]|\d\.\d|^[A-Z][A-Za-z0-9]*(?:-[A-Z0-9][A-Za-z0-9.]*)+$|^[\w-]+\.[A-Za-z]{1,4}$|^@?[\w.-]+@(?:[\^~]?\d{1,3}(?:\.[\w.-]*)?|latest|next|beta|canary|alpha|rc)$|^[\w.+-]+@[\w-]+(?:\.[\w-]+)+$|^[A-Za-z][\w.-]*=[\w.-]+$/;
// The commonest human passwords: one word and 2–4 digits (`Summer2024`, `Admin123`), or a word with
// a digit or sign for a letter (`Passw0rd`, `P@ssword`) — not a name with a digit inside
// (`Guest2Access`) or of CamelCase pieces (`PostgreSQL16`, `GitHubActions2`); review s45-4 #2.
// Digits are a year or a run from 1 — not any two (`Python39`, `Postgres16`, `Ubuntu22` are versions: review s45-9
// #6; `Winter25` is missed) — and a leet letter is 0, 1, @ or $ (`Log4shell`, `Web3auth` are names; review s45-6 #2).
// A plural and a year (`Dashboards2024`) is taken for a password too: names ending in s are passwords as often
// (`Paris2024`, `Jesus123`; review s45-8 #4).
const COMMON_PASSWORD = /^[A-Z]?[a-z]*[a-z](?:(?:19|20)\d\d|12|123|1234)[!?#$]?$|^[A-Za-z]?[a-z]*[01@$][a-z]+\d{0,4}[!?#$]?$/;

/**
 * Whether a value after a login's slash is made rather than named: it holds a character no name
 * holds (`S3cr3tP4ss!`), or letters and digits take turns four or more times inside one piece
 * between `-`, `_` or `.` (`Xk9mQ2zP`; `hotfix_v2_2024` and `k8s-prod-v2` are names), or it is one
 * of the commonest passwords (COMMON_PASSWORD) — a name with a digit (`Guest2Access`,
 * `GitHubActions2`, `Terraform2Modules`, `sudo-Enabled2`) is a note's.
 */
/** Where a login pair stands: after a label naming credentials, in a table's cell or a list's item, or neither. */
type LoginContext = 'labelled' | 'listed' | 'plain';
function madeAfterSlash(value: string, after: string, context: LoginContext): boolean {
  if (/[^A-Za-z0-9._-]/.test(value)) return true;
  // A lower-case word after it (`admin / Overview2024 dashboard`: PROSE_AFTER, as for a pass), or a table's cell or a
  // list's item (`| deploy | root / Deploy2024 |`, `Reviewers: admin, deploy-bot / Renovate2024`) make it a note's.
  if (COMMON_PASSWORD.test(value) && context !== 'listed' && !PROSE_AFTER.test(after)) return true;
  // Under a label naming credentials any word and digits is one (`Credentials: alice / correcthorse42`).
  if (context === 'labelled' && /^[A-Za-z]{3,}\d{2,4}[!?#$]?$/.test(value)) return true;
  return value.split(/[-_.]/).some((piece) => (piece.match(/[A-Za-z]+|[0-9]+/g) ?? []).length >= 4);
}
const PASSWORD_AFTER_SLASH = /(["'`]?)([^\s"'`;<>(){}[\]=:/][^\s"'`;]{5,99})\1/y;
const LOGIN_THEN_PASSWORD =
  /\b(?:user(?:[ _-]?name)?|login|uid)\b([ \t]{0,4}[:=][ \t]{0,4}|[ \t]{1,4})(["'`]?)([A-Za-z0-9][A-Za-z0-9._@+-]{0,63})\2(?:[ \t]{1,4}|[ \t]{0,4}[,;/|][ \t]{0,4})(?:and[ \t]{1,4})?(password|passwd|pass|pwd|pw)\b([ \t]{0,4}[:=][ \t]{0,4}|[ \t]{1,4})(["'`]?)([^\s"'`;<>(){}[\]=:.-][^\s"'`;]{5,99})\6/gi;

// A label before its `:`, from its clause's start (CLAUSE_START): a list marker, then a few words (`Staging creds`,
// `**Grafana**`) — no code (`out = root`) and no sentence (review s45-4 #1).
const LABEL_BEFORE_COLON = /^[ \t]{0,8}(?:(?:[-*+>]|\d{1,3}[.)])[ \t]{1,4})?(?:\*\*|__)?[A-Za-z][A-Za-z0-9 ._()-]{0,40}(?:\*\*|__)?$/;
// What may stand before a user with no `:`: a clause's start or a list marker, then up to two words
// (`Grafana admin / …`), no code (`angle = 2 * pi / …`).
const HEAD_BEFORE_USER = /^[ \t]{0,8}(?:(?:[-*+>]|\d{1,3}[.)])[ \t]{1,4})?(?:[A-Za-z][A-Za-z0-9._-]{0,30}[ \t]{1,4}){0,2}$/;
const CLAUSE_START = /[\n;,|]/;
// A sign a password holds and a path, a branch or an image seldom does (`admin/S3cr3tP4ss!`; not `#`: `admin/fix-#123`).
const PASSWORD_SIGN = /[!$%^*~]/;

/**
 * The user of `[Label[:]] user / …` ending at `end` (where the blanks before the slash start), and
 * whether its password must hold a PASSWORD_SIGN, or null. A login's shape in a credential context
 * (review s45-4 #1):
 * - after a label's `:` (LABEL_BEFORE_COLON), blanks around the slash: the user is an account's name
 *   or the label, and only the label, names credentials (`Staging creds: alice / …`);
 * - with no `:`, blanks around the slash: at a clause's start or after a list marker and up to two
 *   words, and the user is an account's name (`Grafana admin / …`);
 * - no blanks around the slash (a path's shape: `Branch: ci/bump-node-20-lts`): after a label naming
 *   credentials, or after any label when the user is an account's name and the password holds a sign.
 */
function loginBefore(text: string, end: number, spaced: boolean): { user: string; signed: boolean; loose?: boolean; context?: LoginContext } | null {
  let start = end;
  while (start > 0 && end - start < 64 && /[A-Za-z0-9._@-]/.test(text[start - 1]!)) start--;
  const user = text.slice(start, end);
  if (!LOGIN_USER.test(user) || (start > 0 && /[A-Za-z0-9._@-]/.test(text[start - 1]!))) return null;
  let before = start;
  while (before > 0 && start - before < 4 && (text[before - 1] === ' ' || text[before - 1] === '\t')) before--;
  const bold = before >= 2 && /^(?:\*\*|__)$/.test(text.slice(before - 2, before)) ? 2 : 0;
  const colon = before - bold > 0 && text[before - bold - 1] === ':';
  if (!colon && !spaced) return null;
  const headEnd = colon ? before - bold - 1 : start;
  let lineStart = headEnd;
  // A clause starts at a line's start, or after a `;`, `,` or a table's `|` (`Grafana: see the vault; Jenkins: admin / …`).
  while (lineStart > 0 && headEnd - lineStart < 60 && !CLAUSE_START.test(text[lineStart - 1]!)) lineStart--;
  const account = ACCOUNT_NAME.test(user);
  const listed: LoginContext = !colon && lineStart > 0 && /[,|]/.test(text[lineStart - 1]!) ? 'listed' : 'plain';
  // A weak context (any label or prose before an account's name): not code (`angle = 2 * pi / …`).
  const loose =
    account && spaced && !/[\w\])]\s*=\s*[\w"'([]|[{}]/.test(text.slice(Math.max(0, start - 60), start)) ? { user, signed: false, loose: true } : null;
  if (lineStart > 0 && !CLAUSE_START.test(text[lineStart - 1]!)) return loose;
  const head = text.slice(lineStart, headEnd);
  if (!colon) return account && HEAD_BEFORE_USER.test(head) ? { user, signed: false, context: listed } : loose;
  if (!LABEL_BEFORE_COLON.test(head)) return loose;
  if (CREDENTIAL_LABEL.test(head)) return { user, signed: false, context: 'labelled' };
  return account ? { user, signed: !spaced, context: listed } : null;
}

function loginPairs(text: string): RuleMatch[] {
  const found: RuleMatch[] = [];
  const judge = (
    m: RegExpMatchArray,
    user: string,
    quote: string,
    raw: string,
    made: boolean,
    signed = false,
    loose = false,
    context: LoginContext = 'plain',
  ) => {
    const password = quote === '' ? raw.replace(SENTENCE_END, '') : raw;
    if (signed && !PASSWORD_SIGN.test(password)) return;
    if (loose && !PASSWORD_SIGN.test(password) && !password.split(/[-_.]/).some((piece) => (piece.match(/[A-Za-z]+|[0-9]+/g) ?? []).length >= 4)) return;
    if (looksLikePlaceholderUrlPassword(password, user) || looksLikeReference(password) || /^\d+$/.test(password)) return;
    if (password.length < 6 || entropy(password) < 2.0 || charClasses(password) < 2) return;
    const after = text.slice(m.index! + m[0].length - raw.length + password.length, m.index! + m[0].length + 40);
    if (made && (!looksMade(password, 8) || !madeAfterSlash(password, after, context) || hashingTerm(password) || NOT_A_SLASH_PASSWORD.test(password))) return;
    const start = m.index! + m[0].length - raw.length - quote.length;
    found.push({ start, end: start + password.length });
  };
  for (const slash of text.matchAll(LOGIN_SLASH)) {
    // Blanks on both sides of the slash or on neither (`admin /x` is neither form).
    const spaced = slash[0][0] !== '/';
    if (spaced !== (slash[0].at(-1) !== '/')) continue;
    const login = loginBefore(text, slash.index, spaced);
    if (login === null) continue;
    PASSWORD_AFTER_SLASH.lastIndex = slash.index + slash[0].length;
    const m = PASSWORD_AFTER_SLASH.exec(text);
    if (m !== null) judge(m, login.user, m[1]!, m[2]!, true, login.signed, login.loose ?? false, login.context ?? 'plain');
  }
  for (const m of text.matchAll(LOGIN_THEN_PASSWORD)) {
    const bare = /^(?:pass|pw)$/i.test(m[4]!);
    // A bare pass after an account's name (`user admin pass: …`) needs its `:` only after the pass (review s45-4 #10).
    if (bare && !(/[:=]/.test(m[5]!) && (/[:=]/.test(m[1]!) || ACCOUNT_NAME.test(m[3]!)))) continue;
    // …and then lower-case pieces joined by `-` are a note's (`login guest pass: expired-2024`; review s45-6 #7).
    if (bare && !/[:=]/.test(m[1]!) && /^[a-z0-9]+(?:-[a-z0-9]+)+$/.test(m[7]!.replace(SENTENCE_END, ''))) continue;
    judge(m, m[3]!, m[6]!, m[7]!, false);
  }
  return found;
}

// A PEM private key: a `BEGIN … PRIVATE KEY` header followed by a key body is a finding with or
// without its END line (notes keep keys cut short), whatever the key type (the preset only
// accepts bodies starting "MI" or the OpenSSH magic, which misses SEC1 EC keys "MHc…" and
// encrypted keys), however the lines are prefixed: indentation, `> ` quote markers, or a JSON
// string's `\n`. Walked by hand rather than matched: the body's lines may carry any prefix.
const PEM_HEADER = /-----BEGIN ((?:[A-Z0-9]+ ){0,3})PRIVATE KEY(?: BLOCK)?-----/g;
const PEM_END = /^-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----/;
// RFC 1421 headers of an encrypted key, before the body.
const PEM_FIELD = /^[A-Za-z-]{1,30}: [^\n\\]{0,200}/;
const BASE64 = /[A-Za-z0-9+/=]/;
const MAX_PEM_BODY = 20_000;

function pemKeys(text: string): RuleMatch[] {
  const found: RuleMatch[] = [];
  for (const m of text.matchAll(PEM_HEADER)) {
    let i = m.index + m[0].length;
    let body = '';
    let end = i;
    let lineStart = true;
    while (i < text.length && body.length < MAX_PEM_BODY) {
      const ch = text[i]!;
      if (ch === '\n' || ch === '\r' || (ch === '\\' && (text[i + 1] === 'n' || text[i + 1] === 'r'))) {
        i += ch === '\\' ? 2 : 1;
        lineStart = true;
      } else if (ch === ' ' || ch === '\t' || (lineStart && ch === '>')) {
        i++;
      } else if (text.startsWith('-----END', i)) {
        const close = PEM_END.exec(text.slice(i, i + 80));
        if (close) end = i + close[0].length;
        break;
      } else if (lineStart && body === '' && PEM_FIELD.test(text.slice(i, i + 240))) {
        i += PEM_FIELD.exec(text.slice(i, i + 240))![0].length;
      } else if (BASE64.test(ch)) {
        body += ch;
        i++;
        end = i;
        lineStart = false;
      } else break;
    }
    if (body.length < 64 || looksMasked(body) || entropy(body) < 4.5) continue;
    found.push({ start: m.index, end });
  }
  return found;
}

// scheme://user:password@host — any scheme (postgres, mysql, mongodb+srv, redis, amqp, smtp, https…).
// The password may hold < and > (`<q2!vR>t`); `<password>` is a template (heuristics.ts).
// The user may be an e-mail address left unescaped (`smtp://alice@gmail.com:…@smtp.gmail.com`,
// as mail settings are written): its `@` is the user's, the last one before the host ends the password.
const URL_CREDENTIALS = /\b[a-z][a-z0-9+.-]{1,20}:\/\/((?:[^\s:@/?#'"<>]{1,64}@)?[^\s:@/?#'"<>]{0,100}):([^\s@/?#'"]{1,200})@[^\s/?#'"<>:]{1,253}/gi;
function urlCredentials(text: string): RuleMatch[] {
  const found: RuleMatch[] = [];
  for (const m of text.matchAll(URL_CREDENTIALS)) {
    const user = m[1]!;
    const password = m[2]!;
    if (looksLikePlaceholderUrlPassword(password, user)) continue;
    const start = m.index + m[0].indexOf(`:${password}@`, m[0].indexOf('://') + 3) + 1;
    found.push({ start, end: start + password.length });
  }
  return found;
}

// user:password@host with no scheme (`deploy:S3cr3tP4ss@db.internal:5432`, as scp, rsync, a
// connection setting or a note keeps it). Prose writes `a:b@c` too — `Contact:ops@example.com`,
// `mailto:x@y`, `re:lunch@noon` — so the rule asks more than the URL rule does:
// - the user starts a word (no scheme's `//`, path, address or word before it: a URL is the URL
//   rule's), holds a letter (`10:30Review@hq.example` is a time), and is no label an e-mail
//   address follows (mailto, email, contact, from, to, cc, …);
// - the host is a host name with a dot, or any name with a port (`db.internal`, `db:5432`, `10.0.0.5`),
//   and no `@` follows it (`a:b@c.d@e` is no credential);
// - the password is no placeholder (as a URL's, heuristics.ts) and looks made: 8 to 128 characters of
//   three kinds (lower, upper, digit, other), or 12 or more of two kinds with entropy ≥ 3 — but never
//   a person's name before a mail domain (`PM:Alice.Wang@corp.com`, `Mary-Jane.O-Neil2024@…`:
//   words joined by `.`, `_` or `-`, each a capital or not then lower-case letters, up to 4 digits
//   after, before a host ending in a letter domain with no port);
// - a password of only the lower-case letters, digits and `._+-` of an e-mail's local part
//   (`alice.smith2` in `Maintainer:alice.smith2@example.com`) is one only where no mailbox can be
//   meant (`mailboxImpossible`): a port or a path follows the host (`@db.internal:5432`,
//   `@backup.example.com:/data`), the host is an IPv4 address (from 10.…: `1.3.0.1` is a version)
//   or a name no public mail reaches
//   (`.internal`, `.local`, `.lan`, …) unless the password is a person's name (`alice.smith@acme.corp`),
//   or the password is letters and digits interleaved as no
//   mailbox is named (`x7kq9mzp2wlt`: five or more changes between letters and digits, 12 or more
//   characters, no separator; `user123abc456` is a mailbox); then 8 or more characters with entropy ≥ 2.5 do.
//   So does a host named for a server (`smtp.gmail.com`, `db.example.com`: no mailbox is there).
//   An all-lower-case word password before a public mail domain with no port stays missed
//   (`deploy:sunflowerfield@example.com` reads as a label and an address; session 45);
// - the user may be an e-mail address (`alice@gmail.com:…@smtp.gmail.com:587`, as mail settings are kept).
// Sticky and tried only after a `:` that has a word before it (`hostCredentials`): linear.
const HOST_CREDENTIALS =
  /((?:[A-Za-z0-9][A-Za-z0-9._%+-]{0,63}@)?[A-Za-z0-9][A-Za-z0-9._-]{0,63}):([^\s:@/?#'"`<>]{8,128})@([A-Za-z0-9][A-Za-z0-9.-]{0,252})(:[0-9]{1,5})?(?![A-Za-z0-9.@-])/y;
const EMAIL_LABEL = /^(?:mailto|e-?mail|mail|contact|from|to|cc|bcc|reply-?to|sender|author|owner|by|tel|sip|xmpp|im|re|fwd?|via|ping|dm|cc'd)$/i;
const EMAIL_LOCAL_PART = /^[a-z0-9._+-]+$/;
const NAME_LOCAL_PART = /^[A-Za-z][a-z]*(?:[._-][A-Za-z][a-z]*)+[0-9]{0,4}$/;
const MAIL_DOMAIN = /\.[A-Za-z]{2,24}$/;
// Top-level names no public mail is delivered to: private (RFC 6762, RFC 8375, ICANN's .internal) and local ones.
const NO_MAIL_TLD = /\.(?:internal|local|localdomain|localhost|lan|home|home\.arpa|intranet|corp|private)$/i;
const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)$/;
// An IPv4 address whose first part is 10 or more (the private 10/8, 172.16/12, 192.168/16 and most
// public ranges): `1.3.0.1` after a package name (`pkg:left-pad-fork@1.3.0.1`) is a version.
const ADDRESS_NOT_VERSION = /^(?:[1-9]\d|1\d\d|2[0-4]\d|25[0-5])\./;

// A host named for the service it runs (`smtp.gmail.com`, `imap.example.org`, `db2.example.com`).
const SERVER_HOST = /^(?:smtp|smtps|imap|imaps|pop|pop3|ftp|sftp|ssh|db|mysql|postgres|pg|redis|ldap|ldaps|vpn|bastion)\d{0,2}\./i;

/** Whether `password@host` (then `after`) cannot be an e-mail address, so a mailbox-shaped password is still one. */
function mailboxImpossible(password: string, host: string, port: string | undefined, after: string): boolean {
  if (port !== undefined || /^:[/~]/.test(after)) return true;
  if (IPV4.test(host) && ADDRESS_NOT_VERSION.test(host)) return true;
  // A server's own name takes no mail: no mailbox is at `smtp.gmail.com` or `db.example.com`.
  if (SERVER_HOST.test(host)) return true;
  // A person's name before a private domain is an address all the same: a company's own mail
  // lives under .corp or .local (`Maintainer:alice.smith@acme.corp`).
  if (NO_MAIL_TLD.test(host)) return !NAME_LOCAL_PART.test(password);
  // Mailboxes hold a few runs of digits (`user123abc456`): six or more turns are a made password.
  const switches = password.match(/[a-z]+|\d+/g) ?? [];
  return password.length >= 12 && /^[a-z0-9]+$/.test(password) && switches.length >= 6;
}

function hostCredentials(text: string): RuleMatch[] {
  const found: RuleMatch[] = [];
  for (let colon = text.indexOf(':'); colon !== -1; colon = text.indexOf(':', colon + 1)) {
    // The user's first character: walk back over user characters (at most 64).
    let start = colon;
    while (start > 0 && colon - start < 64 && /[A-Za-z0-9._-]/.test(text[start - 1]!)) start--;
    // A user that is an e-mail address (`alice@gmail.com:…@smtp.gmail.com:587`): its local part too.
    if (start > 1 && start < colon && text[start - 1] === '@') {
      let local = start - 1;
      while (local > 0 && start - local < 65 && /[A-Za-z0-9._%+-]/.test(text[local - 1]!)) local--;
      if (local < start - 1) start = local;
    }
    if (start === colon || (start > 0 && /[A-Za-z0-9._%+/:@\\-]/.test(text[start - 1]!))) continue;
    HOST_CREDENTIALS.lastIndex = start;
    const m = HOST_CREDENTIALS.exec(text);
    if (m === null || m.index + m[1]!.length !== colon) continue;
    const [, user, password, written, port] = m as unknown as [string, string, string, string, string | undefined];
    // A sentence's full stop after the host is none of it (`… as deploy:S3cr3tP4ss@db.internal.`).
    const host = port === undefined ? written.replace(/\.+$/, '') : written;
    if (!/[A-Za-z]/.test(user) || EMAIL_LABEL.test(user) || (!host.includes('.') && port === undefined) || host.endsWith('.')) continue;
    // A time (`@10:30`) is no host with a port: a host holds a letter or is an address.
    if (!/[A-Za-z]/.test(host) && !IPV4.test(host)) continue;
    if (looksLikePlaceholderUrlPassword(password, user)) continue;
    if (EMAIL_LOCAL_PART.test(password)) {
      if (!mailboxImpossible(password, host, port, text.slice(m.index + m[0].length, m.index + m[0].length + 2))) continue;
      if (entropy(password) < 2.5) continue;
    } else {
      if (port === undefined && NAME_LOCAL_PART.test(password) && MAIL_DOMAIN.test(host)) continue;
      if (!looksMade(password, 8)) continue;
    }
    found.push({ start: colon + 1, end: colon + 1 + password.length });
  }
  return found;
}

// A password given to a command on its command line, as notes copy the command: curl/wget/httpie's
// `-u user:password` (`--user`), mysql's `-pPASSWORD` (attached: `-p app` asks for it), sshpass's
// `-p`, docker login's `-p`, htpasswd's `-b file user password`, redis-cli's `-a`. Judged as a URL's password (heuristics.ts): `$VAR`, `<password>`, `root`
// are none. `--password X` and `--password=X` are the generic rule's. Each pattern is anchored
// on its command's name and looks at most 300 characters further on its line; htpasswd's flag word
// is bounded on both sides of its `b` and the first part cannot hold one (`-bbbb…` was quadratic).
const COMMAND_LINE_CREDENTIALS: { pattern: RegExp; user?: number; quote: number; password: number }[] = [
  {
    pattern: /\b(?:curl|wget|https?|xh)\b[^\n]{0,300}?[ \t](?:-u|--user)(?:[ \t]+|=)(["']?)([^\s:'"`]{1,64}):([^\s'"`]{1,200})\1/g,
    user: 2,
    quote: 1,
    password: 3,
  },
  { pattern: /\bmysql(?:dump|admin|sh)?\b[^\n]{0,300}?[ \t]-p(["']?)([^\s'"`-][^\s'"`]{0,199})\1/g, quote: 1, password: 2 },
  { pattern: /\bsshpass\b[^\n]{0,100}?[ \t]-p[ \t]*(["']?)([^\s'"`]{1,200})\1/g, quote: 1, password: 2 },
  { pattern: /\bdocker[ \t]+login\b[^\n]{0,300}?[ \t](?:-p|--password)(?:[ \t]+|=)(["']?)([^\s'"`]{1,200})\1/g, quote: 1, password: 2 },
  {
    pattern: /\bhtpasswd[ \t]+-[ac-zA-Z]{0,10}b[A-Za-z]{0,10}[ \t]+\S{1,300}[ \t]+(["']?)([^\s'"`]{1,64})\1[ \t]+(["']?)([^\s'"`]{1,200})\3/g,
    user: 2,
    quote: 3,
    password: 4,
  },
  { pattern: /\bredis-cli\b[^\n]{0,300}?[ \t](?:-a|--pass)[ \t]+(["']?)([^\s'"`]{1,200})\1/g, quote: 1, password: 2 },
];
function commandLineCredentials(text: string): RuleMatch[] {
  const found: RuleMatch[] = [];
  for (const { pattern, user, quote: quoted, password: group } of COMMAND_LINE_CREDENTIALS) {
    for (const m of text.matchAll(pattern)) {
      // Unquoted, a command in prose ends at the sentence or the code span: `mysql -pS3cr3t).` → S3cr3t
      const quote = m[quoted] ?? '';
      const password = quote === '' ? m[group]!.replace(/[.,;:)]+$/, '') : m[group]!;
      if (looksLikePlaceholderUrlPassword(password, user === undefined ? undefined : m[user]) || looksLikeReference(password)) continue;
      const start = m.index + m[0].length - m[group]!.length - quote.length;
      found.push({ start, end: start + password.length });
    }
  }
  return found;
}

/** Whether base64 `encoded` is of `user:password` with a real password (HTTP Basic, a registry's auth). */
function basicCredentials(encoded: string): boolean {
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 1 || !/^[\x20-\x7e]+$/.test(decoded)) return false;
  return !looksLikePlaceholderUrlPassword(decoded.slice(colon + 1), decoded.slice(0, colon));
}

/** A rule as written below: a token format with a prefix needs no other hint (its prefix is the hint). */
type RuleSpec = Omit<SecretRule, 'hint'> & ({ hint: RegExp } | { prefix: RegExp });

/**
 * A provider's token: `anchor` is its prefix (a token wrapped after it is joined back, views.ts),
 * or only a hint where what comes first is no token's start (a webhook's host, a bot's number); `pattern` finds it (its group 1, if any, is the secret,
 * as a webhook's path), and a body after the first `skip` characters that is random (not masked,
 * entropy ≥ 3) makes it one.
 */
function providerToken(id: string, title: string, anchor: { prefix: RegExp } | { hint: RegExp }, pattern: RegExp, skip: number): RuleSpec {
  return { id, title, severity: 'error', priority: 2, ...anchor, find: matches(pattern, (token) => !looksMasked(token) && randomish(3.0)(token.slice(skip))) };
}

/** Memdir's rules, most specific first. */
const RULE_SPECS: RuleSpec[] = [
  {
    // The preset's AWS access key id check (`enableIDScanRule`), run here: the option also runs
    // the preset's account-id search, whose findings are not secrets and were thrown away, and
    // which cost more than every other AWS check together (its pattern starts with optional
    // parts, so it is tried at every character of every memory). Same pattern, same example
    // left alone, reported as before; a masked id (`AKIAXXXXXXXXXXXXXXXX`) is no finding, as
    // for every preset finding (scanner.ts).
    id: 'aws-access-key-id',
    reportedAs: 'aws/AWSAccessKeyID',
    title: 'AWS credential',
    severity: 'error',
    priority: 2,
    // ABIA (STS service bearer) and ACCA (context-specific) ids too, as Claude Code refuses them.
    prefix: /A3T[A-Z0-9]|AKIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ASIA|ABIA|ACCA/,
    find: matches(
      /\b(?:A3T[A-Z0-9]|AKIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b/g,
      (id) => id !== 'AKIAIOSFODNN7EXAMPLE' && !looksMasked(id),
    ),
  },
  {
    id: 'anthropic-key',
    title: 'Anthropic key (API, admin or OAuth)',
    severity: 'error',
    priority: 2,
    // api03 (API), admin01 (Admin API), oat01/ort01 (OAuth access/refresh), and kinds to come.
    prefix: ANTHROPIC_KEY_PREFIX,
    find: matches(ANTHROPIC_KEY, (key) => randomish(3.5)(key.replace(ANTHROPIC_KEY_KIND, ''))),
  },
  {
    id: 'google-api-key',
    title: 'Google API key',
    severity: 'error',
    priority: 2,
    prefix: /AIza/,
    find: matches(/(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])/g, randomish(3.5)),
  },
  {
    id: 'jwt',
    title: 'JSON Web Token',
    severity: 'error',
    priority: 2,
    hint: /eyJ/,
    find: matches(/(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,2000}\.eyJ[A-Za-z0-9_-]{8,20000}\.[A-Za-z0-9_-]{0,2000}(?![A-Za-z0-9_-])/g, (token) => {
      const header = base64urlJson(token.slice(0, token.indexOf('.')));
      return typeof header === 'object' && header !== null && 'alg' in header;
    }),
  },
  {
    id: 'stripe-key',
    title: 'Stripe secret or restricted key',
    severity: 'error',
    priority: 2,
    prefix: /[sr]k_(?:live|test|prod)_/,
    find: matches(/(?<![A-Za-z0-9_])(?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{10,247}(?![A-Za-z0-9_])/g, (key) =>
      randomish(3.0)(key.slice(key.indexOf('_', 3) + 1)),
    ),
  },
  {
    id: 'twilio-api-key',
    title: 'Twilio API key',
    severity: 'error',
    priority: 2,
    hint: /SK[0-9a-fA-F]/,
    find: matches(/(?<![A-Za-z0-9])SK[0-9a-fA-F]{32}(?![A-Za-z0-9])/g, (key) => randomish(3.0)(key.slice(2))),
  },
  {
    id: 'mailgun-key',
    title: 'Mailgun API key',
    severity: 'error',
    priority: 2,
    hint: /key-/,
    find: matches(/(?<![A-Za-z0-9_-])key-[0-9a-zA-Z]{32}(?![A-Za-z0-9_-])/g, (key) => charClasses(key.slice(4)) >= 2 && randomish(3.0)(key.slice(4))),
  },
  {
    id: 'pypi-token',
    title: 'PyPI upload token',
    severity: 'error',
    priority: 2,
    prefix: /pypi-/,
    find: matches(/(?<![A-Za-z0-9_-])pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,1000}(?![A-Za-z0-9_-])/g),
  },
  {
    id: 'digitalocean-token',
    title: 'DigitalOcean token',
    severity: 'error',
    priority: 2,
    prefix: /do[opr]_v1_/,
    find: matches(/(?<![A-Za-z0-9_])do[opr]_v1_[a-f0-9]{64}(?![A-Za-z0-9_])/g, (key) => randomish(3.0)(key.slice(7))),
  },
  {
    id: 'gitlab-token',
    title: 'GitLab token',
    severity: 'error',
    priority: 2,
    prefix: /gl(?:dt|rt|ptt|ft|soat|cbt|oas|imt|agent|ffct)-|GR1348941/,
    find: matches(
      /(?<![A-Za-z0-9_-])(?:(?:gldt|glrt|glptt|glft|glsoat|glcbt|gloas|glimt|glagent|glffct)-[A-Za-z0-9_-]{20,200}|GR1348941[A-Za-z0-9_-]{20,200})(?![A-Za-z0-9_-])/g,
      randomish(3.0),
    ),
  },
  {
    id: 'openai-key',
    title: 'OpenAI API key',
    severity: 'error',
    priority: 2,
    // The preset ends its pattern with \b, so a key whose last character is "-" slips through.
    // A legacy key is sk- and 48 letters and digits, with or without the T3BlbkFJ marker.
    hint: /T3BlbkFJ|sk-[A-Za-z0-9]{48}/,
    prefix: /sk-(?:proj|svcacct|admin)-/,
    find: matches(
      /(?<![A-Za-z0-9_-])sk-(?:(?:proj|svcacct|admin)-)?[A-Za-z0-9_-]{20,200}T3BlbkFJ[A-Za-z0-9_-]{20,200}(?![A-Za-z0-9_-])|(?<![A-Za-z0-9_])sk-[A-Za-z0-9]{48}(?![A-Za-z0-9])/g,
      (key) => !looksMasked(key) && (key.includes('T3BlbkFJ') || randomish(3.5)(key.slice(3))),
    ),
  },
  {
    id: 'sendgrid-key',
    title: 'SendGrid API key',
    severity: 'error',
    priority: 2,
    // The preset's pattern allows a single dash, but both base64url parts may hold several.
    prefix: /SG\./,
    find: matches(/(?<![A-Za-z0-9_-])SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g, (key) => randomish(3.5)(key.slice(3))),
  },
  // Tokens Claude Code 2.1.332 refuses to write into team memory and leaves out of its sync
  // that neither the preset nor the rules above saw (its rule table, read from the binary:
  // test/fixtures/claude-code/secret-rules-2.1.332.json). Each is at least as broad as the
  // client's pattern, so nothing the client holds back is uploaded by Memdir.
  {
    id: 'google-oauth-client-secret',
    title: 'Google OAuth client secret',
    severity: 'error',
    priority: 2,
    prefix: /GOCSPX-/,
    find: matches(/(?<![A-Za-z0-9_])GOCSPX-[A-Za-z0-9_-]{28}(?![A-Za-z0-9_-])/g, (key) => randomish(3.5)(key.slice(7))),
  },
  {
    id: 'azure-ad-client-secret',
    title: 'Azure AD client secret',
    severity: 'error',
    priority: 2,
    hint: /\dQ~/,
    find: matches(/(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])/g, randomish(3.5)),
  },
  {
    id: 'supabase-key',
    title: 'Supabase secret key or access token',
    severity: 'error',
    priority: 2,
    prefix: /sb_secret_|sbp_/,
    find: matches(/(?<![A-Za-z0-9_])(?:sb_secret_[A-Za-z0-9_-]{20,1000}(?![A-Za-z0-9_-])|sbp_[a-z0-9]{40,1000}(?![a-z0-9]))/g, (key) =>
      randomish(3.0)(key.slice(key.indexOf('_', 3) + 1)),
    ),
  },
  {
    id: 'slack-token',
    title: 'Slack rotating or workflow token',
    severity: 'error',
    priority: 2,
    // The preset knows xoxb/xoxp/xoxa/xapp tokens and webhooks, not refresh-rotated or workflow ones.
    prefix: /xoxe|xwfp-/,
    find: matches(/(?<![A-Za-z0-9_])(?:xoxe(?:\.xox[a-z])?-\d-[A-Za-z0-9-]{28,1000}|xwfp-[A-Za-z0-9-]{20,1000})(?![A-Za-z0-9-])/g, (key) =>
      randomish(3.5)(key.slice(key.lastIndexOf('-', 16) + 1)),
    ),
  },
  {
    id: 'slack-workflow-webhook',
    title: 'Slack workflow or trigger webhook',
    severity: 'error',
    priority: 2,
    // The preset knows /services/ webhooks; a Workflow Builder one is as good a key. The secret is the path.
    hint: /hooks\.slack\.com\/(?:workflows|triggers)\//i,
    find: matches(/hooks\.slack\.com\/(?:workflows|triggers)\/([A-Za-z0-9+/_-]{40,1000})/gi, (path) => randomish(3.5)(path)),
  },
  {
    id: 'terraform-cloud-token',
    title: 'Terraform Cloud / HashiCorp API token',
    severity: 'error',
    priority: 2,
    hint: /\.atlasv1\./,
    find: matches(/(?<![A-Za-z0-9])[A-Za-z0-9]{14,100}\.atlasv1\.[A-Za-z0-9_=-]{60,1000}(?![A-Za-z0-9_=-])/g, (key) =>
      randomish(3.5)(key.slice(key.lastIndexOf('.') + 1)),
    ),
  },
  {
    id: 'pulumi-token',
    title: 'Pulumi access token',
    severity: 'error',
    priority: 2,
    prefix: /pul-/,
    find: matches(/(?<![A-Za-z0-9_])pul-[a-f0-9]{40}(?![A-Za-z0-9_-])/g, (key) => randomish(3.0)(key.slice(4))),
  },
  {
    id: 'postman-key',
    title: 'Postman API key',
    severity: 'error',
    priority: 2,
    prefix: /PMAK-/,
    find: matches(/(?<![A-Za-z0-9_])PMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34}(?![A-Za-z0-9_-])/g, (key) => randomish(3.0)(key.slice(5))),
  },
  {
    id: 'grafana-api-key',
    title: 'Grafana API key',
    severity: 'error',
    priority: 2,
    // Base64 of {"k":"…","n":"…","id":…}; the preset knows only Grafana's glc_ and glsa_ tokens.
    hint: /eyJrIjoi/,
    find: matches(/(?<![A-Za-z0-9_])eyJrIjoi[A-Za-z0-9+/]{70,400}={0,3}(?![A-Za-z0-9+/=])/g, (key) => randomish(3.5)(key.slice(8))),
  },
  {
    id: 'sentry-token',
    title: 'Sentry auth token',
    severity: 'error',
    priority: 2,
    // User tokens, and organisation tokens: base64 of {"iat":…,"region_url":…}, then a secret.
    prefix: /sntry[us]_/,
    find: matches(
      /(?<![A-Za-z0-9_])(?:sntryu_[a-f0-9]{64}(?![A-Za-z0-9_-])|sntrys_eyJpYXQiO[A-Za-z0-9+/]{10,200}(?:LCJyZWdpb25fdXJs|InJlZ2lvbl91cmwi|cmVnaW9uX3VybCI6)[A-Za-z0-9+/]{10,200}={0,2}_[A-Za-z0-9+/]{43})/g,
      (key) => randomish(3.0)(key.slice(7)),
    ),
  },
  // Tokens of providers a Claude Code user keeps that neither the preset nor Claude Code's table
  // knows, each anchored on its prefix (gitleaks' public rules and the providers' documentation;
  // session 44). Amazon Bedrock's long-lived key is what Claude Code on Bedrock reads from
  // AWS_BEARER_TOKEN_BEDROCK.
  providerToken(
    'aws-bedrock-api-key',
    'Amazon Bedrock API key',
    { prefix: /ABSK/ },
    /(?<![A-Za-z0-9+/])ABSK[A-Za-z0-9+/]{109,269}={0,2}(?![A-Za-z0-9+/=])/g,
    4,
  ),
  providerToken('openrouter-key', 'OpenRouter API key', { prefix: /sk-or-v1-/ }, /(?<![A-Za-z0-9_-])sk-or-v1-[a-f0-9]{64}(?![A-Za-z0-9_-])/g, 9),
  providerToken('xai-key', 'xAI API key', { prefix: /xai-/ }, /(?<![A-Za-z0-9_-])xai-[A-Za-z0-9]{80}(?![A-Za-z0-9_-])/g, 4),
  providerToken('perplexity-key', 'Perplexity API key', { prefix: /pplx-/ }, /(?<![A-Za-z0-9_-])pplx-[A-Za-z0-9]{48}(?![A-Za-z0-9_-])/g, 5),
  providerToken('replicate-token', 'Replicate API token', { prefix: /r8_/ }, /(?<![A-Za-z0-9_-])r8_[A-Za-z0-9]{37}(?![A-Za-z0-9_-])/g, 3),
  providerToken('langsmith-key', 'LangSmith API key', { prefix: /lsv2_/ }, /(?<![A-Za-z0-9_-])lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}(?![A-Za-z0-9_-])/g, 8),
  providerToken(
    'stripe-webhook-secret',
    'Stripe webhook signing secret',
    { prefix: /whsec_/ },
    /(?<![A-Za-z0-9_])whsec_[A-Za-z0-9+/]{32,100}={0,2}(?![A-Za-z0-9+/=])/g,
    6,
  ),
  providerToken(
    'discord-webhook',
    'Discord webhook',
    { hint: /discord(?:app)?\.com\/api\/webhooks\// },
    /(?:discord|discordapp)\.com\/api\/webhooks\/\d{17,20}\/([A-Za-z0-9_-]{60,80})(?![A-Za-z0-9_-])/g,
    0,
  ),
  providerToken('telegram-bot-token', 'Telegram bot token', { hint: /:AA/ }, /(?<![A-Za-z0-9_:-])\d{8,10}:(AA[A-Za-z0-9_-]{33})(?![A-Za-z0-9_-])/g, 2),
  providerToken('age-secret-key', 'age secret key', { prefix: /AGE-SECRET-KEY-1/ }, /AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}(?![A-Z0-9])/g, 16),
  providerToken('atlassian-token', 'Atlassian API token', { prefix: /ATATT3/ }, /(?<![A-Za-z0-9_=-])ATATT3[A-Za-z0-9_=-]{186}(?![A-Za-z0-9_=-])/g, 6),
  providerToken(
    'flyio-token',
    'Fly.io token',
    { prefix: /fo1_|fm[12][ar]?_/ },
    /(?<![A-Za-z0-9_])(?:fo1_[A-Za-z0-9_-]{43}|fm1[ar]_[A-Za-z0-9+/]{100,2000}={0,3}|fm2_[A-Za-z0-9+/]{100,2000}={0,3})(?![A-Za-z0-9+/=_-])/g,
    4,
  ),
  providerToken(
    'planetscale-token',
    'PlanetScale token or password',
    { prefix: /pscale_(?:tkn|oauth|pw)_/ },
    /(?<![A-Za-z0-9_])pscale_(?:tkn|oauth|pw)_[A-Za-z0-9_=.-]{32,64}(?![A-Za-z0-9_=.-])/g,
    10,
  ),
  {
    id: 'private-key',
    title: 'Private key',
    severity: 'error',
    priority: 2,
    hint: /PRIVATE KEY/,
    find: pemKeys,
  },
  {
    id: 'memdir-token',
    title: 'Memdir team sync token',
    severity: 'error',
    priority: 2,
    prefix: /mdt_/,
    find: matches(/(?<![A-Za-z0-9_-])mdt_[0-9a-f]{16}_[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g),
  },
  {
    id: 'url-credentials',
    title: 'Password in a URL or connection string',
    severity: 'error',
    priority: 1,
    hint: /:\/\/[^\s]*@/,
    find: urlCredentials,
  },
  {
    id: 'host-credentials',
    title: 'Password before a host (user:password@host)',
    severity: 'error',
    priority: 1,
    hint: /:[^\s:@]{8,128}@/,
    find: hostCredentials,
  },
  {
    id: 'pgpass-line',
    title: 'Password in a .pgpass line (host:port:database:user:password)',
    severity: 'error',
    priority: 1,
    hint: /:(?:\d{1,5}|\*):/,
    find: pgpassLines,
  },
  {
    id: 'login-pair',
    title: 'Login and password written together (user / password)',
    severity: 'warning',
    // Below the generic rule: a password it reports after the word (`login admin password …`) stays its.
    priority: -1,
    hint: /\/|user|login|uid/i,
    find: loginPairs,
  },
  {
    id: 'command-line-credentials',
    title: 'Password on a command line (curl -u, mysql -p, sshpass, docker login -p, htpasswd -b, redis-cli -a)',
    severity: 'error',
    priority: 1,
    hint: /[ \t](?:-u|--user|-p|-a|--pass)|htpasswd/,
    find: commandLineCredentials,
  },
  {
    id: 'bearer-token',
    title: 'Bearer token',
    severity: 'warning',
    priority: 0,
    hint: /Bearer/,
    find: matches(BEARER_TOKEN, (token) => !looksLikePlaceholder(token) && entropy(token) >= 3.5 && charClasses(token) >= 2),
  },
  {
    // HTTP Basic credentials: base64 of `user:password`, judged by its password as a URL's is.
    id: 'basic-auth',
    title: 'HTTP Basic credentials',
    severity: 'warning',
    priority: 0,
    // And the same under a registry's auth name: Docker's config.json `"auth": "…"`, .npmrc's `_auth=…`.
    hint: /Basic|_auth|"auth"/,
    find: matches(/(?:\bBasic[ \t]+|"auth"[ \t]*:[ \t]*"|(?<![A-Za-z0-9])_auth[ \t]*=[ \t]*["']?)([A-Za-z0-9+/]{8,2000}={0,2})(?![A-Za-z0-9+/=])/g, (encoded) =>
      basicCredentials(encoded),
    ),
  },
  {
    id: 'generic-assignment',
    title: 'Credential assigned in text (password = …, api_key: …)',
    severity: 'warning',
    priority: 0,
    hint: /pass|pw|secret|token|key|credential|密码|密碼|口令/i,
    find: (text) => [...genericAssignments(text), ...passwordProse(text)],
  },
];

/** Memdir's rules, most specific first. */
export const SECRET_RULES: SecretRule[] = RULE_SPECS.map((r) => ({ ...r, hint: 'hint' in r ? r.hint : r.prefix }));

/**
 * The formats of @secretlint/secretlint-rule-preset-recommend that Memdir's findings name (a
 * finding's rule is `<family>/…`): what each is called for people (the preset's own messages
 * embed the raw secret, so they are never shown), and, for a token format, what every token of it
 * starts with (see {@link SecretRule.prefix}). The preset's patterns stay in the preset.
 */
export const PRESET_FORMATS: readonly { family: string; title: string; prefix?: RegExp }[] = [
  { family: 'aws', title: 'AWS credential' },
  { family: 'gcp', title: 'Google Cloud service account key' },
  { family: 'npm', title: 'npm token', prefix: /npm_/ },
  { family: 'slack', title: 'Slack token or webhook', prefix: /xox[abeoprs]-|xapp-/ },
  { family: 'basicauth', title: 'Password in a URL' },
  { family: 'openai', title: 'OpenAI API key', prefix: /sk-(?:proj|svcacct|admin)-/ },
  { family: 'anthropic', title: 'Anthropic API key', prefix: ANTHROPIC_KEY_PREFIX },
  { family: 'groq', title: 'Groq API key' },
  { family: 'huggingface', title: 'Hugging Face token', prefix: /hf_/ },
  { family: 'linear', title: 'Linear API key', prefix: /lin_api_/ },
  { family: 'notion', title: 'Notion token' },
  { family: 'privatekey', title: 'Private key' },
  { family: 'sendgrid', title: 'SendGrid API key' },
  { family: 'shopify', title: 'Shopify token', prefix: /shp(?:at|ss)_/ },
  { family: 'github', title: 'GitHub token', prefix: /gh[pousr]_|github_pat_/ },
  { family: 'gitlab', title: 'GitLab token', prefix: /glpat-/ },
  { family: 'grafana', title: 'Grafana token' },
  { family: '1password', title: '1Password service account token' },
  { family: 'database-connection-string', title: 'Password in a database connection string' },
  { family: 'hashicorp-vault', title: 'HashiCorp Vault token', prefix: /hvs\./ },
  { family: 'vercel', title: 'Vercel token' },
  { family: 'databricks', title: 'Databricks token', prefix: /dapi/ },
  { family: 'docker', title: 'Docker Hub token' },
  { family: 'figma', title: 'Figma token' },
];

/** Every token prefix the rules hold (Memdir's and the preset's), as one pattern's source: `(?:ghp_|…)`. */
export const TOKEN_PREFIX_SOURCE = `(?:${[...SECRET_RULES, ...PRESET_FORMATS].flatMap((r) => (r.prefix ? [r.prefix.source] : [])).join('|')})`;

// The hints without flags in one pattern: most memories hold none of them, and one pass over a
// memory costs about what one hint's pass does, against sixteen. (The generic rule's hint, case
// blind, passes in half of them: it is tested on its own.)
const PLAIN_HINTS = new RegExp(
  SECRET_RULES.filter((r) => r.hint.flags === '')
    .map((r) => `(?:${r.hint.source})`)
    .join('|'),
);

/** The rules whose hint `text` passes: the only ones whose `find` can report anything in it. */
export function rulesToRun(text: string): SecretRule[] {
  const plain = PLAIN_HINTS.test(text);
  return SECRET_RULES.filter((r) => (r.hint.flags === '' ? plain : true) && r.hint.test(text));
}
