/**
 * Child process for the cross-process dream lock tests (run with `node --import tsx`).
 *   race <memoryDir> <dataDir>: prints "ready"; then for each stdin line "go <n>" tries to take
 *     the lock and prints "<n> won" or "<n> lost <reason>"; "end <n>" ends a held lock (release
 *     on even rounds, rollback on odd) and prints "<n> ended"; "quit" exits.
 *   hold <memoryDir> <dataDir>: takes the lock through withDreamLock, prints "locked <pid>" and
 *     waits until it is killed or signalled.
 *   try <memoryDir> <dataDir>: tries once, prints the outcome as one JSON line (rolls back if it
 *     won). The permission tests run it as another user.
 */
import readline from 'node:readline';
import { type DreamLock, acquireDreamLock } from '../consolidation-lock.js';
import { withDreamLock } from '../with-dream-lock.js';

const [mode, memoryDir = '', dataDir = ''] = process.argv.slice(2);

if (mode === 'hold') {
  const result = await withDreamLock(
    memoryDir,
    async ({ signal }) => {
      process.stdout.write(`locked ${process.pid}\n`);
      // Waits like a long dream phase would, until cancelled.
      await new Promise<never>((_, reject) => {
        const timer = setInterval(() => undefined, 1000);
        signal.addEventListener('abort', () => {
          clearInterval(timer);
          reject(signal.reason as Error);
        });
      });
    },
    { dataDir },
  );
  process.stdout.write(`result ${result.outcome}\n`);
} else if (mode === 'try') {
  const taken = await acquireDreamLock(memoryDir, { dataDir });
  if (taken.ok) await taken.lock.rollback();
  const problem = taken.ok ? null : taken.problem;
  process.stdout.write(`${JSON.stringify({ ok: taken.ok, reason: problem?.reason, message: problem?.message, status: problem?.status })}\n`);
} else if (mode === 'race') {
  let held: DreamLock | null = null;
  const lines = readline.createInterface({ input: process.stdin });
  process.stdout.write('ready\n');
  for await (const line of lines) {
    const [verb, round = '0'] = line.trim().split(' ');
    if (verb === 'go') {
      const taken = await acquireDreamLock(memoryDir, { dataDir });
      if (taken.ok) held = taken.lock;
      process.stdout.write(taken.ok ? `${round} won\n` : `${round} lost ${taken.problem.reason}\n`);
    } else if (verb === 'end') {
      if (held) await (Number(round) % 2 === 0 ? held.release() : held.rollback());
      held = null;
      process.stdout.write(`${round} ended\n`);
    } else if (verb === 'quit') {
      break;
    }
  }
  lines.close();
} else {
  process.stderr.write(`lock-worker: unknown mode ${mode}\n`);
  process.exitCode = 2;
}
