/**
 * Child process for the kept-apart test: prints "ready", waits for a line on stdin (so both
 * workers start together), then keeps `count` pairs `<prefix>-<n>-a`/`<prefix>-<n>-b` apart, one
 * call each, as a user clicking "Keep apart" on several groups would.
 */
import { once } from 'node:events';
import { keepApart } from '../clone-groups.js';

const [dataDir = '', prefix = '', count = '1'] = process.argv.slice(2);
process.stdout.write('ready\n');
await once(process.stdin, 'data');
process.stdin.pause();
for (let n = 0; n < Number(count); n++) await keepApart(dataDir, [`-${prefix}-${n}-a`, `-${prefix}-${n}-b`]);
process.stdout.write('saved\n');
