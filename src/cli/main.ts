/**
 * `memdir` command-line entry: parses arguments, dispatches to a command, turns every failure
 * into a one-line message and an exit code (command.ts EXIT_CODES_HELP: the one contract).
 */
import path from 'node:path';
import { type CliIo, type CommandSpec, EXIT_CODES_HELP, EXIT_ERROR, UsageError } from './command.js';
import { MemdirError, errorMapping, oneLine } from '../shared/errors.js';
import { VERSION, inTerminal, resolveDataDir, workInDataDir } from '../main/core/index.js';
import { visibleText } from '../shared/visible-text.js';
import { failureSentence } from '../shared/failure-words.js';

/** An option as usage and --help show it: `--name` or `--name VALUE`. */
function flagOf(name: string, o: CommandSpec['options'][string]): string {
  return o.type === 'boolean' ? `--${name}` : `--${name} ${o.valueName ?? name.toUpperCase()}`;
}

function usageLine(spec: CommandSpec): string {
  const opts = Object.entries(spec.options)
    .map(([name, o]) => (o.required ? flagOf(name, o) : `[${flagOf(name, o)}]`))
    .join(' ');
  return ['memdir', ...spec.name, ...spec.args, opts].filter(Boolean).join(' ');
}

export function commandHelp(spec: CommandSpec): string {
  const lines = [`Usage: ${usageLine(spec)}`, '', spec.summary];
  const opts = Object.entries(spec.options);
  if (opts.length > 0) {
    lines.push('', 'Options:');
    for (const [name, o] of opts) lines.push(`  ${flagOf(name, o).padEnd(24)} ${o.description}${o.required ? ' (required)' : ''}`);
  }
  if (spec.details) lines.push('', spec.details.trimEnd());
  if (spec.interrupted) lines.push(`Ctrl-C stops it (exit 130) without waiting for the model: ${spec.interrupted}`);
  return `${lines.join('\n')}\n`;
}

export function globalHelp(commands: CommandSpec[]): string {
  const width = Math.max(...commands.map((c) => c.name.join(' ').length)) + 2;
  const lines = [
    "memdir — long-term memory for AI coding agents, on Claude Code's own files.",
    '',
    'Usage: memdir <command> [options]',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.join(' ').padEnd(width)} ${c.summary}`),
    '',
    "Run `memdir <command> --help` (or `memdir help <command>`) for a command's options and JSON output.",
    EXIT_CODES_HELP,
  ];
  return `${lines.join('\n')}\n`;
}

/** How many one-letter edits (a letter added, dropped, changed, or two swapped) turn `a` into `b`. */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  return d[a.length]![b.length]!;
}

/**
 * The one of `candidates` a mistyped `word` most likely meant (`scna` → `scan`, `-j` → `json`), or
 * null: a candidate it begins, else one within an edit or two (one for a short word).
 */
export function didYouMean(word: string, candidates: readonly string[]): string | null {
  const typed = word.toLowerCase();
  if (typed.length === 0) return null;
  const prefixed = candidates.filter((c) => c.startsWith(typed));
  if (prefixed.length === 1 || (typed.length === 1 && prefixed.length > 0)) return prefixed[0]!;
  const near = candidates
    .map((c) => ({ c, d: editDistance(typed, c) }))
    .filter(({ c, d }) => d <= (Math.min(typed.length, c.length) > 4 ? 2 : 1))
    .sort((x, y) => x.d - y.d);
  return near[0]?.c ?? null;
}

/** What `memdir <family> <word>` says of a word that is none of the family's subcommands. */
function unknownSubcommand(spec: CommandSpec, word: string, commands: CommandSpec[]): UsageError | null {
  const subs = commands.filter((c) => c.name.length === spec.name.length + 1 && spec.name.every((w, i) => c.name[i] === w)).map((c) => c.name.at(-1)!);
  if (subs.length === 0 || word.startsWith('-')) return null;
  const meant = didYouMean(word, subs);
  return new UsageError(
    meant ? `unknown subcommand "${word}": did you mean \`memdir ${[...spec.name, meant].join(' ')}\`?` : `unknown subcommand "${word}" (${subs.join(', ')})`,
  );
}

