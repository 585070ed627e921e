/**
 * Why a file, a connection or a database could not be used, in words a person reads — never
 * the error code (`ENOENT`, `ECONNREFUSED`) or the library's text (`fetch failed`, `unable to
 * open database file`). The one place these are worded: the CLI, the app's dispatcher, the team
 * client and every reader that explains a failure ask here (issue: every refusal a true
 * sentence). Pure: it only reads the `code`, `cause` and `errors` an error carries.
 */

/** What each code means, as a clause that follows a colon or sits in parentheses ("it" is the thing used). */
const WORDS: Record<string, string> = {
  ENOENT: 'it does not exist',
  ENOTDIR: 'a part of its path is a file, not a folder',
  EISDIR: 'it is a folder, not a file',
  EEXIST: 'something already exists there',
  ENOTEMPTY: 'the folder is not empty',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the disk is read-only',
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
  EMFILE: 'too many files are open',
  ENFILE: 'too many files are open',
  ELOOP: 'its path is a loop of symbolic links',
  ENAMETOOLONG: 'its name is too long',
  EBUSY: 'another program is using it',
  EXDEV: 'it is on another disk',
  EIO: 'the disk could not be read or written',
  ECONNREFUSED: 'nothing is listening there (the connection was refused)',
  ECONNRESET: 'the connection was reset',
  EPIPE: 'the connection was closed',
  UND_ERR_SOCKET: 'the connection was closed',
  ECONNABORTED: 'the connection was closed',
  ETIMEDOUT: 'the connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'the connection timed out',
  UND_ERR_HEADERS_TIMEOUT: 'it stopped answering',
  UND_ERR_BODY_TIMEOUT: 'it stopped answering',
  ENOTFOUND: 'its host name is not known',
  EAI_AGAIN: 'its host name could not be looked up (is the network up?)',
  EHOSTUNREACH: 'its host cannot be reached',
  ENETUNREACH: 'the network cannot be reached',
  EADDRINUSE: 'another program already uses that address and port',
  EADDRNOTAVAIL: 'that address is not one of this machine’s',
  SQLITE_CANTOPEN: 'the database file cannot be opened',
  SQLITE_NOTADB: 'it is not a database',
  SQLITE_CORRUPT: 'the database is damaged',
  SQLITE_READONLY: 'the database is read-only',
  SQLITE_BUSY: 'another program holds the database',
  SQLITE_LOCKED: 'another program holds the database',
  SQLITE_FULL: 'the disk is full',
  SQLITE_IOERR: 'the disk could not be read or written',
  SQLITE_PERM: 'permission denied',
};

/** Library messages that stand for a code (fetch says "bad port" for a port it will not use). */
const MESSAGES: [RegExp, string][] = [
  [/^bad port$/, 'its port is one Node refuses to connect to (pick another)'],
  [/^unable to open database file$/, 'the database file cannot be opened'],
  [/^file is not a database$/, 'it is not a database'],
  [/^terminated$/, 'the connection was closed'],
];

interface ErrorLike {
  code?: unknown;
  message?: unknown;
  cause?: unknown;
  errors?: unknown;
}

function codeOf(error: ErrorLike): string | undefined {
  return typeof error.code === 'string' ? error.code : undefined;
}

/** The error that says why: fetch's `TypeError('fetch failed')` has it in `cause`; a refused `localhost` in `errors`. */
function innermost(error: unknown): ErrorLike | null {
  let current = error as ErrorLike | null;
  for (let depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
    const code = codeOf(current);
    if (code && (WORDS[code] || isCertificate(code))) return current;
    if (current.cause && typeof current.cause === 'object') current = current.cause as ErrorLike;
    else if (Array.isArray(current.errors) && current.errors[0] && typeof current.errors[0] === 'object') current = current.errors[0] as ErrorLike;
    else return current;
  }
  return current && typeof current === 'object' ? current : null;
}

function isCertificate(code: string): boolean {
  return /^(CERT_|ERR_TLS_CERT|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED|SELF_SIGNED_CERT|ERR_SSL_)/.test(code);
}

/**
 * Why `error` happened, as a lower-case clause with no final period: `it is a folder, not a file`,
 * `nothing is listening there (the connection was refused)`. For a code it does not know, the
 * library's own first line without the code in front of it.
 */
