/**
 * Child process for killed-merge tests, through the services the CLI and the app call:
 * `merge <home> <dataDir> <from> <into>`, a clone merge of project <from> into <into> (folder
 * names), or `undo <dataDir> <id>`, the undo of merge <id>. Prints "ready" once its modules are
 * loaded, starts when a line arrives on stdin; the test SIGKILLs it — or, given
 * `--kill-after-writing <file>` (an absolute path), it SIGKILLs itself the moment a write lands on
 * that file (every Memdir write ends in a rename onto it, safe-fs): a real kill at an exact step.
 */
import { once } from 'node:events';
import fs from 'node:fs/promises';
import path from 'node:path';
import { mergeProjects, undoMerge } from '../index.js';

const args = process.argv.slice(2);
const at = args.indexOf('--kill-after-writing');
if (at >= 0) {
  const target = path.resolve(args.splice(at, 2)[1] ?? '');
  const rename = fs.rename.bind(fs);
  // The seam is the test's, in this child only: product code is not told.
  Object.assign(fs, {
    rename: async (from: string, to: string) => {
      await rename(from, to);
      if (path.resolve(String(to)) === target) process.kill(process.pid, 'SIGKILL');
    },
  });
}
const [action = '', ...rest] = args;

process.stdout.write('ready\n');
await once(process.stdin, 'data');
if (action === 'undo') await undoMerge(rest[0] ?? '', rest[1] ?? '');
else {
  const [home = '', dataDir = '', from = '', into = ''] = rest;
  await mergeProjects({ home, dataDir }, from, into);
}
process.stdout.write('done\n');
