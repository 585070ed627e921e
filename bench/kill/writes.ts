/**
 * Kills during writes: the crash test's writer (memories written in a loop through `transact` +
 * `writeFileAtomic`, src/main/history/test-support/crash-writer.ts) SIGKILLed at random moments.
 * After each kill, as on a next start: every file holds a content that was written whole, none
 * that was written is gone, the history passes `git fsck`, and the next writer records what the
 * dead one left so history again holds exactly what is on disk.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { listHistory, recordSnapshot, transact } from '../../src/main/history/history.js';
import { checkAfterKill, fsckHistory } from '../../src/main/history/test-support/crash-check.js';
import { type KillTally, type Worker, bundleWorker, emptyTally, landed, note, releaseAndKill, startWorker } from './harness.js';

export async function killWrites(kills: number, random: () => number): Promise<KillTally> {
  const tally = emptyTally();
  const bundle = await bundleWorker('src/main/history/test-support/crash-writer.ts');
  const root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-kill-writes-')));
  const mem = path.join(root, 'memory');
  const dataDir = path.join(root, 'data');
  const logPath = path.join(root, 'writes.log');
  await fs.mkdir(mem);
  await fs.writeFile(logPath, '');
  try {
    let next: Promise<Worker> = startWorker(bundle, [mem, dataDir, logPath]);
    for (let i = 0; i < kills; i++) {
      const worker = await next;
      const ended = await releaseAndKill(worker, 5 + random() * 250, { group: random() < 0.3 });
      if (ended === 'killed') tally.kills++;
      else note(tally, 'crashes', `the writer died on its own: ${worker.stderr().slice(0, 300)}`);
      // The next writer loads while this one's leftovers are checked; it touches nothing before "go".
      next = startWorker(bundle, [mem, dataDir, logPath]);
      const log = await fs.readFile(logPath, 'utf8');
      if (ended === 'killed') landed(tally, log.slice(0, -1).split('\n').at(-1)?.startsWith('intend') ? 'mid-write' : 'between writes');
      const check = await checkAfterKill(mem, log);
      for (const file of check.torn) note(tally, 'losses', `after kill ${i}, ${file} holds content never written whole`);
      for (const file of check.vanished) note(tally, 'losses', `after kill ${i}, ${file} vanished`);
      if (check.badIndex) note(tally, 'losses', `after kill ${i}, MEMORY.md holds a broken line`);
      try {
        await fsckHistory(dataDir, i > 0);
        await listHistory(mem, { dataDir, limit: 3 });
        // What a next start does first: take the dead writer's lock, record what it left.
        await transact(mem, { source: 'fix', summary: 'Next start', dataDir }, async () => undefined);
        if ((await fs.readdir(mem)).some((n) => n.startsWith('.'))) note(tally, 'history', `after kill ${i}, temp files were left behind`);
        if ((await recordSnapshot(mem, { source: 'fix', summary: 'Left unrecorded', dataDir })) !== null)
          note(tally, 'history', `after kill ${i}, a change on disk was not in history`);
      } catch (error) {
        note(tally, 'history', `after kill ${i}: ${(error as Error).message.split('\n')[0]}`);
      }
    }
    (await next).child.kill('SIGKILL');
  } finally {
    await fs.rm(root, { recursive: true, force: true });
  }
  return tally;
}
