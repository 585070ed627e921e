/**
 * Child process for the CLI's killed-merge tests (cli relink.test.ts): a clone merge of project
 * <from> into <into> (folder names), through the service the CLI and the app call. Prints "ready"
 * once its modules are loaded, starts when a line arrives on stdin; the test SIGKILLs it.
 */
import { once } from 'node:events';
import { mergeProjects } from '../index.js';

const [home = '', dataDir = '', from = '', into = ''] = process.argv.slice(2);

process.stdout.write('ready\n');
await once(process.stdin, 'data');
await mergeProjects({ home, dataDir }, from, into);
process.stdout.write('done\n');
