/**
 * Ctrl-C (SIGINT) or SIGTERM while a command runs, one way for every command. Node's default dies
 * at once, wherever the command is: a merge half-way between its folders (put back only by the next
 * merge command or the app's start), a change of several files part-made — and says nothing. Here:
 * - no write under way (no Memdir lock held: locks-held.ts): the command stops at once, saying
 *   nothing is half-written;
 * - a write under way: it is finished first — the command stops as soon as no lock is held — and
 *   the command says so when it stops; a second Ctrl-C stops at once, saying what that leaves.
 * A lock that only guards a run (an extraction, while the model answers) is no write: the command
 * stops at once (core/lock.ts `guard`). The command's spec says what a stop keeps (`interrupted`):
 * its sentence follows this rule's.
 * Exit 130 (SIGINT) or 143 (SIGTERM), as a shell reports a process the signal ended. A command that
 * answers the signal itself (`memdir dream` cancels its dream, `memdir server` stops gracefully)
 * says so in its spec (`ownInterrupt`) and is run without this; it hears the signal through
 * {@link hearSignals}, so it exits with the same code (the server, whose only end is a signal, exits 0).
 */
import { isLockHeld, whenNoLockHeld } from '../main/core/index.js';
import type { CliIo } from './command.js';

export const EXIT_BY_SIGNAL = { SIGINT: 130, SIGTERM: 143 } as const;
type Stop = keyof typeof EXIT_BY_SIGNAL;
const KEY: Record<Stop, string> = { SIGINT: 'Ctrl-C', SIGTERM: 'SIGTERM' };

/** Runs `run` (the command `name`) with Ctrl-C and SIGTERM as the module comment says; `keeps` is its spec's `interrupted`. */
export async function runInterruptibly(
  name: string,
  io: CliIo,
  run: () => Promise<number>,
  { keeps, exit = (code) => process.exit(code) }: { keeps?: string | undefined; exit?: (code: number) => void } = {},
): Promise<number> {
  const kept = keeps ? ` ${keeps}` : '';
  let stopping = false;
  const onSignal = (signal: Stop) => {
    const code = EXIT_BY_SIGNAL[signal];
    if (stopping) {
      io.err(
        `memdir ${name}: stopped at once (${KEY[signal]} again): the write under way may be part-made. History shows what changed; a merge, relink or import cut short is put back by the next \`memdir merge list\`.\n`,
      );
      exit(code);
      return;
    }
    stopping = true;
    if (!isLockHeld()) {
      io.err(`memdir ${name}: stopped (${KEY[signal]}). No write was under way: nothing is half-written.${kept}\n`);
      exit(code);
      return;
    }
    io.err(`memdir ${name}: ${KEY[signal]}: finishing the write under way first, so nothing is left half-written (${KEY[signal]} again stops at once).\n`);
    void whenNoLockHeld().then(() => {
      io.err(`memdir ${name}: stopped after finishing the write under way: nothing is half-written (History has what it wrote).${kept}\n`);
      exit(code);
    });
  };
  const signals = Object.keys(EXIT_BY_SIGNAL) as Stop[];
  for (const signal of signals) process.on(signal, onSignal);
  try {
    return await run();
  } finally {
    for (const signal of signals) process.off(signal, onSignal);
  }
}

/**
 * For a command that answers Ctrl-C and SIGTERM itself (`ownInterrupt`: a dream cancels itself
 * and reports it): keeps the process up to let it, aborts `signal` at the first one (the work
 * stops where it safely can; `stopping` says so at once on stderr), and a second one stops at once
 * saying what that leaves (`cutShort`).
 * `stopped()` is the exit code the command then returns (130 or 143) with `say` on stderr, or null
 * when no signal came.
 */
export function hearSignals(
  name: string,
  io: CliIo,
  { stopping, cutShort }: { stopping: string; cutShort: string },
  exit: (code: number) => void = (code) => process.exit(code),
) {
  let heard: Stop | null = null;
  const controller = new AbortController();
  const onSignal = (signal: Stop) => {
    if (heard) {
      io.err(`memdir ${name}: stopped at once (${KEY[signal]} again). ${cutShort}\n`);
      exit(EXIT_BY_SIGNAL[signal]);
      return;
    }
    heard = signal;
    // Said at once: the stop may wait for a safe point (a model call to end), and the person (or a script) knows it was heard.
    io.err(`memdir ${name}: ${KEY[signal]}: ${stopping} (${KEY[signal]} again stops at once).\n`);
    controller.abort(new Error(`Stopped by ${KEY[signal]} (${signal}).`));
  };
  const signals = Object.keys(EXIT_BY_SIGNAL) as Stop[];
  for (const signal of signals) process.on(signal, onSignal);
  return {
    signal: controller.signal,
    /** Stop listening (the command's work is over). */
    dispose: () => {
      for (const signal of signals) process.off(signal, onSignal);
    },
    /** The exit code of the signal that came, once `say` (what the stop kept) is on stderr; null when none came. */
    stopped: (say: string): number | null => {
      if (!heard) return null;
      io.err(`memdir ${name}: stopped (${KEY[heard]}). ${say}\n`);
      return EXIT_BY_SIGNAL[heard];
    },
  };
}
