/**
 * One error model (issue 17, item 3): every refusal or failure Memdir explains to a person is a
 * {@link MemdirError} with a stable `code`, a human `message`, an optional `hint` (what to do
 * about it) and an optional `cause`. Each module's error classes extend it and keep their own
 * names and fields; what a code means to the app (the transport's error code) and to the CLI
 * (its exit code and how the line is printed) is said once, in {@link ERROR_TABLE}. The
 * dispatcher and the CLI both read the table, so a lock timeout reaches the app as `busy` and the
 * terminal as one line with exit 2, whichever module threw it.
 */
import type { RpcErrorCode } from './contract/define.js';

/** The CLI's exit codes (src/cli/command.ts EXIT_CODES_HELP says what each means): 0 done, 1 not all done, 2 usage or I/O error. */
export const EXIT_OK = 0;
export const EXIT_PROBLEMS = 1;
export const EXIT_ERROR = 2;

/** What one code means at each edge. */
export interface ErrorMapping {
  /** The error code `dispatch` returns to the renderer. */
  rpc: RpcErrorCode;
  /** The CLI's exit code. */
  exit: typeof EXIT_ERROR;
  /** How the CLI prints it: `line` is `memdir <command>: <message>`; `usage` adds "Run `memdir <command> --help`." */
  print: 'line' | 'usage';
}

const fails = (rpc: RpcErrorCode, print: ErrorMapping['print'] = 'line'): ErrorMapping => ({ rpc, exit: EXIT_ERROR, print });

/**
 * Every code a MemdirError may carry, and what it becomes in the app and in the CLI. A code is a
 * meaning, not a module: `busy` is the same refusal whether a job, an extraction, the memory dir
 * lock or a dream is the one already running. Adding a code here is the only way to declare one
 * (the type below is this table's keys); errors.test.ts throws every one through both edges.
 */
export const ERROR_TABLE = {
  // Refusals of what was asked.
  'invalid-input': fails('invalid-input'),
  'invalid-name': fails('invalid-name'),
  'invalid-file': fails('invalid-input'),
  'bad-revision': fails('invalid-input'),
  'bad-archive': fails('invalid-input'),
  'project-dir-unusable': fails('invalid-input'),
  'not-a-file': fails('invalid-input'),
  'needs-acknowledgement': fails('invalid-input'),
  'secret-found': fails('invalid-input'),
  'not-personal': fails('invalid-input'),
  'no-identity': fails('invalid-input'),
  'weak-passphrase': fails('invalid-input'),
  'scope-refused': fails('scope-refused'),
  'unsafe-path': fails('unsafe-path'),
  usage: fails('invalid-input', 'usage'),
  // Something named that is not there.
  'not-found': fails('not-found'),
  'project-not-found': fails('not-found'),
  'transcript-not-found': fails('not-found'),
  'not-connected': fails('not-found'),
  exists: fails('exists'),
  // Changed by someone else since it was read.
  conflict: fails('conflict'),
  'bad-record': fails('conflict'),
  // Someone else holds it a moment.
  busy: fails('busy'),
  'lock-lost': fails('busy'),
  'rate-limited': fails('busy'),
  // Credentials.
  unauthorized: fails('unauthorized'),
  revoked: fails('unauthorized'),
  'no-key': fails('unauthorized'),
  'wrong-passphrase': fails('unauthorized'),
  // Cannot be done now: the network, a server, a model, the disk.
  unavailable: fails('unavailable'),
  network: fails('unavailable'),
  timeout: fails('unavailable'),
  cancelled: fails('unavailable'),
  'too-large': fails('unavailable'),
  'bad-response': fails('unavailable'),
  redirect: fails('unavailable'),
  server: fails('unavailable'),
  stale: fails('unavailable'),
  'team-full': fails('unavailable'),
  'key-mismatch': fails('unavailable'),
  'model-failed': fails('unavailable'),
  'bad-model-answer': fails('unavailable'),
  'permission-denied': fails('unavailable'),
  'io-failed': fails('unavailable'),
  'credentials-unusable': fails('unavailable'),
  'git-missing': fails('unavailable'),
  failed: fails('unavailable'),
  // Memdir's own tooling failed in a way it could still put in words.
  'git-failed': fails('internal'),
} as const satisfies Record<string, ErrorMapping>;

/** The stable codes: the keys of {@link ERROR_TABLE}, nothing else. */
export type MemdirErrorCode = keyof typeof ERROR_TABLE;

/** Options every MemdirError takes besides its code and message. */
export interface MemdirErrorOptions {
  /** What the person can do about it, one sentence. */
  hint?: string;
  /** The error behind this one (logged, never shown as is). */
  cause?: unknown;
  /**
   * The input that overrules this refusal, by its contract name (`allowHttp`, `force`,
   * `overwriteChanged`): the CLI names its flag (`--allow-http`) whenever the message does not.
   */
  overruledBy?: string;
}

/** The base of every error Memdir explains to a person. See the file comment. */
export class MemdirError<C extends MemdirErrorCode = MemdirErrorCode> extends Error {
  override name = 'MemdirError';
  readonly code: C;
  readonly hint?: string;
  readonly overruledBy?: string;
  constructor(code: C, message: string, options: MemdirErrorOptions = {}) {
    super(message, options.cause !== undefined ? { cause: options.cause } : undefined);
    this.code = code;
    if (options.hint !== undefined) this.hint = options.hint;
    if (options.overruledBy !== undefined) this.overruledBy = options.overruledBy;
  }
}

/** What `code` means at the edges; throws for a code the table does not know (a bug errors.test.ts catches first). */
export function errorMapping(code: string): ErrorMapping {
  const mapping = Object.hasOwn(ERROR_TABLE, code) ? (ERROR_TABLE as Record<string, ErrorMapping>)[code] : undefined;
  if (!mapping) throw new Error(`No entry in ERROR_TABLE for error code "${code}".`);
  return mapping;
}

/**
 * A message as one line: the CLI prints one line per message. Only line feeds are joined (with
 * the spaces and tabs around them); every other control character stays for the terminal-safe
 * output to show as `\uXXXX` (a carriage return in a server's answer is shown, not obeyed).
 */
export function oneLine(text: string): string {
  return text.replace(/[ \t]*\n[ \t]*/g, ' ');
}