/** What an option the command does not have is told: `--jsno` or `-j`, with the option meant. */
function unknownOption(typed: string, spec: CommandSpec): UsageError {
  const meant = didYouMean(typed.replace(/^--?/, '').replace(/=.*$/s, ''), Object.keys(spec.options));
  return new UsageError(`unknown option ${typed.replace(/=.*$/s, '')}${meant ? `: did you mean --${meant}?` : ''}`);
}

/** Whether `word` is one of the command's options (`--name` or `--name=value`). */
function isOptionOf(word: string | undefined, spec: CommandSpec): boolean {
  if (!word?.startsWith('--')) return false;
  const eq = word.indexOf('=');
  return Object.hasOwn(spec.options, word.slice(2, eq === -1 ? undefined : eq));
}

/**
 * Parse a command's arguments. Not node:util's parseArgs, because project directory names
 * start with a dash (`-Users-me-app`): here only `--name`, `--name=value` and `-h` are options,
 * any other word is a positional, and a string option takes the next word unless that word is
 * one of the command's options (then its value was left out; `--name=--x` still gives one).
 */
export function parseCommandArgs(
  argv: string[],
  spec: CommandSpec,
): { positionals: string[]; values: Record<string, string | boolean | string[] | undefined> } {
  const positionals: string[] = [];
  const values: Record<string, string | boolean | string[] | undefined> = {};
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (token === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!token.startsWith('--') || token === '--') {
      positionals.push(token);
      continue;
    }
    const eq = token.indexOf('=');
    const name = token.slice(2, eq === -1 ? undefined : eq);
    const option = spec.options[name];
    if (!option) throw unknownOption(token, spec);
    if (option.type === 'boolean') {
      if (eq !== -1) throw new UsageError(`--${name} takes no value`);
      values[name] = true;
      continue;
    }
    let value: string | undefined;
    if (eq !== -1) value = token.slice(eq + 1);
    // The next word is this command's option (`--query --home H`): the value was left out.
    else if (!isOptionOf(argv[i + 1], spec)) value = argv[++i];
    if (value === undefined) throw new UsageError(`--${name} needs a value`);
    if (option.multiple) values[name] = [...((values[name] as string[] | undefined) ?? []), value];
    else values[name] = value;
  }
  return { positionals, values };
}

/** Find the longest command name that prefixes argv. */
function findCommand(argv: string[], commands: CommandSpec[]): { spec: CommandSpec; rest: string[] } | null {
  let best: { spec: CommandSpec; rest: string[] } | null = null;
  for (const spec of commands) {
    if (spec.name.every((word, i) => argv[i] === word) && (!best || spec.name.length > best.spec.name.length)) {
      best = { spec, rest: argv.slice(spec.name.length) };
    }
  }
  return best;
}

/**
 * The one place every CLI output goes through (issue 15, finding 7): server answers, team and
 * file names, error messages and memory contents come from outside, and a terminal obeys the
 * escape sequences they may hold. Control and format characters are written as `\uXXXX`
 * (visible-text.ts) — in JSON output too, where that is the same string once parsed. Nothing else
 * is rewritten: `memdir show --loaded` prints what the agent gets, word for word.
 */
function terminalSafe(io: CliIo): CliIo {
  return { ...io, out: (text) => io.out(visibleText(text)), err: (text) => io.err(visibleText(text)) };
}

/**
 * What a failed command prints and exits with. A MemdirError as the one table in src/shared/errors.ts
 * says (the app's dispatcher reads the same table): its message on one line, its hint on the
 * next, never a stack or a class name. Anything else is an I/O problem or Memdir's bug: its first
 * line (the stack only with MEMDIR_DEBUG set).
 */
export function failureOutput(command: string, error: unknown): { lines: string[]; exit: number } {
  const name = `memdir ${command}`;
  if (error instanceof MemdirError) {
    const mapping = errorMapping(error.code);
    const message = oneLine(error.message);
    // A message that ends its own sentence (`did you mean --json?`) is not given a second full stop.
    const ended = /[.?!]$/.test(message) ? message : `${message}.`;
    const lines = [mapping.print === 'usage' ? `${name}: ${ended} Run \`${name} --help\`.` : `${name}: ${message}`];
    if (error.hint) lines.push(`${name}: ${oneLine(error.hint)}`);
    // A refusal a flag overrules names the flag, whoever worded it (the service speaks to the app too).
    const flag = error.overruledBy ? `--${error.overruledBy.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}` : null;
    if (flag && !lines.some((line) => line.includes(flag))) lines.push(`${name}: run it again with ${flag} to do it anyway.`);
    return { lines, exit: mapping.exit };
  }
  return { lines: [`${name}: ${failureSentence(error)}`], exit: EXIT_ERROR };
}

