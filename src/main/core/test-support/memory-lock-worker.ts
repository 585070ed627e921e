/**
 * Child process for the cross-process lock test. `loop`: prints "ready", waits for a line on stdin
 * (so both workers start together), then takes the memory lock `count` times: `ask <pid>` before
 * asking, `start <pid>` … `end <pid>` inside, `done <pid>` after the last. Inside, it holds on until
 * the other worker is asking too (or done), so every hold is contended however the machine
 * schedules them. `hold`: takes the lock once, prints "locked" and waits to be killed.
 */
import fs from 'node:fs';
import { once } from 'node:events';
import { withMemoryLock } from '../memory-lock.js';

const [mode, memoryDir = '', dataDir = '', logPath = '', count = '0'] = process.argv.slice(2);

if (mode === 'hold') {
  await withMemoryLock(
    memoryDir,
    () => {
      process.stdout.write('locked\n');
      // A pending promise alone does not keep Node alive; the timer does, until SIGKILL.
      setInterval(() => undefined, 1000);
      return new Promise<never>(() => undefined);
    },
    { dataDir },
  );
} else {
  process.stdout.write('ready\n');
  await once(process.stdin, 'data');
  process.stdin.pause();
  const others = () =>
    fs
      .readFileSync(logPath, 'utf8')
      .split('\n')
      .filter((line) => line !== '' && !line.endsWith(` ${process.pid}`));
  for (let i = 0; i < Number(count); i++) {
    fs.appendFileSync(logPath, `ask ${process.pid}\n`);
    await withMemoryLock(
      memoryDir,
      async () => {
        fs.appendFileSync(logPath, `start ${process.pid}\n`);
        // Until the other worker asks for the lock (or has finished): this hold is then contended.
        for (const until = Date.now() + 5_000; Date.now() < until; ) {
          const last = others().at(-1) ?? '';
          if (last.startsWith('ask ') || last.startsWith('done ')) break;
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 3));
        fs.appendFileSync(logPath, `end ${process.pid}\n`);
      },
      { dataDir, timeoutMs: 30_000 },
    );
    // A pause between writes, as real callers have: a holder that takes the lock again at once
    // can leave a waiter (backing off up to 200 ms) outside for all its rounds on a loaded
    // machine, and the test would then not contend at all.
    await new Promise((resolve) => setTimeout(resolve, 2 + Math.random() * 3));
  }
  fs.appendFileSync(logPath, `done ${process.pid}\n`);
}
