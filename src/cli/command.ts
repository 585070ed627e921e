/**
 * The shape of a `memdir` sub-command. Each lives in commands/<name>.ts and is listed in
 * registry.ts; `--help` text is generated from these declarations, so it cannot drift.
 */
import { EXIT_ERROR, EXIT_OK, EXIT_PROBLEMS, MemdirError, type MemdirErrorOptions } from '../shared/errors.js';

export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdin?: NodeJS.ReadableStream;
}

export interface OptionSpec {
  type: 'string' | 'boolean';
  /** A string option that may be given several times. */
  multiple?: boolean;
  description: string;
  /** Shown in usage, e.g. H for --home H. */
  valueName?: string;
  /** The command cannot run without it: refused before it runs, unbracketed in usage, "(required)" in --help. */
  required?: true;
}

export interface CommandSpec {
  /** Words after `memdir`, e.g. ['dream', 'status']. */
  name: string[];
  summary: string;
  /** Positional arguments as shown in usage, e.g. ['<project>', '[file]']. */
  args: string[];
  options: Record<string, OptionSpec>;
  /** The command answers Ctrl-C and SIGTERM itself (a dream cancels, the server stops gracefully), not as interrupt.ts does. */
  ownInterrupt?: true;
  /**
   * What a Ctrl-C that stops the command keeps, in a sentence interrupt.ts adds to its own (a
   * command that waits on a model stops that wait at once: which of its work is kept, what runs again).
   */
  interrupted?: string;
  /** Extra lines for `--help`: JSON shape, exit codes, examples. */
  details?: string;
  run: (ctx: { positionals: string[]; values: Record<string, string | boolean | string[] | undefined>; io: CliIo }) => Promise<number>;
}

/** A mistake in how the command was called: exit code 2 with a one-line message and a pointer to `--help`. */
export class UsageError extends MemdirError<'usage'> {
  override readonly name = 'UsageError';
  constructor(message: string, options?: MemdirErrorOptions) {
    super('usage', message, options);
  }
}

/** An I/O or data problem that stops the command: exit code 2 with a one-line message. */
export class CliFailure extends MemdirError<'failed'> {
  override readonly name = 'CliFailure';
  constructor(message: string, options?: MemdirErrorOptions) {
    super('failed', message, options);
  }
}

/** The exit codes are src/shared/errors.ts's, where the table that uses them is. */
export { EXIT_ERROR, EXIT_OK, EXIT_PROBLEMS };

/**
 * The one exit-code contract of every command, as `memdir --help` prints it and README's "The
 * `memdir` command" quotes it word for word (readme.test.ts checks); a command's own --help says
 * only what 1 means for it.
 */
export const EXIT_CODES_HELP = `Exit codes: 0 done; 1 it ran but could not do it all (every unit failed or nothing could be done,
problems found, conflicts left, not started, held back), its output says what; 2 usage, bad input or an
I/O error (one line on stderr); 130 stopped by Ctrl-C (143 by SIGTERM), once a write under way is
finished: nothing is left half-written. Done in part is 0 when the rest is taken up by the next run by
itself (extract's turns the model failed on, or its record a full disk kept it from saving), 1 when it waits for you (conflicts, problems).`;

export const homeOption: OptionSpec = { type: 'string', valueName: 'H', description: 'Claude Code home (default: $CLAUDE_CONFIG_DIR, else ~/.claude)' };
export const jsonOption: OptionSpec = { type: 'boolean', description: 'print JSON instead of text' };

/** `--allow FINGERPRINT`, for a command that writes text a person wrote: a secret to write anyway, on purpose. */
export const allowSecretOption: OptionSpec = {
  type: 'string',
  multiple: true,
  valueName: 'FINGERPRINT',
  description: 'write this secret anyway, on purpose (its fingerprint, as the refusal prints it; repeat for several)',
};

/** What every command taking {@link allowSecretOption} says in its --help. */
export const ALLOW_SECRET_HELP = `A merged text holding a secret that neither version held is refused, nothing written: Claude Code sends every
memory to the model in every session. The refusal names each secret, masked, with its fingerprint; remove it,
or write it anyway on purpose with --allow <fingerprint>.`;

/** The fingerprints given with `--allow`. */
export function allowedSecrets(values: Record<string, unknown>): string[] {
  const allow = values.allow;
  return Array.isArray(allow) ? allow.map(String) : typeof allow === 'string' ? [allow] : [];
}

/** A save refused for a secret (SecretFoundError), told the CLI's way to write it anyway. */
export async function withAllowHint<T>(save: () => Promise<T>): Promise<T> {
  try {
    return await save();
  } catch (error) {
    // Told by its code, not its class: this file is loaded by every command (the hook's too), the scanner is not.
    if (!(error instanceof MemdirError) || error.code !== 'secret-found') throw error;
    const secrets = (error as { secrets?: { fingerprint: string }[] }).secrets ?? [];
    const flags = secrets.map((s) => `--allow ${s.fingerprint}`).join(' ');
    throw new MemdirError('secret-found', error.message, { hint: `Remove it (and revoke it if it is real), or run again with ${flags} to write it anyway.` });
  }
}

export function printJson(io: CliIo, value: unknown): void {
  io.out(`${JSON.stringify(value, null, 2)}\n`);
}

/**
 * A whole-number option, or `fallback` when it is absent. Digits only — `1e3`, `0x10`, `-5`, `2.5`,
 * `""` are refused — and within [`min`, `max`]: a nonsense limit (`--max-body 0`) is refused with a
 * sentence, never accepted and discovered later.
 */
export function wholeNumberOption(
  values: Record<string, unknown>,
  name: string,
  range: { min: number; max: number; unit?: string },
  fallback?: number,
): number | undefined {
  const raw = values[name];
  if (raw === undefined) return fallback;
  const unit = range.unit ? ` ${range.unit}` : '';
  const text = String(raw).trim();
  const n = /^\d{1,16}$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n < range.min || n > range.max) {
    throw new UsageError(
      `--${name} must be a whole number from ${range.min.toLocaleString('en')} to ${range.max.toLocaleString('en')}${unit}, not ${JSON.stringify(String(raw).slice(0, 40))}`,
    );
  }
  return n;
}

/**
 * The parent of a command family (`memdir hooks`): alone it says to name a subcommand, listing
 * them; `--help` lists each with its summary. One shape for every family without its own.
 */
export function familyCommand(family: string, summary: string, subcommands: readonly CommandSpec[]): CommandSpec {
  const names = subcommands.map((c) => c.name.slice(1).join(' '));
  return {
    name: [family],
    summary,
    args: [],
    options: {},
    details: `${subcommands.map((c) => `memdir ${c.name.join(' ')}: ${c.summary}`).join('\n')}
Run \`memdir ${family} <subcommand> --help\` for each one's options and JSON output.`,
    async run({ io }) {
      io.err(`memdir ${family}: name a subcommand (${names.join(', ')}). Run \`memdir ${family} --help\`.\n`);
      return EXIT_ERROR;
    },
  };
}
