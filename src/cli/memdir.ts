#!/usr/bin/env node
/** The `memdir` executable. */
import { runCli } from './main.js';

const code = await runCli(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  env: process.env,
  cwd: process.cwd(),
  stdin: process.stdin,
});
process.exitCode = code;
