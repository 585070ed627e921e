/**
 * Child process for the concurrent credentials test: prints "ready", waits for a line on stdin
 * (so both workers start together), then stores `count` tokens `<prefix>-<n>`, one `set` each
 * (the app saving a key while `memdir team`/`personal` saves a token).
 */
import { once } from 'node:events';
import { FileCredentialStore } from '../credentials.js';

const [dataDir = '', prefix = '', count = '1'] = process.argv.slice(2);
process.stdout.write('ready\n');
await once(process.stdin, 'data');
process.stdin.pause();
const store = new FileCredentialStore(dataDir);
for (let n = 0; n < Number(count); n++) await store.set(`${prefix}-${n}`, `token-${prefix}-${n}`);
process.stdout.write('saved\n');
