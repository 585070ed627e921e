/**
 * Child process for turn-as-one.test.ts: starts a turn of merge <id> (its intent written, the first
 * folder planned: b.md to write) and holds it, writing nothing, until it is killed — a turn under
 * way in another Memdir process. Prints "ready", starts on a line on stdin, prints "holding" once
 * the intent is down.
 */
import { once } from 'node:events';
import { journaled } from '../turn-as-one.js';

const [dataDir = '', memoryDir = '', id = ''] = process.argv.slice(2);

process.stdout.write('ready\n');
await once(process.stdin, 'data');
await journaled(dataDir, { op: 'turn', id, kind: 'merge', what: `undoing merge ${id}`, folders: [memoryDir], record: null }, async (journal) => {
  await journal.plan(memoryDir, [{ file: 'b.md', before: null, after: 'b' }]);
  process.stdout.write('holding\n');
  // Kept alive (a pending promise alone would let Node exit) until it is killed.
  await new Promise(() => setInterval(() => undefined, 1_000));
});
