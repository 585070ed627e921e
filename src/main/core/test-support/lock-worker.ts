/**
 * Child process for core/lock.test.ts. `loop <lockPath> <log> <count>`: prints "ready", waits for
 * a line on stdin (so all workers start together), then takes the lock `count` times through
 * `withLock`, appending `start <pid>` … `end <pid>` to a shared log inside it. `hold <lockPath>`:
 * takes the lock through `acquireLock`, prints "locked" and waits to be killed.
 */
import fs from 'node:fs';
import { once } from 'node:events';
import { acquireLock, withLock } from '../lock.js';

const [mode, lockPath = '', logPath = '', count = '0'] = process.argv.slice(2);
const sentences = { busy: 'busy', lost: 'lost' };

if (mode === 'hold') {
  await acquireLock(lockPath, { timeoutMs: 30_000, ...sentences });
  process.stdout.write('locked\n');
  // A pending promise alone does not keep Node alive; the timer does, until SIGKILL.
  setInterval(() => undefined, 1000);
} else {
  process.stdout.write('ready\n');
  await once(process.stdin, 'data');
  process.stdin.pause();
  for (let i = 0; i < Number(count); i++) {
    await withLock(
      lockPath,
      async () => {
        fs.appendFileSync(logPath, `start ${process.pid}\n`);
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 3));
        fs.appendFileSync(logPath, `end ${process.pid}\n`);
      },
      { timeoutMs: 30_000, ...sentences },
    );
    // A pause between rounds, as real callers have, so the processes really take turns.
    await new Promise((resolve) => setTimeout(resolve, 2 + Math.random() * 3));
  }
}
