#!/usr/bin/env node
/** The `memdir` executable. */
import { runCli } from './main.js';

const argv = process.argv.slice(2);
// Claude Code runs `memdir hook <event>` on every turn: load that command alone, not the CLI.
const only = argv[0] === 'hook' ? [(await import('./commands/hook.js')).hookCommand] : undefined;
const code = await runCli(argv, {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  env: process.env,
  cwd: process.cwd(),
  stdin: process.stdin,
}, only);
process.exitCode = code;
