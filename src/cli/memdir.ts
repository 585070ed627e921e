#!/usr/bin/env node
/** The `memdir` executable. */
// Before the CLI's code loads, so stack traces name the files under src/ (the build bundles it);
// a map is read when a stack names its file, not as every module loads (every hook runs this CLI).
import { mapStackTracesLazily } from '../main/core/index.js';
mapStackTracesLazily();
const { runCli } = await import('./main.js');

/**
 * Writes to stdout or stderr, dropped once the reader went away (`memdir show … | head`): the
 * pipe's EPIPE would otherwise be an unhandled 'error' event and a crash with a stack trace.
 * The command runs to its end — a write it started (lint --fix) is never cut short — and exits
 * with its own code, quietly.
 */
function writer(stream: NodeJS.WriteStream): (text: string) => void {
  let gone = false;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    gone = true;
  });
  return (text) => {
    if (!gone) stream.write(text);
  };
}

const argv = process.argv.slice(2);
// Claude Code runs `memdir hook <event>` on every turn: load that command alone, not the CLI.
const only = argv[0] === 'hook' ? [(await import('./commands/hook.js')).hookCommand] : undefined;
const code = await runCli(
  argv,
  {
    out: writer(process.stdout),
    err: writer(process.stderr),
    env: process.env,
    cwd: process.cwd(),
    stdin: process.stdin,
  },
  only,
);
process.exitCode = code;