export function failureWords(error: unknown): string {
  const inner = innermost(error);
  const code = inner ? codeOf(inner) : undefined;
  // A name that could not be looked up is said, as the person may have it wrong (or a proxy in the way).
  const hostname = inner && typeof (inner as { hostname?: unknown }).hostname === 'string' ? (inner as { hostname: string }).hostname : '';
  if ((code === 'ENOTFOUND' || code === 'EAI_AGAIN') && hostname !== '') return WORDS[code]!.replace('its host name', `its host name ${hostname}`);
  if (code && WORDS[code]) return WORDS[code];
  if (code && /^SQLITE_IOERR/.test(code)) return WORDS.SQLITE_IOERR!;
  if (code && isCertificate(code)) return 'its TLS certificate is not trusted (expired, self-signed or for another name)';
  const message = inner && typeof inner.message === 'string' ? inner.message : error instanceof Error ? error.message : String(error);
  const first = (message.split('\n')[0] ?? '').trim();
  for (const [pattern, words] of MESSAGES) if (pattern.test(first)) return words;
  // `EFOO: something happened, open '/x'`: the words without the code and the call.
  const bare = first
    .replace(/^[A-Z][A-Z0-9_]+:\s*/, '')
    .replace(/, \w+ '.*'$/, '')
    .trim();
  return bare === '' || bare === 'fetch failed' ? 'it failed for a reason the system did not say' : bare.charAt(0).toLowerCase() + bare.slice(1);
}

/** failureWords for an error whose code (down its causes) is one known here; null for any other — a caller with its own words for the rest. */
export function knownFailureWords(error: unknown): string | null {
  const code = codeOf(innermost(error) ?? {});
  return code && (WORDS[code] || /^SQLITE_IOERR/.test(code) || isCertificate(code)) ? failureWords(error) : null;
}

/** The path a Node file-system error is about, when it names one. */
export function failurePath(error: unknown): string | undefined {
  const p = (error as { path?: unknown } | null)?.path;
  return typeof p === 'string' ? p : undefined;
}

/**
 * An error that is not a MemdirError, as the one line an edge shows (the CLI's `memdir x: …`, the
 * app's error): a system or connection failure in words, with the path it is about (`/x/a.tar:
 * it is a folder, not a file`); any other error's first line as it is (Memdir's own bug, to report).
 */
export function failureSentence(error: unknown): string {
  const hasCode = typeof (error as ErrorLike | null)?.code === 'string' || (error instanceof Error && error.cause !== undefined);
  if (!hasCode) return (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
  const where = failurePath(error);
  return where ? `${where}: ${failureWords(error)}` : failureWords(error);
}

/**
 * A sentence about `subject` (a file, a folder) followed by why `error` happened: the one place an
 * outer sentence takes in an inner one. The inner sentence's own naming of the same subject is not
 * said twice — "Could not write team/x.md: the disk … is full", never "Could not write team/x.md:
 * Cannot write team/x.md: the disk … is full" — and a bare system error is said in words
 * (failureWords), never `EACCES: permission denied, symlink '…'`. No final full stop is added.
 */
export function withReason(outer: string, subject: string, error: unknown): string {
  const message = ((error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '').trim();
  if (/^E[A-Z]+:/.test(message) || message === '') return `${outer}: ${failureWords(error)}`;
  // "Cannot write team/x.md: why", "Could not read x.md: why": only the why, when it names the same subject.
  const named = /^(?:Cannot|Could not|Can't) [a-z]+ (.+?): (.+)$/s.exec(message);
  const same = named && (named[1] === subject || subject.endsWith(`/${named[1]}`) || named[1]!.endsWith(`/${subject}`));
  return `${outer}: ${same ? named[2] : message}`;
}

/**
 * Why `text` is not JSON, as a person counts (`it is not valid JSON (line 2, column 5)`), never
 * the parser's own wording; `error` is what JSON.parse threw.
 */
export function notJsonWords(text: string, error: unknown): string {
  const message = error instanceof Error ? error.message : '';
  const at = /position (\d+)/.exec(message);
  if (!at) return /end of JSON input/.test(message) ? 'it is not valid JSON (it ends too early)' : 'it is not valid JSON';
  const before = text.slice(0, Number(at[1]));
  return `it is not valid JSON (line ${before.split('\n').length}, column ${before.length - before.lastIndexOf('\n')})`;
}
