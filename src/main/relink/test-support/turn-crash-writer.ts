/**
 * Child process for the two-folder crash test (turn-crash.test.ts): merges clone A's memory into
 * clone B's, then undoes that merge, again and again, through the same service the CLI and the
 * app call, until it is SIGKILLed. Like the CLI, each run first finishes what a killed one left,
 * then goes on from where the records say the merge is: standing, it is undone first.
 * Prints "ready" once its modules are loaded, starts when a line arrives on stdin, and prints
 * "recovered" once what a killed run left is finished.
 */
import { once } from 'node:events';
import { finishUnfinishedTurn, listMergeRecords, mergeProjects, undoMerge } from '../index.js';

const [home = '', dataDir = '', from = '', into = ''] = process.argv.slice(2);

process.stdout.write('ready\n');
await once(process.stdin, 'data');
await finishUnfinishedTurn(dataDir);
process.stdout.write('recovered\n');
const standing = (await listMergeRecords(dataDir)).find((r) => !r.undone);
if (standing) await undoMerge(dataDir, standing.id);
for (;;) {
  const record = await mergeProjects({ home, dataDir }, from, into);
  await undoMerge(dataDir, record.id);
}
