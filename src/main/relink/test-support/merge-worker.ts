/**
 * Child process for the CLI's killed-merge tests (cli relink.test.ts), through the services the
 * CLI and the app call: `merge <home> <dataDir> <from> <into>`, a clone merge of project <from>
 * into <into> (folder names), or `undo <dataDir> <id>`, the undo of merge <id>. Prints "ready" once
 * its modules are loaded, starts when a line arrives on stdin; the test SIGKILLs it.
 */
import { once } from 'node:events';
import { mergeProjects, undoMerge } from '../index.js';

const [action = '', ...args] = process.argv.slice(2);

process.stdout.write('ready\n');
await once(process.stdin, 'data');
if (action === 'undo') await undoMerge(args[0] ?? '', args[1] ?? '');
else {
  const [home = '', dataDir = '', from = '', into = ''] = args;
  await mergeProjects({ home, dataDir }, from, into);
}
process.stdout.write('done\n');