/**
 * Run one `memdir` invocation. `commands` defaults to every command (loaded on demand, so a
 * caller that needs one command — the hook, run by Claude Code on every turn — loads only it).
 */
export function runCli(argv: string[], raw: CliIo, commands?: CommandSpec[]): Promise<number> {
  // A sentence that says how to fix something says it the terminal's way (core/surface-words.ts).
  return inTerminal(() => run(argv, raw, commands));
}

async function run(argv: string[], raw: CliIo, commands?: CommandSpec[]): Promise<number> {
  const io = terminalSafe(raw);
  commands ??= (await import('./registry.js')).COMMANDS;
  // `memdir help team sync` is `memdir team sync --help`.
  if (argv[0] === 'help' && argv.length > 1) return run([...argv.slice(1), '--help'], raw, commands);
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    io.out(globalHelp(commands));
    return argv.length === 0 ? EXIT_ERROR : 0;
  }
  if (argv[0] === '--version' || argv[0] === '-v') {
    io.out(`${VERSION}\n`);
    return 0;
  }
  const found = findCommand(argv, commands);
  if (!found) {
    const meant = didYouMean(argv[0]!, [...new Set(commands.map((c) => c.name[0]!))]);
    io.err(`memdir: unknown command "${argv[0]}"${meant ? `: did you mean \`memdir ${meant}\`?` : '.'} Run \`memdir --help\` for the list.\n`);
    return EXIT_ERROR;
  }
  const { spec, rest } = found;
  if (rest.includes('--help') || rest.includes('-h')) {
    io.out(commandHelp(spec));
    return 0;
  }
  // What lives in the data dir for the whole run (the key of secrets' fingerprints) is the one this run was given.
  workInDataDir(resolveDataDir(io.env));
  try {
    const parsed = parseCommandArgs(rest, spec);
    // A command that takes `--data-dir D` (the hooks Claude Code runs) works in D: every path under it follows.
    const dataDir = parsed.values['data-dir'];
    if (typeof dataDir === 'string') workInDataDir(path.resolve(io.cwd, dataDir));
    const required = spec.args.filter((a) => a.startsWith('<')).length;
    const optional = spec.args.length - required;
    const variadic = spec.args.some((a) => a.includes('...'));
    if (parsed.positionals.length < required || (!variadic && parsed.positionals.length > required + optional)) {
      // A word too many is most often a misspelt subcommand (`memdir team sycn`) or a short option (`-j`).
      const extra = parsed.positionals[required + optional];
      if (parsed.positionals.length > required + optional && extra !== undefined) {
        const sub = required + optional === 0 ? unknownSubcommand(spec, extra, commands) : null;
        if (sub) throw sub;
        if (/^-[A-Za-z]+$/.test(extra)) throw unknownOption(extra, spec);
      }
      throw new UsageError(
        `expected ${spec.args.join(' ') || 'no arguments'}, got ${parsed.positionals.length ? parsed.positionals.map((p) => `"${p}"`).join(' ') : 'none'}`,
      );
    }
    for (const [name, o] of Object.entries(spec.options))
      if (o.required && parsed.values[name] === undefined) throw new UsageError(`${flagOf(name, o)} is required: ${o.description}`);
    const run = () => spec.run({ positionals: parsed.positionals, values: parsed.values, io });
    if (spec.ownInterrupt) return await run();
    const { runInterruptibly } = await import('./interrupt.js');
    return await runInterruptibly(spec.name.join(' '), io, run, { keeps: spec.interrupted });
  } catch (error) {
    const { lines, exit } = failureOutput(spec.name.join(' '), error);
    for (const line of lines) io.err(`${line}\n`);
    if (io.env.MEMDIR_DEBUG) io.err(`${(error as Error).stack ?? ''}\n`);
    return exit;
  }
}
